"""Prompt-lookup drafting: guesses of the next tokens taken from the context itself.

An answer about documents copies runs of its passages: names, figures, whole phrases.
When the last few tokens written so far also occur earlier in the context (the prompt or
the answer), the tokens that followed them there are a good guess of what comes next.
The engine evaluates the guess together with the last token in one batch and keeps the
guessed tokens as long as they are what the sampler picks anyway (``LlamaEngine``), so
the loop writes the tokens it would have written, with several tokens per evaluation
where the guess is right. (llama.cpp's logits for a batch differ from one-by-one ones,
which can turn a near-tie: the app leaves drafting off until that is
solved; see the README's performance section.)

The index maps every n-gram (``MIN_NGRAM`` to ``MAX_NGRAM`` tokens) to where the token
after its latest earlier occurrence stands, so a guess costs a few dictionary lookups,
whatever the context's length.
"""

from __future__ import annotations

from collections.abc import Sequence

MIN_NGRAM = 2
MAX_NGRAM = 4
DRAFT_TOKENS = 8


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
