"""Chinese keyword search: today's character bigrams against a dictionary segmenter (jieba,
and rjieba where it is installed), measured on the labelled sets through the real pipeline.

``python -m benchmarks.segmenter_bench [--quick] [--out FILE]``. Neither segmenter is a
dependency of Hearth: this benchmark imports them lazily and, where jieba is not importable,
prints why and measures nothing (put a private install on PYTHONPATH to run it, e.g.
``pip install --target DIR jieba rjieba``). It is not one of ``python -m benchmarks``'s suites;
``run`` has their signature, so it can become one.

The corpora (the English and the Chinese retrieval sets, the hard PDF set) go through the
document service once, with the bundled embedding model, as in ``tests/retrieval_harness.py``
and ``tests/core/test_pdf_page_accuracy.py``: the chunks and their vectors are the app's.
For each tokenizer variant, ``storage.documents.words._cjk_terms`` (what ``terms`` does with
a run of CJK characters; Latin words are untouched, so the English set cannot move) is
replaced in-process, the service's search index is rebuilt from the same chunks and vectors,
and the sets are asked through ``DocumentService.search``: keywords only (bm25), and hybrid,
the app's default, for what the change does there. Reported: recall@1, recall@5 and MRR of
each set, page accuracy (and page recall/MRR) of the PDF set, the time to index every chunk
with each variant, and each segmenter's size on disk and first load (its dictionary).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from benchmarks.common import Figure

MODES = ("bm25", "hybrid")

_LOAD_PROBE = r"""
import json, resource, sys, time
name, cache = sys.argv[1], sys.argv[2]
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
t0 = time.perf_counter(); before = rss()
if name == "jieba":
    import jieba, logging
    jieba.setLogLevel(logging.WARNING)
    jieba.dt.tmp_dir = cache
    t1 = time.perf_counter(); jieba.initialize(); t2 = time.perf_counter()
    jieba.lcut("船长超过四十米的船舶必须在抵港前至少六小时申请引航员")
else:
    import rjieba
    t1 = time.perf_counter()
    rjieba.cut("船长超过四十米的船舶必须在抵港前至少六小时申请引航员")
    t2 = time.perf_counter()
t3 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "dictionary_s": t2 - t1, "first_use_s": t3 - t0,
                  "rss_mib": rss() - before}))
