"""Scale figures (#43): a vault of a million passages, measured as the app uses it.

The vault is filled through the document store itself (``save_document`` and
``replace_chunks``: every payload and vector sealed as an import seals them), with
synthetic passages of realistic length (about 180 English words, or about 330 Chinese
characters for one passage in five, words drawn from a Zipf distribution over a 20,000-word
vocabulary and the 3,000 commonest ideographs) in documents of 100 passages. The vectors
are synthetic (384 dimensions, as multilingual-e5-small's: 2,000 topics, each vector a
topic's centre plus noise, normalised): embedding a million passages takes this machine
most of a day, and search, memory and loading cost the same for any vectors of that size.

A fresh process then does what the window does after the passphrase, measured from the
vault's opening: the index is loaded (``Ingestion.load``, every chunk decrypted) and the
first question is answered. It then measures hybrid search p50/p95 over all collections,
adding 100 files of 10 passages (stored and indexed, with a search after each file as the
window's next question would), against the same into an empty vault, and deleting a
10,000-passage collection. Resident memory is the process's own (VmRSS), after loading
less before it; the peak is VmHWM.

``--quick`` uses 20,000 passages; ``HEARTH_SCALE_PASSAGES`` sets another size.
Figures are named ``passages_1m.*`` whatever the size, with the size in the detail.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import Figure, percentile, process_status

PASSPHRASE = "benchmark passphrase"
PER_DOCUMENT = 100
DIMENSIONS = 384
TOPICS = 2000
SMALL_COLLECTION = 10_000  # the collection deleted


def _vocabulary(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    syllables = ["ka", "lo", "mi", "ten", "dor", "ve", "ran", "sul", "pe", "tri", "on", "ab",
                 "ex", "gra", "mun", "cel", "fi", "por", "tas", "ion", "er", "al", "ur", "qu"]
    english = np.array(["".join(rng.choice(syllables, rng.integers(1, 4))) + str(i % 7 or "")
                        for i in range(20_000)])
    chinese = np.array([chr(0x4E00 + int(i)) for i in rng.permutation(3000)])
    return english, chinese


def passage(rng: np.random.Generator, english: np.ndarray, chinese: np.ndarray) -> str:
    if rng.random() < 0.2:
        count = int(rng.integers(250, 420))
        return "".join(chinese[np.minimum(rng.zipf(1.2, count), len(chinese)) - 1])
    count = int(rng.integers(140, 230))
    return " ".join(english[np.minimum(rng.zipf(1.15, count), len(english)) - 1]) + "."


def vectors(rng: np.random.Generator, centres: np.ndarray, count: int) -> np.ndarray:
    topics = rng.integers(0, len(centres), count)
    v = centres[topics] + 0.6 * rng.standard_normal((count, DIMENSIONS)).astype(np.float32)
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def fill(store: Any, collection: Any, documents: int, rng: np.random.Generator,
         centres: np.ndarray, vocabulary: tuple[np.ndarray, np.ndarray], per_document: int = PER_DOCUMENT,
         prefix: str = "archive") -> None:
    from storage.documents.chunking import Chunk
    from storage.documents.store import INDEXED, Document

    for d in range(documents):
        texts = [passage(rng, *vocabulary) for _ in range(per_document)]
        document = store.save_document(Document(0, collection.id, f"/cases/{prefix}/{d:06d}.pdf", INDEXED,
                                                size=1000 + d, mtime=float(d), chunks=per_document))
        chunks = [Chunk(text, 0, i // 2 + 1, None, 0, len(text)) for i, text in enumerate(texts)]
        store.replace_chunks(document, chunks, vectors(rng, centres, per_document), collection.embedding_model)


def build(path: Path, passages: int) -> None:
    """A vault at ``path`` holding ``passages`` passages in one collection, plus a collection
    of 10,000 (or a tenth of the total, if less) to delete."""
    from storage.crypto import KdfParams
    from storage.documents.store import DocumentStore
    from storage.vault import Vault

    rng = np.random.default_rng(43)
    centres = rng.standard_normal((TOPICS, DIMENSIONS)).astype(np.float32)
    vocabulary = _vocabulary(rng)
    vault = Vault.create(path, PASSPHRASE, KdfParams(memory_kib=64, iterations=1, lanes=1))
    store = DocumentStore(vault)
    small = min(SMALL_COLLECTION, passages // 10)
    archive = replace(store.create_collection("archive"), embedding_model="e5")
    store.update_collection(archive)
    deleted = replace(store.create_collection("old matter"), embedding_model="e5")
    store.update_collection(deleted)
    fill(store, archive, (passages - small) // PER_DOCUMENT, rng, centres, vocabulary)
    fill(store, deleted, small // PER_DOCUMENT, rng, centres, vocabulary, prefix="old")
    vault.close()


def _memory() -> dict[str, float]:
    """This process's resident memory and its peak, in MB."""
    status = process_status()
    return {key: status.get(key, 0) / 1024 for key in ("VmRSS", "VmHWM")}


