"""The grammar of a tool choice: JSON that names one of the tools with arguments of its
shape, or "none". llama.cpp's sampler then cannot write anything else, so even the
starter model produces a well-formed call.

A tool's argument schema comes from its server: a stranger's. One that is too large,
too deep, or that the converter cannot read is replaced by "any JSON object": the call
is then checked by the tool itself.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SCHEMA_LIMIT = 8192  # characters of one tool's schema, as JSON
DEPTH_LIMIT = 6
ANY_OBJECT: dict[str, Any] = {"type": "object"}
NO_TOOL = "none"
# The engines whose own sampler follows a GBNF grammar sent with the request
# (``RemoteEngine.request_body``): llama.cpp's server, vLLM (xgrammar). Others: no tools.
GRAMMAR_ENGINES = frozenset({"llama.cpp", "vllm"})


BOUND_LIMIT = 100  # minLength, maxItems … beyond this: the converter writes the rule that many times
PATTERN_LIMIT = 1000  # atoms a string's pattern spells out (``_spelled_out``)
GRAMMAR_LIMIT = 256 * 1024  # characters of one choice's grammar
_BOUNDS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties",
           "minContains", "maxContains")


def grammar_fields(kind: str, grammar: str) -> dict[str, Any]:
    """What a request to an engine of ``kind`` carries for ``grammar`` ("" or another kind:
    nothing): llama.cpp's server takes GBNF as it is, vLLM through its structured outputs."""
    if not grammar:
        return {}
    if kind == "llama.cpp":
        return {"grammar": grammar}
    if kind == "vllm":
        return {"structured_outputs": {"grammar": grammar}}
    return {}


def _depth(value: Any, level: int = 0) -> int:
    if level > DEPTH_LIMIT * 2:
        return level
    if isinstance(value, dict):
        return max([level, *(_depth(v, level + 1) for v in value.values())])
    if isinstance(value, list):
        return max([level, *(_depth(v, level + 1) for v in value)])
    return level


def _followable(value: Any) -> bool:
    """No reference (the converter rewrites it in place, and a reference across schemas
    breaks the grammar of them all) and no count it would spell out rule by rule."""
    if isinstance(value, dict):
        if "$ref" in value or "$defs" in value or "definitions" in value:
            return False
        for key in _BOUNDS:
            bound = value.get(key)
            if isinstance(bound, (int, float)) and not isinstance(bound, bool) and bound > BOUND_LIMIT:
                return False
        pattern = value.get("pattern")
        if isinstance(pattern, str) and _spelled_out(pattern) > PATTERN_LIMIT:
            return False
        return all(_followable(v) for v in value.values())
    if isinstance(value, list):
        return all(_followable(v) for v in value)
    return True


def _spelled_out(pattern: str) -> int:
    """About how many atoms the converter writes out for a regular expression: each count
    (``a{3}``, ``(ab){2,5}``) repeats what it follows that many times, nested counts
    multiply. A 15-character ``^a{300000000}$`` from a tool server asked for gigabytes in
    Hearth's own process; a UUID's pattern is 36."""
    groups: list[list[int]] = [[0, 0]]  # per open group: atoms so far, the last atom's
    at = 0
    while at < len(pattern):
        char, size = pattern[at], 1
        if char == "\\":
            at += 2
        elif char == "[":  # a class is one atom: to its closing bracket
            at += 2 if pattern[at + 1 : at + 2] == "]" else 1
            while at < len(pattern) and pattern[at] != "]":
                at += 2 if pattern[at] == "\\" else 1
            at += 1
        elif char == "(":
            groups.append([0, 0])
            at += 1
            continue
        elif char == ")" and len(groups) > 1:
            size = max(1, groups.pop()[0])
            at += 1
        elif char == "{" and (count := _count(pattern, at)) is not None:
            times, at = count
            top = groups[-1]
            top[0] += top[1] * (times - 1)
            top[1] *= times
            continue
        elif char in "*+?|^$":
            at += 1
            continue
        else:
            at += 1
        groups[-1][0] += size
        groups[-1][1] = size
    return sum(group[0] for group in groups)


