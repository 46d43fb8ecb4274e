"""Hearth's own tools: no server, no process, nothing outside Hearth. Each is a pure
function of its arguments (and the clock), safe to run without asking: a calculator that
evaluates arithmetic and nothing else (no ``eval``), the date and time, unit conversion.
The document tools join them where a chat's collections are known (the turn's tools).

Arguments come from a model: every value is checked, and a bad one is an error result in
words the model can act on, never an exception."""

from __future__ import annotations

import ast
import datetime as dt
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

BUILTIN = "Hearth"  # the server name the built-in tools go by
EXPRESSION_LIMIT = 300  # characters
NODE_LIMIT = 200
POWER_LIMIT = 10_000  # the largest exponent
MAGNITUDE_LIMIT = 1e300


class ToolArgumentError(ValueError):
    """What was wrong with a call's arguments, for the model to read."""


@dataclass(frozen=True)
class BuiltinTool:
    name: str
    description: str
    schema: dict[str, Any]
    run: Callable[[dict[str, Any]], str]


# The calculator ------------------------------------------------------------------------
_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
def _round(value: Any, digits: Any = 0) -> Any:
    """round(), its digits bounded: round(1, -99999999) takes minutes and much memory."""
    if not isinstance(digits, int) or isinstance(digits, bool) or abs(digits) > 15:
        raise ValueError("round: digits from -15 to 15")
    return round(value, digits)


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "sqrt": math.sqrt, "abs": abs, "round": _round, "min": min, "max": max, "exp": math.exp,
    "log": math.log, "log10": math.log10, "log2": math.log2, "sin": math.sin, "cos": math.cos,
    "tan": math.tan, "asin": math.asin, "acos": math.acos, "atan": math.atan, "floor": math.floor,
    "ceil": math.ceil, "radians": math.radians, "degrees": math.degrees,
}
_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau}


def calculate(expression: str) -> int | float:
    """The value of an arithmetic ``expression``: numbers, + - * / // % ** (or ^),
    parentheses, the functions and constants above. ToolArgumentError for anything else."""
    if not isinstance(expression, str) or not expression.strip():
        raise ToolArgumentError("expression: give an arithmetic expression, such as 2 * (3 + 4)")
    if len(expression) > EXPRESSION_LIMIT:
        raise ToolArgumentError(f"expression: at most {EXPRESSION_LIMIT} characters")
    try:
        tree = ast.parse(expression.replace("^", "**").replace("×", "*").replace("÷", "/"), mode="eval")
    except SyntaxError:
        raise ToolArgumentError(f"expression: not arithmetic: {expression!r}") from None
    if sum(1 for _ in ast.walk(tree)) > NODE_LIMIT:
        raise ToolArgumentError("expression: too long")
    try:
        value = _evaluate(tree.body)
    except ZeroDivisionError:
        raise ToolArgumentError("division by zero") from None
    except (OverflowError, ValueError) as exc:
        raise ToolArgumentError(f"no result: {exc}") from None
    if isinstance(value, float) and not math.isfinite(value) or abs(value) > MAGNITUDE_LIMIT:
        raise ToolArgumentError("no result: the number is too large")
    return value


def _evaluate(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow) and (abs(right) > POWER_LIMIT or
                                             (abs(left) > 1 and abs(right) * math.log10(abs(left)) > 300)):
            raise OverflowError("the power is too large")
        if isinstance(node.op, ast.Mult) and abs(left) > MAGNITUDE_LIMIT / max(1, abs(right)):
            raise OverflowError("the product is too large")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS \
            and not node.keywords and len(node.args) <= 8:
        return _FUNCTIONS[node.func.id](*(_evaluate(arg) for arg in node.args))
    raise ValueError(f"{ast.unparse(node)!r} is not arithmetic")


def _calculator(arguments: dict[str, Any]) -> str:
    value = calculate(arguments.get("expression", ""))
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    return str(round(value, 12) if isinstance(value, float) else value)


# The clock -----------------------------------------------------------------------------
def _now(arguments: dict[str, Any], clock: Callable[[], dt.datetime] | None = None) -> str:
    now = (clock or (lambda: dt.datetime.now().astimezone()))()
    days = arguments.get("add_days", 0)
    if not isinstance(days, int) or isinstance(days, bool) or abs(days) > 100_000:
        raise ToolArgumentError("add_days: a whole number of days, such as 30 or -7")
    then = now + dt.timedelta(days=days)
    what = "" if not days else f"{days:+d} days from now: "
    return f"{what}{then:%A %Y-%m-%d %H:%M} ({then.tzname() or 'local time'})"


