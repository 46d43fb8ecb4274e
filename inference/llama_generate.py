"""Generating with llama.cpp: a prompt evaluated after the prefix the context already
holds, then the answer sampled one token at a time and turned into text.

``reuse_prefix`` keeps the tokens at the start of the context that the new prompt shares
(the same conversation's previous prompt) and ``evaluate_prompt`` evaluates the rest in
small batches, so that a stop request is honoured between batches. ``sampled_tokens``
evaluates and samples one token at a time, or a token and a guess of the next ones
(``inference.lookup``) in one batch, and leaves exactly the tokens written in the context.
``text_pieces`` makes one text piece per token and ends at an end token, a stop string
or the token limit. ``decode`` is ``Llama.eval`` without its per-call overhead: this module
works on llama-cpp-python's internals; ``inference.llama_engine`` drives it.
"""

from __future__ import annotations

import codecs
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any

from inference.lookup import Drafter, DraftPolicy
from inference.protocol import SamplingParams
from inference.sampling import Sampler

PREFILL_STEP = 64
PROGRESS_AFTER = 2 * PREFILL_STEP  # tokens to read before progress is worth saying (~0.6 s here)

Progress = Callable[[int, int], None]


def reuse_prefix(llm: Any, tokens: list[int]) -> int:
    """Keep the context's tokens that begin ``tokens`` too (all but its last at most),
    drop the rest from the token count; how many were kept."""
    cached = llm.n_tokens
    input_ids = llm.input_ids
    common = 0
    limit = min(cached, len(tokens) - 1)
    while common < limit and input_ids[common] == tokens[common]:
        common += 1
    llm.n_tokens = common
    return common


def evaluate_prompt(llm: Any, tokens: list[int], common: int, should_stop: Callable[[], bool],
                    progress: Progress | None) -> bool:
    """Evaluate all but the last prompt token after the ``common`` ones already there.

    Returns False when stopped. The decode loop (``sampled_tokens``) then evaluates the
    last one before it samples. ``progress``, for a long prompt, is called with (tokens
    evaluated, prompt tokens) before each step.
    """
    # Small steps keep stop and quit responsive during a long prompt (~0.3 s each on 2
    # cores); larger ones measured no faster here without flash attention.
    step = max(1, min(llm.n_batch, PREFILL_STEP))
    last = len(tokens) - 1
    if last - common <= PROGRESS_AFTER:
        progress = None
    for start in range(common, last, step):
        if should_stop():
            return False
        if progress is not None:
            progress(start, len(tokens))
        decode(llm, tokens[start:min(start + step, last)], False)
    return not should_stop()


def sampled_tokens(llm: Any, prompt: list[int], params: SamplingParams, max_tokens: int,
                   drafter: Drafter | None, policy: DraftPolicy) -> Generator[int, None, None]:
    """The sampled tokens, one at a time, after the prompt's last token.

    With a ``drafter``, each evaluation takes the last token and a guess of the next ones
    (``inference.lookup``; as many as ``policy`` chooses) in one batch, with logits at every
    position; the sampler then picks at each position in turn, and a guessed token stays
    only if it is the one picked, so the tokens are those of the plain loop. What the guess
    got wrong leaves the cache again, so the context always holds exactly the tokens
    written (also when the caller stops in the middle of a batch).
    """
    sampler = Sampler(llm, params)
    llm._sampler = sampler.chain
    pending = prompt[-1]
    written = 0
    n_ctx = int(llm.n_ctx())
    valid = llm.n_tokens
    clock = time.perf_counter
    try:
        while True:
            start = llm.n_tokens
            room = min(max_tokens - written - 1, n_ctx - start - 2, llm.n_batch - 1)
            draft = drafter.draft(room) if drafter is not None else []
            if draft:
                draft = draft[:policy.choose(len(draft))]
            batch = [pending, *draft]
            began = clock()
            decode(llm, batch, bool(draft), trim=not written)
            seconds = clock() - began
            first = not written
            valid = start + 1
            for i in range(len(batch)):
                token = sampler.sample(llm._ctx, i if draft else -1)
                written += 1
                accepted = i < len(draft) and token == draft[i]
                if accepted:
                    valid += 1  # the guess at i is in the cache, and right
                if drafter is not None:
                    drafter.accepted += accepted
                    drafter.extend((token,))
                yield token
                if not accepted:
                    break
            if drafter is not None and not first:  # the first step also trims the cache
                policy.record(len(draft), seconds, valid - start)
            _keep_only(llm, valid)  # the wrong guesses leave the cache
            pending = token
    finally:
        _keep_only(llm, valid)  # stopped in the middle of a batch


