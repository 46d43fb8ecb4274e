"""Prompt-lookup drafting: the guess is what followed the longest recent n-gram earlier
in the context, never the context's own end."""

from __future__ import annotations

from inference.lookup import Drafter


def test_the_guess_is_what_followed_the_same_words_earlier() -> None:
    drafter = Drafter([5, 6, 7, 8, 9, 1, 2, 5, 6], draft_tokens=3)
    assert drafter.draft(10) == [7, 8, 9]
    drafter.extend([7])
    assert drafter.draft(10) == [8, 9, 1]
    assert drafter.draft(1) == [8] and drafter.draft(0) == []


def test_the_longest_match_wins_and_the_latest_occurrence_of_it() -> None:
    # "3 4" was followed by 10 long ago and by 11 more recently; "2 3 4" by 12.
    drafter = Drafter([3, 4, 10, 2, 3, 4, 12, 3, 4, 11, 0, 2, 3, 4])
    assert drafter.draft(1) == [12]
    drafter = Drafter([3, 4, 10, 3, 4, 11, 0, 3, 4])
    assert drafter.draft(1) == [11]


def test_no_guess_without_an_earlier_occurrence() -> None:
    assert Drafter([1, 2, 3, 4]).draft(8) == []
    assert Drafter([]).draft(8) == [] and Drafter([7]).draft(8) == []


class ToyLlama:
    """Just enough of ``llama_cpp.Llama`` for the engine's decode loop, with a toy model
    whose next token is a fixed function of all the tokens before it: evaluated in a
    batch or one by one, it gives the same logits (real llama.cpp differs in the last
    bits between the two, which can turn a near-tie; the benchmark counts how often)."""

    def __init__(self, prompt: list[int]) -> None:
        import numpy as np

        self.input_ids = np.zeros(4096, dtype=np.intc)
        self.n_tokens = 0
        self.n_batch = 64
        self.evaluations = 0
        toy = self

        class Batch:
            def set_batch(self, batch, n_past, logits_all) -> None:
                self.start, self.length = n_past, len(batch)

        class Context:
            def decode(self, batch) -> None:
                assert batch.start == toy.n_tokens
                toy.evaluations += 1

            def kv_cache_seq_rm(self, _seq, start, _end) -> None:
                toy.n_tokens = min(toy.n_tokens, start)

        class Sampler:
            def sample(self, _ctx, idx: int) -> int:
                i = idx if idx >= 0 else toy._batch.length - 1
                seen = [int(t) for t in toy.input_ids[: toy._batch.start + i + 1]]
                # Mostly copies what followed the last token earlier, now and then not.
                for j in range(len(seen) - 2, -1, -1):
                    if seen[j] == seen[-1] and len(seen) % 7:
                        return seen[j + 1]
                return (sum(seen[-3:]) * 31 + len(seen)) % 97

        self._batch, self._ctx, self._sampler_type = Batch(), Context(), Sampler
        self.prompt = prompt

    def _init_sampler(self, **_params):
        return self._sampler_type()

    def n_ctx(self) -> int:
        return 4096


def toy_run(prompt: list[int], lookup: bool, count: int):
    from inference.llama_engine import LlamaEngine, _decode
    from inference.protocol import SamplingParams

    llm = ToyLlama(prompt)
    _decode(llm, prompt[:-1], False)  # the engine evaluates all but the last first
    engine = LlamaEngine()
    engine._llm = llm
    tokens = engine._tokens(llm, prompt, SamplingParams(temperature=0.0, prompt_lookup=lookup), 10_000)
    written = [next(tokens) for _ in range(count)]
    tokens.close()
    return written, llm


def test_drafted_tokens_are_exactly_the_plain_loops_with_fewer_evaluations() -> None:
    prompt = [5, 9, 12, 40, 41, 42, 43, 44, 45, 3, 9, 12, 40, 41, 42, 43, 8, 1, 2]
    plain, plain_llm = toy_run(prompt, False, 120)
    drafted, drafted_llm = toy_run(prompt, True, 120)
    assert drafted == plain
    assert drafted_llm.evaluations < plain_llm.evaluations * 0.8  # guesses were taken
    # Stopped anywhere, even inside a batch: the context holds exactly what was written
    # (all but the last token, which the next evaluation takes), as the plain loop's does.
    for count in range(1, 40):
        written, llm = toy_run(prompt, True, count)
        held = [int(t) for t in llm.input_ids[: llm.n_tokens]]
        assert held[: len(prompt)] == prompt and held[len(prompt):] == written[: len(held) - len(prompt)]
        assert len(held) in (len(prompt) + count - 1, len(prompt) + count)
