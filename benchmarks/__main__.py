"""``python -m benchmarks [--quick] [--only NAME] [--out FILE]``: run, print a table, write JSON."""

from __future__ import annotations

import argparse
import json
import platform
import time
from dataclasses import asdict
from pathlib import Path

from benchmarks import (
    attachments_bench,
    binding_bench,
    documents_bench,
    engine_bench,
    openmp_bench,
    peers_bench,
    perf_bench,
    quantize_bench,
    rag_bench,
    retrieval_bench,
    scale_bench,
    speech_bench,
    stall_bench,
    starter_bench,
    tools_bench,
    vault_bench,
    vision_bench,
    watched_bench,
)

SUITES = {"chat": perf_bench.run, "vault": vault_bench.run, "documents": documents_bench.run,
          "stall": stall_bench.run, "starter": starter_bench.run, "retrieval": retrieval_bench.run, "engines": engine_bench.run,
          "rag": rag_bench.run, "binding": binding_bench.run, "openmp": openmp_bench.run,
          "tools": tools_bench.run, "attachments": attachments_bench.run,
          "vision": vision_bench.run, "watched": watched_bench.run,
          "speech": speech_bench.run, "peers": peers_bench.run,
          "scale": scale_bench.run, "quantize": quantize_bench.run}


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repetitions")
    parser.add_argument("--only", choices=sorted(SUITES), action="append")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/last-run.json"))
    args = parser.parse_args()
    results = {}
    for name in args.only or SUITES:
        print(f"== {name}", flush=True)
        figures = SUITES[name](quick=args.quick)
        for figure in figures:
            print(figure.row(), flush=True)
        results[name] = [asdict(f) for f in figures]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"when": time.strftime("%Y-%m-%dT%H:%M:%S"),
                                    "machine": platform.platform(), "results": results}, indent=2))
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
