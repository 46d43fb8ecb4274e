"""Hearth's own tools (#44): a calculator that evaluates arithmetic and nothing else, the
date, unit conversion. Their arguments come from a model: every bad one is an error the
model can read, never an exception or a hang."""

from __future__ import annotations

import datetime as dt

import pytest

from core.tools.builtin import TOOLS, ToolArgumentError, _now, calculate, convert, run_builtin


@pytest.mark.parametrize(("expression", "value"), [
    ("2 * (3 + 4)", 14), ("12.5 * 3 / 2", 18.75), ("2^10", 1024), ("sqrt(16) + abs(-2)", 6.0),
    ("round(pi, 3)", 3.142), ("7 // 2 + 7 % 2", 4), ("max(1, 5, 3) - min(4, 2)", 3), ("-(-3)", 3),
    ("1e3 × 2 ÷ 4", 500.0),
])
def test_the_calculator_does_arithmetic(expression: str, value: float) -> None:
    assert calculate(expression) == pytest.approx(value)


@pytest.mark.parametrize("expression", [
    "__import__('os').system('id')", "open('/etc/passwd')", "().__class__.__bases__", "x", "a.b",
    "[1, 2]", "lambda: 1", "9**9**9", "10**400", "2**100000", "'a' * 10", "1/0", "sqrt(-1)",
    "(" * 200 + "1" + ")" * 200, "1+" * 200 + "1", "", "round(1, ndigits=2)", "exp(1000)",
    "round(1, -99999999)", "round(1, 2.5)",
])
def test_the_calculator_refuses_everything_else_quickly(expression: str) -> None:
    with pytest.raises(ToolArgumentError):
        calculate(expression)


def test_conversions() -> None:
    assert convert(5, "mi", "km") == pytest.approx(8.04672)
    assert convert(100, "celsius", "f") == pytest.approx(212)
    assert convert(0, "K", "°C") == pytest.approx(-273.15)
    assert convert(1, "GiB", "MB") == pytest.approx(1073.741824)
    with pytest.raises(ToolArgumentError, match="do not measure the same thing"):
        convert(1, "kg", "m")
    with pytest.raises(ToolArgumentError, match="unknown unit"):
        convert(1, "parsec", "m")
    with pytest.raises(ToolArgumentError, match="a number"):
        convert("1; rm -rf /", "m", "km")  # type: ignore[arg-type]


def test_the_date_and_days_from_it() -> None:
    clock = lambda: dt.datetime(2026, 12, 5, 9, 30, tzinfo=dt.UTC)  # noqa: E731
    assert _now({}, clock) == "Saturday 2026-12-05 09:30 (UTC)"
    assert _now({"add_days": 30}, clock) == "+30 days from now: Monday 2027-01-04 09:30 (UTC)"
    with pytest.raises(ToolArgumentError):
        _now({"add_days": "soon"}, clock)


def test_a_bad_call_is_an_error_result_not_an_exception() -> None:
    assert run_builtin("calculator", {"expression": "2+2"}) == ("4", False)
    assert run_builtin("calculator", {"expression": "os.system('id')"})[1] is True
    assert run_builtin("calculator", {})[1] is True
    assert run_builtin("calculator", ["2+2"])[1] is True  # type: ignore[arg-type]
    assert run_builtin("delete_all", {}) == ("there is no tool named 'delete_all'", True)
    assert run_builtin("convert_units", {"value": 3, "from": "ft", "to": "m"}) == ("3 ft = 0.9144 m", False)
    assert {t.name for t in TOOLS} == {"calculator", "date_time", "convert_units"}
