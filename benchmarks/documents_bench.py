"""Document figures: ingestion against raw llama.cpp embedding, search latency, UI stalls.

- Ingestion: the whole pipeline (parse in the isolated process, chunk, embed in the
  worker, encrypt, store, index) in chunks/s, against embedding the same chunk texts
  (cut and prefixed as the pipeline does for the model) straight through
  llama-cpp-python, in the same process, interleaved. The default embedding model, or
  the GGUF that ``HEARTH_BENCH_EMBEDDING`` names.
- Search: hybrid search p50/p95 over an index of 10,000 and 100,000 chunks.
- Vectors: the index's int8 cosines (``storage.documents.cosine``), its nearest taken
  again from the exact vectors, against exact float32 ones over the same 100,000
  vectors: recall@10, and the time ratio against float16's, interleaved.
- UI: a 10 ms QTimer probe in a real window while an import runs in the background.
- OCR: scanned A4 pages (tests/scans.py, 200 dpi) read by text recognition in the
  isolated child, pages per second on this machine's cores, and the share of words read.
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from benchmarks.common import Figure, median, percentile, wait_in_event_loop

WORDS = ["harbor", "pilot", "vessel", "permit", "cargo", "mooring", "fee", "anchor", "channel", "tide", "storm", "crew", "captain", "ledger", "invoice", "contract", "clause", "witness", "hearing", "patient", "dosage", "ward", "nurse", "surgeon", "garden", "compost", "seed", "harvest", "river", "bridge", "tunnel", "station", "platform", "ticket", "schedule"]


def write_corpus(folder: Path, files: int, rng: random.Random) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(files):
        paragraphs = []
        for p in range(8):
            sentence = " ".join(rng.choice(WORDS) for _ in range(18))
            paragraphs.append(f"## Part {p}\n\n" + ". ".join([sentence.capitalize()] * 5) + ".")
        (folder / f"doc{i:03d}.md").write_text(f"# Document {i}\n\n" + "\n\n".join(paragraphs))
    return folder


def _documents(tmp: Path, worker, model: str, read_ahead: bool = True):
    """A vault and a started document service on it (its index loaded)."""
    from concurrent.futures import Future

    from core.document_service import DocumentService
    from storage.crypto import KdfParams
    from storage.vault import Vault

    vault = Vault.create(tmp / f"v{time.monotonic_ns()}.db", "benchmark passphrase",
                         KdfParams(memory_kib=64, iterations=1, lanes=1))
    service = DocumentService(vault, worker.submit, model, lambda _event: None, read_ahead=read_ahead)
    service.start()
    loaded: Future = Future()
    service.load_index(done=loaded)
    loaded.result(timeout=60)
    return vault, service


def write_pdfs(folder: Path, files: int, pages: int, rng: random.Random) -> Path:
    """Text PDFs (fpdf2, a test dependency): parsing them costs something, unlike Markdown."""
    from fpdf import FPDF

    folder.mkdir(parents=True, exist_ok=True)
    for i in range(files):
        pdf = FPDF()
        pdf.set_font("helvetica", size=11)
        for _page in range(pages):
            pdf.add_page()
            for _paragraph in range(6):
                pdf.multi_cell(0, 5, ". ".join(" ".join(rng.choice(WORDS) for _ in range(14)).capitalize()
                                               for _ in range(5)) + ".")
                pdf.ln(2)
        pdf.output(str(folder / f"report{i:03d}.pdf"))
    return folder


def ingestion(quick: bool) -> list[Figure]:
    """The whole import ÷ raw embedding of the same chunk texts, on Markdown (parsing is
    nothing) and on text PDFs (parsing is pypdf's work, overlapped with embedding since
    the parser reads the next file ahead); and the same import with the reading ahead
    switched off, to show what the overlap gives."""
    from concurrent.futures import Future

    from core.models import resolve_embedding_model
    from core.reembedding import embed_text
    from inference.bundled import by_sha256, sha256_of
    from inference.embedder import N_CTX, SPECIAL_TOKENS, LlamaEmbedder, profile
    from inference.hardware import physical_cores
    from inference.llama_engine import LlamaEngine
    from inference.protocol import LoadEmbedder
    from inference.worker import InferenceWorker
    from storage.documents.chunking import MAX_TOKENS, chunk_sections
    from storage.documents.parsers import parse

    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        os.environ.setdefault("HEARTH_DATA_DIR", str(tmp / "data"))
        chosen = os.environ.get("HEARTH_BENCH_EMBEDDING")
        model = Path(chosen) if chosen else resolve_embedding_model()
        worker = InferenceWorker(LlamaEngine, lambda e: None, embedder_factory=LlamaEmbedder)
        worker.start()
        identity = sha256_of(model)
        worker.submit(LoadEmbedder(model, identity))
        raw = LlamaEmbedder()
        raw.load(model)
        cores = physical_cores()
        shape = profile(identity)
        room = N_CTX - SPECIAL_TOKENS - (raw.count_tokens(shape.passage_prefix) if shape.passage_prefix else 0)
        known = by_sha256(identity)
        name = known.name if known else model.name
        # --quick (the test command's): a smoke run, small and once.
        corpora = {"Markdown": write_corpus(tmp / "md", 4 if quick else 30, random.Random(7)),
                   "text PDFs": write_pdfs(tmp / "pdf", 2 if quick else 8, 5, random.Random(7))}
        for kind, corpus in corpora.items():
            texts = []
            for file in sorted(corpus.iterdir()):
                sections, _ = parse(file)
                texts += [shape.passage(embed_text(c))
                          for c in chunk_sections(sections, raw.count_tokens,
                                                  max_tokens=shape.chunk_tokens or MAX_TOKENS, room=room)]
            tokens = sum(raw.count_tokens(t) for t in texts)

            def pipeline(ahead: bool, corpus: Path = corpus) -> float:
                vault, service = _documents(tmp, worker, identity, read_ahead=ahead)
                started = time.perf_counter()
                done: Future = Future()
                service.add(service.create("b").result(timeout=60).id, [corpus], done=done)
                report = done.result(timeout=3600)
                elapsed = time.perf_counter() - started
                service.close(5.0)
                vault.close()
                return report.chunks / elapsed

            def direct(texts: list[str] = texts) -> float:
                started = time.perf_counter()
                for i in range(0, len(texts), 32):
                    raw.embed(texts[i:i + 32])
                return len(texts) / (time.perf_counter() - started)

            rates: dict[str, list[float]] = {"ahead": [], "plain": [], "raw": []}
            sides = [("ahead", lambda: pipeline(True)), ("plain", lambda: pipeline(False)), ("raw", direct)]
            for i in range(1 if quick else 5):
                for side, measure in (sides if i % 2 == 0 else sides[::-1]):
                    rates[side].append(measure())
            pipe, plain, base = rates["ahead"], rates["plain"], rates["raw"]
            per_chunk = tokens / len(texts)
            figures += [
                Figure(f"ingestion chunks/s ÷ raw llama.cpp embedding ({kind}: {len(texts)} chunks, {name})",
                       median(pipe) / median(base), "ratio", "target ≥ 0.9",
                       {"pipeline_chunks_per_s": median(pipe), "raw_chunks_per_s": median(base)},
                       ),
                Figure(f"ingestion chunks/s, next file read ahead ÷ not ({kind})",
                       median(pipe) / median(plain), "ratio", "",
                       {"read_ahead_chunks_per_s": median(pipe), "one_after_another": median(plain)}),
                Figure(f"tokens embedded per second per core, the import ({kind}, {cores} cores)",
                       median(pipe) * per_chunk / cores, "tokens/s/core", "report",
                       {"raw": median(base) * per_chunk / cores, "tokens_per_chunk": per_chunk}),
            ]
        raw.close()
        worker.shutdown(5)
    return figures


def search(quick: bool) -> list[Figure]:
    from storage.documents.search import SearchIndex
    from storage.documents.store import StoredChunk

    rng = np.random.default_rng(3)
    words = np.array(WORDS + [f"term{i}" for i in range(5000)])
    figures = []
    for size in ((10_000,) if quick else (10_000, 100_000)):
        index = SearchIndex()
        vectors = rng.standard_normal((size, 384)).astype(np.float32)
        for i in range(size):
            text = " ".join(words[rng.zipf(1.3, 40) % len(words)])
            index.add(StoredChunk(i, 1, i // 20, text, f"/docs/{i // 20}.md", None, None, 0, 0), vectors[i])
        queries = [(" ".join(rng.choice(WORDS, 6)), rng.standard_normal(384).astype(np.float32))
                   for _ in range(100)]
        index.search(*queries[0])  # builds the matrix once, as the first search after unlock does
        times = []
        for text, vector in queries:
            started = time.perf_counter()
            index.search(text, vector, k=5, collection_ids=[1])
            times.append(time.perf_counter() - started)
        figures.append(Figure(f"hybrid search p95, {size:,} chunks", percentile(times, 95) * 1000, "ms",
                              "target < 50 ms", {"p50_ms": statistics.median(times) * 1000}))
    return figures


def int8_vectors(quick: bool) -> list[Figure]:
    """int8 codes as the index keeps them, with its nearest RESCORED taken again from the
    exact vectors, against float32, on vectors clustered as real embeddings are (a topic's
    centre plus noise: many close cosines, where rounding could reorder the first ten):
    recall@10 of the index's first ten among float32's (and of the codes' alone), and the
    time of one question's cosines by the codes ÷ by float16 (what the index did before,
    SimSIMD both), interleaved."""
    from benchmarks.scale_bench import TOPICS, vectors
    from storage.documents import cosine
    from storage.documents.search import RESCORED, top

    rng = np.random.default_rng(16)
    size = 10_000 if quick else 100_000
    centres = rng.standard_normal((TOPICS, 384)).astype(np.float32)
    exact = vectors(rng, centres, size)
    half = exact.astype(np.float16)
    codes, scales = cosine.coded(exact)
    questions = vectors(rng, centres, 200)
    recall, coded_alone, ratios = [], [], []
    for q in questions:
        by_float32 = np.einsum("ij,j->i", exact, q)
        started = time.perf_counter()
        if cosine.simsimd is not None:
            cosine.simsimd.cdist(half, q.astype(np.float16)[None, :], metric="dot", out_dtype="float32")
        else:
            np.einsum("ij,j->i", half.astype(np.float32), q)
        float16_s = time.perf_counter() - started
        started = time.perf_counter()
        by_codes = cosine.cosines(codes, scales, q)
        ratios.append((time.perf_counter() - started) / float16_s)
        first = set(top(by_float32, 10).tolist())
        coded_alone.append(len(first & set(top(by_codes, 10).tolist())) / 10)
        nearest = top(by_codes, RESCORED)
        by_codes[nearest] = exact[nearest] @ q
        recall.append(len(first & set(top(by_codes, 10).tolist())) / 10)
    detail = {"vectors": size, "questions": len(questions), "lowest_recall": min(recall),
              "recall@10 of the codes alone": statistics.mean(coded_alone), "rescored": RESCORED,
              "memory_mb": {"int8 and scales": (codes.nbytes + scales.nbytes) / 1e6,
                            "float16": half.nbytes / 1e6, "float32": exact.nbytes / 1e6}}
    return [Figure(f"vector recall@10, int8 codes with the nearest {RESCORED} exact ÷ float32, {size:,} vectors",
                   statistics.mean(recall), "share", "target ≥ 0.98", detail),
            Figure(f"cosines of one question, int8 ÷ float16, {size:,} vectors", median(ratios), "ratio",
                   "report (≤ 1: not slower)", detail)]


def ui_stalls(quick: bool) -> list[Figure]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from app.chat.controller import ChatController
    from app.shell.main_window import MainWindow
    from core.models import resolve_embedding_model
    from inference.embedder import LlamaEmbedder
    from inference.protocol import LoadEmbedder
    from storage.crypto import KdfParams
    from tests.fakes import FakeEngine

    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        os.environ["HEARTH_DATA_DIR"] = str(tmp / "data")
        engine = FakeEngine()
        controller = ChatController(engine_factory=lambda: engine, embedder_factory=LlamaEmbedder)
        # The window embeds with the default model: HEARTH_BENCH_EMBEDDING is for ingestion only.
        controller.worker.submit(LoadEmbedder(resolve_embedding_model()))
        window = MainWindow(controller, kdf=KdfParams(memory_kib=64, iterations=1, lanes=1))
        window.show()
        screen = window.lock_screen
        screen.passphrase.setText("benchmark passphrase")
        screen.confirm.setText("benchmark passphrase")
        screen.submit.click()
        documents = window.documents
        wait_in_event_loop(lambda docs=documents: docs.ready, 30)
        corpus = write_corpus(tmp / "corpus", 4 if quick else 30, random.Random(9))
        stalls: list[float] = []
        done = threading.Event()
        documents.finished.connect(lambda _r: done.set())
        documents.create("bench", then=lambda collection, docs=documents: docs.add(collection, [corpus]))
        wait_in_event_loop(done.is_set, 600, stalls)
        window.close()
        # Tear the window down here, on this thread, not in the interpreter's final GC.
        import gc

        window.deleteLater()
        del window, controller, documents
        app.processEvents()
        gc.collect()
    return [Figure("UI event-loop stall during ingestion, p99", percentile(stalls, 99), "ms",
                   "target < 50 ms", {"max_ms": max(stalls, default=0), "ticks": len(stalls)})]


def ocr(quick: bool) -> list[Figure]:
    """Pages a second through the isolated parser's text recognition (the child started
    and its models loaded first, as after the first page of an import)."""
    from storage.documents.isolation import OCR_MEMORY_LIMIT, IsolatedParser
    from tests import scans

    pages = 1 if quick else 10
    figures = []
    with tempfile.TemporaryDirectory() as folder, IsolatedParser(timeout=300, memory_limit=OCR_MEMORY_LIMIT) as parser:
        for language, text, chinese in (("English", scans.ENGLISH, False), ("Chinese", scans.CHINESE, True)):
            path = scans.scanned_pdf(Path(folder) / f"{language}.pdf",
                                     [scans.page(text, chinese, seed=i) for i in range(pages)])
            parser.recognise(path, 1)  # the child and its models, once
            read, times = [], []
            for page in range(1, pages + 1):
                started = time.perf_counter()
                read.append(parser.recognise(path, page))
                times.append(time.perf_counter() - started)
            found = statistics.mean(scans.words_found(text, t, chinese) for t in read)
            figures.append(Figure(f"OCR pages per second, {language} A4 at 200 dpi ({os.cpu_count()} cores)",
                                  1 / median(times), "pages/s", "report",
                                  {"seconds_per_page": median(times), "words_read": round(found, 3),
                                   "peak_rss_mb": parser.last_peak_rss >> 20}))
    return figures


def run(quick: bool = False) -> list[Figure]:
    return ingestion(quick) + search(quick) + int8_vectors(quick) + ui_stalls(quick) + ocr(quick)
