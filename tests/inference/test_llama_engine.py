"""The real llama.cpp engine with the bundled starter model."""

from __future__ import annotations

from pathlib import Path

import pytest

from inference.errors import ModelLoadError, PromptTooLong
from inference.llama_engine import LlamaEngine
from inference.lookup import DraftPolicy
from inference.protocol import ChatMessage, ModelSpec, SamplingParams

pytestmark = pytest.mark.model

GREEDY = SamplingParams(max_tokens=24, temperature=0.0, seed=7)
QUESTION = [ChatMessage("system", "You are brief."), ChatMessage("user", "Name three fruits.")]


@pytest.fixture(scope="module")
def engine(starter_model_path: Path):
    e = LlamaEngine()
    e.load(ModelSpec(starter_model_path, n_ctx=1024, n_threads=2))
    yield e
    e.close()


def generate(engine: LlamaEngine, messages, params=GREEDY, stop_after: int | None = None) -> str:
    pieces: list[str] = []

    def should_stop() -> bool:
        return stop_after is not None and len(pieces) >= stop_after

    for piece in engine.stream(messages, params, should_stop):
        pieces.append(piece)
    return "".join(pieces)


def test_streams_text_and_greedy_output_is_repeatable(engine: LlamaEngine) -> None:
    first = generate(engine, QUESTION)
    assert first.strip()
    assert generate(engine, QUESTION) == first


def test_stop_ends_the_stream_after_the_current_token(engine: LlamaEngine) -> None:
    pieces = []
    for piece in engine.stream(QUESTION, SamplingParams(max_tokens=200, temperature=0.0), lambda: len(pieces) >= 3):
        pieces.append(piece)
    assert len(pieces) == 3


def test_answer_after_a_stop_equals_a_cold_answer(engine: LlamaEngine, starter_model_path: Path) -> None:
    generate(engine, QUESTION, stop_after=2)  # leaves a half-evaluated answer in the cache
    warm = generate(engine, QUESTION)
    cold_engine = LlamaEngine()
    cold_engine.load(ModelSpec(starter_model_path, n_ctx=1024, n_threads=2))
    try:
        assert generate(cold_engine, QUESTION) == warm
    finally:
        cold_engine.close()


def test_the_next_turn_reuses_the_evaluated_prefix(engine: LlamaEngine) -> None:
    answer = generate(engine, QUESTION)
    follow_up = [*QUESTION, ChatMessage("assistant", answer), ChatMessage("user", "And three vegetables?")]
    generate(engine, follow_up)
    assert engine.last_reused_tokens >= engine.count_tokens(QUESTION) - 1


def test_a_prompt_longer_than_the_context_is_refused(engine: LlamaEngine) -> None:
    with pytest.raises(PromptTooLong):
        generate(engine, [ChatMessage("user", "lighthouse " * 3000)])
    assert generate(engine, QUESTION).strip()  # still usable


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "does not exist"),
        (b"just some text, renamed\n", "not a usable GGUF model file: it is not a GGUF file"),
        (b"GGUF\x03\x00\x00\x00" + b"\x00" * 16, "not a usable GGUF model file"),
    ],
    ids=["missing", "text-file", "truncated"],
)
def test_bad_model_files_are_refused_with_a_reason(tmp_path: Path, content, message, starter_model_path) -> None:
    path = tmp_path / "model.gguf"
    if content is not None:
        path.write_bytes(content)
    engine = LlamaEngine()
    with pytest.raises(ModelLoadError, match=message):
        engine.load(ModelSpec(path))
    engine.load(ModelSpec(starter_model_path, n_ctx=256))  # the engine is still usable
    engine.close()


def test_forget_clears_the_cached_conversation(engine: LlamaEngine) -> None:
    generate(engine, QUESTION)
    assert engine.llama.n_tokens > 0
    engine.forget()
    assert engine.llama.n_tokens == 0 and not engine.llama.input_ids.any()
    generate(engine, QUESTION)
    assert engine.last_reused_tokens == 0