def text_pieces(tokens: Generator[int, None, None], piece: Callable[[int], bytes],
                end_tokens: frozenset[int], stop_strings: Sequence[str], max_tokens: int,
                endless: bool, should_stop: Callable[[], bool]) -> Iterator[str]:
    """One text piece per token ('' while a character is incomplete), up to an end token,
    a stop string (cut before it) or ``max_tokens``; ``tokens`` is closed at the end.

    ``endless`` (a fixed count: ``ignore_eos``, benchmarks) goes past end tokens and stop
    strings, but still checks for them: it does the same work per token as an answer.
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    held = ""  # text that might be the start of a stop string
    produced = 0
    try:
        for token in tokens:
            if token in end_tokens and not endless:
                break
            text = held + decoder.decode(piece(token))
            if stop_strings:
                cut = _find_stop(text, stop_strings)
                if cut is not None and not endless:
                    yield text[:cut]
                    break
                keep = _partial_stop_suffix(text, stop_strings)
                if endless:
                    keep = 0
                held = text[len(text) - keep:] if keep else ""
                yield text[: len(text) - keep]
            else:
                yield text
            produced += 1
            if produced >= max_tokens or should_stop():
                break
        if held and not should_stop():
            yield held
    finally:
        tokens.close()


def decode(llm: Any, batch: list[int], every_position: bool, trim: bool = True) -> None:
    """Evaluate ``batch`` after the context's tokens, with logits at every position or at
    the last one only (``Llama.eval`` without its per-call overhead), in pieces of at
    most the batch size (llama-cpp-python's batch holds no more). ``trim``: first drop
    what the cache holds past them (a scan of every cell: the decode loop, which leaves
    nothing past its tokens, skips it after its first step)."""
    if trim:
        llm._ctx.kv_cache_seq_rm(-1, llm.n_tokens, -1)
    size = max(1, int(llm.n_batch))
    if every_position and len(batch) > size:
        raise ValueError("logits at every position need the batch in one piece")
    for offset in range(0, len(batch), size):
        piece = batch[offset:offset + size]
        start = llm.n_tokens
        llm._batch.set_batch(batch=piece, n_past=start, logits_all=every_position)
        llm._ctx.decode(llm._batch)
        llm.input_ids[start:start + len(piece)] = piece
        llm.n_tokens = start + len(piece)
    llm._requires_eval = False


def _keep_only(llm: Any, count: int) -> None:
    """The cache holds the first ``count`` tokens and nothing after them."""
    if count < llm.n_tokens:
        llm._ctx.kv_cache_seq_rm(-1, count, -1)
        llm.n_tokens = count


def _find_stop(text: str, stops: Sequence[str]) -> int | None:
    positions = [text.find(s) for s in stops if s in text]
    return min(positions) if positions else None


def _partial_stop_suffix(text: str, stops: Sequence[str]) -> int:
    """Length of the longest tail of ``text`` that begins some stop string."""
    best = 0
    for stop in stops:
        for length in range(min(len(stop) - 1, len(text)), 0, -1):
            if text.endswith(stop[:length]):
                best = max(best, length)
                break
    return best
