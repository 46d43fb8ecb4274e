"""How good a new passphrase is: one rule for the window and the terminal commands.

The rating is zxcvbn's (pure Python, offline): it knows common passwords, keyboard walks,
dates, l33t substitutions and the “Capital, word, digits, !” pattern that a count of
character classes rates strong (``Password1!``, ``Summer2024!``). A new vault needs a
score of at least ``MIN_SCORE`` and at least ``MIN_LENGTH`` characters.
"""

from __future__ import annotations

from i18n import join_sentences, translate
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
    said = zxcvbn_words()
    advice = join_sentences(*(said.get(part.strip(), part.strip()) for part in parts if part and part.strip()))
    if score < MIN_SCORE and not advice:
        advice = translate("core.passphrase", "Longer is stronger: try four or more unrelated words.")
    return score, advice


def zxcvbn_words() -> dict[str, str]:
    """zxcvbn's own advice (English, fixed in its code) in the interface's language."""
    return {
        "Use a few words, avoid common phrases.": translate("core.passphrase", "Use a few words, avoid common phrases."),
        "No need for symbols, digits, or uppercase letters.": translate("core.passphrase", "No need for symbols, digits, or uppercase letters."),
        "Add another word or two. Uncommon words are better.": translate("core.passphrase", "Add another word or two. Uncommon words are better."),
        "Straight rows of keys are easy to guess.": translate("core.passphrase", "Straight rows of keys are easy to guess."),
        "Short keyboard patterns are easy to guess.": translate("core.passphrase", "Short keyboard patterns are easy to guess."),
        "Use a longer keyboard pattern with more turns.": translate("core.passphrase", "Use a longer keyboard pattern with more turns."),
        "Repeats like \"aaa\" are easy to guess.": translate("core.passphrase", "Repeats like \"aaa\" are easy to guess."),
        "Repeats like \"abcabcabc\" are only slightly harder to guess than \"abc\".": translate("core.passphrase", "Repeats like \"abcabcabc\" are only slightly harder to guess than \"abc\"."),
        "Avoid repeated words and characters.": translate("core.passphrase", "Avoid repeated words and characters."),
        "Sequences like \"abc\" or \"6543\" are easy to guess.": translate("core.passphrase", "Sequences like \"abc\" or \"6543\" are easy to guess."),
        "Avoid sequences.": translate("core.passphrase", "Avoid sequences."),
        "Recent years are easy to guess.": translate("core.passphrase", "Recent years are easy to guess."),
        "Avoid recent years.": translate("core.passphrase", "Avoid recent years."),
        "Avoid years that are associated with you.": translate("core.passphrase", "Avoid years that are associated with you."),
        "Dates are often easy to guess.": translate("core.passphrase", "Dates are often easy to guess."),
        "Avoid dates and years that are associated with you.": translate("core.passphrase", "Avoid dates and years that are associated with you."),
        "This is a top-10 common password.": translate("core.passphrase", "This is a top-10 common password."),
        "This is a top-100 common password.": translate("core.passphrase", "This is a top-100 common password."),
        "This is a very common password.": translate("core.passphrase", "This is a very common password."),
        "This is similar to a commonly used password.": translate("core.passphrase", "This is similar to a commonly used password."),
        "A word by itself is easy to guess.": translate("core.passphrase", "A word by itself is easy to guess."),
        "Names and surnames by themselves are easy to guess.": translate("core.passphrase", "Names and surnames by themselves are easy to guess."),
        "Common names and surnames are easy to guess.": translate("core.passphrase", "Common names and surnames are easy to guess."),
        "Capitalization doesn't help very much.": translate("core.passphrase", "Capitalization doesn't help very much."),
        "All-uppercase is almost as easy to guess as all-lowercase.": translate("core.passphrase", "All-uppercase is almost as easy to guess as all-lowercase."),
        "Reversed words aren't much harder to guess.": translate("core.passphrase", "Reversed words aren't much harder to guess."),
        "Predictable substitutions like '@' instead of 'a' don't help very much.": translate("core.passphrase", "Predictable substitutions like '@' instead of 'a' don't help very much."),
    }


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
