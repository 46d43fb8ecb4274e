"""The sandbox a model's chat template runs in, and the limits it is held to.

A GGUF file's chat template is untrusted code: Jinja in a sandbox cannot touch files or
Python internals, but it can still spend memory (``'A' * 300000000``) and time (nested
``range(100000)`` loops) without end. ``SandboxEnvironment`` is Jinja's immutable sandbox
with a ``Budget`` for one render: a count of steps (every loop iteration, call, attribute,
item, operator and filter), a wall-clock deadline, and a cap on the size of every value
it builds. Operations that would allocate more than the cap are refused before they
allocate. Exceeding the budget raises ``TemplateRefused``, whose kind and values
``refusal`` says in the interface language.

``inference.chat_template`` compiles templates in this environment and renders them.
"""

from __future__ import annotations

import functools
import json
import re
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import jinja2
import jinja2.ext
import jinja2.nodes as nodes
from jinja2.filters import make_attrgetter
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import _PassArg
from jinja2.visitor import NodeTransformer

from i18n import translate

MAX_FILTER_INT = 4096  # indent(4), truncate(255), center(80): real templates use small numbers
MAX_RANGE = 100_000
MAX_JSON_INDENT = 8
MADE_FACTOR = 64  # all values built in one render: at most this many times the output cap
_ITER_FILTER = "hearth_iter"
_VALUE_FILTER = "hearth_value"
_COMPARED_FILTER = "hearth_compared"
# What one comparison (==, <, in, a test such as "eq", a sort) may have to look at: items
# of containers, nested ones counted each time they appear, and strings by 256 characters.
# Python compares in C, holding the interpreter's lock: ``[x]*N == [y]*N`` of two N-item
# lists was one step and N² comparisons, and the window froze with the worker.
MAX_COMPARED = 1_000_000
_COMPARING_TESTS = frozenset({"==", "eq", "equalto", "!=", "ne", ">", "gt", "greaterthan", ">=", "ge",
                              "<", "lt", "lessthan", "<=", "le", "in"})
_SORTING_FILTERS = frozenset({"sort", "unique", "min", "max", "dictsort", "groupby"})
_WIDTH = re.compile(r"\d+")


# What a refusal says, as data: its kind and values (``refusal``). The probe child sends
# these, having no translation, and its parent says them in the interface language.
STEPS, SECONDS, VALUE_SIZE, MADE, WOULD_BE = "steps", "seconds", "value-size", "made", "would-be"
WIDTH, BITS, RANGE, FILTER_ARG, JSON_INDENT = "width", "bits", "range", "filter-arg", "json-indent"
POWER, FORMAT_WIDTH, CALL_ARG, OUTPUT = "power", "format-width", "call-arg", "output"
RECURSION, MEMORY, COMPARED = "recursion", "memory", "compared"
Value = str | int | float


def refusal(kind: str, values: Mapping[str, Value]) -> str:
    """The text of a refusal of ``kind``, in the interface language (after "because" or a
    colon: it starts in lower case); KeyError for a kind or value it does not know,
    ValueError for a value of the wrong type."""
    v = values
    if kind == STEPS:
        return translate("inference.chat_template", "it took more than {steps:,} steps").format(
            steps=v["steps"])
    if kind == SECONDS:
        return translate("inference.chat_template", "it ran for more than {seconds:g} s").format(
            seconds=v["seconds"])
    if kind == VALUE_SIZE:
        return translate("inference.chat_template",
                         "it built a value of more than {chars:,} characters").format(
                             chars=v["chars"])
    if kind == MADE:
        return translate("inference.chat_template",
                         "it built more than {chars:,} characters in all").format(chars=v["chars"])
    if kind == WOULD_BE:
        return translate("inference.chat_template", "it tried to build a value of {length:,} "
                         "characters (the limit is {limit:,})").format(
                             length=v["length"], limit=v["limit"])
    if kind == WIDTH:
        return translate("inference.chat_template",
                         "its format string asks for a width of {width}").format(width=v["width"])
    if kind == BITS:
        return translate("inference.chat_template",
                         "it computed with numbers of more than {bits} bits").format(bits=v["bits"])
    if kind == RANGE:
        return translate("inference.chat_template",
                         "it asked for a range of {count:,} numbers").format(count=v["count"])
    if kind == FILTER_ARG:
        return translate("inference.chat_template", "it passed {value} to the {name} filter").format(
            value=v["value"], name=v["name"])
    if kind == JSON_INDENT:
        return translate("inference.chat_template",
                         "it asked tojson for an indent of {indent}").format(indent=v["indent"])
    if kind == POWER:
        return translate("inference.chat_template", "it tried to compute {left} ** {right}").format(
            left=v["left"], right=v["right"])
    if kind == FORMAT_WIDTH:
        return translate("inference.chat_template",
                         "it formatted with a width of {width}").format(width=v["width"])
    if kind == CALL_ARG:
        return translate("inference.chat_template", "it passed {value} to a function").format(
            value=v["value"])
    if kind == OUTPUT:
        return translate("inference.chat_template",
                         "its output grew past {chars:,} characters").format(chars=v["chars"])
    if kind == RECURSION:
        return translate("inference.chat_template", "it recursed too deeply")
    if kind == MEMORY:
        return translate("inference.chat_template", "it ran out of memory")
    if kind == COMPARED:
        return translate("inference.chat_template",
                         "it compared values of more than {items:,} items").format(items=v["items"])
    raise KeyError(kind)


