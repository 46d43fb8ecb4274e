"""Hearth's entry point: ``python -m app`` opens the window; ``--self-test`` checks the model."""

from __future__ import annotations

import argparse
import sys


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="hearth", description="Private, offline chat with local models.")
    parser.add_argument("--self-test", action="store_true", help="load the model, generate 16 tokens, print figures")
    parser.add_argument("--prepare-models", action="store_true", help="place the bundled models and exit")
    parser.add_argument("--verbose", action="store_true", help="log debug detail (never message text)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from app.logs import log_unhandled, setup_logging

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
    from app.gui import run_gui

    return run_gui()


if __name__ == "__main__":
    sys.exit(main())