def test_llama_cpp_disk_cache_is_never_used(engine: LlamaEngine) -> None:
    generate(engine, QUESTION)
    assert engine.llama.cache is None  # it would write model state, the conversation, unencrypted


def test_a_template_that_cannot_render_is_explained_and_a_builtin_format_works(
    broken_template_model_path: Path,
) -> None:
    engine = LlamaEngine()
    with pytest.raises(ModelLoadError, match="chat template .* cannot be rendered.*built-in chat format"):
        engine.load(ModelSpec(broken_template_model_path, n_ctx=512))
    engine.load(ModelSpec(broken_template_model_path, n_ctx=512, chat_format="chatml"))
    try:
        assert generate(engine, QUESTION).strip()
        assert engine.chat_format_label == "chatml"
    finally:
        engine.close()


def test_a_model_without_a_template_gets_its_architectures_format(gemma_model_path: Path) -> None:
    engine = LlamaEngine()
    engine.load(ModelSpec(gemma_model_path, n_ctx=512))
    try:
        assert engine.chat_format_label == "gemma"
        answer = generate(engine, [ChatMessage("user", "What is 2 + 2?")])
        assert answer.strip() and "<start_of_turn>" not in answer
    finally:
        engine.close()


def test_switching_back_to_a_chat_restores_its_state(engine: LlamaEngine) -> None:
    chat_a = [ChatMessage("system", "You are brief."), ChatMessage("user", "Describe a lighthouse. " * 20)]
    chat_b = [ChatMessage("system", "You are brief."), ChatMessage("user", "Describe a forest. " * 20)]
    engine.select_conversation(1)
    answer_a = generate(engine, chat_a)
    engine.select_conversation(2)
    generate(engine, chat_b)
    assert 1 in engine.states
    engine.select_conversation(1)
    follow_up = [*chat_a, ChatMessage("assistant", answer_a), ChatMessage("user", "Shorter?")]
    warm = generate(engine, follow_up)
    assert engine.last_reused_tokens >= engine.count_tokens(chat_a)  # A's history came back
    engine.forget()
    assert 1 not in engine.states and 2 not in engine.states
    cold = LlamaEngine()
    cold.load(ModelSpec(engine._spec.path, n_ctx=1024, n_threads=2))
    try:
        assert generate(cold, follow_up) == warm  # restored state answers exactly like a cold one
    finally:
        cold.close()


def test_the_state_cache_is_bounded(engine: LlamaEngine) -> None:
    import numpy as np

    from inference.state_cache import SavedState, StateCache

    cache = StateCache(limit_bytes=1000)
    for key in range(5):
        cache.put(key, SavedState(np.zeros(10, dtype=np.intc), b"x" * 300))
    assert cache.size <= 1000 and 4 in cache and 0 not in cache


def test_an_edited_earlier_message_leaves_the_cache_consistent(engine: LlamaEngine, starter_model_path: Path) -> None:
    first = [ChatMessage("system", "You are brief."), ChatMessage("user", "Name a red fruit."),
             ChatMessage("assistant", "An apple."), ChatMessage("user", "And a yellow one?")]
    generate(engine, first)
    edited = [first[0], ChatMessage("user", "Name a green vegetable."), *first[2:]]  # edited in the middle
    warm = generate(engine, edited)
    assert engine.last_reused_tokens < engine.count_tokens(first[:2])  # evaluated again from the edit
    cold = LlamaEngine()
    cold.load(ModelSpec(starter_model_path, n_ctx=1024, n_threads=2))
    try:
        assert generate(cold, edited) == warm
    finally:
        cold.close()


