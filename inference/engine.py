"""The engine interface the worker drives, so the UI can be tested with a fake one."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

from inference.protocol import ChatMessage, ModelSpec, SamplingParams

StopCheck = Callable[[], bool]


class Engine(Protocol):
    """One loaded model. Only the worker thread ever calls it."""

    @property
    def name(self) -> str: ...

    @property
    def n_ctx(self) -> int: ...

    def load(self, spec: ModelSpec) -> None:
        """Load the model, replacing any loaded one. Raises ModelLoadError with the reason."""

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        """Tokens the rendered prompt for these messages takes."""

    def stream(
        self, messages: Sequence[ChatMessage], params: SamplingParams, should_stop: StopCheck
    ) -> Iterator[str]:
        """Yield one text piece per generated token ('' while a character is incomplete).

        Checks ``should_stop`` between prompt batches and between tokens.
        """

    def forget(self) -> None:
        """Clear the evaluated conversation (KV cache and token history) from memory."""

    def close(self) -> None:
        """Free the model. Safe to call twice."""
