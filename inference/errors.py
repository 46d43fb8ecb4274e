"""Errors the user can act on. Their messages are written for the user, not for us."""

from __future__ import annotations

from i18n import translate


class InferenceError(Exception):
    pass


class ModelLoadError(InferenceError):
    pass


class WorkerRefused(InferenceError, RuntimeError):
    """The worker will not run the request (it stopped, or met an internal error): every
    request after it meets the same (a RuntimeError, as it was)."""


class NoModelLoaded(InferenceError):
    def __init__(self) -> None:
        super().__init__(translate("inference.errors", "No model is loaded yet. Wait for it to "
                                   "load, or choose another model."))


class PromptTooLong(InferenceError):
    def __init__(self, prompt_tokens: int, n_ctx: int) -> None:
        self.prompt_tokens = prompt_tokens
        self.n_ctx = n_ctx
        super().__init__(translate(
            "inference.errors",
            "This message is too long for the model: it needs %n tokens and the "
            "model's context holds {n_ctx}, with room left for the answer. Shorten it or "
            "split it into parts.",
            None, prompt_tokens,
        ).format(n_ctx=n_ctx))