def test_a_fixed_count_goes_past_the_end_of_the_answer(engine: LlamaEngine) -> None:
    """ignore_eos (benchmarks only): exactly max_tokens pieces, past where the answer ends,
    and the same text up to that end as a normal answer."""
    short = SamplingParams(max_tokens=200, temperature=0.0, seed=7)
    normal = list(engine.stream(QUESTION, short, lambda: False))
    assert len(normal) < 150  # the model ends this answer by itself
    fixed = list(engine.stream(QUESTION, SamplingParams(max_tokens=200, temperature=0.0, seed=7,
                                                        ignore_eos=True), lambda: False))
    assert len(fixed) == 200
    assert "".join(fixed).startswith("".join(normal).rstrip())



COPYING = [ChatMessage("system", "You are brief."), ChatMessage("user", (
    "Notes: The harbor office opens at seven in the morning and closes at five in the "
    "afternoon. Mooring fees are paid monthly at the harbor office on the north quay.\n\n"
    "Repeat the notes word for word."))]


class AlwaysGuess(DraftPolicy):
    """Guesses whenever there is one: whether guessing pays on this machine is
    DraftPolicy's business (test_lookup); these tests are about the tokens."""

    def choose(self, offered: int) -> int:
        return offered


@pytest.mark.parametrize("temperature", [0.0, 0.8])
def test_prompt_lookup_copies_several_tokens_per_evaluation(engine: LlamaEngine, temperature: float) -> None:
    """On llama.cpp: drafting writes exactly the plain loop's answer (its batches' logits
    are the one-by-one logits, next test), greedy or sampled with a seed, with several
    tokens per evaluation."""
    from dataclasses import replace

    params = SamplingParams(max_tokens=48, temperature=temperature, seed=7)
    policy = engine.draft_policy
    engine.draft_policy = AlwaysGuess()
    try:
        engine.forget()
        plain = generate(engine, COPYING, params)
        engine.forget()
        drafted = generate(engine, COPYING, replace(params, prompt_lookup=True))
        assert drafted == plain
        if temperature == 0.0:
            assert drafted.startswith("The harbor office opens at seven in the morning")
        drafter = engine.last_drafter
        # It copied, several tokens a batch (fewer where the sampler strays from the notes).
        assert drafter is not None and drafter.accepted > (10 if temperature == 0.0 else 5)
        engine.forget()
        assert engine.last_drafter is None  # its token index is the conversation too
    finally:
        engine.draft_policy = policy


def test_a_model_on_a_gpu_never_drafts(engine: LlamaEngine) -> None:
    """Exactness of a batch of guesses holds for the CPU's kernels only: on an H200 with
    CUDA, 11 of 25 drafted document answers differed from the plain ones, and drafting
    was slower (packaging/cuda_check.py, docs/performance.md). A GPU-backed model answers plainly. (This
    machine has no GPU: the engine is told its backend is one, as a CUDA build reports.)"""
    from dataclasses import replace

    policy = engine.draft_policy
    engine.draft_policy = AlwaysGuess()
    try:
        engine.forget()
        generate(engine, COPYING, replace(GREEDY, prompt_lookup=True))
        assert engine.last_drafter is not None  # on the CPU it guesses
        engine.backend = "GPU (CUDA)"
        engine.forget()
        generate(engine, COPYING, replace(GREEDY, prompt_lookup=True))
        assert engine.last_drafter is None
    finally:
        engine.backend = "CPU"
        engine.draft_policy = policy
        engine.forget()


def test_a_model_with_no_layers_on_the_gpu_is_said_to_run_on_the_cpu() -> None:
    from inference.llama_load import backend_name

    assert backend_name(0) == "CPU"
    assert backend_name(-1) == backend_name()  # "CPU" on a CPU build, the GPU on a GPU build