class _Steps:
    def check(self) -> None:
        pass


def _open(path: Path) -> tuple[Any, Any, Any, float]:
    """The vault opened and its index loaded as the window does after the passphrase: the
    store, the indexes, the ingestion, and the seconds it took."""
    from core.documents import Ingestion
    from storage.documents.indexes import Indexes
    from storage.documents.store import DocumentStore
    from storage.vault import Vault

    started = time.perf_counter()
    vault = Vault.open(path, PASSPHRASE)
    store = DocumentStore(vault)
    indexes = Indexes(texts=store.chunk_texts, vectors=store.chunk_vectors)  # as the document service makes it
    ingestion = Ingestion(store, indexes, _Steps())  # type: ignore[arg-type]
    ingestion.load()
    return store, indexes, ingestion, started


def _questions() -> tuple[list[tuple[str, np.ndarray]], np.random.Generator, np.ndarray, Any]:
    rng = np.random.default_rng(7)
    centres = np.random.default_rng(43).standard_normal((TOPICS, DIMENSIONS)).astype(np.float32)
    vocabulary = _vocabulary(np.random.default_rng(43))
    questions = [(" ".join(passage(rng, *vocabulary).split()[:6]), vectors(rng, centres, 1)[0])
                 for _ in range(60)]
    return questions, rng, centres, vocabulary


def rebuild(path: Path) -> dict[str, Any]:
    """In a fresh process, with no saved index: every row decrypted and tokenised, then the
    first question, then the index sealed into its file as the window does when idle."""
    from storage.documents import index_file

    questions, *_ = _questions()
    store, indexes, ingestion, started = _open(path)
    load_s = time.perf_counter() - started
    ids = [c.id for c in store.collections()]
    indexes.search(questions[0][0], {"e5": questions[0][1]}, ids)
    first_s = time.perf_counter() - started
    t = time.perf_counter()
    ingestion.save_index(lambda: None)
    save_s = time.perf_counter() - t
    size = index_file.path_for(store.vault.path).stat().st_size
    store.vault.close()
    return {"passages": len(indexes), "rebuild_load_s": load_s, "rebuild_first_search_s": first_s,
            "save_s": save_s, "index_file_mb": size / 1e6, "rebuild_peak_rss_mb": _memory()["VmHWM"]}


def measure(path: Path) -> dict[str, Any]:
    """In a fresh process, the saved index there: unlock to first search, memory, search,
    adds, delete."""
    questions, rng, centres, vocabulary = _questions()
    before = _memory()
    store, indexes, _ingestion, started = _open(path)
    load_s = time.perf_counter() - started
    collections = {c.name: c for c in store.collections()}
    ids = [c.id for c in collections.values()]
    indexes.search(questions[0][0], {"e5": questions[0][1]}, ids)
    first_s = time.perf_counter() - started
    after = _memory()
    times = []
    for text, vector in questions[1:]:
        t = time.perf_counter()
        indexes.search(text, {"e5": vector}, ids)
        times.append(time.perf_counter() - t)
    result: dict[str, Any] = {
        "passages": len(indexes), "load_s": load_s, "unlock_to_first_search_s": first_s,
        "index_rss_mb": after["VmRSS"] - before["VmRSS"], "peak_rss_mb": after["VmHWM"],
        "search_p50_ms": statistics.median(times) * 1000, "search_p95_ms": percentile(times, 95) * 1000,
    }
    result["add_per_passage_ms"], result["search_after_add_ms"] = _adds(
        store, indexes, collections["archive"], rng, centres, vocabulary, questions)
    t = time.perf_counter()
    old = collections["old matter"]
    store.delete_collection(old.id)
    indexes.remove_collection(old.id)
    result["delete_s"] = time.perf_counter() - t
    t = time.perf_counter()
    indexes.search(questions[0][0], {"e5": questions[0][1]}, [collections["archive"].id])
    result["search_after_delete_ms"] = (time.perf_counter() - t) * 1000
    store.vault.close()
    return result


