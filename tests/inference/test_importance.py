"""The importance matrix (#42, inference/importance.py), read from llama.cpp's own tensors
while the real starter model (its weights as F16) reads a text: checked against the same
numbers computed here from the model file by NumPy, and refused when the library's tensor
layout is not the one the code reads."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest

from inference import importance
from inference.quantize_child import _load_llama

pytestmark = [pytest.mark.model]

TEXT = ("The tenant shall pay the rent monthly in advance and keep the premises in good repair. Either party "
        "may end this agreement by giving the other three months' notice in writing. ") * 4


def test_the_first_layers_importance_is_the_mean_square_of_its_normed_input(f16_model: Path) -> None:
    """``blk.0.attn_q.weight`` multiplies each token's embedding after RMS normalisation and
    the layer's norm weights; the mean of that input's squares per column, computed here
    from the GGUF, is what the callback read."""
    llama_cpp = _load_llama()
    from gguf import GGUFReader
    from gguf.quants import dequantize

    matrix = importance.compute(str(f16_model), TEXT, 2)
    kinds = ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down")
    assert set(matrix) == {f"blk.{layer}.{kind}.weight" for layer in range(30) for kind in kinds}  # the last too
    assert all(np.isfinite(v).all() and (v >= 0).all() and v.dtype == np.float32 for v in matrix.values())

    reader = GGUFReader(f16_model)
    tensors = {t.name: t for t in reader.tensors}
    epsilon = float(reader.fields["llama.attention.layer_norm_rms_epsilon"].contents())
    embeddings = dequantize(tensors["token_embd.weight"].data, tensors["token_embd.weight"].tensor_type)
    norm = dequantize(tensors["blk.0.attn_norm.weight"].data, tensors["blk.0.attn_norm.weight"].tensor_type)
    vocabulary = llama_cpp.Llama(model_path=str(f16_model), vocab_only=True, verbose=False)
    try:
        tokens = vocabulary.tokenize(TEXT.encode(), add_bos=True, special=False)
    finally:
        vocabulary.close()
    assert 16 <= len(tokens) <= importance.CHUNK  # one step, BOS first
    x = embeddings[tokens].astype(np.float64)
    x = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + epsilon) * norm
    expected = (x * x).mean(axis=0)
    read = matrix["blk.0.attn_q.weight"]
    assert read.shape == expected.shape == (576,)
    assert np.allclose(read, expected, rtol=2e-3, atol=1e-6)
    assert np.array_equal(matrix["blk.0.attn_k.weight"], read)  # the same input feeds q, k and v


def test_a_library_laid_out_otherwise_is_refused_not_misread(f16_model: Path, monkeypatch) -> None:
    """Checked on tensors ggml makes before the model loads: a struct of another size, and
    one of the same size whose fields sit elsewhere (two of them swapped), are refused."""
    _load_llama()
    monkeypatch.setattr(importance, "_OBJECT_SIZE", importance._OBJECT_SIZE + 8)
    with pytest.raises(importance.ImportanceError, match="layout"):
        importance.compute(str(f16_model), TEXT, 2)
    monkeypatch.undo()

    class Swapped(ctypes.Structure):
        pass

    fields = list(importance._Tensor._fields_)
    at = [name for name, _ in fields].index("ne")
    fields[at], fields[at + 1] = fields[at + 1], fields[at]  # nb before ne: the same size
    Swapped._fields_ = [(name, ctypes.POINTER(Swapped) * 10 if name == "src" else kind) for name, kind in fields]
    assert ctypes.sizeof(Swapped) == ctypes.sizeof(importance._Tensor)
    monkeypatch.setattr(importance, "_Tensor", Swapped)
    with pytest.raises(importance.ImportanceError, match="layout"):
        importance.compute(str(f16_model), TEXT, 2)


def test_a_text_with_no_step_of_sixteen_tokens_is_too_short(f16_model: Path) -> None:
    _load_llama()
    with pytest.raises(importance.ImportanceError, match="short"):
        importance.compute(str(f16_model), "Rent.", 2)