class TemplateRefused(Exception):
    """The template went past its budget (steps, time, or size); the message says which,
    and ``kind`` and ``values`` say it again as data (see ``refusal``)."""

    def __init__(self, kind: str, **values: Value) -> None:
        super().__init__(refusal(kind, values))
        self.kind = kind
        self.values = values



class Budget:
    """What one render may still spend (see the module's docstring)."""

    def __init__(self, max_chars: int, max_steps: int, seconds: float) -> None:
        self.max_chars = max_chars
        self.max_steps = max_steps
        self.deadline = time.monotonic() + seconds
        self.seconds = seconds
        self.steps = 0
        self.made = 0  # characters (or items) built by all steps so far

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            raise TemplateRefused(STEPS, steps=self.max_steps)
        if not self.steps & 0xFF and time.monotonic() > self.deadline:
            raise TemplateRefused(SECONDS, seconds=self.seconds)

    def size(self, value: Any) -> Any:
        """Count what a step built: each value, and all of them together, are bounded."""
        if isinstance(value, (str, bytes, list, tuple, dict)):
            length = len(value)
            self.made += length
            if length > self.max_chars:
                raise TemplateRefused(VALUE_SIZE, chars=self.max_chars)
            if self.made > MADE_FACTOR * self.max_chars:
                raise TemplateRefused(MADE, chars=MADE_FACTOR * self.max_chars)
        return value

    def would_be(self, length: int) -> None:
        if length > self.max_chars:
            raise TemplateRefused(WOULD_BE, length=length, limit=self.max_chars)

    def widths(self, fmt: Any) -> None:
        """A format string's field widths and precisions (``'%999999999s'``, ``'{:>9999999}'``)."""
        if isinstance(fmt, str):
            for number in _WIDTH.findall(fmt):
                if len(number) > 7 or int(number) > self.max_chars:
                    raise TemplateRefused(WIDTH, width=number)


MAX_INT_BITS = 4096


def _big_numbers(*values: Any) -> bool:
    return any(isinstance(v, int) and v.bit_length() > MAX_INT_BITS for v in values)


def _small_result(bits: int) -> None:
    if bits > MAX_INT_BITS:
        raise TemplateRefused(BITS, bits=MAX_INT_BITS)


def _length(value: Any) -> int:
    return len(value) if isinstance(value, (str, list, tuple)) else 0


def _check_compared(*values: Any) -> None:
    """Refuse before comparing values whose comparison could look at more than
    MAX_COMPARED items (see there); the count stops as soon as it is past."""
    count, stack = 0, list(values)
    while stack:
        value = stack.pop()
        if isinstance(value, (str, bytes)):
            count += 1 + len(value) // 256
        elif isinstance(value, dict):
            count += 1 + len(value)
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, (list, tuple, set, frozenset)):
            count += 1 + len(value)
            stack.extend(value)
        else:
            count += 1
        if count > MAX_COMPARED:
            raise TemplateRefused(COMPARED, items=MAX_COMPARED)