# Units -------------------------------------------------------------------------------
# Each unit as (quantity, factor to the quantity's base unit).
_UNITS: dict[str, tuple[str, float]] = {}
for _quantity, _table in {
    "length": {"m": 1, "km": 1e3, "cm": 1e-2, "mm": 1e-3, "um": 1e-6, "nm": 1e-9, "mi": 1609.344,
               "yd": 0.9144, "ft": 0.3048, "in": 0.0254, "nmi": 1852},
    "mass": {"kg": 1, "g": 1e-3, "mg": 1e-6, "t": 1e3, "lb": 0.45359237, "oz": 0.028349523125,
             "st": 6.35029318},
    "volume": {"l": 1, "ml": 1e-3, "cl": 1e-2, "dl": 0.1, "m3": 1e3, "cm3": 1e-3, "gal": 3.785411784,
               "qt": 0.946352946, "pt": 0.473176473, "cup": 0.2365882365, "floz": 0.0295735295625,
               "impgal": 4.54609},
    "area": {"m2": 1, "km2": 1e6, "cm2": 1e-4, "ha": 1e4, "acre": 4046.8564224, "ft2": 0.09290304,
             "mi2": 2589988.110336},
    "speed": {"m/s": 1, "km/h": 1 / 3.6, "mph": 0.44704, "kn": 1852 / 3600},
    "time": {"s": 1, "ms": 1e-3, "min": 60, "h": 3600, "d": 86400, "wk": 604800},
    "data": {"b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "kib": 1024, "mib": 1024 ** 2,
             "gib": 1024 ** 3, "tib": 1024 ** 4},
}.items():
    for _unit, _factor in _table.items():
        _UNITS[_unit] = (_quantity, float(_factor))
_ALIASES = {"meter": "m", "metre": "m", "meters": "m", "metres": "m", "kilometer": "km", "kilometre": "km",
            "kilometers": "km", "mile": "mi", "miles": "mi", "foot": "ft", "feet": "ft", "inch": "in",
            "inches": "in", "yard": "yd", "yards": "yd", "kilogram": "kg", "kilograms": "kg", "gram": "g",
            "grams": "g", "pound": "lb", "pounds": "lb", "lbs": "lb", "ounce": "oz", "ounces": "oz",
            "liter": "l", "litre": "l", "liters": "l", "litres": "l", "gallon": "gal", "gallons": "gal",
            "hour": "h", "hours": "h", "minute": "min", "minutes": "min", "second": "s", "seconds": "s",
            "day": "d", "days": "d", "week": "wk", "weeks": "wk", "kph": "km/h", "knot": "kn", "knots": "kn",
            "celsius": "c", "fahrenheit": "f", "kelvin": "k", "°c": "c", "°f": "f"}
_TEMPERATURE = {"c": (1.0, 273.15), "f": (5 / 9, 273.15 - 32 * 5 / 9), "k": (1.0, 0.0)}


def convert(value: float, source: str, target: str) -> float:
    """``value`` in unit ``source`` expressed in ``target`` (ToolArgumentError where the
    units are unknown or measure different things)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        raise ToolArgumentError("value: a number")
    units = []
    for unit in (source, target):
        key = str(unit).strip().lower().replace(" ", "")
        key = _ALIASES.get(key, key)
        if key not in _UNITS and key not in _TEMPERATURE:
            raise ToolArgumentError(f"unknown unit {unit!r}; known: {', '.join(sorted(_UNITS))}, c, f, k")
        units.append(key)
    a, b = units
    if a in _TEMPERATURE or b in _TEMPERATURE:
        if not (a in _TEMPERATURE and b in _TEMPERATURE):
            raise ToolArgumentError(f"{source} and {target} do not measure the same thing")
        scale_a, offset_a = _TEMPERATURE[a]
        scale_b, offset_b = _TEMPERATURE[b]
        return (value * scale_a + offset_a - offset_b) / scale_b
    if _UNITS[a][0] != _UNITS[b][0]:
        raise ToolArgumentError(f"{source} ({_UNITS[a][0]}) and {target} ({_UNITS[b][0]}) do not measure "
                                "the same thing")
    return value * _UNITS[a][1] / _UNITS[b][1]


def _convert(arguments: dict[str, Any]) -> str:
    value = convert(arguments.get("value"), str(arguments.get("from", "")), str(arguments.get("to", "")))  # type: ignore[arg-type]  # checked inside
    return f"{arguments.get('value')} {arguments.get('from')} = {round(value, 10):g} {arguments.get('to')}"


TOOLS = (
    # No worked examples in the descriptions: the small models copy them as their arguments.
    BuiltinTool("calculator", "Evaluate an arithmetic expression exactly: numbers, + - * / ** and "
                "parentheses; functions sqrt, log, exp, sin, cos, tan, round, min, max, abs; constants pi, e.",
                {"type": "object", "properties": {"expression": {"type": "string"}},
                 "required": ["expression"]}, _calculator),
    BuiltinTool("date_time", "Today's date, the weekday and the time here; with add_days, the date that "
                "many days later (or earlier, if negative).",
                {"type": "object", "properties": {"add_days": {"type": "integer"}}}, _now),
    BuiltinTool("convert_units", "Convert a value from one unit to another: length, mass, volume, area, speed, "
                "time, data size or temperature (c, f, k).",
                {"type": "object", "properties": {"value": {"type": "number"}, "from": {"type": "string"},
                                                   "to": {"type": "string"}},
                 "required": ["value", "from", "to"]}, _convert),
)


def run_builtin(name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
    """(text, is_error) of built-in tool ``name`` on ``arguments``."""
    tool = next((t for t in TOOLS if t.name == name), None)
    if tool is None:
        return f"there is no tool named {name!r}", True
    if not isinstance(arguments, dict):
        return "the arguments must be an object", True
    try:
        return tool.run(arguments), False
    except ToolArgumentError as exc:
        return str(exc), True
