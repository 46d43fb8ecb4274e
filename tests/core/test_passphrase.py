"""The passphrase rule shared by the window and the terminal commands (zxcvbn)."""

from __future__ import annotations

import pytest

from core.passphrase import MIN_LENGTH, MIN_SCORE, acceptable, new_passphrase_problem, strength


@pytest.mark.parametrize("weak", ["Password1!", "Qwerty123!", "Summer2024!", "hunter2hunter2",
                                  "Hearth2024!", "aaaaaaaaaaaa", "1234567890"])
def test_common_patterns_are_weak_and_refused(weak: str) -> None:
    score, advice = strength(weak)
    assert score < MIN_SCORE and advice
    assert acceptable(weak) is not None and new_passphrase_problem(weak) == acceptable(weak)


@pytest.mark.parametrize("good", ["correct horse battery staple", "orange piano river candle",
                                  "window test passphrase", "Tr0ub4dor&3x!"])
def test_unguessable_passphrases_are_accepted(good: str) -> None:
    assert strength(good)[0] >= MIN_SCORE
    assert acceptable(good) is None


def test_a_strong_but_short_one_is_refused_for_its_length() -> None:
    short = "Xq#9vL!z"  # zxcvbn likes it; it is still short
    assert len(short) < MIN_LENGTH
    assert f"at least {MIN_LENGTH}" in acceptable(short)


def test_too_long_and_empty() -> None:
    assert strength("") == (0, "")
    assert acceptable("") is not None
    assert "at most" in acceptable("word " * 2000)


@pytest.mark.timeout(30)
def test_a_long_passphrase_is_rated_in_bounded_time() -> None:
    # zxcvbn's matching grows without bound on long input; the rating looks at a prefix.
    # A regression is this test's time limit, not a wall-clock assertion.
    assert strength("abc1" * 2000)[0] >= 0
