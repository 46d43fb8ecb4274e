"""Recent chats' model state (the evaluated KV cache) kept in RAM, least recently used out.

Switching back to a chat restores its state instead of evaluating its whole history
again. Only the sequence's KV data and its token ids are kept (llama-cpp-python's own
save_state also copies a logits buffer of n_batch x n_vocab floats, up to hundreds of
MB). Never written to disk: the state holds the conversation in recoverable form.

The engine keeps one conversation's state in the context at a time; ``StateCache.switch``
parks it here and brings another one's back (or empties the context: ``clear_context``).
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

DEFAULT_LIMIT = 256 << 20


@dataclass(frozen=True)
class SavedState:
    tokens: np.ndarray
    kv: bytes

    @property
    def size(self) -> int:
        return len(self.kv) + self.tokens.nbytes


def save(llm: Any) -> SavedState | None:
    import llama_cpp

    n = int(llm.n_tokens)
    if n <= 0:
        return None
    ctx = llm._ctx.ctx
    size = int(llama_cpp.llama_state_seq_get_size(ctx, 0))
    buffer = (ctypes.c_uint8 * size)()
    written = int(llama_cpp.llama_state_seq_get_data(ctx, buffer, size, 0))
    if written <= 0:
        return None
    return SavedState(np.array(llm.input_ids[:n], dtype=np.intc), bytes(buffer[:written]))


def restore(llm: Any, state: SavedState) -> bool:
    import llama_cpp

    llm._ctx.kv_cache_clear()
    buffer = (ctypes.c_uint8 * len(state.kv)).from_buffer_copy(state.kv)
    if int(llama_cpp.llama_state_seq_set_data(llm._ctx.ctx, buffer, len(state.kv), 0)) == 0:
        llm.n_tokens = 0
        return False
    n = len(state.tokens)
    llm.input_ids[:n] = state.tokens
    llm.n_tokens = n
    llm._requires_eval = True  # the logits are not restored: the last token is evaluated again
    return True


def clear_context(llm: Any) -> None:
    """Empty the context: the KV cache, the token history and the sampler's recent tokens."""
    llm._ctx.kv_cache_clear()
    llm.input_ids[:] = 0
    llm.n_tokens = 0
    llm._sampler = None  # its repeat-penalty window holds the last tokens
    llm._requires_eval = True


class StateCache:
    def __init__(self, limit_bytes: int = DEFAULT_LIMIT) -> None:
        self.limit = limit_bytes
        self._states: OrderedDict[int, SavedState] = OrderedDict()

    @property
    def size(self) -> int:
        return sum(s.size for s in self._states.values())

    def put(self, key: int, state: SavedState) -> None:
        self._states.pop(key, None)
        if state.size > self.limit:
            return
        self._states[key] = state
        while self.size > self.limit:
            self._states.popitem(last=False)

    def take(self, key: int) -> SavedState | None:
        return self._states.pop(key, None)

    def __contains__(self, key: int) -> bool:
        return key in self._states

    def clear(self) -> None:
        self._states.clear()

    def switch(self, llm: Any, current: int | None, conversation: int) -> None:
        """Park the state of the ``current`` conversation that the context holds here (a
        key of the window's chats, >= 0: the local API's negative ones never are), and put
        ``conversation``'s back in the context if it is here, else empty the context."""
        if current is not None and current >= 0:
            saved = save(llm)
            if saved is not None:
                self.put(current, saved)
        cached = self.take(conversation)
        if cached is None or not restore(llm, cached):
            clear_context(llm)