"""


def _package_size(name: str) -> dict[str, float]:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return {}
    root = Path(spec.origin).parent
    files = [f for f in root.rglob("*") if f.is_file()]
    dist = [f for d in root.parent.glob(f"{name}-*.dist-info") for f in d.rglob("*") if f.is_file()]
    no_cache = [f for f in files if "__pycache__" not in f.parts]
    return {"package_mib": sum(f.stat().st_size for f in files + dist) / 2**20,
            "package_without_pycache_mib": sum(f.stat().st_size for f in no_cache) / 2**20,
            "largest": {str(p.relative_to(root)): round(p.stat().st_size / 2**20, 2)
                        for p in sorted(no_cache, key=lambda f: -f.stat().st_size)[:4]},
            "path": str(root)}


def _first_load(name: str, cache: Path) -> dict[str, float]:
    """Load in a fresh interpreter: jieba cold (builds its prefix dictionary from dict.txt
    and writes its cache into ``cache``), then warm (reads that cache)."""
    runs = {}
    cache.mkdir(parents=True, exist_ok=True)
    for label in ("cold", "warm") if name == "jieba" else ("first",):
        out = subprocess.run([sys.executable, "-c", _LOAD_PROBE, name, str(cache)],
                             capture_output=True, text=True, check=True, env=dict(os.environ))
        runs[label] = json.loads(out.stdout.strip().splitlines()[-1])
    return runs


def _variants(jieba: Any, rjieba: Any | None) -> dict[str, Callable[[str], list[str]]]:
    from storage.documents import words as words_module

    bigrams = words_module._cjk_terms
    fillers = frozenset(words_module.CJK_STOP_PHRASES)

    def words(run: str) -> list[str]:  # segment the run, then drop the filler words
        return [w for w in jieba.lcut(run) if w not in fillers]

    def fillers_first(run: str) -> list[str]:  # today's filler split, then segment each piece
        found: list[str] = []
        for piece in words_module._CJK_STOP.split(run):
            if piece:
                found.extend(jieba.lcut(piece))
        return found

    def for_search(run: str) -> list[str]:
        return [w for w in jieba.lcut_for_search(run) if w not in fillers]

    variants = {
        "bigrams (today)": bigrams,
        "jieba lcut": words,
        "jieba lcut, fillers cut out first": fillers_first,
        "jieba cut_for_search": for_search,
        "bigrams + jieba lcut": lambda run: bigrams(run) + words(run),
        "bigrams + jieba lcut words >=3 chars": lambda run: bigrams(run) + [w for w in words(run) if len(w) >= 3],
        "bigrams + jieba cut_for_search": lambda run: bigrams(run) + for_search(run),
    }
    if rjieba is not None:
        variants["rjieba cut"] = lambda run: [w for w in rjieba.cut(run) if w not in fillers]
    return variants


def _rebuild(service: Any, cjk_terms: Callable[[str], list[str]], repetitions: int) -> dict[str, Any]:
    """Put ``cjk_terms`` in place and rebuild the service's index(es) from their own chunks
    and vectors; the time of the fastest of ``repetitions`` rebuilds."""
    from storage.documents import search
    from storage.documents import words as words_module

    words_module._cjk_terms = cjk_terms
    indexes = service._indexes
    times: list[float] = []
    for _ in range(repetitions):
        started = time.perf_counter()
        rebuilt = {}
        for model, old in indexes._by_model.items():
            new = search.SearchIndex(dimensions=old.dimensions, model=old.model, min_cosine=old.min_cosine)
            for chunk, vector, alive in zip(old.chunks, old._vectors, old._alive, strict=True):
                if alive:
                    new.add(chunk, vector)
            rebuilt[model] = new
        times.append(time.perf_counter() - started)
    indexes._by_model.update(rebuilt)
    terms = sum(len(i._postings) for i in rebuilt.values())
    postings = sum(len(p) for i in rebuilt.values() for p in i._postings.values())
    chunks = sum(len(i.chunks) for i in rebuilt.values())
    return {"index_s": min(times), "index_s_median": statistics.median(times), "chunks": chunks,
            "distinct_terms": terms, "postings": postings}


def _tokenize_times(texts: list[str], variants: dict[str, Callable[[str], list[str]]],
                    rounds: int) -> dict[str, dict[str, float]]:
    """``words.terms`` over every chunk's text with each variant, the variants interleaved
    (a different one first in each round), so a busy machine weighs on all alike."""
    from storage.documents import words as words_module

    original = words_module._cjk_terms
    names = list(variants)
    times: dict[str, list[float]] = {name: [] for name in names}
    cjk = sum(len(run) for text in texts for run in words_module.CJK_RUN.findall(text))
    try:
        for r in range(rounds):
            for name in names[r % len(names):] + names[:r % len(names)]:
                words_module._cjk_terms = variants[name]
                started = time.perf_counter()
                for text in texts:
                    words_module.terms(text)
                times[name].append(time.perf_counter() - started)
    finally:
        words_module._cjk_terms = original
    return {name: {"median_ms": statistics.median(t) * 1000, "min_ms": min(t) * 1000,
                   "cjk_chars": cjk, "cjk_chars_per_s": cjk / statistics.median(t)}
            for name, t in times.items()}


def _pdf_scores(ranked_by_question: dict[str, list[tuple[str, int | None]]]) -> dict[str, float]:
    """Over the Chinese PDF questions: recall@1, @5 and MRR of the right file with the
    right page (±1), besides ``pdf_page_set.evaluate``'s page accuracy."""
    from tests import pdf_page_set

    r1 = r5 = rr = 0.0
    questions = [q for q in pdf_page_set.QUESTIONS if q.lang == "zh"]
    for q in questions:
        ranked = ranked_by_question[q.text][:5]
        right = [i for i, (path, page) in enumerate(ranked)
                 if Path(path).name == q.file and page is not None and abs(page - q.page) <= 1]
        if right:
            r5 += 1
            r1 += right[0] == 0
            rr += 1 / (right[0] + 1)
    n = len(questions)
    return {"page_recall@1_zh": r1 / n, "page_recall@5_zh": r5 / n, "page_mrr_zh": rr / n}


