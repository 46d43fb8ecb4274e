"""Prompt-lookup drafting: the guess is what followed the longest recent n-gram earlier
in the context, never the context's own end."""

from __future__ import annotations

import pytest

from inference.lookup import Drafter, DraftPolicy


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


class AlwaysGuess(DraftPolicy):
    def choose(self, offered: int) -> int:
        return offered


def toy_run(prompt: list[int], lookup: bool, count: int):
    from inference.llama_engine import LlamaEngine
    from inference.llama_generate import decode
    from inference.protocol import SamplingParams

    llm = ToyLlama(prompt)
    decode(llm, prompt[:-1], False)  # the engine evaluates all but the last first
    engine = LlamaEngine()
    engine._llm = llm
    engine.draft_policy = AlwaysGuess()  # the toy's timings say nothing; this test is about tokens
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


def run_policy(policy: DraftPolicy, plain: float, cost: dict[int, float], written: dict[int, int],
               steps: int) -> list[int]:
    """Sizes chosen over ``steps`` offers of two guessed tokens, with these evaluation costs
    (seconds) and tokens written per evaluation of each size."""
    chosen = []
    for _ in range(steps):
        size = policy.choose(2)
        chosen.append(size)
        policy.record(size, plain if size == 0 else cost[size], 1 if size == 0 else written[size])
    return chosen


def test_guesses_that_pay_are_kept_and_ones_that_do_not_stop_but_are_retried() -> None:
    # Gemma-like: a batch of three costs 1.5 tokens and writes 2.4.
    paying = run_policy(DraftPolicy(), 1.0, {1: 1.2, 2: 1.5}, {1: 1.8, 2: 2.4}, 200)
    assert paying[0] == 0 and set(paying[1:]) == {2}  # one plain step, its measure, then guesses
    # Starter-like: three cost 1.9 and write 1.6, two cost 1.45 and write 1.4: neither pays.
    losing = run_policy(DraftPolicy(), 1.0, {1: 1.45, 2: 1.9}, {1: 1.4, 2: 1.6}, 400)
    later = losing[40:]
    assert later.count(0) >= len(later) * 0.95  # plain steps, bar the tries
    assert 0 < later.count(2) <= len(later) // DraftPolicy.RETRY + 1  # tried again now and then
    # Two guesses do not pay but one does: one it is.
    one = run_policy(DraftPolicy(), 1.0, {1: 1.2, 2: 1.9}, {1: 1.8, 2: 1.6}, 200)
    assert one[40:].count(1) >= 150


def test_a_size_that_starts_paying_is_taken_up_again() -> None:
    policy = DraftPolicy()
    run_policy(policy, 1.0, {1: 1.45, 2: 1.9}, {1: 1.0, 2: 1.0}, 100)
    assert policy.choose(2) == 0
    again = run_policy(policy, 1.0, {1: 1.45, 2: 1.9}, {1: 2.0, 2: 3.0}, 200)
    assert again[-50:].count(2) == 50
    assert policy.speedup(2) == pytest.approx(3.0 / 1.9, rel=0.01)


def test_the_window_and_the_local_api_learn_apart() -> None:
    """Whether guessing pays is learnt from answers' speed; a local API client must not
    learn from its own answers' speed how much the window's answers copied."""
    from inference.llama_engine import LlamaEngine

    engine = LlamaEngine()
    engine.conversation = 3
    window = engine.draft_policy
    run_policy(window, 1.0, {1: 1.0, 2: 1.1}, {1: 2.0, 2: 3.0}, 50)
    engine.conversation = -1
    assert engine.draft_policy is not window and engine.draft_policy.speedup(2) is None
    engine.conversation = 4
    assert engine.draft_policy is window


def test_the_apps_answers_are_drafted_whatever_the_chat_overrides() -> None:
    """The window's answers come from ModelSettings.sampling (the local API sets it too):
    drafting is on there, and no per-chat override of the sampling turns it off."""
    from inference.settings import ModelSettings

    assert ModelSettings().sampling().prompt_lookup
    assert ModelSettings().sampling({"temperature": 0.2, "prompt_lookup": False}).prompt_lookup