class Guard(NodeTransformer):
    """Wraps every loop's iterable and every string concatenation in a budget check."""

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        node.iter = nodes.Filter(node.iter, _ITER_FILTER, [], [], None, None, lineno=node.lineno)
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return nodes.Filter(node, _VALUE_FILTER, [], [], None, None, lineno=node.lineno)

    def visit_Compare(self, node: nodes.Compare) -> nodes.Node:
        self.generic_visit(node)
        node.expr = nodes.Filter(node.expr, _COMPARED_FILTER, [], [], None, None, lineno=node.lineno)
        for operand in node.ops:
            operand.expr = nodes.Filter(operand.expr, _COMPARED_FILTER, [], [], None, None,
                                        lineno=node.lineno)
        return node


class _IgnoreGenerationTags(jinja2.ext.Extension):
    """Pass-through for Hugging Face's ``{% generation %}`` tag (as llama-cpp-python does)."""

    tags = {"generation"}

    def parse(self, parser: Any) -> Any:
        parser.stream.skip(1)
        return parser.parse_statements(("name:endgeneration",), drop_needle=True)


class SandboxEnvironment(ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset({"*", "**", "%", "+", "//"})

    def __init__(self) -> None:
        # optimized=False: the optimizer evaluates constant expressions while compiling,
        # outside any budget.
        super().__init__(loader=jinja2.BaseLoader(), trim_blocks=True, lstrip_blocks=True,
                         extensions=[_IgnoreGenerationTags, jinja2.ext.loopcontrols], optimized=False)
        self.budget = Budget(0, 0, 0.0)  # replaced at the start of each render
        self.globals.pop("lipsum", None)
        self.globals["range"] = self._range
        self.filters["tojson"] = _tojson
        self.filters = {name: self._guard_filter(name, f) for name, f in self.filters.items()}
        self.filters[_ITER_FILTER] = self._iterate
        self.filters[_VALUE_FILTER] = self._value
        self.filters[_COMPARED_FILTER] = self._compared
        self.tests = {name: self._guard_test(test) if name in _COMPARING_TESTS else test
                      for name, test in self.tests.items()}

    # Called by the compiled template --------------------------------------------
    def _range(self, *args: int) -> range:
        self.budget.tick()
        rng = range(*args)
        if len(rng) > MAX_RANGE:
            raise TemplateRefused(RANGE, count=len(rng))
        return rng

    def _iterate(self, iterable: Any) -> Iterator[Any]:
        budget = self.budget
        budget.tick()
        for item in iterable:
            budget.tick()
            yield item

    def _join(self, separator: str, items: Any) -> str:
        """``separator.join(items)``, refused as soon as it would grow past the cap."""
        budget = self.budget
        texts: list[str] = []
        total = 0
        for item in items:
            budget.tick()
            text = item if isinstance(item, str) else str(item)
            total += len(text) + (len(separator) if texts else 0)
            budget.would_be(total)
            texts.append(text)
        return separator.join(texts)

    def _value(self, value: Any) -> Any:
        self.budget.tick()
        return self.budget.size(value)

    def _compared(self, value: Any) -> Any:
        self.budget.tick()
        _check_compared(value)
        return value

    def _guard_test(self, test: Any) -> Callable[..., Any]:
        @functools.wraps(test)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            self.budget.tick()
            _check_compared(*args, *kwargs.values())
            return test(*args, **kwargs)

        return guarded

    def _guard_filter(self, name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        skip = 1 if _PassArg.from_obj(func) is not None else 0  # context or environment first

        @functools.wraps(func)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            budget = self.budget
            budget.tick()
            for arg in (*args[skip + 1:], *kwargs.values()):
                if isinstance(arg, int) and not isinstance(arg, bool) and abs(arg) > MAX_FILTER_INT:
                    raise TemplateRefused(FILTER_ARG, value=str(arg), name=repr(name))
            value = args[skip] if len(args) > skip else None
            rest = args[skip + 1:]
            if name == "replace" and isinstance(value, str) and len(rest) >= 2:
                _check_replace(budget, value, str(rest[0]), str(rest[1]))
            elif name == "join":
                separator = rest[0] if rest else kwargs.get("d", "")
                attribute = rest[1] if len(rest) > 1 else kwargs.get("attribute")
                items: Any = value if value is not None else ()
                if attribute is not None:
                    items = map(make_attrgetter(self, attribute), items)
                return budget.size(self._join(str(separator), items))
            elif name == "tojson":
                indent = rest[1] if len(rest) > 1 else kwargs.get("indent")
                if isinstance(indent, int) and indent > MAX_JSON_INDENT:
                    raise TemplateRefused(JSON_INDENT, indent=str(indent))
            elif name == "indent" and isinstance(value, str):
                width = rest[0] if rest else kwargs.get("width", 4)
                width = width if isinstance(width, int) else _length(width)
                budget.would_be(len(value) + width * (value.count("\n") + 1))
            elif name == "format":
                budget.widths(value)
            elif name in _SORTING_FILTERS:
                _check_compared(value)
            return budget.size(func(*args, **kwargs))

        return guarded

    # Sandbox hooks ------------------------------------------------------------------
    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        budget = self.budget
        budget.tick()
        if _big_numbers(left, right):
            # Arithmetic on huge integers takes time and memory that no step count sees
            # (squaring a 1000-digit number 13 times: seconds; 20 times: hours).
            raise TemplateRefused(BITS, bits=MAX_INT_BITS)
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and isinstance(times, int):
                    budget.would_be(len(seq) * times)
            if isinstance(left, int) and isinstance(right, int):
                _small_result(left.bit_length() + right.bit_length())
        elif operator == "**" and isinstance(left, int) and isinstance(right, int):
            if abs(left) > 1 and right * abs(left).bit_length() > MAX_INT_BITS:
                raise TemplateRefused(POWER, left=str(left), right=str(right))
        elif operator == "%":
            budget.widths(left)
            # '%*s' % (50000000, 'x'): the width comes from the arguments
            for value in (right if isinstance(right, tuple) else
                          right.values() if isinstance(right, dict) else (right,)):
                if isinstance(value, int) and not isinstance(value, bool) and abs(value) > budget.max_chars:
                    raise TemplateRefused(FORMAT_WIDTH, width=str(value))
        elif operator == "+":
            budget.would_be(_length(left) + _length(right))
        return budget.size(super().call_binop(context, operator, left, right))

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        budget = __self.budget
        budget.tick()
        for arg in (*args, *kwargs.values()):
            if isinstance(arg, int) and not isinstance(arg, bool) and abs(arg) > budget.max_chars:
                raise TemplateRefused(CALL_ARG, value=str(arg))
        owner = getattr(__obj, "__self__", None)
        if isinstance(owner, str):
            method = getattr(__obj, "__name__", "")
            if method in ("format", "format_map"):
                budget.widths(owner)
            elif method == "replace" and len(args) >= 2:
                _check_replace(budget, owner, str(args[0]), str(args[1]))
            elif method == "join" and len(args) == 1 and not kwargs:
                return budget.size(__self._join(owner, args[0]))
            elif method == "expandtabs":
                size = int(args[0]) if args else int(kwargs.get("tabsize", 8))
                budget.would_be(len(owner) + owner.count("\t") * max(0, size))
        return budget.size(super().call(__context, __obj, *args, **kwargs))

    def getattr(self, obj: Any, attribute: str) -> Any:
        self.budget.tick()
        if isinstance(obj, str) and attribute in ("format", "format_map"):
            self.budget.widths(obj)  # the sandbox hands out a wrapper, not the bound method
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        self.budget.tick()
        if isinstance(obj, str) and argument in ("format", "format_map"):
            self.budget.widths(obj)
        return super().getitem(obj, argument)


def _check_replace(budget: Budget, text: str, old: str, new: str) -> None:
    found = text.count(old) if old else len(text) + 1
    budget.would_be(len(text) + found * max(0, len(new) - len(old)))


def _tojson(x: Any, ensure_ascii: bool = False, indent: int | None = None,
            separators: tuple[str, str] | None = None, sort_keys: bool = False) -> str:
    """Transformers' rendering of ``tojson`` in chat templates (as llama-cpp-python does)."""
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                      sort_keys=sort_keys)