def measure(quick: bool = False, log: Callable[[str], None] = print) -> dict[str, Any] | None:
    try:
        import jieba
    except ImportError as error:
        log(f"segmenter benchmark skipped: jieba is not importable ({error}); "
            "install it privately (pip install --target DIR jieba) and put DIR on PYTHONPATH")
        return None
    try:
        import rjieba
    except ImportError as error:
        log(f"rjieba not importable ({error}): measured without it")
        rjieba = None
    jieba.setLogLevel(logging.WARNING)

    from core.document_service import DocumentService  # noqa: F401 - the pipeline, imported late
    from inference.bundled import embedding_model, provision
    from inference.embedder import LlamaEmbedder
    from inference.llama_engine import LlamaEngine
    from inference.protocol import LoadEmbedder
    from inference.worker import InferenceWorker
    from storage.documents import words as words_module
    from tests import pdf_page_set, retrieval_set_cross, retrieval_set_zh
    from tests.retrieval_harness import WAIT, Collections, write_corpora

    original = words_module._cjk_terms
    report: dict[str, Any] = {"segmenters": {}, "variants": {}}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        os.environ.setdefault("HEARTH_DATA_DIR", str(tmp / "data"))
        for name in ("jieba", "rjieba") if rjieba is not None else ("jieba",):
            report["segmenters"][name] = {"version": getattr(sys.modules[name], "__version__", ""),
                                          **_package_size(name),
                                          "load": _first_load(name, tmp / f"{name}-cache")}
        jieba.dt.tmp_dir = str(tmp / "jieba-cache")  # the warm cache the probe wrote
        started = time.perf_counter()
        jieba.initialize()
        report["segmenters"]["jieba"]["load"]["in_process_s"] = time.perf_counter() - started

        model = embedding_model()
        worker = InferenceWorker(LlamaEngine, lambda _e: None, embedder_factory=LlamaEmbedder)
        worker.start()
        started = time.perf_counter()
        try:
            worker.submit(LoadEmbedder(provision(model, tmp / "models"), model.sha256))
            collections = Collections(worker, model.sha256, write_corpora(tmp / "corpora"), tmp / "vault")
            try:
                service = collections.service
                pages = service.create("pages").result(timeout=WAIT)
                corpus = tmp / "pdf"
                corpus.mkdir()
                pdf_page_set.write_corpus(corpus)
                done: Future = Future()
                service.add(pages.id, [corpus], done=done)
                imported = done.result(timeout=WAIT)
                assert len(imported.indexed) == len(pdf_page_set.DOCS) and not imported.failed, imported
                report["pipeline_s"] = time.perf_counter() - started
                log(f"corpora imported and embedded in {report['pipeline_s']:.1f} s")

                def pdf_ranked(question: pdf_page_set.Question, mode: str, seen: dict) -> list:
                    given = {model.sha256: collections.question_vector(question.text)} if mode != "bm25" else {}
                    hits = service.search(question.text, given, [pages.id], 5, mode).result(timeout=WAIT)
                    seen[question.text] = [(hit.chunk.path, hit.chunk.page) for hit in hits]
                    return seen[question.text]

                def zh_ranks(mode: str) -> dict[str, int | None]:
                    ranks = {}
                    for q in retrieval_set_zh.QUESTIONS:
                        names = [Path(h.chunk.path).name
                                 for h in collections.hits(q.text, retrieval_set_cross.ZH, mode=mode)][:5]
                        ranks[q.text] = names.index(q.file) + 1 if q.file in names else None
                    return ranks

                variants = _variants(jieba, rjieba)
                texts = [chunk.text + " " + (chunk.heading or "")
                         for index in service._indexes._by_model.values() for chunk in index.chunks]
                tokenize = _tokenize_times(texts, variants, 3 if quick else 15)
                baseline = None
                for label, cjk in variants.items():
                    timing = _rebuild(service, cjk, 1 if quick else 3)
                    found: dict[str, Any] = {"index": timing, "tokenize": tokenize[label]}
                    sets = collections.measure(modes=MODES)
                    for mode in MODES:
                        seen: dict = {}
                        pdf = pdf_page_set.evaluate(lambda q, m=mode, s=seen: pdf_ranked(q, m, s))
                        pdf.update(_pdf_scores(seen))
                        found[mode] = {"en": sets["en"][mode], "zh": sets["zh"][mode],
                                       "cross": sets["cross"][mode], "pdf": pdf,
                                       "zh_ranks": zh_ranks(mode),
                                       "pdf_zh_top": {q.text: seen[q.text][:1] for q in pdf_page_set.QUESTIONS
                                                      if q.lang == "zh"}}
                    if baseline is None:
                        baseline = found
                    for mode in MODES:  # the English set, and the PDF set's English questions
                        same = (found[mode]["en"] == baseline[mode]["en"]
                                and found[mode]["pdf"]["page_accuracy_en"] == baseline[mode]["pdf"]["page_accuracy_en"])
                        found[mode]["english_unchanged"] = same
                    report["variants"][label] = found
                    bm, hy = found["bm25"], found["hybrid"]
                    log(f"{label:<38} terms {tokenize[label]['median_ms']:6.1f} ms | bm25 zh r@1 "
                        f"{bm['zh']['recall@1']:.3f} r@5 {bm['zh']['recall@5']:.3f} mrr {bm['zh']['mrr']:.3f}"
                        f" pdf-zh {bm['pdf']['page_accuracy_zh']:.3f} | hybrid zh r@5 {hy['zh']['recall@5']:.3f}"
                        f" pdf-zh {hy['pdf']['page_accuracy_zh']:.3f}")
            finally:
                words_module._cjk_terms = original
                collections.close()
        finally:
            worker.shutdown(5)
    return report


