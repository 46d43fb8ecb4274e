"""Hearth's entry point.

    python -m app                 open the window
    python -m app --self-test     load the model, generate 16 tokens, print figures
    python -m app check-vault     decrypt everything and check the vault file
    python -m app docs add|list|search ...   document collections
    python -m app ask COLLECTION "question"   an answer with citations
    python -m app serve | chat | models list     the local API, a terminal chat, the library
"""

from __future__ import annotations

# The egress guard goes in before anything else is imported.
from app import egress

egress.install()

import argparse  # noqa: E402
import sys  # noqa: E402


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="hearth", description="Private, offline chat with local models.")
    parser.add_argument("--self-test", action="store_true", help="load the model, generate 16 tokens, print figures")
    parser.add_argument("--prepare-models", action="store_true", help="place the bundled models and exit")
    parser.add_argument("--verbose", action="store_true", help="log debug detail (never message text)")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("check-vault", help="decrypt every item and check the vault file "
                        "(passphrase from HEARTH_PASSPHRASE, or asked)")
    docs = commands.add_parser("docs", help="document collections for questions")
    docs_commands = docs.add_subparsers(dest="docs_command", required=True)
    add = docs_commands.add_parser("add", help="index files and folders into a collection")
    add.add_argument("collection")
    add.add_argument("paths", nargs="+")
    docs_commands.add_parser("list", help="collections and the state of each file")
    search = docs_commands.add_parser("search", help="the passages that match a question")
    search.add_argument("collection")
    search.add_argument("question")
    search.add_argument("--k", type=int, default=5)
    search.add_argument("--json", action="store_true")
    search.add_argument("--mode", choices=("hybrid", "bm25", "vector"), default="hybrid")
    ask = commands.add_parser("ask", help="answer a question from a collection, with citations")
    ask.add_argument("collection")
    ask.add_argument("question")
    ask.add_argument("--max-tokens", type=int, default=256)
    serve = commands.add_parser("serve", help="the local OpenAI-compatible API (127.0.0.1 only)")
    serve.add_argument("--host", default="127.0.0.1", help="loopback only; anything else is refused")
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--token", default=None, help="the bearer token (default: a new random one)")
    commands.add_parser("chat", help="chat in the terminal (not saved)")
    models = commands.add_parser("models", help="the model library")
    models.add_subparsers(dest="models_command", required=True).add_parser("list")
    return parser.parse_args(argv)


def check_vault() -> int:
    from app.headless import HeadlessError, open_store
    from storage.crypto import BadPassphrase, DamagedVault, WrongPassphrase
    from storage.instance_lock import AlreadyRunning

    try:
        store, lock = open_store()
    except (WrongPassphrase, BadPassphrase, DamagedVault, AlreadyRunning, HeadlessError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        problems = store.verify()
        sound = store.vault.integrity_problem()
        chats, messages = len(store.list_chats()), store.message_count()
    finally:
        store.close()
        lock.release()
    if problems or sound:
        for problem in problems + ([f"SQLite: {sound}"] if sound else []):
            print(f"damaged: {problem}")
        return 1
    print(f"vault ok: {chats} chats, {messages} messages, all decrypt; file sound")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from app.logs import log_unhandled, setup_logging
    from app.privacy import harden_process

    harden_process()
    setup_logging(args.verbose)
    sys.excepthook = log_unhandled
    if args.self_test:
        from app.selftest import run_self_test

        return run_self_test()
    if args.prepare_models:
        from app.models import resolve_model
        from inference.errors import InferenceError

        try:
            print(f"model ready: {resolve_model()}")
        except InferenceError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        return 0
    if args.command == "check-vault":
        return check_vault()
    if args.command in ("docs", "ask", "serve", "chat", "models"):
        from app.cli import run

        return run(args)
    from app.gui import run_gui

    return run_gui()


if __name__ == "__main__":
    sys.exit(main())
