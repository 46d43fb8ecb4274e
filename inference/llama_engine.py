"""The llama.cpp engine, through llama-cpp-python.

It renders the chat with the model's own template (from the GGUF metadata) within the
bounds of ``inference.chat_template``, reuses the already-evaluated prefix of the same
conversation's previous prompt, evaluates the rest in batches so that a stop request is
honoured between batches, and streams one text piece per token.

Only the template's own text may become control tokens. The rendered prompt is tokenized
with special tokens parsed (the template writes its turn markers as text), so before
rendering, every control token's text inside message content (a document passage, a
pasted message, an API request) is broken with an invisible WORD JOINER and stays
ordinary text; see ``ControlTextEscaper``.
llama-cpp-python's disk cache is never used: it writes model state, and so the
conversation, to disk unencrypted.
"""

from __future__ import annotations

import codecs
import logging
import os
import random
import sys
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path
from typing import Any

from i18n import translate
from inference import chat_formats, cpu_variant, state_cache
from inference.bundled import bundled_name
from inference.chat_template import (
    SAMPLE_CONVERSATION,
    ChatTemplate,
    ControlTextEscaper,
    TemplateRefused,
    output_limit,
)
from inference.errors import InferenceError, ModelLoadError, PromptTooLong
from inference.gguf import InvalidGGUF, read_header
from inference.hardware import physical_cores
from inference.lookup import Drafter, DraftPolicy
from inference.protocol import ChatMessage, ModelSpec, SamplingParams
from inference.sampling import Sampler
from inference.state_cache import StateCache

log = logging.getLogger(__name__)

PREFILL_STEP = 64
PROGRESS_AFTER = 2 * PREFILL_STEP  # tokens to read before progress is worth saying (~0.6 s here)


def check_model_file(path: Path) -> None:
    """Reject what is plainly not a loadable GGUF file before llama.cpp sees it."""
    if not path.exists():
        raise ModelLoadError(translate("inference.llama_engine", "The model file {path} does not "
                                       "exist.").format(path=path))
    if not path.is_file():
        raise ModelLoadError(translate("inference.llama_engine", "{path} is not a file.")
                             .format(path=path))
    if not os.access(path, os.R_OK):
        raise ModelLoadError(translate("inference.llama_engine", "The model file {path} cannot be "
                                       "read (permission denied).").format(path=path))
    try:
        read_header(path)
    except InvalidGGUF as exc:
        raise ModelLoadError(translate("inference.llama_engine", "{name} is not a usable GGUF "
                                       "model file: {error}.").format(name=path.name, error=exc)
                             ) from exc


def backend_name(gpu_layers: int = -1) -> str:
    """Where a model loaded with ``gpu_layers`` runs: the CPU, or the build's GPU."""
    import llama_cpp

    if gpu_layers == 0 or not llama_cpp.llama_supports_gpu_offload():
        return "CPU"
    return "Metal" if sys.platform == "darwin" else "GPU (CUDA)"


def construct_llama(**kwargs: Any) -> Any:
    """``llama_cpp.Llama(**kwargs)`` without llama-cpp-python compiling the chat templates.

    llama-cpp-python compiles every chat template in the metadata while it constructs the
    model, in a plain sandbox with Jinja's optimizer on, which evaluates constant
    expressions as it compiles: ``{{ 'A' * 300000000 }}`` would take a gigabyte before
    Hearth's bounded renderer (``inference.chat_template``) ever saw it, and one broken
    template would make the whole model unloadable. Hearth renders templates itself, so
    the model is always constructed with the templates hidden, and the real metadata is
    put back, so that Hearth can judge the template and say what is wrong with it.
    """
    if "llama_cpp" not in sys.modules:  # the probe's child: its first load is here
        cpu_variant.share_cxx_runtime()
    import llama_cpp
    from llama_cpp import _internals

    original = _internals.LlamaModel.metadata

    def without_templates(model: Any) -> dict[str, str]:
        return {k: v for k, v in original(model).items()
                if not k.startswith("tokenizer.chat_template")}

    _internals.LlamaModel.metadata = without_templates  # type: ignore[method-assign,assignment]
    try:
        llm = llama_cpp.Llama(**kwargs)
    finally:
        _internals.LlamaModel.metadata = original  # type: ignore[method-assign]
    llm.metadata = llm._model.metadata()
    if not llm._logits_all:
        # Llama keeps a (batch × vocabulary) float array for logits it only writes with
        # logits_all (sampling reads llama.cpp's own buffer): 50 MB for the starter
        # model, resident as soon as anything touches it. Never written, it is not kept.
        import numpy as np

        llm.scores = np.zeros((0, llm.n_vocab()), dtype=np.single)
    return llm


