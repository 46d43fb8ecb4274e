"""llama.cpp's sampler chain run on the few tokens that can be picked, not the whole
vocabulary.

``llama_sampler_sample`` copies every logit into a candidate array (49,152 entries for
the starter model, 262,144 for Gemma 3) before its chain looks at them: measured in the
decode loop here, 2.4 % of the starter's decode time greedily, and 0.25 ms (starter) and
1.6 ms (Gemma 3) a token with the app's default chain. With top-k on, only the ``k``
highest logits can survive it, and penalties that only ever lower a logit (repeat
penalty ≥ 1) can lift no token into them: a token outside the ``k + window`` highest
has at least ``k`` unpenalised tokens at or above it. So the same chain, given those
candidates in token order (as the full array holds them), picks the same token with the
same random draw (one per token, whatever the count); NumPy finds them in a fifth of the
time or less. Greedy without penalties is the arg-max. Anything else (no top-k, a penalty that
raises logits, a top-k near the vocabulary) takes llama.cpp's own path.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from inference.protocol import SamplingParams

GRAMMAR_CANDIDATES = 64
_TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)])


class Sampler:
    """``llm._init_sampler``'s chain for ``params``, sampled on the candidates only."""

    def __init__(self, llm: Any, params: SamplingParams) -> None:
        import llama_cpp

        self._llama = llama_cpp
        grammar = None
        if params.grammar:
            from llama_cpp.llama_grammar import LlamaGrammar

            grammar = LlamaGrammar.from_string(params.grammar, verbose=False)
        self.chain = llm._init_sampler(top_k=params.top_k, top_p=params.top_p, min_p=params.min_p,
                                       temp=params.temperature, repeat_penalty=params.repeat_penalty,
                                       **({"grammar": grammar} if grammar is not None else {}))
        from llama_cpp._internals import LlamaSampler

        # Another chain (a test's stand-in) is sampled as it is.
        self.n_vocab = int(llm.n_vocab()) if isinstance(self.chain, LlamaSampler) else 0
        self._row = ctypes.c_float * max(self.n_vocab, 1)  # (numpy's as_array builds it per call)
        # The last view of the logits and the address it shows: llama.cpp keeps its output
        # buffer from decode to decode, and a row it points to holds n_vocab floats.
        self._address: int | None = None
        self._logits = np.zeros(0, dtype=np.float32)
        penalised = params.repeat_penalty != 1.0
        keep = 1 if params.temperature <= 0 else max(0, int(params.top_k))
        if keep and self.n_vocab and penalised:
            keep += int(llm.last_n_tokens_size)  # the penalty window
        self.grammar = grammar is not None
        if self.grammar:
            # A grammar's check costs per candidate (Gemma 3 has 262,144: 0.5 s a token):
            # greedy, the likeliest few are checked first, and all only if none may follow.
            keep = GRAMMAR_CANDIDATES if params.temperature <= 0 and not penalised else 0
        if keep * 4 > self.n_vocab or params.repeat_penalty < 1.0:
            keep = 0  # llama.cpp's own full pass (no vocabulary: 0)
        self.keep = keep
        self.argmax = keep == 1 and not self.grammar  # greedy, nothing penalised
        self._buffer = np.zeros(max(keep, 1), dtype=_TOKEN_DATA)
        self._array = llama_cpp.llama_token_data_array(
            data=self._buffer.ctypes.data_as(ctypes.POINTER(llama_cpp.llama_token_data)),
            size=keep, selected=-1, sorted=False)

    def sample(self, ctx: Any, index: int) -> int:
        """The token the chain picks from the logits at ``index`` of the last batch (-1:
        its last); the chain then accepts it, as ``llama_sampler_sample`` does."""
        if not self.keep:
            return int(self.chain.sample(ctx, index))
        llama_cpp = self._llama
        address = ctypes.cast(llama_cpp.llama_get_logits_ith(ctx.ctx, index), ctypes.c_void_p).value
        if not address:
            raise RuntimeError("llama.cpp holds no logits at this position")
        if address != self._address:  # a view made once per buffer: cold, it cost 30 µs a token
            self._logits = np.frombuffer(memoryview(self._row.from_address(address)), dtype=np.float32)
            self._address = address
        logits = self._logits
        if self.argmax:
            token = int(logits.argmax())  # the first of equal maxima, as the greedy sampler
        else:
            keep = self.keep
            ids = np.argpartition(logits, self.n_vocab - keep)[self.n_vocab - keep:]
            ids.sort()
            buffer = self._buffer
            buffer["id"] = ids
            buffer["logit"] = logits[ids]
            buffer["p"] = 0.0
            array = self._array
            array.size, array.selected, array.sorted = keep, -1, False
            llama_cpp.llama_sampler_apply(self.chain.sampler, ctypes.byref(array))
            if self.grammar and not (0 <= array.selected < array.size
                                     and np.isfinite(array.data[array.selected].logit)):
                return int(self.chain.sample(ctx, index))  # none of them may follow: all of them
            if not 0 <= array.selected < array.size:
                raise RuntimeError("the sampler chain picked no token")
            token = int(array.data[array.selected].id)
        llama_cpp.llama_sampler_accept(self.chain.sampler, token)
        return token
