"""The llama.cpp engine, through llama-cpp-python: one loaded model and the conversation
in its context.

It renders the chat with the model's own template (from the GGUF metadata) within the
bounds of ``inference.chat_template``, reuses the already-evaluated prefix of the same
conversation's previous prompt, evaluates the rest in batches so that a stop request is
honoured between batches, and streams one text piece per token. Loading and judging the
model is ``inference.llama_load``; the prompt evaluation and the token loop are
``inference.llama_generate``; other conversations' states wait in ``inference.state_cache``.

Only the template's own text may become control tokens. The rendered prompt is tokenized
with special tokens parsed (the template writes its turn markers as text), so before
rendering, every control token's text inside message content (a document passage, a
pasted message, an API request) is broken with an invisible WORD JOINER and stays
ordinary text; see ``ControlTextEscaper``.
llama-cpp-python's disk cache is never used: it writes model state, and so the
conversation, to disk unencrypted.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any

from i18n import translate
from inference import cpu_variant
from inference.bundled import bundled_name
from inference.chat_template import ChatTemplate, ControlTextEscaper, TemplateRefused, output_limit
from inference.errors import InferenceError, ModelLoadError, PromptTooLong
from inference.hardware import physical_cores
from inference.llama_generate import (
    decode,
    evaluate_prompt,
    reuse_prefix,
    sampled_tokens,
    text_pieces,
)
from inference.llama_load import (
    backend_name,
    check_model_file,
    construct_llama,
    control_texts,
    end_tokens,
    make_template,
    resident_bytes,
)
from inference.lookup import Drafter, DraftPolicy
from inference.protocol import ChatMessage, ModelSpec, SamplingParams
from inference.state_cache import StateCache, clear_context
from inference.tool_formats import ToolFormat, detect, escaped
from inference.vision import MARKER, Projector, Prompt

PICTURE_BATCH = 512

log = logging.getLogger(__name__)


class LlamaEngine:
    def __init__(self) -> None:
        self._llm: Any = None
        self._template: ChatTemplate | None = None
        self._escaper = ControlTextEscaper(())
        self._stop_strings: list[str] = []
        # The template's own tool format (None: Hearth's JSON), and the tools the prompt
        # being made shows through it (``set_tools``, for a tool choice only).
        self.tool_format: ToolFormat | None = None
        self._tools: list[dict[str, Any]] = []
        self._tools_key = ""
        self._prompt_progress: Callable[[int, int], None] | None = None
        self._name = ""
        self._spec: ModelSpec | None = None
        self.last_reused_tokens = 0  # prompt tokens taken from the cache on the last turn
        self.memory_bytes = 0
        self.backend = "CPU"
        self.chat_format_label = ""
        self.states = StateCache()
        self.conversation: int | None = None  # whose state (chat_id) is in the context now
        self._last_prompt: tuple[tuple[tuple[ChatMessage, ...], str], list[int], list[str]] | None = None
        self.projector: Projector | None = None  # a vision model's: it sees pictures
        self._pictured: Prompt | None = None  # the last prompt with pictures, cut in chunks
        self._pieces: dict[int, bytes] = {}
        self._end_tokens: frozenset[int] = frozenset()
        self.last_drafter: Drafter | None = None  # the last answer's guesses, for the figures
        # Whether guessing pays, learnt per loaded model, apart for the window's chats and
        # the local API's (negative keys): its speed must not tell one about the other.
        self._policies = _fresh_policies()

    @property
    def name(self) -> str:
        return self._name

    @property
    def n_ctx(self) -> int:
        return int(self._llm.n_ctx()) if self._llm is not None else 0

    @property
    def draft_policy(self) -> DraftPolicy:
        """The policy of the side (window or local API) whose conversation is in the context."""
        return self._policies[self._api_side()]

    @draft_policy.setter
    def draft_policy(self, policy: DraftPolicy) -> None:
        self._policies[self._api_side()] = policy

    def _api_side(self) -> bool:
        return self.conversation is not None and self.conversation < 0

    @property
    def llama(self) -> Any:
        """The underlying ``llama_cpp.Llama`` (benchmarks compare against it)."""
        return self._llm

    def load(self, spec: ModelSpec) -> None:
        self.close()
        self._policies = _fresh_policies()
        self._last_prompt = None
        check_model_file(spec.path)
        cpu_variant.ensure()  # before the first import of llama_cpp in this process
        threads = spec.n_threads or physical_cores()
        before = resident_bytes()
        try:
            llm = construct_llama(
                model_path=str(spec.path),
                n_ctx=spec.n_ctx,
                # A picture's tokens go in at once where its projector attends both ways.
                n_batch=max(spec.n_batch, PICTURE_BATCH) if spec.projector else spec.n_batch,
                n_threads=threads,
                n_threads_batch=threads,
                n_gpu_layers=spec.n_gpu_layers,
                # No flash attention, although it measured 1.2 times the prefill and 1.045
                # times the decode speed here: on the CPU its results depend on how the
                # prompt is cut into batches, so a warm answer (prefix from the cache)
                # would no longer equal a cold one with the same seed. Without it they do.
                flash_attn=False,
                verbose=False,
            )
        except Exception as exc:
            raise ModelLoadError(translate(
                "inference.llama_engine",
                "llama.cpp could not load {name}: the file is damaged, incomplete, "
                "or made for a newer version of llama.cpp ({error}).",
            ).format(name=spec.path.name, error=exc)) from exc
        try:
            self._template, self._stop_strings, self.chat_format_label = make_template(llm, spec)
            self.tool_format = detect(self._template)
            if spec.projector is not None:
                self.projector = Projector(spec.projector, llm, threads, spec.n_gpu_layers != 0)
            # A picture's marker in a message's text is broken like a control token's.
            self._escaper = ControlTextEscaper([*control_texts(llm, self._template.source),
                                                *([MARKER] if self.projector else [])])
        except ModelLoadError:
            llm.close()
            raise
        self._llm = llm
        self._spec = spec
        self._pieces = {}
        self._end_tokens = end_tokens(llm)
        self.memory_bytes = max(0, resident_bytes() - before)
        self.backend = backend_name(spec.n_gpu_layers)
        self._name = (spec.display_name or bundled_name(spec.path)
                      or llm.metadata.get("general.name") or spec.path.stem)

    def _require(self) -> Any:
        if self._llm is None:
            raise ModelLoadError(translate("inference.llama_engine", "No model is loaded."))
        return self._llm

    @property
    def sees_pictures(self) -> bool:
        return self.projector is not None

    def _prompt_tokens(self, messages: Sequence[ChatMessage]) -> tuple[list[int], list[str]]:
        """Render and tokenize; the last result is kept, because the worker counts the
        prompt it fitted and then streams the very same messages."""
        key = (tuple(messages), self._tools_key)
        if self._last_prompt is not None and self._last_prompt[0] == key:
            return list(self._last_prompt[1]), list(self._last_prompt[2])
        tokens, stops = self._render(messages)
        self._last_prompt = (key, tokens, stops)
        return list(tokens), list(stops)

    def _render(self, messages: Sequence[ChatMessage]) -> tuple[list[int], list[str]]:
        llm = self._require()
        assert self._template is not None
        escape = self._escaper.escape
        pictures = [p for m in messages for p in m.pictures] if self.projector else []
        # A message's pictures come first in its turn, one marker each, as llama.cpp's
        # server places them; without a projector they are not given (their text is).
        rendered = [{"role": m.role, "content": "".join(MARKER + "\n" for _ in m.pictures) * bool(pictures)
                     + escape(m.content)} for m in messages]
        tools = escaped(self._tools, escape)  # a stranger's names and schemas: no control token
        limit = output_limit(self.n_ctx, sum(len(m["content"]) + len(m["role"]) for m in rendered)
                             + len(self._tools_key))
        # An answer being continued is the last turn: the prompt opens the answer as for
        # a new one and its text so far follows, for the model to write on from there.
        go_on = rendered.pop()["content"] if len(rendered) > 1 and rendered[-1]["role"] == "assistant" else ""
        try:
            prompt = self._template.render(rendered, max_chars=limit, tools=tools or None) + go_on
        except TemplateRefused as exc:
            raise InferenceError(translate(
                "inference.llama_engine",
                "The model's chat template was stopped on this conversation: {why}. Choose a "
                "built-in chat format in Models ▸ Settings.",
            ).format(why=exc)) from exc
        except Exception as exc:
            raise InferenceError(translate(
                "inference.llama_engine",
                "The model's chat template failed on this conversation ({kind}: {error}). "
                "Choose a built-in chat format in Models ▸ Settings.",
            ).format(kind=type(exc).__name__, error=exc)) from exc
        # special=True for the template's markers; content can no longer spell any (escaped
        # above). No BOS is added here: a template that wants one writes {{ bos_token }}.
        if self._pictured is not None and self.projector is not None:
            self.projector.free(self._pictured)
            self._pictured = None
        if pictures and self.projector is not None:
            self._pictured = self.projector.tokenize(prompt, pictures)
            return list(self._pictured.tokens), list(self._stop_strings)
        tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
        return tokens, list(self._stop_strings)

    def set_tools(self, tools: list[dict[str, Any]]) -> None:
        """The tools the next prompts show through the template's own format (a tool
        choice in ``tool_format``; empty: none, as for every answer)."""
        self._tools = list(tools)
        self._tools_key = json.dumps(self._tools, sort_keys=True) if tools else ""

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        return len(self._prompt_tokens(messages)[0])

    def stream(
        self, messages: Sequence[ChatMessage], params: SamplingParams, should_stop: Any
    ) -> Iterator[str]:
        llm = self._require()
        tokens, stop_strings = self._prompt_tokens(messages)
        n_ctx = self.n_ctx
        if len(tokens) >= n_ctx:
            raise PromptTooLong(len(tokens), n_ctx)
        # All but the last prompt token; the token loop evaluates that one before it samples.
        common = self.last_reused_tokens = reuse_prefix(llm, tokens)
        pictured = self._pictured if self._pictured is not None and self._pictured.tokens == tokens else None
        if pictured is not None and self.projector is not None:
            common = self.last_reused_tokens = llm.n_tokens = pictured.picture_start(common)
            if not self.projector.evaluate(llm, pictured, common, should_stop, decode):
                return
        elif not evaluate_prompt(llm, tokens, common, should_stop, self._prompt_progress):
            return
        llm.set_seed(params.seed if params.seed is not None else random.randrange(2**31))
        max_tokens = min(params.max_tokens, n_ctx - len(tokens))
        yield from text_pieces(self._tokens(llm, tokens, params, max_tokens), self._piece,
                               self._end_tokens, stop_strings, max_tokens, params.ignore_eos,
                               should_stop)

    def _piece(self, token: int) -> bytes:
        """A token's bytes, looked up once per token id (llama.cpp's call is per token)."""
        found = self._pieces.get(token)
        if found is None:
            found = self._pieces[token] = self._require().detokenize([token])
        return found

    def _tokens(self, llm: Any, prompt: list[int], params: SamplingParams,
                max_tokens: int) -> Generator[int, None, None]:
        """The sampled tokens after the prompt's last token (``llama_generate.sampled_tokens``),
        with guesses of the next ones when ``prompt_lookup`` asks for them."""
        # Guesses only on the CPU, whose batches of a token and two guesses have the logits of
        # one token at a time (tested). On a GPU they do not: on an H200 with CUDA, 11 of 25
        # drafted document answers changed, and a batch of three cost far more than a token.
        # Never with pictures: their placeholders are no tokens a guess could be made of.
        drafter = (Drafter(prompt) if params.prompt_lookup and self.backend == "CPU" and not params.grammar
                   and min(prompt, default=0) >= 0
                   else None)  # a grammar's state follows the tokens accepted, one at a time
        self.last_drafter = drafter
        return sampled_tokens(llm, prompt, params, max_tokens, drafter, self.draft_policy)

    def set_prompt_progress(self, report: Callable[[int, int], None] | None) -> None:
        """Called with (tokens evaluated, prompt tokens) before each step of a long prompt
        (on the worker's thread, inside ``stream``); None: not."""
        self._prompt_progress = report

    def select_conversation(self, conversation: int) -> None:
        """Put this conversation's state in the context: park the current one in the RAM
        cache and bring this one back if it is there, else start from an empty context.

        A conversation never continues from another one's evaluated prefix: the time to
        the first token would tell one (a local API client) how much of its prompt another
        (the window's chat) shares. Negative keys (the local API's) are never parked in
        the cache, so API requests cannot push the window's chats out of it.
        """
        llm = self._llm
        if llm is None or conversation == self.conversation:
            return
        self.states.switch(llm, self.conversation, conversation)
        self.conversation = conversation

    def forget(self) -> None:
        """Drop every trace of the conversations: parked states, the KV cache, the token
        history, the sampler's recent tokens and the last rendered prompt."""
        self.states.clear()
        self.conversation = None
        self._last_prompt = None
        self.last_drafter = None
        self.last_reused_tokens = 0
        llm = self._llm
        if llm is not None:
            clear_context(llm)

    def close(self) -> None:
        self.states.clear()
        self.conversation = None
        self._last_prompt = None
        self.last_drafter = None
        if self.projector is not None:
            self.projector.free(self._pictured)
            self._pictured = None
            self.projector.close()
            self.projector = None
        if self._llm is not None:
            try:
                self._llm.close()
            finally:
                self._llm = None
                self._template = None
                self.tool_format = None


def _fresh_policies() -> dict[bool, DraftPolicy]:
    """One draft policy for the window's chats (False) and one for the local API's (True)."""
    return {False: DraftPolicy(), True: DraftPolicy()}
