"""The grammar of a tool choice: JSON that names one of the tools with arguments of its
shape, or "none". llama.cpp's sampler then cannot write anything else, so even the
starter model produces a well-formed call.

A tool's argument schema comes from its server: a stranger's. One that is too large,
too deep, or that the converter cannot read is replaced by "any JSON object": the call
is then checked by the tool itself.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

log = logging.getLogger(__name__)

SCHEMA_LIMIT = 8192  # characters of one tool's schema, as JSON
DEPTH_LIMIT = 6
ANY_OBJECT: dict[str, Any] = {"type": "object"}
NO_TOOL = "none"
# The engines whose own sampler follows a GBNF grammar sent with the request
# (``RemoteEngine.request_body``): llama.cpp's server, vLLM (xgrammar). Others: no tools.
GRAMMAR_ENGINES = frozenset({"llama.cpp", "vllm"})


def _depth(value: Any, level: int = 0) -> int:
    if level > DEPTH_LIMIT * 2:
        return level
    if isinstance(value, dict):
        return max([level, *(_depth(v, level + 1) for v in value.values())])
    if isinstance(value, list):
        return max([level, *(_depth(v, level + 1) for v in value)])
    return level


def _gbnf(schema: dict[str, Any]) -> str:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    return str(json_schema_to_gbnf(json.dumps(schema), prop_order=["tool", "arguments"]))


def usable_schema(schema: Any) -> dict[str, Any]:
    """``schema`` where the grammar can follow it; otherwise any JSON object."""
    try:
        text = json.dumps(schema)
        if not isinstance(schema, dict) or schema.get("type", "object") != "object" or \
                len(text) > SCHEMA_LIMIT or _depth(schema) > DEPTH_LIMIT * 2:
            return ANY_OBJECT
        _gbnf(schema)
    except Exception:  # the converter's own errors are of many kinds: any of them, any object
        log.info("a tool's argument schema cannot be followed; any object instead", exc_info=True)
        return ANY_OBJECT
    return schema


def choice_grammar(tools: Sequence[tuple[str, dict[str, Any]]], allow_none: bool = True) -> str:
    """GBNF for ``{"tool": NAME, "arguments": {...}}`` for each (name, schema) in
    ``tools``, or (``allow_none``) ``{"tool": "none"}``."""
    alternatives: list[dict[str, Any]] = [
        {"type": "object", "properties": {"tool": {"const": name}, "arguments": usable_schema(schema)},
         "required": ["tool", "arguments"]}
        for name, schema in tools if name != NO_TOOL]
    if allow_none or not alternatives:
        alternatives.append({"type": "object", "properties": {"tool": {"const": NO_TOOL}}, "required": ["tool"]})
    return _gbnf({"anyOf": alternatives})
