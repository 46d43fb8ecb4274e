"""The tools' grammar (#44) from a stranger's schemas: references, counts the converter
would spell out rule by rule, hundreds of tools. Whatever the schemas, a grammar that
llama.cpp reads comes out, quickly and small, naming every tool."""

from __future__ import annotations

import pytest

from inference.tool_grammar import ANY_OBJECT, GRAMMAR_LIMIT, choice_grammar, usable_schema

NESTED = {"type": "object", "properties": {"place": {"$ref": "#/$defs/Place"}},
          "$defs": {"Place": {"type": "object", "properties": {"city": {"type": "string"}}}}}


def readable(grammar: str) -> None:
    from llama_cpp.llama_grammar import LlamaGrammar

    LlamaGrammar.from_string(grammar, verbose=False)


def test_a_schema_with_references_is_any_object_and_the_others_keep_theirs() -> None:
    plain = {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}
    assert usable_schema(NESTED) == ANY_OBJECT and usable_schema(plain) == plain
    grammar = choice_grammar([("weather", NESTED), ("calculator", plain)])
    readable(grammar)
    assert '\\"weather\\"' in grammar and '\\"calculator\\"' in grammar and "expression" in grammar
    assert "$defs" in NESTED and NESTED["properties"]["place"]["$ref"] == "#/$defs/Place"  # not changed


@pytest.mark.parametrize("bound", ["minLength", "maxLength", "minItems", "maxItems"])
def test_a_count_the_converter_would_spell_out_is_any_object(bound: str) -> None:
    schema = {"type": "object", "properties": {"s": {"type": "array" if "Items" in bound else "string",
                                                     bound: 10 ** 9}}}
    assert usable_schema(schema) == ANY_OBJECT
    readable(choice_grammar([("t", schema)]))


@pytest.mark.parametrize("pattern", ["^a{30000000}$", "^((ab){100}){100}$", "^(x{2,}y{40,50}){90}$"])
def test_a_pattern_the_converter_would_spell_out_is_any_object(pattern: str) -> None:
    """A count inside a string's pattern is written out by the converter as the other
    bounds are: a 15-character ``^a{300000000}$`` from a tool server (or a local API
    client's tools) asked for gigabytes in Hearth's own process on every turn with tools.
    (This one, a tenth of it, took some 100 MB before.)"""
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": pattern}}}
    assert usable_schema(schema) == ANY_OBJECT
    readable(choice_grammar([("t", schema)]))


def test_an_ordinary_pattern_is_followed() -> None:
    uuid = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
    schema = {"type": "object", "properties": {"id": {"type": "string", "pattern": uuid},
                                               "phone": {"type": "string", "pattern": r"^\+?\d{1,3}[ -]?\d{6,12}$"}}}
    assert usable_schema(schema) == schema
    readable(choice_grammar([("t", schema)]))


def test_many_tools_make_a_bounded_grammar() -> None:
    tools = [(f"tool_{i}", {"type": "object", "properties": {f"p{j}": {"type": "string"} for j in range(40)}})
             for i in range(128)]
    grammar = choice_grammar(tools)
    assert len(grammar) <= GRAMMAR_LIMIT and '\\"tool_127\\"' in grammar
    readable(grammar)
    assert choice_grammar(tools) is grammar  # made once


def test_no_none_when_a_call_is_required() -> None:
    grammar = choice_grammar([("t", ANY_OBJECT)], allow_none=False)
    assert '\\"none\\"' not in grammar
    readable(grammar)


def test_making_a_grammar_does_not_load_llama_cpp() -> None:
    """The grammar is made on the thread that asks first (the window's, the API's): loading
    llama.cpp there would come before the worker's choice of a build for this processor."""
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys\nfrom inference.tool_grammar import choice_grammar\n"
            "choice_grammar([('calc', {'type': 'object', 'properties': {'e': {'type': 'string'}}})])\n"
            "print('llama_cpp' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2],
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr[-2000:]