def _rss() -> int:
    import psutil

    return int(psutil.Process().memory_info().rss)


class LlamaEngine:
    def __init__(self) -> None:
        self._llm: Any = None
        self._template: ChatTemplate | None = None
        self._escaper = ControlTextEscaper(())
        self._stop_strings: list[str] = []
        self._prompt_progress: Callable[[int, int], None] | None = None
        self._name = ""
        self._spec: ModelSpec | None = None
        self.last_reused_tokens = 0  # prompt tokens taken from the cache on the last turn
        self.memory_bytes = 0
        self.backend = "CPU"
        self.chat_format_label = ""
        self.states = StateCache()
        self.conversation: int | None = None  # whose state (chat_id) is in the context now
        self._last_prompt: tuple[tuple[ChatMessage, ...], list[int], list[str]] | None = None
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
        before = _rss()
        try:
            llm = construct_llama(
                model_path=str(spec.path),
                n_ctx=spec.n_ctx,
                n_batch=spec.n_batch,
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
            self._template, self._stop_strings, self.chat_format_label = self._make_template(llm, spec)
            self._escaper = ControlTextEscaper(control_texts(llm, self._template.source))
        except ModelLoadError:
            llm.close()
            raise
        self._llm = llm
        self._spec = spec
        self._pieces = {}
        self._end_tokens = end_tokens(llm)
        self.memory_bytes = max(0, _rss() - before)
        self.backend = backend_name(spec.n_gpu_layers)
        self._name = (spec.display_name or bundled_name(spec.path)
                      or llm.metadata.get("general.name") or spec.path.stem)

    @staticmethod
    def _make_template(llm: Any, spec: ModelSpec) -> tuple[ChatTemplate, list[str], str]:
        try:
            label, template, stops = chat_formats.resolve(
                spec.chat_format, llm.metadata.get("tokenizer.chat_template"),
                llm.metadata.get("general.architecture", ""))
        except KeyError:
            raise ModelLoadError(translate("inference.llama_engine", "Unknown chat format {name}.")
                                 .format(name=repr(spec.chat_format))) from None
        eos_id, bos_id = llm.token_eos(), llm.token_bos()
        eos = llm._model.token_get_text(eos_id) if eos_id != -1 else ""
        bos = llm._model.token_get_text(bos_id) if bos_id != -1 else ""
        try:
            compiled = ChatTemplate(template, bos_token=bos, eos_token=eos)
            compiled.render(SAMPLE_CONVERSATION, max_chars=output_limit(int(llm.n_ctx()), 0))
        except TemplateRefused as exc:
            raise ModelLoadError(translate(
                "inference.llama_engine",
                "The chat template of {name} was stopped: {why}. Choose a built-in "
                "chat format for this model in Models ▸ Settings.",
            ).format(name=spec.path.name, why=exc)) from exc
        except Exception as exc:  # jinja2 TemplateError and whatever a template raises
            raise ModelLoadError(translate(
                "inference.llama_engine",
                "The chat template of {name} cannot be rendered ({kind}: {error}). Choose a "
                "built-in chat format for this model in Models ▸ Settings.",
            ).format(name=spec.path.name, kind=type(exc).__name__, error=exc)) from exc
        return compiled, [s for s in [eos, *stops] if s], label

    def _require(self) -> Any:
        if self._llm is None:
            raise ModelLoadError(translate("inference.llama_engine", "No model is loaded."))
        return self._llm

    def _prompt_tokens(self, messages: Sequence[ChatMessage]) -> tuple[list[int], list[str]]:
        """Render and tokenize; the last result is kept, because the worker counts the
        prompt it fitted and then streams the very same messages."""
        key = tuple(messages)
        if self._last_prompt is not None and self._last_prompt[0] == key:
            return list(self._last_prompt[1]), list(self._last_prompt[2])
        tokens, stops = self._render(messages)
        self._last_prompt = (key, tokens, stops)
        return list(tokens), list(stops)

    def _render(self, messages: Sequence[ChatMessage]) -> tuple[list[int], list[str]]:
        llm = self._require()
        assert self._template is not None
        escape = self._escaper.escape
        rendered = [{"role": m.role, "content": escape(m.content)} for m in messages]
        limit = output_limit(self.n_ctx, sum(len(m["content"]) + len(m["role"]) for m in rendered))
        # An answer being continued is the last turn: the prompt opens the answer as for
        # a new one and its text so far follows, for the model to write on from there.
        go_on = rendered.pop()["content"] if len(rendered) > 1 and rendered[-1]["role"] == "assistant" else ""
        try:
            prompt = self._template.render(rendered, max_chars=limit) + go_on
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
        tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
        return tokens, list(self._stop_strings)

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
        if not self._evaluate_prompt(llm, tokens, should_stop):
            return
        llm.set_seed(params.seed if params.seed is not None else random.randrange(2**31))
        max_tokens = min(params.max_tokens, n_ctx - len(tokens))
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        held = ""  # text that might be the start of a stop string
        produced = 0
        piece = self._piece
        generator = self._tokens(llm, tokens, params, max_tokens)
        # A fixed count (``ignore_eos``, benchmarks) goes past end tokens and stop strings,
        # but still checks for them: it does the same work per token as an answer.
        endless = params.ignore_eos
        try:
            for token in generator:
                if token in self._end_tokens and not endless:
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
            generator.close()

    def _piece(self, token: int) -> bytes:
        """A token's bytes, looked up once per token id (llama.cpp's call is per token)."""
        found = self._pieces.get(token)
        if found is None:
            found = self._pieces[token] = self._require().detokenize([token])
        return found

    def _tokens(self, llm: Any, prompt: list[int], params: SamplingParams,
                max_tokens: int) -> Generator[int, None, None]:
        """The sampled tokens, one at a time, after the prompt's last token.

        With ``prompt_lookup``, each evaluation takes the last token and a guess of the
        next ones (``inference.lookup``) in one batch, with logits at every position; the
        sampler then picks at each position in turn, and a guessed token stays only if it
        is the one picked, so the tokens are those of the plain loop. What the guess got
        wrong leaves the cache again, so the context always holds exactly the tokens
        written (also when the caller stops in the middle of a batch).
        """
        sampler = Sampler(llm, params)
        llm._sampler = sampler.chain
        # Guesses only on the CPU, whose batches of a token and two guesses have the logits of
        # one token at a time (tested). On a GPU they do not: on an H200 with CUDA, 11 of 25
        # drafted document answers changed, and a batch of three cost far more than a token.
        drafter = Drafter(prompt) if params.prompt_lookup and self.backend == "CPU" else None
        self.last_drafter = drafter
        pending = prompt[-1]
        written = 0
        n_ctx = self.n_ctx
        valid = llm.n_tokens
        policy = self.draft_policy
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
                _decode(llm, batch, bool(draft), trim=not written)
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

    def _evaluate_prompt(self, llm: Any, tokens: list[int], should_stop: Any) -> bool:
        """Evaluate all but the last prompt token, reusing the cached prefix.

        Returns False when stopped. The decode loop (``_tokens``) then evaluates the last
        one before it samples.
        """
        cached = llm.n_tokens
        input_ids = llm.input_ids
        common = 0
        limit = min(cached, len(tokens) - 1)
        while common < limit and input_ids[common] == tokens[common]:
            common += 1
        llm.n_tokens = common
        self.last_reused_tokens = common
        # Small steps keep stop and quit responsive during a long prompt (~0.3 s each on 2
        # cores); larger ones measured no faster here without flash attention.
        step = max(1, min(llm.n_batch, PREFILL_STEP))
        last = len(tokens) - 1
        progress = self._prompt_progress if last - common > PROGRESS_AFTER else None
        for start in range(common, last, step):
            if should_stop():
                return False
            if progress is not None:
                progress(start, len(tokens))
            _decode(llm, tokens[start:min(start + step, last)], False)
        return not should_stop()

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
        if self.conversation is not None and self.conversation >= 0:
            saved = state_cache.save(llm)
            if saved is not None:
                self.states.put(self.conversation, saved)
        cached = self.states.take(conversation)
        if cached is None or not state_cache.restore(llm, cached):
            _clear_context(llm)
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
            _clear_context(llm)

    def close(self) -> None:
        self.states.clear()
        self.conversation = None
        self._last_prompt = None
        self.last_drafter = None
        if self._llm is not None:
            try:
                self._llm.close()
            finally:
                self._llm = None
                self._template = None


def _fresh_policies() -> dict[bool, DraftPolicy]:
    """One draft policy for the window's chats (False) and one for the local API's (True)."""
    return {False: DraftPolicy(), True: DraftPolicy()}


def end_tokens(llm: Any) -> frozenset[int]:
    """The tokens that end a generation (end of turn, end of text), found once at load."""
    import llama_cpp

    vocab = llm._model.vocab
    return frozenset(t for t in range(int(llama_cpp.llama_vocab_n_tokens(vocab)))
                     if llama_cpp.llama_vocab_is_eog(vocab, t))


def control_texts(llm: Any, template: str = "") -> list[str]:
    """The token texts that must not appear whole in content (see ``must_escape``)."""
    import llama_cpp

    vocab = llm._model.vocab
    texts = []
    for token in range(int(llama_cpp.llama_vocab_n_tokens(vocab))):
        text = llm._model.token_get_text(token)
        if must_escape(int(llama_cpp.llama_vocab_get_attr(vocab, token)), text, template):
            texts.append(text)
    return texts


def must_escape(attributes: int, text: str, template: str = "") -> bool:
    """CONTROL and UNKNOWN tokens become real tokens when the prompt is tokenized with
    ``special=True``; USER_DEFINED ones are matched by llama.cpp whatever the flag, and
    some models' turn markers are user-defined. Those the chat template itself writes (its
    structure) are escaped too, when they look like markup (``<...>``, ``[INST]``,
    ``<|...|>``); others, such as HTML tags that some vocabularies define (``<table>``) and
    whitespace runs, stay as they are, so a user's HTML reaches the model unchanged."""
    import llama_cpp

    if attributes & (llama_cpp.LLAMA_TOKEN_ATTR_CONTROL | llama_cpp.LLAMA_TOKEN_ATTR_UNKNOWN):
        return True
    if attributes & llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED:
        markup = len(text) >= 3 and not any(c.isspace() for c in text) and any(c in "<[|" for c in text)
        return markup and text in template
    return False


def _decode(llm: Any, batch: list[int], every_position: bool, trim: bool = True) -> None:
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


def _clear_context(llm: Any) -> None:
    llm._ctx.kv_cache_clear()
    llm.input_ids[:] = 0
    llm.n_tokens = 0
    llm._sampler = None  # its repeat-penalty window holds the last tokens
    llm._requires_eval = True


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
