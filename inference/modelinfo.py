"""What a user sees about a GGUF model, read from its validated header."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from guard.text import one_line
from i18n import translate
from inference.gguf import FILE_TYPES, GGML_TYPES, GGUFHeader, read_header

EMBEDDING_ARCHITECTURES = {"bert", "nomic-bert", "jina-bert-v2", "t5encoder", "modern-bert"}
MAX_CONTEXT = 10_000_000  # tokens: above any model's trained context
MAX_COUNT = 1 << 40  # any other count (layers, heads, lengths): far above any real model's
LABEL_CHARS = 200  # of a text from the file that is shown (its architecture, its license)


# Words in a model's name that say it was tuned to follow instructions or chat ("it":
# Gemma's "-it"); the first two also inside a word ("OpenChat").
_TUNED = ("instruct", "chat", "it", "assistant", "sft", "dpo", "rlhf", "hermes", "orca", "tulu", "zephyr")


@dataclass(frozen=True)
class ModelInfo:
    name: str
    architecture: str
    parameters: int
    quantization: str
    file_size: int
    context_length: int
    has_chat_template: bool
    license: str
    role: str  # "chat" | "embedding"
    # For the memory estimate.
    layers: int
    embedding_length: int
    head_count: int
    head_count_kv: int
    key_length: int
    value_length: int
    vocab_size: int
    weights_bytes: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelInfo:
        values = {k: data[k] for k in cls.__dataclass_fields__}
        for key in ("architecture", "license"):  # facts stored before they were cleaned on reading
            values[key] = label(str(values[key]))
        return cls(**values)

    @property
    def looks_like_base_model(self) -> bool:
        """A chat model file with no chat template whose name says nothing of instructions
        or chat: likely a base model, which continues text rather than answering."""
        if self.role != "chat" or self.has_chat_template:
            return False
        name = re.sub(r"[^a-z0-9]+", " ", self.name.lower())
        return not (any(word in name.split() for word in _TUNED) or any(w in name for w in _TUNED[:2]))

    @property
    def parameters_label(self) -> str:
        n = self.parameters
        for unit, size in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
            if n >= size:
                return f"{n / size:.1f}{unit}".replace(".0", "")
        return str(n)


def label(text: str, limit: int = LABEL_CHARS) -> str:
    """A text from the file's metadata as the model dialog shows it: one line, no control
    characters (a right-to-left override, a terminal escape), at most ``limit`` characters
    (a string in a GGUF may run to megabytes)."""
    text = one_line(text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _int(value: Any, default: int = 0, most: int = MAX_COUNT) -> int:
    """A count from the file's metadata, held to 0..``most``: the file may say anything (a
    float infinity, which ``int`` refuses with OverflowError; a negative context length,
    which would become the model's n_ctx)."""
    if isinstance(value, list):  # per-layer values: the largest bounds the memory
        value = max(value) if value else default
    try:
        return min(max(int(value), 0), most)
    except (TypeError, ValueError, OverflowError):
        return default


def _quantization(header: GGUFHeader) -> str:
    file_type = header.get("general.file_type")
    if isinstance(file_type, int) and file_type in FILE_TYPES:
        return FILE_TYPES[file_type]
    by_bytes: Counter[str] = Counter()
    for tensor in header.tensors:
        by_bytes[GGML_TYPES[tensor.type][0]] += tensor.nbytes
    return by_bytes.most_common(1)[0][0] if by_bytes else "unknown"


def info_from_header(header: GGUFHeader) -> ModelInfo:
    arch = header.architecture
    embedding = _int(header.arch_value("embedding_length"))
    heads = _int(header.arch_value("attention.head_count"), 1) or 1
    heads_kv = _int(header.arch_value("attention.head_count_kv"), heads) or heads
    head_dim = embedding // heads if heads else 0
    vocab = header.array_lengths.get("tokenizer.ggml.tokens") or _int(header.arch_value("vocab_size"))
    pooling = header.arch_value("pooling_type")
    role = "embedding" if arch in EMBEDDING_ARCHITECTURES or pooling not in (None, 0) else "chat"
    return ModelInfo(
        name=one_line(str(header.get("general.name") or Path(header.path).stem)),
        architecture=label(arch),
        parameters=sum(t.elements for t in header.tensors),
        quantization=_quantization(header),
        file_size=header.file_size,
        context_length=_int(header.arch_value("context_length"), most=MAX_CONTEXT),
        has_chat_template=bool(header.get("tokenizer.chat_template")),
        license=label(str(header.get("general.license")
                          or translate("inference.modelinfo", "not stated"))),
        role=role,
        layers=_int(header.arch_value("block_count")),
        embedding_length=embedding,
        head_count=heads,
        head_count_kv=heads_kv,
        key_length=_int(header.arch_value("attention.key_length"), head_dim) or head_dim,
        value_length=_int(header.arch_value("attention.value_length"), head_dim) or head_dim,
        vocab_size=vocab,
        weights_bytes=sum(t.nbytes for t in header.tensors),
    )


def read_info(path: Path) -> ModelInfo:
    return info_from_header(read_header(path))
