"""Performance figures of the chat pipeline against raw llama-cpp-python.

The app runs in this process, a real window with its worker; raw llama-cpp-python runs in
a child process (``RawRig``: each process has one thread that runs llama.cpp, as the app
itself). Both sides use the starter model, the same context (2,048), batch (256), threads and
greedy sampling, interleaved over several repetitions; medians and ratios are reported.
For decode and prefill the two sides do the same work, or the ratio means nothing: the
same rendered prompt (the app's system prompt on both), evaluated from an empty cache,
exactly the same number of tokens (past end-of-sequence: ``ignore_eos``), and the same
greedy text, which is asserted. The spread of the per-pair ratios is reported beside
the ratio of the medians.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import Figure, median, percentile, spread, wait_in_event_loop

ROOT = Path(__file__).resolve().parent.parent
THREADS = 2
DECODE_TOKENS = 256
ESSAY = "Write a very long, detailed essay about the history of ships, from rafts to container ships."


class AppRig:
    """A real window (offscreen) with the real engine, unlocked, for driving chats."""

    def __init__(self, model: Path) -> None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from PySide6.QtWidgets import QApplication

        from app.chat.controller import ChatController
        from app.shell.main_window import MainWindow
        from inference.settings import ModelSettings
        from storage.crypto import KdfParams

        self.app = QApplication.instance() or QApplication([])
        self.controller = ChatController()
        self.window = MainWindow(self.controller, kdf=KdfParams(memory_kib=64, iterations=1, lanes=1))
        self.window.show()
        spec = ModelSettings(n_ctx=2048, n_threads=THREADS, n_batch=256).spec(model, "starter")
        self.controller.model.load(spec)
        self.until(lambda: self.controller.model.ready)
        screen = self.window.lock_screen
        screen.passphrase.setText("benchmark passphrase")
        screen.confirm.setText("benchmark passphrase")
        screen.submit.click()
        self.until(lambda: not self.controller.locked)

    def until(self, condition, seconds: float = 300, probe: list[float] | None = None) -> None:
        wait_in_event_loop(condition, seconds, probe)

    def answer(self, text: str, max_tokens: int, probe: list[float] | None = None,
               fixed: bool = False) -> dict:
        """One turn's stats (its text in ``last_text``); ``fixed``: exactly max_tokens."""
        from inference.protocol import SamplingParams

        self.controller.params = SamplingParams(max_tokens=max_tokens, temperature=0.0, seed=1,
                                                repeat_penalty=1.0, ignore_eos=fixed)
        finished = self._ended(lambda: self.controller.send(text), probe)
        self.last_text = finished.content
        return finished.stats

    def regenerate(self, max_tokens: int) -> dict:
        from inference.protocol import SamplingParams

        self.controller.params = SamplingParams(max_tokens=max_tokens, temperature=0.0, seed=1,
                                                repeat_penalty=1.0)
        return self._ended(self.controller.regenerate).stats

    def _ended(self, start, probe: list[float] | None = None):
        """The message that ``start()`` ended in. A turn that fails sends a notice and
        no answer_finished (a failed regenerate removes its version): a notice once the
        turn is over ends the wait at once, as an error with the notice's words, not after
        the 300 s limit."""
        finished: list = []
        notices: list[str] = []
        self.controller.answer_finished.connect(finished.append)
        self.controller.notice.connect(notices.append)
        try:
            assert start(), "not started"
            self.until(lambda: bool(finished) or (bool(notices) and not self.controller.busy),
                       probe=probe)
        finally:
            self.controller.answer_finished.disconnect(finished.append)
            self.controller.notice.disconnect(notices.append)
        if not finished:
            raise RuntimeError(f"the turn ended without an answer: {notices[0]}")
        return finished[0]

    def forget(self) -> None:
        from inference.protocol import Forget

        self.controller.worker.submit(Forget())

    def close(self) -> None:
        self.window.close()
        self.window.deleteLater()
        self.app.processEvents()


class RawRig:
    """llama-cpp-python alone, the same model and settings, the same rendered prompt.

    It runs in a process of its own: a thread that has run llama.cpp keeps its OpenMP team,
    and two teams on 2 cores slow each other (``inference.openmp``), which the app, where
    only the worker thread runs llama.cpp, never meets. The prompt is rendered here by the
    app's engine (its template and tokenizer) and sent as tokens.
    """

    def __init__(self, model: Path) -> None:
        from inference.llama_engine import LlamaEngine
        from inference.protocol import ModelSpec

        self.engine = LlamaEngine()  # only for its template rendering and tokenizer
        self.engine.load(ModelSpec(model, n_ctx=2048, n_threads=THREADS, n_batch=256))
        env = dict(os.environ, PYTHONPATH=str(ROOT))  # with the llama.cpp build the app chose
        self._child = subprocess.Popen([sys.executable, "-m", "benchmarks.perf_bench", "raw", str(model)],
                                       cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       text=True)
        self._reply()  # loaded

    def _reply(self) -> dict:
        assert self._child.stdout is not None
        for line in self._child.stdout:
            if line.startswith("RESULT "):
                return json.loads(line[len("RESULT "):])
        raise RuntimeError(f"the raw side ended (exit {self._child.wait()})")

    def answer(self, messages, max_tokens: int, fixed: bool = False) -> dict:
        """One answer's figures (its text in ``last_text``); ``fixed``: exactly max_tokens,
        past the end."""
        tokens, _ = self.engine._prompt_tokens(messages)
        assert self._child.stdin is not None
        self._child.stdin.write(json.dumps({"tokens": tokens, "max_tokens": max_tokens, "fixed": fixed}) + "\n")
        self._child.stdin.flush()
        result = self._reply()
        self.last_text = result.pop("text")
        return result

    def close(self) -> None:
        if self._child.stdin is not None:
            self._child.stdin.close()
        self._child.wait(60)
        self.engine.close()


