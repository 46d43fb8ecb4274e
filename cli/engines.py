"""``engines add|list|check|remove``: intranet engines, for the administrator who sets
Hearth up for a whole office. The engines live in the user's vault (passphrase from
HEARTH_PASSPHRASE or a prompt), the API key too: it is read from the variable that
``--api-key-env`` names, never from the arguments, which every user can see in ``ps``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from cli.headless import HeadlessError, unlocked
from core.engines import EngineRecord, Engines, read_ca_file
from core.protocol import EngineError, Trust
from i18n import translate


class EngineCommandError(Exception):
    pass


@contextmanager
def opened() -> Iterator[Engines]:
    with unlocked() as session:
        yield session.engines


def describe(record: EngineRecord) -> str:
    models = ", ".join(f"{m.id} ({m.n_ctx or '?'})" for m in record.models) or "-"
    state = translate("cli.engines", "on") if record.enabled else translate("cli.engines", "off")
    return translate("cli.engines", "{name}: {url} [{state}] {kind}; models (context): {models}").format(
        name=record.name, url=record.url, state=state, kind=record.kind or "?", models=models)


def trust_from(args: Any) -> Trust:
    ca = read_ca_file(args.ca) if args.ca else ""
    # With the organisation's CA or a pin, only those are trusted unless --system-ca says
    # so too: a public CA need not vouch for an intranet name.
    system = bool(args.system_ca) or not (ca or args.pin)
    return Trust(system=system, ca_pem=ca, pin=args.pin or "", allow_http=bool(args.allow_http))


def api_key_from(variable: str | None) -> str:
    if not variable:
        return ""
    value = os.environ.pop(variable, None)  # children must not inherit it
    if not value:
        raise EngineCommandError(translate("cli.engines", "The variable {variable} is not set: it should "
                                           "hold the API key.").format(variable=variable))
    return value.strip()


def compare(args: Any) -> int:
    """``engines compare``: the local model and the engines (all switched on, or those
    named) on the built-in workload at each number of chats at once; a table and a verdict,
    kept in the vault."""
    from cli.common import local_spec
    from core import compare as comparing
    from core.client import ClientError, WorkerClient
    from core.protocol import InferenceError

    levels = sorted({int(n) for n in args.levels.split(",") if n.strip().isdigit() and 0 < int(n) <= 64}) or [1]
    with unlocked() as session:
        # As many of the user's questions as the run asks, so that what is said is what goes.
        asked = min(comparing.OWN_QUESTIONS, max(levels) * max(1, args.rounds))
        own = comparing.own_questions(session.store, asked) if args.own_chats else None
        questions = own.questions if own is not None else list(comparing.QUESTIONS)
        if not questions:
            raise EngineCommandError(translate("cli.engines", "--own-chats: your chats hold no question yet."))
        engines = session.engines
        wanted = [engines.require(name) for name in args.engine] if args.engine else \
            [r for r in engines.records() if r.enabled]
        with WorkerClient(with_embedder=False) as client:
            targets = []
            if not args.no_local:
                loaded = client.load(local_spec(args.model, session))
                targets.append(comparing.Target(translate("cli.engines", "local: {model}").format(model=loaded.name)))
            if wanted:
                client.use_engines(engines.engine_for)
            for record in wanted:
                model = record.model()
                if own is not None:
                    count = len(questions)
                    print(translate("cli.engines", "{name} at {where} is sent the last %n question(s) you wrote in "
                                    "your chats ({chats}), and nothing else.", None, count).format(
                        name=record.name, where=record.where, chats=", ".join(own.chats)), file=sys.stderr)
                else:
                    print(translate("cli.engines", "{name} at {where} is sent Hearth's built-in questions only.").format(
                        name=record.name, where=record.where), file=sys.stderr)
                targets.append(comparing.Target(f"{record.name} ▸ {model.id}", record.name, model.id))
            if not targets:
                raise EngineCommandError(translate("cli.engines", "Nothing to compare: no engine is on, and "
                                                   "--no-local leaves out the local model."))
            try:
                results = comparing.measure(client, targets, levels, args.max_tokens, rounds=max(1, args.rounds),
                                            questions=questions)
            except (ClientError, TimeoutError, InferenceError) as exc:
                raise EngineCommandError(translate("cli.engines", "The comparison stopped: {reason}").format(
                    reason=exc)) from None
            for line in comparing.table(results) + [""] + comparing.verdict(results, args.target):
                print(line, flush=True)
            # kept before anything else can fail
            comparing.keep(session.library, results, args.target, "own" if args.own_chats else "built-in")
            written(args, results)
            for record in wanted if args.migration else []:
                model = record.model()
                print("\n" + translate("cli.engines", "Moving to {name} ▸ {model}:").format(
                    name=record.name, model=model.id))
                try:
                    lines = comparing.migration(client, record.name, model.id, model.n_ctx)
                except (ClientError, TimeoutError, InferenceError) as exc:
                    lines = [translate("cli.engines", "not checked: {reason}").format(reason=exc)]
                for line in lines:
                    print(f"  {line}")
    return 0


def written(args: Any, results: list[Any]) -> None:
    """``--json`` and ``--csv``: the figures, readable by this user alone (figures only:
    nothing of a chat or a document is in them)."""
    import json
    from pathlib import Path

    from core import compare as comparing
    from core.vault import export, why_not

    figures = [{"setup": r.label, "chats_at_once": r.at_once, "tokens_per_s": round(r.total_tps, 3),
                "tokens_per_s_per_chat": round(r.chat_tps, 3), "ttft_p50_s": round(r.ttft_p50, 4),
                "ttft_p95_s": round(r.ttft_p95, 4), "errors": r.errors} for r in results]
    for target, data in ((args.json, json.dumps({"results": figures}, ensure_ascii=False, indent=1)),
                         (args.csv, comparing.csv_text(results))):
        if target:
            try:
                export.write(Path(target), data.encode("utf-8"))
            except OSError as exc:
                raise EngineCommandError(translate("cli.engines", "{file} could not be written: {reason}.").format(
                    file=target, reason=why_not(exc, Path(target).parent, writing=True))) from None


def run(args: Any) -> int:
    try:
        if args.engines_command == "compare":
            from core.client import ClientError
            from core.protocol import InferenceError

            try:
                return compare(args)
            except (ClientError, TimeoutError, InferenceError) as exc:  # the local model did not load, say
                raise EngineCommandError(str(exc)) from None
        with opened() as engines:
            command = args.engines_command
            if command == "add":
                record = engines.add(args.name, args.url, trust_from(args), api_key_from(args.api_key_env))
                print(translate("cli.engines", "added and checked: {engine}").format(engine=describe(record)))
            elif command == "list":
                records = engines.records()
                if not records:
                    print(translate("cli.engines", "No intranet engine: Hearth talks to nothing but "
                                    "this computer."))
                for record in records:
                    print(describe(record))
            elif command == "check":
                record = engines.recheck(args.name)
                print(translate("cli.engines", "{name}: reachable and trusted; {count} model(s): {models}")
                      .format(name=record.name, count=len(record.models),
                              models=", ".join(m.id for m in record.models)))
            elif command == "remove":
                engines.remove(args.name)
                print(translate("cli.engines", "removed {name}").format(name=args.name))
        return 0
    except (EngineError, EngineCommandError, HeadlessError) as exc:
        print(translate("cli.main", "error: {message}").format(message=exc), file=sys.stderr)
        return 1


def add_parser(commands: Any) -> None:
    engines = commands.add_parser("engines", help=translate(
        "cli.engines", "intranet engines (vLLM, SGLang, llama.cpp's server) this vault may use"))
    sub = engines.add_subparsers(dest="engines_command", required=True)
    add = sub.add_parser("add", help=translate("cli.engines", "add an engine (checked first)"))
    add.add_argument("name")
    add.add_argument("url", help="https://llm.corp.example:8000/v1")
    add.add_argument("--ca", metavar="FILE", help=translate(
        "cli.engines", "your organisation's CA certificate (PEM)"))
    add.add_argument("--pin", metavar="SHA256", help=translate(
        "cli.engines", "SHA-256 of the server's certificate or public key"))
    add.add_argument("--system-ca", action="store_true", help=translate(
        "cli.engines", "trust the system's certificates as well as --ca / --pin"))
    add.add_argument("--api-key-env", metavar="VAR", help=translate(
        "cli.engines", "the environment variable holding the API key (stored encrypted)"))
    add.add_argument("--allow-http", action="store_true", help=translate(
        "cli.engines", "allow unencrypted http:// to a host that is not this computer"))
    sub.add_parser("list", help=translate("cli.engines", "the engines and their models"))
    measure = sub.add_parser("compare", help=translate(
        "cli.engines", "measure the local model and the engines at several chats at once, on built-in "
        "questions (English and Chinese): tokens/s, first-token times, a verdict"))
    measure.add_argument("--engine", metavar="NAME", action="append", help=translate(
        "cli.engines", "this engine (again for more; default: every engine switched on)"))
    measure.add_argument("--model", default="", help=translate("cli.engines", "the local model (default: the starter)"))
    measure.add_argument("--no-local", action="store_true", help=translate("cli.engines", "leave out the local model"))
    measure.add_argument("--levels", default="1,2,4,8", help=translate(
        "cli.engines", "the numbers of chats at once, comma-separated (default 1,2,4,8)"))
    measure.add_argument("--rounds", type=int, default=2, help=translate(
        "cli.engines", "questions per chat at each level (default 2)"))
    measure.add_argument("--max-tokens", type=int, default=64)
    measure.add_argument("--own-chats", action="store_true", help=translate(
        "cli.engines", "use the last questions you wrote in your chats instead of the built-in ones (each engine "
        "measured is sent them; the command says so first)"))
    measure.add_argument("--migration", action="store_true", help=translate(
        "cli.engines", "also check what differs when moving from the local model to each engine"))
    measure.add_argument("--target", type=float, default=2.0, help=translate(
        "cli.engines", "the first-token time to serve within, in seconds (default 2)"))
    measure.add_argument("--json", metavar="FILE", help=translate(
        "cli.engines", "also write the figures to FILE as JSON (per setup and chats at once: tokens_per_s, "
        "ttft_p50_s, ttft_p95_s, errors)"))
    measure.add_argument("--csv", metavar="FILE", help=translate("cli.engines", "also write the figures to FILE "
                                                                 "as CSV"))
    for name, text in (("check", translate("cli.engines", "reach an engine: exit 0 when reachable and trusted")),
                       ("remove", translate("cli.engines", "remove an engine"))):
        sub.add_parser(name, help=text).add_argument("name")
