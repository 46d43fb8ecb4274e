"""A base model (no chat template, no sign of tuning in its name) is flagged (issue #18)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from inference.modelinfo import ModelInfo

BASE = ModelInfo(name="Llama 3.1 8B", architecture="llama", parameters=8_000_000_000, quantization="Q4_K_M",
                 file_size=1, context_length=8192, has_chat_template=False, license="", role="chat",
                 layers=32, embedding_length=4096, head_count=32, head_count_kv=8, key_length=128,
                 value_length=128, vocab_size=128256, weights_bytes=1)


@pytest.mark.parametrize("name", ["Llama 3.1 8B", "Mistral-7B-v0.3", "qwen2.5-1.5b", "Gemma 3 270m"])
def test_untuned_names_without_a_template_are_flagged(name: str) -> None:
    assert replace(BASE, name=name).looks_like_base_model


@pytest.mark.parametrize("name", ["Llama 3.1 8B Instruct", "gemma-3-270m-it", "OpenChat 3.5",
                                  "Nous-Hermes-2", "zephyr-7b-beta", "SmolLM2 135M Instruct (Q4_1)"])
def test_tuned_names_are_not(name: str) -> None:
    assert not replace(BASE, name=name).looks_like_base_model


def test_a_template_or_an_embedding_role_is_never_flagged() -> None:
    assert not replace(BASE, has_chat_template=True).looks_like_base_model
    assert not replace(BASE, role="embedding").looks_like_base_model
