"""Loading a GGUF model into llama-cpp-python, and judging what comes with it.

The file is checked before llama.cpp sees it (``check_model_file``); the model is
constructed without llama-cpp-python compiling its chat templates (``construct_llama``);
its chat template is compiled by Hearth's bounded renderer and tried on a sample
conversation (``make_template``), so that a broken or hostile template is said at load and
not in the middle of an answer. The vocabulary gives the tokens that end an answer
(``end_tokens``) and the control-token texts that message content must not spell
(``control_texts``, ``must_escape``). ``inference.llama_engine`` owns what this loads;
``inference.embedder`` and the probe's child load with the same two first steps.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from i18n import translate
from inference import chat_formats, cpu_variant
from inference.chat_template import SAMPLE_CONVERSATION, ChatTemplate, TemplateRefused, output_limit
from inference.errors import ModelLoadError
from inference.gguf import InvalidGGUF, read_header
from inference.protocol import ModelSpec


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


def resident_bytes() -> int:
    """This process's resident memory (the engine measures a load by it)."""
    import psutil

    return int(psutil.Process().memory_info().rss)


def make_template(llm: Any, spec: ModelSpec) -> tuple[ChatTemplate, list[str], str]:
    """The loaded model's chat template, compiled and tried on a sample conversation; the
    texts that end an answer (end of text and the format's stop strings); the chat format's
    label. ModelLoadError says why a template cannot be used."""
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
