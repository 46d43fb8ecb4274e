"""Prompt-lookup drafting: guesses of the next tokens taken from the context itself.

An answer about documents copies runs of its passages: names, figures, whole phrases.
When the last few tokens written so far also occur earlier in the context (the prompt or
the answer), the tokens that followed them there are a good guess of what comes next.
The engine evaluates the guess together with the last token in one batch and keeps the
guessed tokens as long as they are what the sampler picks anyway (``LlamaEngine``), so
the loop writes the tokens it would have written, with several tokens per evaluation
where the guess is right.

That holds only while llama.cpp computes a batch's logits exactly as it computes the same
tokens one at a time. On the CPU its kernels change with the batch: llamafile's sgemm from
two tokens on (Hearth's builds move that to four: ``SOURCE_PATCHES`` in
``packaging/bootstrap.py``), weights repacked for the CPU from four rows, K-quant tiles
from eight. So a guess is at most ``DRAFT_TOKENS`` = 2 tokens, a batch of three, which is
computed exactly as one token at a time (``tests/inference/test_llama_engine.py`` checks
the logits on the starter model and on Gemma 3's K-quants). ``DraftPolicy`` decides
whether guessing pays at all on the model and machine at hand.

The index maps every n-gram (``MIN_NGRAM`` to ``MAX_NGRAM`` tokens) to where the token
after its latest earlier occurrence stands, so a guess costs a few dictionary lookups,
whatever the context's length.
"""

from __future__ import annotations

from collections.abc import Sequence

MIN_NGRAM = 2
MAX_NGRAM = 4
DRAFT_TOKENS = 2  # with the last token, a batch of 3: exact on every weight type (see above)


class Drafter:
    def __init__(self, tokens: Sequence[int], min_ngram: int = MIN_NGRAM, max_ngram: int = MAX_NGRAM,
                 draft_tokens: int = DRAFT_TOKENS) -> None:
        self._min, self._max, self._length = min_ngram, max_ngram, draft_tokens
        self._tokens: list[int] = []
        self._after: dict[tuple[int, ...], int] = {}
        self.drafted = 0
        self.accepted = 0
        self.extend(tokens)

    def extend(self, tokens: Sequence[int]) -> None:
        """The tokens now in the context after the ones given so far."""
        seen = self._tokens
        for token in tokens:
            end = len(seen)  # the n-grams that end just before ``token`` are followed by it
            for n in range(self._min, self._max + 1):
                if end >= n:
                    self._after[tuple(seen[end - n:end])] = end
            seen.append(token)

    def draft(self, limit: int) -> list[int]:
        """Up to ``limit`` tokens that followed the longest recent n-gram found earlier."""
        seen = self._tokens
        limit = min(limit, self._length)
        if limit <= 0:
            return []
        end = len(seen)
        for n in range(self._max, self._min - 1, -1):
            if end < n:
                continue
            position = self._after.get(tuple(seen[end - n:end]))
            if position is not None and position < end:
                guess = seen[position:position + limit]
                self.drafted += len(guess)
                return guess
        return []


class DraftPolicy:
    """Whether a guess of ``k`` tokens is worth its batch, learnt on this model and machine.

    A batch of 1 + k tokens costs more than one (on 2 cores, the 135M starter model's batch
    of three costs 1.9 single tokens: compute bounds it, not memory; Gemma 3 270M's 1.5),
    and pays only where enough of its guesses are right. Per guess size the policy keeps
    running means of an evaluation's seconds and of the tokens it wrote, and of a plain
    one-token evaluation's seconds; a guess is evaluated while its tokens per second beat
    the plain loop's by ``MARGIN``, sizes not yet measured are tried (after one plain step,
their measure), and a size that did not
    pay is tried again after ``RETRY`` plain evaluations, so that an answer that starts
    copying is noticed. The answer is the same either way: only its speed depends on this.
    """

    MARGIN = 1.05
    RETRY = 32
    WARMUP = 4  # evaluations of a size before its means decide
    WEIGHT = 0.2  # of the newest evaluation in a running mean

    def __init__(self) -> None:
        self._plain: float | None = None
        self._seconds: dict[int, float] = {}
        self._written: dict[int, float] = {}
        self._count: dict[int, int] = {}
        self._skipped = 0

    def choose(self, offered: int) -> int:
        """How many of the ``offered`` guessed tokens to evaluate (0: none, the plain step)."""
        if self._plain is None:
            return 0  # a plain step first: the measure of the others
        for size in range(offered, 0, -1):
            if self._count.get(size, 0) < self.WARMUP:
                return size
            if self._written[size] * self._plain >= self.MARGIN * self._seconds[size]:
                return size
        if offered:
            self._skipped += 1
            if self._skipped >= self.RETRY:
                self._skipped = 0
                return offered
        return 0

    def record(self, size: int, seconds: float, written: int) -> None:
        """An evaluation of 1 + ``size`` tokens took ``seconds`` and wrote ``written``."""
        w = self.WEIGHT
        if size == 0:
            self._plain = seconds if self._plain is None else (1 - w) * self._plain + w * seconds
            return
        count = self._count.get(size, 0)
        self._count[size] = count + 1
        if count == 0:
            self._seconds[size], self._written[size] = seconds, float(written)
        else:
            self._seconds[size] = (1 - w) * self._seconds[size] + w * seconds
            self._written[size] = (1 - w) * self._written[size] + w * written

    def speedup(self, size: int) -> float | None:
        """Measured tokens per second with guesses of ``size`` ÷ without (for the figures)."""
        if self._plain is None or size not in self._seconds:
            return None
        return self._written[size] * self._plain / self._seconds[size]
