"""A collection that follows its folder (#40): with 1,000 files indexed, 10 change; the
time for the collection to catch up, less the time the same 10 files take to be indexed
on their own (in the same run: the embedding of what changed), is what following costs
(target under 2 s); and the stall of a Qt event loop in this process while it runs (the
catch-up's Python work shares the interpreter with the window's)."""

from __future__ import annotations

import random
import tempfile
import time
from concurrent.futures import Future
from pathlib import Path

from benchmarks.common import Figure, median, percentile, wait_in_event_loop
from benchmarks.documents_bench import WORDS, _documents


def _write(path: Path, rng: random.Random, tag: str) -> None:
    sentences = [" ".join(rng.choice(WORDS) for _ in range(16)).capitalize() for _ in range(6)]
    path.write_text(f"# {path.stem} {tag}\n\n" + ". ".join(sentences) + ".")


def run(quick: bool = False) -> list[Figure]:
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication

    from core.models import resolve_embedding_model
    from inference.bundled import sha256_of
    from inference.embedder import LlamaEmbedder
    from inference.llama_engine import LlamaEngine
    from inference.protocol import LoadEmbedder
    from inference.worker import InferenceWorker

    app = QCoreApplication.instance() or QCoreApplication([])
    files, changed, rounds = (100, 3, 1) if quick else (1000, 10, 3)
    rng = random.Random(40)
    catch_up, alone, stalls = [], [], []
    model = resolve_embedding_model()
    identity = sha256_of(model)
    worker = InferenceWorker(LlamaEngine, lambda _event: None, embedder_factory=LlamaEmbedder)
    worker.start()
    worker.submit(LoadEmbedder(model, identity))
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        folder = tmp / "followed"
        folder.mkdir()
        for n in range(files):
            _write(folder / f"file-{n:04d}.md", rng, "v0")
        vault, service = _documents(tmp, worker, identity)
        try:
            followed = service.create("followed").result(timeout=60)
            done: Future = Future()
            service.add(followed.id, [folder], done=done)
            done.result(timeout=3600)
            for r in range(1, rounds + 1):
                picked = rng.sample(range(files), changed)
                alone_folder = tmp / f"alone-{r}"
                alone_folder.mkdir()
                for n in picked:
                    path = folder / f"file-{n:04d}.md"
                    _write(path, rng, f"v{r}")
                    later = path.stat().st_mtime + 5 * r
                    os.utime(path, (later, later))
                    (alone_folder / path.name).write_text(path.read_text())
                synced: Future = Future()
                began = time.perf_counter()
                service.sync(followed.id, done=synced)
                probe: list[float] = []
                wait_in_event_loop(synced.done, 600, probe)
                catch_up.append(time.perf_counter() - began)
                stalls += probe
                by_itself = service.create(f"alone-{r}").result(timeout=60)
                added: Future = Future()
                began = time.perf_counter()
                service.add(by_itself.id, [alone_folder], done=added)
                added.result(timeout=600)
                alone.append(time.perf_counter() - began)
        finally:
            service.close(10.0)
            vault.close()
            worker.shutdown(10.0)
    del app
    overhead = [c - a for c, a in zip(catch_up, alone, strict=True)]
    detail = {"catch_up_s": [round(c, 3) for c in catch_up], "alone_s": [round(a, 3) for a in alone],
              "files": files, "changed": changed}
    return [Figure(f"catch-up of {changed} changed files among {files}, less indexing them alone",
                   median(overhead), "s", "target < 2 s", detail),
            Figure("  the whole catch-up", median(catch_up), "s"),
            Figure("  event-loop stall while it runs, p99", percentile(stalls, 99), "ms", "target < 50 ms",
                   {"max_ms": max(stalls, default=0.0), "ticks": len(stalls)})]