def _file(store: Any, indexes: Any, collection: Any, rng: np.random.Generator, centres: np.ndarray,
          vocabulary: tuple[np.ndarray, np.ndarray], name: str) -> float:
    """One file of 10 passages stored and indexed as an import does it: the seconds it took."""
    from storage.documents.chunking import Chunk
    from storage.documents.store import INDEXED, Document, StoredChunk

    texts = [passage(rng, *vocabulary) for _ in range(10)]
    chunks = [Chunk(text, 0, 1, None, 0, len(text)) for text in texts]
    made = vectors(rng, centres, 10)
    t = time.perf_counter()
    document = store.save_document(Document(0, collection.id, name, INDEXED, chunks=10))
    ids = store.replace_chunks(document, chunks, made, collection.embedding_model)
    for row_id, chunk, vector in zip(ids, chunks, made, strict=True):
        indexes.add(StoredChunk(row_id, collection.id, document.id, chunk.text, document.path, chunk.page,
                                None, chunk.start, chunk.end, collection.embedding_model), vector)
    return time.perf_counter() - t


def _adds(store: Any, indexes: Any, collection: Any, rng: np.random.Generator, centres: np.ndarray,
          vocabulary: tuple[np.ndarray, np.ndarray], questions: list[Any]) -> tuple[float, float]:
    """100 files of 10 passages stored and indexed, each followed by a search: the mean time
    a passage took to store and index (its caches left cold by the search before it), and
    the median search right after a file."""
    adding = 0.0
    searches = []
    for d in range(100):
        adding += _file(store, indexes, collection, rng, centres, vocabulary, f"/cases/new/{d}.md")
        text, vector = questions[d % len(questions)]
        t = time.perf_counter()
        indexes.search(text, {"e5": vector}, [collection.id])
        searches.append(time.perf_counter() - t)
    return adding / 1000 * 1000, statistics.median(searches) * 1000


ADD_ROUNDS = 5  # rounds of 20 files in each vault, in turn


def adds_side_by_side(big: Path, empty: Path) -> dict[str, Any]:
    """Files added as an import adds them (one after another, nothing between), to the
    large vault and to an empty one in turn in the same process, ADD_ROUNDS rounds of 20
    files each: this machine's disk and neighbours weigh on both alike. Milliseconds a
    passage, per round."""
    questions, rng, centres, vocabulary = _questions()
    opened = {name: _open(path) for name, path in (("large", big), ("empty", empty))}
    rounds: dict[str, list[float]] = {"large": [], "empty": []}
    for r in range(ADD_ROUNDS):
        for name in (("large", "empty") if r % 2 == 0 else ("empty", "large")):
            store, indexes, _ingestion, _started = opened[name]
            archive = next(c for c in store.collections() if c.name == "archive")
            spent = sum(_file(store, indexes, archive, rng, centres, vocabulary, f"/cases/side/{r}/{f}.md")
                        for f in range(20))
            rounds[name].append(spent / 200 * 1000)
    for store, *_rest in opened.values():
        store.vault.close()
    return rounds


