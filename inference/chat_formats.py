"""Built-in chat formats, for models without a usable chat template of their own.

"auto" uses the template in the GGUF metadata, or, when there is none, the format its
architecture is known to use. Rendering runs in llama-cpp-python's sandboxed Jinja
environment either way.
"""

from __future__ import annotations

from i18n import translate

AUTO = "auto"

TEMPLATES: dict[str, str] = {
    "chatml": (
        "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
        "{{ message['content'] }}<|im_end|>\n{% endfor %}"
        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    ),
    "gemma": (
        "{{ bos_token }}{% set ns = namespace(sys='') %}{% for message in messages %}"
        "{% if message['role'] == 'system' %}{% set ns.sys = message['content'] + '\n\n' %}"
        "{% elif message['role'] == 'user' %}<start_of_turn>user\n{{ ns.sys }}"
        "{{ message['content'] }}<end_of_turn>\n{% set ns.sys = '' %}"
        "{% else %}<start_of_turn>model\n{{ message['content'] }}<end_of_turn>\n{% endif %}"
        "{% endfor %}{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
    ),
    "llama-3": (
        "{{ bos_token }}{% for message in messages %}<|start_header_id|>{{ message['role'] }}"
        "<|end_header_id|>\n\n{{ message['content'] | trim }}<|eot_id|>{% endfor %}"
        "{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>\n\n{% endif %}"
    ),
    "mistral": (
        "{{ bos_token }}{% set ns = namespace(sys='') %}{% for message in messages %}"
        "{% if message['role'] == 'system' %}{% set ns.sys = message['content'] + '\n\n' %}"
        "{% elif message['role'] == 'user' %}[INST] {{ ns.sys }}{{ message['content'] }} [/INST]"
        "{% set ns.sys = '' %}{% else %}{{ message['content'] }}{{ eos_token }}{% endif %}"
        "{% endfor %}"
    ),
    "phi-3": (
        "{% for message in messages %}<|{{ message['role'] }}|>\n{{ message['content'] }}<|end|>\n"
        "{% endfor %}{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
    ),
}
STOP_STRINGS = {"chatml": ["<|im_end|>"], "gemma": ["<end_of_turn>"], "llama-3": ["<|eot_id|>"],
                "mistral": [], "phi-3": ["<|end|>"]}
BY_ARCHITECTURE = {"gemma": "gemma", "gemma2": "gemma", "gemma3": "gemma", "phi3": "phi-3",
                   "llama": "chatml", "qwen2": "chatml", "qwen3": "chatml"}
CHOICES = [AUTO, *TEMPLATES]


def resolve(chat_format: str, gguf_template: str | None, architecture: str) -> tuple[str, str, list[str]]:
    """(label, template, extra stop strings) for a model's setting."""
    if chat_format != AUTO:
        if chat_format not in TEMPLATES:
            raise KeyError(chat_format)
        return chat_format, TEMPLATES[chat_format], STOP_STRINGS[chat_format]
    if gguf_template:
        return translate("inference.chat_formats", "the model's own template"), gguf_template, []
    name = BY_ARCHITECTURE.get(architecture, "chatml")
    return name, TEMPLATES[name], STOP_STRINGS[name]
