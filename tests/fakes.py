"""A fake engine for UI and worker tests: canned tokens, deterministic, as fast or slow as asked.

It follows the Engine protocol exactly; the real engine is tested against the starter
model in the tests marked ``model``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from inference.errors import ModelLoadError, PromptTooLong
from inference.protocol import ChatMessage, ModelSpec, SamplingParams


class FakeEngine:
    def __init__(
        self,
        tokens: Sequence[str] | None = None,
        delay: float = 0.0,
        n_ctx: int = 512,
    ) -> None:
        self.tokens = list(tokens) if tokens is not None else ["Hello", ",", " world", "!"]
        self.delay = delay
        self._n_ctx = n_ctx
        self.loaded: Path | None = None
        self.closed = False
        self.calls: list[list[ChatMessage]] = []
        self.answers = 0
        self.forgotten = 0
        self.thread: threading.Thread | None = None

    @property
    def name(self) -> str:
        return "Fake model"

    @property
    def n_ctx(self) -> int:
        return self._n_ctx

    def load(self, spec: ModelSpec) -> None:
        self.thread = threading.current_thread()
        if "broken" in spec.path.name:
            raise ModelLoadError(f"{spec.path.name} is not a GGUF model file.")
        self.loaded = spec.path

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        return sum(len(m.content.split()) + 4 for m in messages)

    def stream(
        self, messages: Sequence[ChatMessage], params: SamplingParams, should_stop
    ) -> Iterator[str]:
        assert threading.current_thread() is self.thread, "engine used off the worker thread"
        self.calls.append(list(messages))
        if self.count_tokens(messages) >= self._n_ctx:
            raise PromptTooLong(self.count_tokens(messages), self._n_ctx)
        self.answers += 1
        for index, token in enumerate(self.tokens):
            if should_stop():
                return
            if self.delay:
                time.sleep(self.delay)
            # Answers differ from one to the next, so a regenerated answer is visibly new.
            yield f"{token}" if index else f"[{self.answers}] {token}"

    def expected_text(self, answer: int) -> str:
        return f"[{answer}] " + "".join(self.tokens)

    def forget(self) -> None:
        self.forgotten += 1

    def close(self) -> None:
        self.closed = True