def raw_child(model: Path) -> None:
    """The raw side's process: answers each request line (tokens, count) on stdout."""
    import codecs

    from inference import cpu_variant

    cpu_variant.ensure()  # llama.cpp loaded with the same libgomp waiting as the app's
    import llama_cpp

    llm = llama_cpp.Llama(model_path=str(model), n_ctx=2048, n_batch=256, n_threads=THREADS,
                          n_threads_batch=THREADS, verbose=False)
    print("RESULT {}", flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        tokens, max_tokens, fixed = request["tokens"], request["max_tokens"], request["fixed"]
        llm.reset()
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pieces: list[str] = []
        started = time.perf_counter()
        first = None
        count = 0
        for token in llm.generate(tokens, temp=0.0, repeat_penalty=1.0, top_k=40, top_p=0.95, min_p=0.05):
            if first is None:
                first = time.perf_counter()
            if not fixed and llama_cpp.llama_vocab_is_eog(llm._model.vocab, token):
                break
            pieces.append(decoder.decode(llm.detokenize([token])))
            count += 1
            if count >= max_tokens:
                break
        total = time.perf_counter() - started
        ttft = (first or started) - started
        print("RESULT " + json.dumps({
            "tokens": count, "ttft_seconds": ttft, "total_seconds": total,
            "tokens_per_second": (count - 1) / (total - ttft) if count > 1 else 0.0,
            "prompt_tokens": len(tokens), "text": "".join(pieces)}), flush=True)
    llm.close()


def settle(rig: AppRig, seconds: float = 1.0) -> None:
    """Let the other side's work end (its saves, its threads' spinning) before timing."""
    deadline = time.monotonic() + seconds
    rig.until(lambda: time.monotonic() >= deadline, seconds + 5)


def _history_messages(target_tokens: int, count_tokens) -> list[tuple[str, str]]:
    from inference.protocol import ChatMessage

    turns: list[tuple[str, str]] = []
    i = 0
    while True:
        turns.append(("user", f"Question {i}: tell me about harbor number {i} and its ships."))
        turns.append(("assistant", f"Harbor {i} has long piers, cranes and a lighthouse. " * 3))
        messages = [ChatMessage(r, c) for r, c in turns]
        if count_tokens(messages) >= target_tokens:
            return turns
        i += 1


def run(quick: bool = False) -> list[Figure]:
    from core.models import resolve_model
    from inference.protocol import ChatMessage

    figures: list[Figure] = []
    reps = 1 if quick else 3  # --quick (the test command's): a smoke run, one pair each
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HEARTH_DATA_DIR"] = str(Path(tmp) / "data")
        model = resolve_model()
        rig = AppRig(model)
        raw = RawRig(model)
        system = ChatMessage("system", "You are a helpful assistant.")

        # Decode and prefill, app vs raw, interleaved.
        prompt_1000 = "Summarize the following notes.\n" + " ".join(
            f"Note {i}: the ship left port at dawn." for i in range(120))
        decode_app, decode_raw, prefill_app, prefill_raw = [], [], [], []
        stalls: list[float] = []
        for rep in range(reps + (0 if quick else 2)):  # decode is the noisiest figure: two pairs more
            order = (0, 1) if rep % 2 == 0 else (1, 0)
            for side in order:
                settle(rig)
                if side == 0:
                    rig.window.controller.chats.new()
                    rig.forget()  # from an empty cache, as the raw side
                    stats = rig.answer(ESSAY, DECODE_TOKENS, stalls, fixed=True)
                    assert stats["tokens"] == DECODE_TOKENS, stats
                    decode_app.append(stats["tokens_per_second"])
                    app_text = rig.last_text
                    rig.window.controller.chats.new()
                    rig.forget()
                    stats = rig.answer(prompt_1000, 4, fixed=True)
                    prefill_app.append(stats["prompt_tokens"] / stats["ttft_seconds"])
                else:
                    stats = raw.answer([system, ChatMessage("user", ESSAY)], DECODE_TOKENS, fixed=True)
                    assert stats["tokens"] == DECODE_TOKENS, stats
                    decode_raw.append(stats["tokens_per_second"])
                    raw_text = raw.last_text
                    stats = raw.answer([system, ChatMessage("user", prompt_1000)], 4, fixed=True)
                    prefill_raw.append(stats["prompt_tokens"] / stats["ttft_seconds"])
            # The same work on both sides, or the ratio is about something else.
            assert app_text == raw_text, f"the two sides wrote different texts:\n{app_text!r}\n{raw_text!r}"
        figures.append(Figure(f"decode tokens/s, app pipeline ÷ raw llama-cpp-python ({DECODE_TOKENS} tokens)",
                              median(decode_app) / median(decode_raw), "ratio", "target ≥ 0.97",
                              spread(decode_app, decode_raw, identical_text=True)))
        figures.append(Figure("prefill tokens/s, app ÷ raw (≈1,000-token prompt)",
                              median(prefill_app) / median(prefill_raw), "ratio", "target ≥ 0.97",
                              spread(prefill_app, prefill_raw)))
        figures.append(Figure("UI event-loop stall during generation, p99", percentile(stalls, 99),
                              "ms", "target < 50 ms", {"max_ms": max(stalls, default=0.0)}))

        # Prefix reuse and the per-chat state cache.
        turns = _history_messages(1500, raw.engine.count_tokens)
        warm, cold, switch, switch_cold = [], [], [], []
        for _rep in range(reps):
            chat_a = rig.controller.chats.new()
            for role, content in turns:
                rig.controller.store.add_message(chat_a.id, role, content)
            rig.controller.chats.select(chat_a.id)
            rig.answer("And harbor one hundred?", 8)  # evaluates the 1,500-token history
            warm.append(rig.answer("And the next one?", 8)["ttft_seconds"])
            rig.forget()
            cold.append(rig.regenerate(8)["ttft_seconds"])
            chat_b = rig.controller.chats.new()
            rig.answer("Name three colours.", 8)
            rig.controller.chats.select(chat_a.id)
            switch.append(rig.answer("And one more?", 8)["ttft_seconds"])
            rig.forget()
            switch_cold.append(rig.regenerate(8)["ttft_seconds"])
            del chat_b
        figures.append(Figure("time to first token, turn N+1 (1,500-token history) ÷ cold",
                              median(warm) / median(cold), "ratio", "target ≤ 0.15",
                              {"warm_s": median(warm), "cold_s": median(cold)}))
        figures.append(Figure("time to first token after switching back to a chat ÷ cold",
                              median(switch) / median(switch_cold), "ratio", "target ≤ 0.25",
                              {"switch_s": median(switch), "cold_s": median(switch_cold)}))

        # UI stall while a model loads.
        load_probe: list[float] = []
        from inference.settings import ModelSettings

        rig.controller.model.load(ModelSettings(n_ctx=2048, n_threads=THREADS).spec(model, "starter"))
        rig.until(lambda: rig.controller.model.ready, probe=load_probe)
        figures.append(Figure("UI event-loop stall during model load, p99", percentile(load_probe, 99),
                              "ms", "target < 50 ms", {"max_ms": max(load_probe, default=0.0)}))
        raw.close()
        rig.close()
        figures += memory_and_start(model)
    return figures


def memory_and_start(model: Path) -> list[Figure]:
    data = tempfile.mkdtemp(prefix="hearth-memory-")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT), HEARTH_DATA_DIR=data)
    bare = subprocess.run([sys.executable, "-m", "benchmarks.perf_probe", "bare", str(model)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    # The first run creates the vault; the second unlocks it, as every day after the first.
    created = subprocess.run([sys.executable, "-m", "benchmarks.perf_probe", "app", str(model)],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    app = subprocess.run([sys.executable, "-m", "benchmarks.perf_probe", "app", str(model)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    env.pop("HEARTH_DATA_DIR")
    start = subprocess.run([sys.executable, "-m", "benchmarks.perf_probe", "start", str(model)],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)

    def value(done: subprocess.CompletedProcess) -> float:
        lines = [line for line in done.stdout.splitlines() if line.startswith("VALUE ")]
        if not lines:
            raise RuntimeError(done.stdout[-2000:] + done.stderr[-2000:])
        return float(lines[-1].split()[1])

    bare_rss, app_rss, created_rss = value(bare), value(app), value(created)
    shutil.rmtree(data, ignore_errors=True)
    return [
        Figure("resident memory: app with model (vault unlocked) − bare script with model",
               (app_rss - bare_rss) / 2**20, "MB", "target ≤ 100 MB",
               {"app_mb": app_rss / 2**20, "bare_mb": bare_rss / 2**20,
                "first_run_creating_the_vault_mb": (created_rss - bare_rss) / 2**20}),
        Figure("cold start to an interactive window (no key derivation)", value(start) * 1000, "ms", "report"),
    ]


if __name__ == "__main__":
    if sys.argv[1:2] == ["raw"]:
        raw_child(Path(sys.argv[2]))
