"""A projector (mmproj) made for the tests: no package in the registries carries a small
vision model's projector, so the tests give the starter model (SmolLM2 135M, whose width
is 576) one with random weights, seeded. It is a real LLaVA-style projector as llama.cpp's
multimodal library loads it: a CLIP vision tower of two blocks over a 56×56 picture in
14-pixel patches (16 picture tokens), then two linear layers into the model's width. Its
answers about a picture mean nothing; what it tests is that the picture's embeddings reach
the model, take their positions in the prompt and stay in the cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np

IMAGE_SIZE, PATCH_SIZE = 56, 14
TOKENS = (IMAGE_SIZE // PATCH_SIZE) ** 2  # picture tokens
WIDTH, HEADS, FEED_FORWARD, BLOCKS, PROJECTED = 32, 4, 64, 2, 64  # feed-forward ≠ width (clip.cpp)


def make_projector(path: Path, text_width: int = 576, seed: int = 0, image_size: int = IMAGE_SIZE) -> Path:
    """Write the projector to ``path`` (the same bytes for the same seed); a picture is
    (``image_size`` / 14)² tokens: 16 by default, 256 at 224 (as many as Gemma 3's)."""
    import gguf

    rng = np.random.default_rng(seed)

    def weights(*shape: int) -> np.ndarray:  # numpy's shape: (out, in), ggml's reversed
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    def filled(value: float, size: int) -> np.ndarray:
        return np.full(size, value, dtype=np.float32)

    writer = gguf.GGUFWriter(str(path), "clip")
    writer.add_string("general.name", "hearth-test-projector")
    writer.add_bool("clip.has_vision_encoder", True)
    writer.add_bool("clip.has_audio_encoder", False)
    writer.add_string("clip.projector_type", "mlp")
    writer.add_bool("clip.use_gelu", False)
    for key, value in (("image_size", image_size), ("patch_size", PATCH_SIZE), ("embedding_length", WIDTH),
                       ("feed_forward_length", FEED_FORWARD), ("block_count", BLOCKS),
                       ("projection_dim", text_width), ("attention.head_count", HEADS)):
        writer.add_uint32(f"clip.vision.{key}", value)
    writer.add_float32("clip.vision.attention.layer_norm_epsilon", 1e-5)
    writer.add_array("clip.vision.image_mean", [0.48145466, 0.4578275, 0.40821073])
    writer.add_array("clip.vision.image_std", [0.26862954, 0.26130258, 0.27577711])
    writer.add_tensor("v.patch_embd.weight", weights(WIDTH, 3, PATCH_SIZE, PATCH_SIZE))
    writer.add_tensor("v.patch_embd.bias", filled(0, WIDTH))
    writer.add_tensor("v.position_embd.weight", weights((image_size // PATCH_SIZE) ** 2, WIDTH))
    writer.add_tensor("v.pre_ln.weight", filled(1, WIDTH))
    writer.add_tensor("v.pre_ln.bias", filled(0, WIDTH))
    for block in range(BLOCKS):
        name = f"v.blk.{block}"
        for part in ("attn_q", "attn_k", "attn_v", "attn_out"):
            writer.add_tensor(f"{name}.{part}.weight", weights(WIDTH, WIDTH))
            writer.add_tensor(f"{name}.{part}.bias", filled(0, WIDTH))
        for norm in ("ln1", "ln2"):
            writer.add_tensor(f"{name}.{norm}.weight", filled(1, WIDTH))
            writer.add_tensor(f"{name}.{norm}.bias", filled(0, WIDTH))
        writer.add_tensor(f"{name}.ffn_up.weight", weights(FEED_FORWARD, WIDTH))
        writer.add_tensor(f"{name}.ffn_up.bias", filled(0, FEED_FORWARD))
        writer.add_tensor(f"{name}.ffn_down.weight", weights(WIDTH, FEED_FORWARD))
        writer.add_tensor(f"{name}.ffn_down.bias", filled(0, WIDTH))
    writer.add_tensor("mm.0.weight", weights(PROJECTED, WIDTH))
    writer.add_tensor("mm.0.bias", filled(0, PROJECTED))
    writer.add_tensor("mm.2.weight", weights(text_width, PROJECTED))
    writer.add_tensor("mm.2.bias", filled(0, text_width))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
