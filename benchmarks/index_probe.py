"""The document index alone at a million passages, without a vault: resident memory and
hybrid search p50/p95, in one process.

``python -m benchmarks.index_probe [--passages N] [--code DIR]``: builds one SearchIndex in
memory from scale_bench's synthetic passages and vectors, as the document service holds
it: texts read for the hits and exact vectors read for a question's nearest, both by
stand-in readers outside the index (the vectors from a file by ``pread``, so no page of
it counts in this process). ``--code`` runs another checkout's index (an earlier commit's,
for a before-and-after in one session; one without the vector reader keeps its vectors
itself). Prints one line of JSON. ``--only scale`` measures the same through a real vault,
which takes far longer to fill.
"""

from __future__ import annotations

import argparse
import gc
import inspect
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=1_000_000)
    parser.add_argument("--code", type=Path, default=None)
    args = parser.parse_args()
    if args.code is not None:
        sys.path.insert(0, str(args.code.resolve()))
        for name in [m for m in sys.modules if m.split(".")[0] in ("benchmarks", "storage")]:
            del sys.modules[name]
    import numpy as np

    from benchmarks.common import process_status
    from benchmarks.scale_bench import DIMENSIONS, TOPICS, _questions, _vocabulary, passage, vectors
    from storage.documents.search import SearchIndex
    from storage.documents.store import StoredChunk

    n = args.passages
    rng = np.random.default_rng(43)
    centres = rng.standard_normal((TOPICS, DIMENSIONS)).astype(np.float32)
    vocabulary = _vocabulary(rng)
    with tempfile.TemporaryDirectory() as tmp:
        stored = Path(tmp) / "vectors.f32"

        def read_vectors(ids: list[int]) -> dict[int, Any]:
            with stored.open("rb") as f:
                found = {}
                for i in ids:
                    f.seek((i - 1) * DIMENSIONS * 4)
                    found[i] = np.frombuffer(f.read(DIMENSIONS * 4), dtype=np.float32)
                return found

        readers: dict[str, Any] = {"texts": lambda ids: {i: "text" for i in ids}}
        if "vectors" in inspect.signature(SearchIndex.__init__).parameters:
            readers["vectors"] = read_vectors
        gc.collect()
        before = process_status()
        index = SearchIndex(model="e5", **readers)
        started = time.perf_counter()
        with stored.open("wb") as out:
            for i in range(n):
                if i % 10_000 == 0:
                    block, first = vectors(rng, centres, 10_000), i
                    out.write(block.tobytes())
                text = passage(rng, *vocabulary)
                document = i // 100
                index.add(StoredChunk(i + 1, 1 + (i >= n * 9 // 10), document, text, f"/cases/{document}.md",
                                      1 + i % 100 // 3, None, 0, len(text), "e5"), block[i - first])
        del block
        gc.collect()
        built = process_status()
        result: dict[str, Any] = {"passages": n, "build_s": time.perf_counter() - started,
                                  "index_rss_mb": (built["VmRSS"] - before["VmRSS"]) / 1024}
        questions, *_ = _questions()
        index.search(*questions[0], collection_ids=[1, 2])
        for round_ in (1, 2):
            times = []
            for text, vector in questions[1:]:
                t = time.perf_counter()
                index.search(text, vector, collection_ids=[1, 2])
                times.append(time.perf_counter() - t)
            times.sort()
            result[f"round_{round_}"] = {"p50_ms": statistics.median(times) * 1000,
                                         "p95_ms": times[int(len(times) * 0.95)] * 1000}
        after = process_status()
        result["rss_after_searches_mb"] = (after["VmRSS"] - before["VmRSS"]) / 1024
        result["anon_after_searches_mb"] = (after.get("RssAnon", 0) - before.get("RssAnon", 0)) / 1024
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