def run(quick: bool = False) -> list[Figure]:
    """The figures, in the shape of ``python -m benchmarks``'s suites (none without jieba)."""
    report = measure(quick)
    if report is None:
        return []
    figures = []
    for label, found in report["variants"].items():
        figures.append(Figure(f"segmenter terms of all chunks, {label}", found["tokenize"]["median_ms"], "ms",
                              "", found["tokenize"]))
        figures.append(Figure(f"segmenter index all chunks, {label}", found["index"]["index_s"] * 1000, "ms",
                              "", found["index"]))
        for mode in MODES:
            for which in ("zh", "en"):
                scores = found[mode][which]
                figures.append(Figure(f"segmenter {which} {mode} recall@5, {label}", scores["recall@5"],
                                      "share", "", scores))
            figures.append(Figure(f"segmenter pdf zh {mode} page accuracy, {label}",
                                  found[mode]["pdf"]["page_accuracy_zh"], "share", "", found[mode]["pdf"]))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.segmenter_bench")
    parser.add_argument("--quick", action="store_true", help="one index rebuild per variant, not three")
    parser.add_argument("--out", type=Path, help="write the whole report as JSON")
    args = parser.parse_args()
    report = measure(args.quick)
    if report is None:
        return 0
    print()
    print(f"{'variant':<38} {'mode':<6} | {'zh r@1':>6} {'r@5':>5} {'mrr':>5} | {'en r@1':>6} {'r@5':>5} "
          f"{'mrr':>5} | {'pdf-zh pg':>9} {'pg r@1':>6} {'pg r@5':>6} {'pg mrr':>6} | terms ms | index ms")
    for label, found in report["variants"].items():
        for mode in MODES:
            zh, en, pdf = found[mode]["zh"], found[mode]["en"], found[mode]["pdf"]
            print(f"{label:<38} {mode:<6} | {zh['recall@1']:6.3f} {zh['recall@5']:5.3f} {zh['mrr']:5.3f} | "
                  f"{en['recall@1']:6.3f} {en['recall@5']:5.3f} {en['mrr']:5.3f} | "
                  f"{pdf['page_accuracy_zh']:9.3f} {pdf['page_recall@1_zh']:6.3f} {pdf['page_recall@5_zh']:6.3f} "
                  f"{pdf['page_mrr_zh']:6.3f} | {found['tokenize']['median_ms']:8.1f} | "
                  f"{found['index']['index_s'] * 1000:8.1f}")
    for name, about in report["segmenters"].items():
        print(f"{name} {about.get('version', '')}: {about.get('package_mib', 0):.1f} MiB on disk "
              f"({about.get('package_without_pycache_mib', 0):.1f} without __pycache__), load {about['load']}")
    if args.out:
        args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False))
        print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
