"""``serve``: the local API without a window, and the token it is given (never from
the arguments)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TextIO

from cli.common import CommandError
from core.client import ClientError, WorkerClient
from core.models import resolve_embedding_model, resolve_model
from core.protocol import InferenceError, ModelSpec, embedding_model
from i18n import translate

API_TOKEN_ENV = "HEARTH_API_TOKEN"


MIN_TOKEN_LENGTH = 16


def token_in_arguments() -> str:
    """Why ``serve --token`` is refused, and what to do instead."""
    return translate("cli.commands", "--token is not accepted: every user of this computer can read "
                     "a program's arguments (ps). Put the token in {variable}, or in a file: "
                     "--token-file PATH (--token-file - reads it from standard input). Without "
                     "either, serve makes a new token and prints it.").format(variable=API_TOKEN_ENV)


def read_api_token(token_file: str | None, stdin: TextIO | None = None) -> str | None:
    """The bearer token the user chose, never from the arguments (``ps`` shows those): the
    first line of ``token_file`` (``-``: standard input), else HEARTH_API_TOKEN, which is
    removed from the environment so that no child inherits it. None: make a new one."""
    from_environment = os.environ.pop(API_TOKEN_ENV, None)
    if token_file is None:
        token = from_environment
        where = API_TOKEN_ENV
    else:
        where = translate("cli.commands", "standard input") if token_file == "-" else token_file
        try:
            text = (stdin or sys.stdin).readline() if token_file == "-" else \
                Path(token_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(translate("cli.commands", "The token could not be read from {where}: "
                                         "{reason}.").format(where=where, reason=exc)) from exc
        token = (text.strip().splitlines() or [""])[0].strip()
    if token is None:
        return None
    token = token.strip()
    if len(token) < MIN_TOKEN_LENGTH or not token.isprintable() or any(c.isspace() for c in token):
        raise CommandError(translate("cli.commands", "The token from {where} must be at least %n "
                                     "characters, without spaces.", None, MIN_TOKEN_LENGTH).format(
            where=where))
    return token


def serve(host: str, port: int, token: str | None) -> int:
    """The local API without a window: the starter (or chosen) model and the embedder."""
    import signal
    import threading

    from core.api import ApiServer, Backend
    from core.protocol import starter_model

    client = WorkerClient()
    try:
        path = resolve_model()
        client.load(ModelSpec(path))
        client.load_embedder(resolve_embedding_model())
        client.router.fallback = None  # from now on every event belongs to an API request
        model_id = Path(starter_model().file).stem if path.name == starter_model().file else path.stem
        backend = Backend(client.worker.submit, client.worker.cancel, client.router, lambda: model_id,
                          lambda: Path(embedding_model().file).stem,
                          embedding_sha256=lambda: embedding_model().sha256)
        try:
            server = ApiServer(backend, host=host, port=port, token=token)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        server.start()
        shown = server.token if token is None else translate("cli.commands", "the one you gave")
        print("\n".join((translate("cli.commands", "Hearth API on {url}").format(url=server.url),
                         translate("cli.commands", "model: {model}").format(model=model_id),
                         translate("cli.commands", "token: {token}").format(token=shown),
                         translate("cli.commands", "Conversations through the API are not stored. "
                                   "Ctrl+C stops."))), flush=True)
        stop = threading.Event()
        signal.signal(signal.SIGINT, lambda *_: stop.set())
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        stop.wait()
        server.stop()
    except (InferenceError, ClientError) as exc:
        raise CommandError(str(exc)) from exc
    finally:
        client.close(5.0)
    return 0
