"""The GGUF validator against a generated corpus of malformed files, and real models."""

from __future__ import annotations

import random
import struct
from pathlib import Path

import pytest

from inference.gguf import GGML_TYPES, InvalidGGUF, read_header
from inference.modelinfo import ModelInfo, read_info
from inference.probe import probe
from inference.projectors import check_projector
from tests.inference import gguf_builder as g

VALID = g.build()


def write(tmp_path: Path, data: bytes, name: str = "m.gguf") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def rejected(tmp_path: Path, data: bytes, reason: str) -> None:
    with pytest.raises(InvalidGGUF, match=reason):
        read_header(write(tmp_path, data))


def test_a_valid_small_file_is_accepted(tmp_path: Path) -> None:
    header = read_header(write(tmp_path, VALID))
    assert header.architecture == "llama"
    assert [t.name for t in header.tensors] == ["token_embd.weight", "output_norm.weight"]


MALFORMED = {
    "empty file": (b"", "not a GGUF file"),
    "text renamed .gguf": (b"This is a text file, renamed to model.gguf\n" * 5, "wrong magic"),
    "wrong magic": (b"GGML" + VALID[4:], "wrong magic"),
    "version 1": (g.build(version=1), "version 1 is not supported"),
    "version 99": (g.build(version=99), "version 99"),
    "absurd tensor count": (g.build(n_tensors=2**63), "tensors \\(limit"),
    "absurd key count": (g.build(n_kv=2**40), "metadata entries \\(limit"),
    "more keys than present": (g.build(n_kv=50), "claims|ends inside"),
    "oversized key string": (b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + g.gstr("x", 2**62),
                             "claims .* bytes"),
    "string longer than file": (b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + g.gstr("abc", 4000),
                                "ends inside"),
    "huge array": (g.build(raw_kv=g.gstr("a") + struct.pack("<IIQ", g.ARRAY, g.U8, 2**62)),
                   "elements \\(limit"),
    "array beyond file": (g.build(raw_kv=g.gstr("a") + struct.pack("<IIQ", g.ARRAY, g.U32, 10**6)),
                          "more than the file holds"),
    # Read one by one on the window's thread: 64 Mi strings a key, thousands of keys, were
    # minutes of a still window (a review).
    "strings past the header's limit": (
        g.build(raw_kv=g.gstr("a") + struct.pack("<IIQ", g.ARRAY, g.STRING, 5_000_000)),
        "more than 4194304 strings"),
    "nested array": (g.build(raw_kv=g.gstr("a") + struct.pack("<IIQ", g.ARRAY, g.ARRAY, 1)),
                     "unsupported element type"),
    "unknown value type": (g.build(raw_kv=g.gstr("a") + struct.pack("<I", 77)), "unknown value type"),
    "duplicate key": (g.build(raw_kv=g.kv("general.name", "again")), "appears twice"),
    "key not utf-8": (g.build(raw_kv=g.gstr(b"\xff\xfe") + struct.pack("<II", g.U32, 1)), "UTF-8"),
    "bad alignment": (g.build({"general.alignment": 24}), "power of two"),
    "tensor past the end": (g.build(tensors=[("t", (32,), 0, 0, 128)])[:-64], "past the end"),
    "offset far past the end": (g.build(tensors=[("t", (32,), 0, 2**40, 0)], data_size=256), "past the end"),
    "unaligned offset": (g.build(tensors=[("t", (8,), 0, 0, 32), ("u", (8,), 0, 33, 64)]),
                         "not aligned"),
    "overlapping tensors": (g.build(tensors=[("t", (32,), 0, 0, 128), ("u", (32,), 0, 64, 128)]),
                            "overlap"),
    "zero dimension": (g.build(tensors=[("t", (0,), 0, 0, 0)]), "empty dimension"),
    "no dimensions": (g.build(tensors=[("t", (), 0, 0, 0)]), "0 dimensions"),
    "five dimensions": (g.build(tensors=[("t", (1, 1, 1, 1, 1), 0, 0, 4)]), "5 dimensions"),
    "unknown tensor type": (g.build(tensors=[("t", (32,), 99, 0, 128)]), "unknown type 99"),
    "row not a block multiple": (g.build(tensors=[("t", (33,), 2, 0, 64)]), "not a multiple"),
    "impossibly large tensor": (g.build(tensors=[("t", (2**30, 2**30), 0, 0, 0)]), "impossibly large"),
    "duplicate tensor": (g.build(tensors=[("t", (8,), 0, 0, 32), ("t", (8,), 0, 32, 32)]),
                         "appears twice"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_files_are_rejected_with_the_reason(tmp_path: Path, case: str) -> None:
    data, reason = MALFORMED[case]
    rejected(tmp_path, data, reason)


@pytest.mark.model
@pytest.mark.timeout(30)  # before: the open waited for ever, on the window's thread
def test_a_fifo_named_like_a_model_is_refused_without_waiting(tmp_path: Path) -> None:
    """A FIFO called model.gguf (an archive keeps one; a file dialog lists it) made the
    open of its header wait for a writer that never comes, on the window's thread."""
    import os

    fifo = tmp_path / "model.gguf"
    os.mkfifo(fifo)
    with pytest.raises(InvalidGGUF, match="not a regular file"):
        read_header(fifo)


def test_the_starter_model_truncated_anywhere_is_rejected(tmp_path: Path, starter_model_path: Path) -> None:
    size = starter_model_path.stat().st_size
    header_end = read_header(starter_model_path).data_offset
    cuts = sorted({0, 3, 4, 8, 20, 24, 100, 1000, *range(4096, header_end, header_end // 37),
                   header_end - 1, header_end, header_end + 4096, size // 2, size - 1})
    with open(starter_model_path, "rb") as fh:
        content = fh.read(max(cuts) + 1)
    for cut in cuts:
        path = write(tmp_path, content[:cut], f"cut{cut}.gguf")
        with pytest.raises(InvalidGGUF):
            read_header(path)
        path.unlink()
    assert len(cuts) > 40


def test_random_mutations_never_crash_the_reader_and_accepted_ones_are_probed(tmp_path: Path) -> None:
    rng = random.Random(1234)
    base = g.build({"llama.block_count": 1, "llama.context_length": 64})
    accepted = []
    for index in range(300):
        data = bytearray(base)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        path = write(tmp_path, bytes(data), f"mut{index}.gguf")
        try:
            read_header(path)
            accepted.append(path)
        except InvalidGGUF:
            path.unlink()
    # The survivors go to llama.cpp, but only inside the probe process.
    for path in accepted[:8]:
        result = probe(path, n_ctx=64, timeout=60)
        assert not result.ok and result.reason
    assert accepted  # some mutations (inside strings, say) keep the header valid


def test_type_table_matches_the_gguf_reference() -> None:
    gguf = pytest.importorskip("gguf", reason="the gguf package is only a conversion/test tool")
    for type_id, (name, block, size) in GGML_TYPES.items():
        reference = gguf.GGML_QUANT_SIZES.get(gguf.GGMLQuantizationType(type_id))
        assert reference == (block, size), name


@pytest.mark.model
def test_model_facts_of_the_two_real_models(starter_model_path: Path, gemma_model_path: Path) -> None:
    smol = read_info(starter_model_path)
    assert (smol.architecture, smol.quantization, smol.context_length, smol.license) == (
        "llama", "Q4_1", 8192, "apache-2.0")
    assert smol.has_chat_template and smol.role == "chat" and smol.parameters_label == "134.5M"
    gemma = read_info(gemma_model_path)
    assert (gemma.architecture, gemma.quantization, gemma.context_length) == ("gemma3", "Q4_K_M", 32768)
    assert not gemma.has_chat_template and gemma.vocab_size == 262144


@pytest.mark.parametrize(("said", "context", "layers"), [
    (g.kv("llama.context_length", float("inf")) + g.kv("llama.block_count", float("-inf")), 0, 0),
    (g.gstr("llama.context_length") + struct.pack("<Iq", g.I64, -7)
     + g.gstr("llama.block_count") + struct.pack("<Iq", g.I64, -3), 0, 0),
    (g.gstr("llama.context_length") + struct.pack("<IQ", g.U64, 1 << 62)
     + g.gstr("llama.block_count") + struct.pack("<IQ", g.U64, 1 << 62), 10_000_000, 1 << 40),
], ids=["infinite", "negative", "huge"])
def test_counts_the_file_states_out_of_range_are_held_in_range(tmp_path: Path, said: bytes, context: int,
                                                                layers: int) -> None:
    """A float infinity raised OverflowError out of the import (a generic "internal error",
    and the other files of the import skipped); a negative context length became the
    model's n_ctx. Infinity is read as unstated, the rest as the nearest count in range."""
    data = g.build(raw_kv=said, n_kv=4)  # the architecture, the name and the two said
    info = read_info(write(tmp_path, data))
    assert (info.context_length, info.layers) == (context, layers)


def test_the_architecture_and_license_are_shown_as_one_short_line(tmp_path: Path) -> None:
    """The model dialog shows both (escaped, as text): a right-to-left override, a line
    break and a terminal escape came through, and a string of megabytes whole."""
    data = g.build(metadata={"general.architecture": "lla\u202ema" + "x" * 5000,
                             "general.license": "MIT\u202e\n\x1b[31mgnp.exe"})
    info = read_info(write(tmp_path, data))
    assert info.license == "MIT [31mgnp.exe"
    assert info.architecture.startswith("llamaxxx") and len(info.architecture) == 200
    assert info.architecture.endswith("…") and "\u202e" not in info.architecture
    stored = {**info.as_dict(), "license": "GPL\u202e\n" + "y" * 5000, "architecture": "qwen2\x1b]0;"}
    again = ModelInfo.from_dict(stored)  # a model imported before: cleaned where it is read back
    assert again.architecture == "qwen2]0;" and again.license.startswith("GPL y") and len(again.license) == 200
    with pytest.raises(InvalidGGUF, match="not a picture reader") as refused:  # chosen as a projector
        check_projector(write(tmp_path, data, "mmproj.gguf"), 0)
    assert "\u202e" not in str(refused.value) and len(str(refused.value)) < 400
