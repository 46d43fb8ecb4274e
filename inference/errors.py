"""Errors the user can act on. Their messages are written for the user, not for us."""

from __future__ import annotations


class InferenceError(Exception):
    pass


class ModelLoadError(InferenceError):
    pass


class NoModelLoaded(InferenceError):
    def __init__(self) -> None:
        super().__init__("No model is loaded yet. Wait for it to load, or choose another model.")


class PromptTooLong(InferenceError):
    def __init__(self, prompt_tokens: int, n_ctx: int) -> None:
        self.prompt_tokens = prompt_tokens
        self.n_ctx = n_ctx
        super().__init__(
            f"This message is too long for the model: it needs {prompt_tokens} tokens and the "
            f"model's context holds {n_ctx}, with room left for the answer. Shorten it or "
            "split it into parts."
        )