def _count(pattern: str, at: int) -> tuple[int, int] | None:
    """The most times ``{n}``, ``{n,}`` or ``{n,m}`` at ``at`` repeats (``{n,}``: n, and
    one more, spelled out), and where it ends; None where the brace is a plain one."""
    end = pattern.find("}", at)
    low, _comma, high = pattern[at + 1 : end].partition(",") if end > 0 else ("", "", "")
    if not low.isdigit() or (high and not high.isdigit()):
        return None
    return max(int(low) + (1 if _comma and not high else 0), int(high or 0)), end + 1


@functools.cache
def _converter() -> Callable[..., str]:
    """llama-cpp-python's JSON-schema-to-GBNF converter, loaded from its file alone: it is
    plain Python, and importing the package loads llama.cpp's library, which must wait
    for the worker's choice of a build (``inference.cpu_variant``) on whichever thread
    asks first for a tools' grammar (the window's, the local API's)."""
    found = importlib.util.find_spec("llama_cpp")
    source = Path(found.origin).parent / "llama_grammar.py" if found is not None and found.origin else None
    if source is None or not source.is_file():  # a frozen app: the package, once a build is chosen
        from inference import cpu_variant

        cpu_variant.ensure()
        from llama_cpp.llama_grammar import json_schema_to_gbnf

        return json_schema_to_gbnf
    spec = importlib.util.spec_from_file_location("hearth_json_schema_to_gbnf", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.json_schema_to_gbnf


def gbnf(schema: dict[str, Any], prop_order: Sequence[str] = ("tool", "arguments")) -> str:
    """GBNF for JSON of ``schema``, its objects' keys in ``prop_order`` first."""
    return str(_converter()(json.dumps(schema), prop_order=list(prop_order)))


def usable_schema(schema: Any) -> dict[str, Any]:
    """A copy of ``schema`` where the grammar can follow it; otherwise any JSON object."""
    try:
        text = json.dumps(schema)
        if not isinstance(schema, dict) or schema.get("type", "object") != "object" or \
                len(text) > SCHEMA_LIMIT or _depth(schema) > DEPTH_LIMIT * 2 or not _followable(schema):
            return ANY_OBJECT
        copied: dict[str, Any] = json.loads(text)  # the converter changes what it is given
        gbnf(json.loads(text))
    except Exception:  # the converter's own errors are of many kinds: any of them, any object
        log.info("a tool's argument schema cannot be followed; any object instead", exc_info=True)
        return ANY_OBJECT
    return copied


def choice_grammar(tools: Sequence[tuple[str, dict[str, Any]]], allow_none: bool = True) -> str:
    """GBNF for ``{"tool": NAME, "arguments": {...}}`` for each (name, schema) in
    ``tools``, or (``allow_none``) ``{"tool": "none"}``. Made once for the same tools."""
    return _choice_grammar(json.dumps([[name, schema] for name, schema in tools], sort_keys=True), allow_none)


@functools.lru_cache(maxsize=32)
def _choice_grammar(tools_json: str, allow_none: bool) -> str:
    tools = [(str(name), schema) for name, schema in json.loads(tools_json)]

    def made(schemas: list[dict[str, Any]]) -> str:
        alternatives: list[dict[str, Any]] = [
            {"type": "object", "properties": {"tool": {"const": name}, "arguments": schema},
             "required": ["tool", "arguments"]}
            for (name, _schema), schema in zip(tools, schemas, strict=True) if name != NO_TOOL]
        if allow_none or not alternatives:
            alternatives.append({"type": "object", "properties": {"tool": {"const": NO_TOOL}}, "required": ["tool"]})
        return gbnf({"anyOf": alternatives})

    try:
        grammar = made([usable_schema(schema) for _name, schema in tools])
        if len(grammar) <= GRAMMAR_LIMIT:
            return grammar
    except Exception:  # however each schema passed alone: the tools' names, any arguments
        log.info("the tools' grammar could not be made from their schemas", exc_info=True)
    return made([ANY_OBJECT for _tool in tools])