def _child(path: Path, what: str = "measure", *more: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "benchmarks.scale_bench", what, str(path), *map(str, more)],
                          capture_output=True, text=True, check=False, timeout=6 * 3600)
    if done.returncode:
        raise RuntimeError(f"the measuring process failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def passages_figures(quick: bool) -> list[Figure]:
    size = int(os.environ.get("HEARTH_SCALE_PASSAGES") or (20_000 if quick else 1_000_000))
    with tempfile.TemporaryDirectory() as tmp:
        big, empty = Path(tmp) / "big.db", Path(tmp) / "empty.db"
        started = time.perf_counter()
        build(big, size)
        fill_s = time.perf_counter() - started
        build(empty, 0)
        rebuilt = _child(big, "rebuild")
        large, small = _child(big), _child(empty)
        side = _child(big, "adds", empty)
    detail = {"passages": large["passages"], "fill_s": fill_s, "vectors": "synthetic, 384 dimensions"}
    return [
        Figure("passages_1m.unlock_to_first_search_s", large["unlock_to_first_search_s"], "s",
               "target ≤ 10 s", {**detail, "load_s": large["load_s"]}),
        Figure("passages_1m.rebuild_from_rows_s", rebuilt["rebuild_first_search_s"], "s",
               "report (an unlock without a usable saved index)",
               {**detail, "load_s": rebuilt["rebuild_load_s"], "peak_rss_mb": rebuilt["rebuild_peak_rss_mb"]}),
        Figure("passages_1m.save_index_s", rebuilt["save_s"], "s", "report (in the background, when idle)",
               {**detail, "index_file_mb": rebuilt["index_file_mb"]}),
        Figure("passages_1m.index_rss_mb", large["index_rss_mb"], "MB", "target < 2,048 MB",
               {**detail, "peak_rss_mb": large["peak_rss_mb"]}),
        Figure("passages_1m.search_p95_ms", large["search_p95_ms"], "ms", "target < 100 ms",
               {**detail, "search_p50_ms": large["search_p50_ms"]}),
        Figure("passages_1m.add_per_passage_ratio",
               statistics.median(side["large"]) / statistics.median(side["empty"]), "ratio",
               "target ≤ 1 (÷ an empty vault; files added back to back, warm caches: the medians of "
               "rounds of 20 files added to each in turn)",
               {**detail, "large_ms": side["large"], "empty_ms": side["empty"]}),
        Figure("passages_1m.add_first_files_ratio", side["large"][0] / side["empty"][0], "ratio",
               "report (the first 20 files after the unlock, ÷ an empty vault's first 20)",
               {**detail, "large_ms": side["large"][0], "empty_ms": side["empty"][0]}),
        Figure("passages_1m.add_after_a_search_ratio", large["add_per_passage_ms"] / small["add_per_passage_ms"],
               "ratio", "report (100 files, each after a search: caches left cold; two processes one after the other)",
               {**detail, "large_ms": large["add_per_passage_ms"], "empty_ms": small["add_per_passage_ms"]}),
        Figure("passages_1m.search_after_add_ms", large["search_after_add_ms"], "ms", "report",
               {**detail, "empty_ms": small["search_after_add_ms"]}),
        Figure("passages_1m.delete_10k_collection_s", large["delete_s"], "s", "report",
               {**detail, "search_after_delete_ms": large["search_after_delete_ms"]}),
    ]


def build_chats(path: Path, chats: int, per_chat: int, long_chat: int) -> None:
    """``chats`` chats of ``per_chat`` messages and one of ``long_chat``, as vault_bench fills them."""
    from benchmarks.vault_bench import fill
    from storage.chats import ChatStore
    from storage.crypto import KdfParams
    from storage.vault import Vault

    store = ChatStore(Vault.create(path, PASSPHRASE, KdfParams(memory_kib=64, iterations=1, lanes=1)))
    fill(store, 1, long_chat)
    store.rename_chat(store.list_chats()[0].id, "The long one")
    fill(store, chats - 1, per_chat)
    store.close()


def measure_chats(path: Path) -> dict[str, Any]:
    """In a fresh process: unlock to the chat list, the long chat opened, searches, memory."""
    from storage.chats import ChatStore
    from storage.vault import Vault

    before = _memory()
    started = time.perf_counter()
    store = ChatStore(Vault.open(path, PASSPHRASE))
    opened = time.perf_counter()
    listed = store.list_chats()
    listed_s = time.perf_counter() - opened
    longest = next(c for c in listed if c.title == "The long one")
    t = time.perf_counter()
    shown = store.messages(longest.id)
    open_s = time.perf_counter() - t
    t = time.perf_counter()
    store.search.chats("chat 4711 ")
    first_search_s = time.perf_counter() - t
    times = []
    for i in range(20):
        t = time.perf_counter()
        store.search.chats(f"message {i * 37} of chat {i * 401} ")
        times.append(time.perf_counter() - t)
    after = _memory()
    result = {"chats": len(listed), "long_chat_messages": len(shown),
              "unlock_s": opened - started, "chat_list_s": listed_s, "open_long_chat_s": open_s,
              "first_search_s": first_search_s, "search_p50_s": statistics.median(times),
              "search_p95_s": percentile(times, 95), "rss_mb": after["VmRSS"] - before["VmRSS"]}
    store.close()
    return result


def chats_figures(quick: bool) -> list[Figure]:
    chats, per_chat, long_chat = (200, 50, 1000) if quick else (10_000, 100, 5000)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "chats.db"
        started = time.perf_counter()
        build_chats(path, chats, per_chat, long_chat)
        fill_s = time.perf_counter() - started
        found = _child(path, "measure-chats")
    detail = {"chats": found["chats"], "messages": (chats - 1) * per_chat + long_chat, "fill_s": fill_s}
    return [
        Figure("chats_10k.chat_list_s", found["chat_list_s"], "s", "target < 0.5 s",
               {**detail, "unlock_s": found["unlock_s"]}),
        Figure("chats_10k.open_5000_message_chat_s", found["open_long_chat_s"], "s", "target < 0.5 s",
               {**detail, "long_chat_messages": found["long_chat_messages"]}),
        Figure("chats_10k.search_p95_s", found["search_p95_s"], "s", "target < 1 s",
               {**detail, "search_p50_s": found["search_p50_s"], "first_search_s": found["first_search_s"]}),
        Figure("chats_10k.first_search_s", found["first_search_s"], "s", "report", detail),
        Figure("chats_10k.search_rss_mb", found["rss_mb"], "MB", "report", detail),
    ]


def run(quick: bool = False) -> list[Figure]:
    return passages_figures(quick) + chats_figures(quick)


if __name__ == "__main__":
    measured = {"measure": measure, "rebuild": rebuild, "measure-chats": measure_chats,
                "adds": adds_side_by_side}[sys.argv[1]]
    print(json.dumps(measured(*map(Path, sys.argv[2:]))))
