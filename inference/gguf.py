"""A bounded GGUF header reader: validate a model file before llama.cpp sees it.

llama.cpp's own loader has had heap overflows on crafted files (CVE-2024-21802,
CVE-2024-23605 and later). This reader checks the magic, the version, every count,
string and array length against what is left of the file and against fixed limits, and
every tensor's shape, type and data range against the file size, reading only the
header. Large arrays (the vocabulary) are skipped, not loaded, so memory stays small
whatever the file claims.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from guard.files import NotRegular, open_regular
from i18n import translate

MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)
MAX_TENSORS = 65_536
MAX_KV = 65_536
MAX_STRING = 4 << 20  # 4 MiB: chat templates are tens of KB
MAX_ARRAY = 1 << 26  # 64 Mi elements
MAX_DIMS = 4
KEPT_ARRAY = 64  # arrays up to this long are kept; longer ones only counted
# Strings in all the header's arrays together: each is read one by one (about a
# microsecond), on the window's thread at an import. A vocabulary and its merges are a
# million or two; 64 Mi strings a key, thousands of keys, kept the window still for minutes.
MAX_STRINGS = 1 << 22
DEFAULT_ALIGNMENT = 32

# GGUF value types
U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
_SCALARS = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f",
            BOOL: "<?", U64: "<Q", I64: "<q", F64: "<d"}

# ggml tensor types: name, elements per block, bytes per block.
GGML_TYPES: dict[int, tuple[str, int, int]] = {
    0: ("F32", 1, 4), 1: ("F16", 1, 2), 2: ("Q4_0", 32, 18), 3: ("Q4_1", 32, 20),
    6: ("Q5_0", 32, 22), 7: ("Q5_1", 32, 24), 8: ("Q8_0", 32, 34), 9: ("Q8_1", 32, 40),
    10: ("Q2_K", 256, 84), 11: ("Q3_K", 256, 110), 12: ("Q4_K", 256, 144),
    13: ("Q5_K", 256, 176), 14: ("Q6_K", 256, 210), 15: ("Q8_K", 256, 292),
    16: ("IQ2_XXS", 256, 66), 17: ("IQ2_XS", 256, 74), 18: ("IQ3_XXS", 256, 98),
    19: ("IQ1_S", 256, 50), 20: ("IQ4_NL", 32, 18), 21: ("IQ3_S", 256, 110),
    22: ("IQ2_S", 256, 82), 23: ("IQ4_XS", 256, 136), 24: ("I8", 1, 1), 25: ("I16", 1, 2),
    26: ("I32", 1, 4), 27: ("I64", 1, 8), 28: ("F64", 1, 8), 29: ("IQ1_M", 256, 56),
    30: ("BF16", 1, 2), 34: ("TQ1_0", 256, 54), 35: ("TQ2_0", 256, 66), 39: ("MXFP4", 32, 17),
}

# llama.cpp's general.file_type values.
FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
    11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S",
    17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS",
    23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S",
    29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0", 37: "TQ2_0",
    38: "MXFP4_MOE",
}


class InvalidGGUF(Exception):
    """The file is not a model llama.cpp should be given. The message says why."""


# A place in the file: (kind, key or index), said in words only when it is the reason,
# so that reading a vocabulary of 150,000 strings translates nothing.
What = tuple[str, Any]


def _place(what: What) -> str:
    kind, name = what
    if kind == "key":
        return str(name)
    if kind == "value":
        return translate("inference.gguf", "the value of {key}").format(key=name)
    if kind == "element-type":
        return translate("inference.gguf", "the element type of {key}").format(key=name)
    if kind == "length":  # of another place
        return translate("inference.gguf", "the length of {what}").format(what=_place(name))
    if kind == "element":
        return translate("inference.gguf", "an element of {key}").format(key=name)
    if kind == "magic":
        return translate("inference.gguf", "the magic number")
    if kind == "version":
        return translate("inference.gguf", "the version")
    if kind == "tensor-count":
        return translate("inference.gguf", "the tensor count")
    if kind == "metadata-count":
        return translate("inference.gguf", "the metadata count")
    if kind == "metadata-key":
        return translate("inference.gguf", "metadata key {index}").format(index=name)
    if kind == "type":
        return translate("inference.gguf", "the type of {name}").format(name=name)
    if kind == "tensor-name":
        return translate("inference.gguf", "the name of tensor {index}").format(index=name)
    if kind == "dimensions":
        return translate("inference.gguf", "the dimensions of {name}").format(name=name)
    if kind == "dimension":
        return translate("inference.gguf", "a dimension of {name}").format(name=name)
    if kind == "offset":
        return translate("inference.gguf", "the offset of {name}").format(name=name)
    raise KeyError(kind)  # pragma: no cover - every place above


@dataclass(frozen=True)
class Tensor:
    name: str
    shape: tuple[int, ...]
    type: int
    offset: int
    nbytes: int

    @property
    def elements(self) -> int:
        count = 1
        for dim in self.shape:
            count *= dim
        return count


@dataclass
class GGUFHeader:
    path: Path
    version: int
    file_size: int
    metadata: dict[str, Any]
    array_lengths: dict[str, int]
    tensors: list[Tensor] = field(default_factory=list)
    data_offset: int = 0

    def get(self, key: str, default: Any = None) -> Any:
        return self.metadata.get(key, default)

    @property
    def architecture(self) -> str:
        return str(self.metadata.get("general.architecture", "unknown"))

    def arch_value(self, suffix: str, default: Any = None) -> Any:
        return self.metadata.get(f"{self.architecture}.{suffix}", default)


class _Reader:
    def __init__(self, fh: BinaryIO, size: int) -> None:
        self.fh = fh
        self.size = size
        self.pos = 0
        self.strings = 0  # in the arrays read so far (MAX_STRINGS)

    def _ends_inside(self, what: What, n: int) -> InvalidGGUF:
        return InvalidGGUF(translate("inference.gguf", "the file ends inside {what} (at byte "
                                     "{pos}, needs {needed} more)").format(
                                         what=_place(what), pos=self.pos, needed=n))

    def read(self, n: int, what: What) -> bytes:
        if n < 0 or self.pos + n > self.size:
            raise self._ends_inside(what, n)
        data = self.fh.read(n)
        if len(data) != n:
            raise InvalidGGUF(translate("inference.gguf", "the file could not be read at byte "
                                        "{pos}").format(pos=self.pos))
        self.pos += n
        return data

    def skip(self, n: int, what: What) -> None:
        if n < 0 or self.pos + n > self.size:
            raise self._ends_inside(what, n)
        self.fh.seek(n, 1)
        self.pos += n

    def scalar(self, kind: int, what: What) -> Any:
        fmt = _SCALARS[kind]
        return struct.unpack(fmt, self.read(struct.calcsize(fmt), what))[0]

    def u32(self, what: What) -> int:
        return int(self.scalar(U32, what))

    def u64(self, what: What) -> int:
        return int(self.scalar(U64, what))

    def string(self, what: What, keep: bool = True) -> str:
        length = self.u64(("length", what))
        if length > MAX_STRING:
            raise InvalidGGUF(translate("inference.gguf", "{what} claims {length} bytes (limit "
                                        "{limit})").format(what=_place(what), length=length,
                                                           limit=MAX_STRING))
        if not keep:
            self.skip(length, what)
            return ""
        try:
            return self.read(length, what).decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidGGUF(translate("inference.gguf", "{what} is not valid UTF-8").format(
                what=_place(what))) from None


def _value(r: _Reader, kind: int, key: str, lengths: dict[str, int], depth: int = 0) -> Any:
    if kind in _SCALARS:
        return r.scalar(kind, ("value", key))
    if kind == STRING:
        return r.string(("value", key))
    if kind != ARRAY:
        raise InvalidGGUF(translate("inference.gguf", "{key} has an unknown value type {kind}")
                          .format(key=key, kind=kind))
    if depth:
        raise InvalidGGUF(translate("inference.gguf", "{key} nests arrays").format(key=key))
    item = r.u32(("element-type", key))
    count = r.u64(("length", ("key", key)))
    if count > MAX_ARRAY:
        raise InvalidGGUF(translate("inference.gguf", "{key} claims {count} elements (limit "
                                    "{limit})").format(key=key, count=count, limit=MAX_ARRAY))
    lengths[key] = count
    if item in _SCALARS:
        width = struct.calcsize(_SCALARS[item])
        if count * width > r.size - r.pos:
            raise InvalidGGUF(translate("inference.gguf", "{key} claims {count} elements, more "
                                        "than the file holds").format(key=key, count=count))
        if count > KEPT_ARRAY:
            r.skip(count * width, ("key", key))
            return None
        return [r.scalar(item, ("key", key)) for _ in range(count)]
    if item == STRING:
        r.strings += count
        if r.strings > MAX_STRINGS:
            raise InvalidGGUF(translate("inference.gguf", "its header holds more than {limit} "
                                        "strings").format(limit=MAX_STRINGS))
        if count * 8 > r.size - r.pos:
            raise InvalidGGUF(translate("inference.gguf", "{key} claims {count} strings, more "
                                        "than the file holds").format(key=key, count=count))
        keep = count <= KEPT_ARRAY
        values = [r.string(("element", key), keep) for _ in range(count)]
        return values if keep else None
    raise InvalidGGUF(translate("inference.gguf", "{key} has an unsupported element type "
                                "{kind}").format(key=key, kind=item))


def read_header(path: Path) -> GGUFHeader:
    """Parse and validate the header of ``path``; raise InvalidGGUF with the reason."""
    path = Path(path)
    try:  # a FIFO named model.gguf made the open wait for ever, on the window's thread
        fh, info = open_regular(path)
    except NotRegular:
        raise InvalidGGUF(translate("inference.gguf", "it is not a regular file")) from None
    except OSError as exc:
        raise InvalidGGUF(translate("inference.gguf", "the file cannot be read ({error})").format(
            error=exc.strerror)) from exc
    size = info.st_size
    with fh:
        r = _Reader(fh, size)
        if size < 24 or r.read(4, ("magic", None)) != MAGIC:
            raise InvalidGGUF(translate("inference.gguf",
                                        "it is not a GGUF file (wrong magic number)"))
        version = r.u32(("version", None))
        if version not in SUPPORTED_VERSIONS:
            raise InvalidGGUF(translate("inference.gguf", "GGUF version {version} is not "
                                        "supported (only 2 and 3)").format(version=version))
        n_tensors = r.u64(("tensor-count", None))
        n_kv = r.u64(("metadata-count", None))
        if n_tensors > MAX_TENSORS:
            raise InvalidGGUF(translate("inference.gguf", "it claims {count} tensors (limit "
                                        "{limit})").format(count=n_tensors, limit=MAX_TENSORS))
        if n_kv > MAX_KV:
            raise InvalidGGUF(translate("inference.gguf", "it claims {count} metadata entries "
                                        "(limit {limit})").format(count=n_kv, limit=MAX_KV))
        metadata: dict[str, Any] = {}
        lengths: dict[str, int] = {}
        for index in range(n_kv):
            key = r.string(("metadata-key", index))
            if key in metadata:
                raise InvalidGGUF(translate("inference.gguf", "the metadata key {key} appears "
                                            "twice").format(key=repr(key)))
            metadata[key] = _value(r, r.u32(("type", key)), key, lengths)
        header = GGUFHeader(path, version, size, metadata, lengths)
        alignment = metadata.get("general.alignment", DEFAULT_ALIGNMENT)
        if not isinstance(alignment, int) or alignment <= 0 or alignment & (alignment - 1):
            raise InvalidGGUF(translate("inference.gguf", "general.alignment {value} is not a "
                                        "power of two").format(value=repr(alignment)))
        names: set[str] = set()
        infos = []
        for index in range(n_tensors):
            name = r.string(("tensor-name", index))
            if name in names:
                raise InvalidGGUF(translate("inference.gguf", "tensor {name} appears twice")
                                  .format(name=repr(name)))
            names.add(name)
            n_dims = r.u32(("dimensions", name))
            if not 1 <= n_dims <= MAX_DIMS:
                raise InvalidGGUF(translate("inference.gguf", "tensor {name} has {count} "
                                            "dimensions (1 to {limit})").format(
                                                name=repr(name), count=n_dims, limit=MAX_DIMS))
            shape = tuple(r.u64(("dimension", name)) for _ in range(n_dims))
            kind = r.u32(("type", name))
            offset = r.u64(("offset", name))
            infos.append((name, shape, kind, offset))
        data_offset = (r.pos + alignment - 1) // alignment * alignment
        data_size = size - data_offset
        if data_size < 0:
            raise InvalidGGUF(translate("inference.gguf", "the file ends before its tensor data"))
        for name, shape, kind, offset in infos:
            header.tensors.append(_tensor(name, shape, kind, offset, alignment, data_size))
        spans = sorted((t.offset, t.offset + t.nbytes, t.name) for t in header.tensors)
        for (_, end, first), (start, _, second) in zip(spans, spans[1:], strict=False):
            if start < end:
                raise InvalidGGUF(translate("inference.gguf", "tensors {first} and {second} "
                                            "overlap").format(first=repr(first),
                                                              second=repr(second)))
        header.data_offset = data_offset
        return header


def _tensor(name: str, shape: tuple[int, ...], kind: int, offset: int, alignment: int,
            data_size: int) -> Tensor:
    if kind not in GGML_TYPES:
        raise InvalidGGUF(translate("inference.gguf", "tensor {name} has an unknown type {kind}")
                          .format(name=repr(name), kind=kind))
    type_name, block, block_bytes = GGML_TYPES[kind]
    elements = 1
    for dim in shape:
        if dim <= 0:
            raise InvalidGGUF(translate("inference.gguf", "tensor {name} has an empty dimension")
                              .format(name=repr(name)))
        elements *= dim
        if elements > 1 << 48:
            raise InvalidGGUF(translate("inference.gguf", "tensor {name} is impossibly large")
                              .format(name=repr(name)))
    if shape[0] % block:
        raise InvalidGGUF(translate("inference.gguf", "tensor {name} ({type}) has a row of {row}, "
                                    "not a multiple of {block}").format(
                                        name=repr(name), type=type_name, row=shape[0],
                                        block=block))
    nbytes = elements // block * block_bytes
    if offset % alignment:
        raise InvalidGGUF(translate("inference.gguf", "tensor {name} is not aligned to {alignment} "
                                    "bytes").format(name=repr(name), alignment=alignment))
    if offset + nbytes > data_size:
        raise InvalidGGUF(translate("inference.gguf", "tensor {name} reaches past the end of the "
                                    "file (it may be truncated)").format(name=repr(name)))
    return Tensor(name, shape, kind, offset, nbytes)