@pytest.mark.parametrize("model", ["starter_model_path", "gemma_model_path"])
def test_a_batch_of_a_token_and_its_guesses_has_the_logits_of_one_token_at_a_time(
        model: str, request: pytest.FixtureRequest) -> None:
    """Drafting keeps a guess only where the sampler picks it from the batch's logits, so
    those must be the logits of the tokens evaluated one at a time, to the bit. llamafile's
    sgemm broke that from two tokens on (0.33–0.68 in a logit on the starter model; the
    build's source patch moves it to four), repacked weights from four rows and K-quant
    tiles from eight (Gemma 3's Q4_K_M: hence at most DRAFT_TOKENS guesses)."""
    import numpy as np
    from llama_cpp import llama_cpp as C

    from inference.lookup import DRAFT_TOKENS

    engine = LlamaEngine()
    engine.load(ModelSpec(request.getfixturevalue(model), n_ctx=1024, n_threads=2))
    try:
        llm = engine.llama
        text = " ".join(f"Clause {i}: the tenant pays {i * 7} pounds on the {i % 28 + 1}th of each month."
                        for i in range(60))
        tokens = llm.tokenize(text.encode(), add_bos=True)[:300 + 1 + DRAFT_TOKENS]
        prompt, batch = tokens[:300], tokens[300:]

        def decode(chunk: list[int], past: int, every: bool) -> None:
            llm._batch.set_batch(batch=chunk, n_past=past, logits_all=every)
            llm._ctx.decode(llm._batch)

        def logits(i: int) -> np.ndarray:
            return np.ctypeslib.as_array(C.llama_get_logits_ith(llm._ctx.ctx, i), shape=(llm.n_vocab(),)).copy()

        def prefill() -> None:
            llm._ctx.kv_cache_clear()
            for start in range(0, len(prompt), 64):
                decode(prompt[start:start + 64], start, False)

        prefill()
        one_by_one = []
        for i, token in enumerate(batch):
            decode([token], len(prompt) + i, False)
            one_by_one.append(logits(-1))
        prefill()
        decode(batch, len(prompt), True)
        together = [logits(i) for i in range(len(batch))]
        assert len(batch) == 1 + DRAFT_TOKENS
        for i in range(len(batch)):
            assert np.array_equal(together[i], one_by_one[i]), \
                f"position {i}: {np.abs(together[i] - one_by_one[i]).max()} apart"
    finally:
        engine.close()


def test_a_stop_in_the_middle_of_a_guess_leaves_the_cache_as_written(engine: LlamaEngine) -> None:
    """The cache holds exactly the tokens written, also when the answer is stopped while a
    batch of guessed tokens is being checked: the next turn reuses it and answers as a cold
    engine does."""
    from dataclasses import replace

    params = SamplingParams(max_tokens=48, temperature=0.0, seed=7, prompt_lookup=True)
    engine.forget()
    policy, engine.draft_policy = engine.draft_policy, AlwaysGuess()
    try:
        generate(engine, COPYING, params, stop_after=9)
    finally:
        engine.draft_policy = policy
    prompt = engine.count_tokens(COPYING)
    assert prompt + 8 <= engine.llama.n_tokens <= prompt + 9  # the 9th only if it was a right guess
    warm = generate(engine, COPYING, replace(params, prompt_lookup=False))
    engine.forget()
    assert generate(engine, COPYING, replace(params, prompt_lookup=False)) == warm


def test_a_long_prompt_reports_how_far_it_has_read_and_a_short_one_does_not(engine: LlamaEngine) -> None:
    """The real model: progress before each step of a long prompt, from the reused prefix
    on; a turn that adds a few tokens to the cached prompt says nothing (#18, item 2)."""
    seen: list[tuple[int, int]] = []
    engine.set_prompt_progress(lambda done, total: seen.append((done, total)))
    try:
        engine.forget()
        long = [ChatMessage("user", "Notes: " + " ".join(f"crate {i} left at dawn." for i in range(60))
                            + " How many crates?")]
        total = engine.count_tokens(long)
        generate(engine, long, SamplingParams(max_tokens=2, temperature=0.0))
        dones = [done for done, _ in seen]
        assert {t for _, t in seen} == {total} and len(seen) >= 5
        assert dones[0] == 0 and dones == sorted(dones) and dones[-1] < total
        seen.clear()
        generate(engine, long, SamplingParams(max_tokens=2, temperature=0.0))  # all but one token cached
        assert seen == []
    finally:
        engine.set_prompt_progress(None)
