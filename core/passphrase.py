"""How good a new passphrase is: one rule for the window and the terminal commands.

The rating is zxcvbn's (pure Python, offline): it knows common passwords, keyboard walks,
dates, l33t substitutions and the “Capital, word, digits, !” pattern that a count of
character classes rates strong (``Password1!``, ``Summer2024!``). A new vault needs a
score of at least ``MIN_SCORE`` and at least ``MIN_LENGTH`` characters.
"""

from __future__ import annotations

from i18n import translate
from storage.crypto import MAX_PASSPHRASE_BYTES

MIN_LENGTH = 10
MIN_SCORE = 3  # zxcvbn: 3 “safely unguessable”, 4 “very unguessable”
# zxcvbn's matching grows quickly with the length; what follows this is not rated (a
# passphrase that long is strong in any case, or its first part already says it is not).
RATED_CHARACTERS = 72  # zxcvbn refuses longer input (its max_length)
# Words that make a passphrase easy to guess for someone who knows it guards Hearth.
CONTEXT_WORDS = ["hearth", "vault", "passphrase", "password", "chat", "chats", "private"]


def labels() -> tuple[str, ...]:
    """The words for zxcvbn's scores 0 to 4, in the interface language."""
    return (translate("core.passphrase", "very weak"), translate("core.passphrase", "weak"),
            translate("core.passphrase", "fair"), translate("core.passphrase", "good"),
            translate("core.passphrase", "strong"))


def strength(passphrase: str) -> tuple[int, str]:
    """zxcvbn's score (0 to 4) and its warning and suggestions, as one line of advice."""
    if not passphrase:
        return 0, ""
    from zxcvbn import zxcvbn  # here, not at the top: 13 MB of word lists, for new passphrases only

    result = zxcvbn(passphrase[:RATED_CHARACTERS], user_inputs=CONTEXT_WORDS, max_length=RATED_CHARACTERS)
    score = int(result["score"])
    feedback = result.get("feedback") or {}
    parts = [feedback.get("warning") or "", *(feedback.get("suggestions") or [])]
    advice = " ".join(part.strip() for part in parts if part and part.strip())
    if score < MIN_SCORE and not advice:
        advice = translate("core.passphrase", "Longer is stronger: try four or more unrelated words.")
    return score, advice


def label(score: int) -> str:
    words = labels()
    return words[max(0, min(score, len(words) - 1))]


def acceptable(passphrase: str) -> str | None:
    """None when the passphrase may protect a new vault; else why not, for the user."""
    if len(passphrase) < MIN_LENGTH:
        return translate("core.passphrase",
                         "Use at least %n characters; four or more unrelated words are best.",
                         None, MIN_LENGTH)
    if len(passphrase.encode("utf-8")) > MAX_PASSPHRASE_BYTES:
        return translate("core.passphrase", "Use at most %n bytes.", None, MAX_PASSPHRASE_BYTES)
    score, advice = strength(passphrase)
    if score < MIN_SCORE:
        # zxcvbn's advice is its own English text: a value, never a source to translate.
        return translate("core.passphrase", "This passphrase is too easy to guess. {advice}").format(
            advice=advice).strip()
    return None


def new_passphrase_problem(passphrase: str) -> str | None:
    """``acceptable`` under the name the terminal commands use (cli.headless)."""
    return acceptable(passphrase)
