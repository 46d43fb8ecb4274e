"""Write small GGUF files byte by byte, valid or deliberately broken, for the validator tests."""

from __future__ import annotations

import struct
from typing import Any

U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)


def gstr(text: str | bytes, length: int | None = None) -> bytes:
    data = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(data) if length is None else length) + data


def kv(key: str, value: Any) -> bytes:
    if isinstance(value, bool):
        return gstr(key) + struct.pack("<I?", BOOL, value)
    if isinstance(value, int):
        return gstr(key) + struct.pack("<II", U32, value)
    if isinstance(value, float):
        return gstr(key) + struct.pack("<If", F32, value)
    if isinstance(value, str):
        return gstr(key) + struct.pack("<I", STRING) + gstr(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        body = b"".join(gstr(v) for v in value)
        return gstr(key) + struct.pack("<IIQ", ARRAY, STRING, len(value)) + body
    if isinstance(value, list):
        return gstr(key) + struct.pack("<IIQ", ARRAY, I32, len(value)) + b"".join(
            struct.pack("<i", v) for v in value)
    raise TypeError(value)


def tensor_info(name: str, shape: tuple[int, ...], kind: int, offset: int) -> bytes:
    return gstr(name) + struct.pack("<I", len(shape)) + b"".join(
        struct.pack("<Q", d) for d in shape) + struct.pack("<IQ", kind, offset)


def build(metadata: dict[str, Any] | None = None,
          tensors: list[tuple[str, tuple[int, ...], int, int, int]] | None = None,
          version: int = 3, magic: bytes = b"GGUF", alignment: int = 32,
          n_tensors: int | None = None, n_kv: int | None = None, raw_kv: bytes = b"",
          data_size: int | None = None) -> bytes:
    """tensors: (name, shape, ggml type, offset, nbytes). Data is zeros."""
    metadata = {"general.architecture": "llama", "general.name": "tiny test model",
                **(metadata or {})}
    tensors = tensors if tensors is not None else [
        ("token_embd.weight", (32, 8), 0, 0, 32 * 8 * 4),
        ("output_norm.weight", (32,), 0, 1024, 32 * 4),
    ]
    kvs = b"".join(kv(k, v) for k, v in metadata.items()) + raw_kv
    infos = b"".join(tensor_info(n, s, k, o) for n, s, k, o, _ in tensors)
    count_kv = len(metadata) + (1 if raw_kv else 0) if n_kv is None else n_kv
    head = magic + struct.pack("<IQQ", version, len(tensors) if n_tensors is None else n_tensors,
                               count_kv) + kvs + infos
    padded = head + b"\0" * ((-len(head)) % alignment)
    if data_size is None:
        data_size = max((o + n for _, _, _, o, n in tensors), default=0)
    return padded + b"\0" * data_size
