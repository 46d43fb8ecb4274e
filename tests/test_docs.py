"""The documentation against the project (issue #37, item 8): the README stays short and
keeps the two set-up commands that `.ci/run` relies on, every relative link in the README,
SECURITY.md and docs/ leads to a file (and heading) that exists, and every `hearth` /
`python -m app` command quoted in a code block names subcommands and options the CLI has."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = sorted([README, ROOT / "SECURITY.md", *(ROOT / "docs").rglob("*.md")])
README_LIMIT = 8192
SETUP_COMMANDS = ("python3 packaging/bootstrap.py run", "python3 packaging/bootstrap.py test")


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def code_blocks(text: str) -> list[str]:
    """The lines of every fenced code block (``` or ~~~), in order."""
    lines: list[str] = []
    fence: str | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if fence is None:
            if stripped.startswith(("```", "~~~")):
                fence = stripped[:3]
        elif stripped.startswith(fence):
            fence = None
        else:
            lines.append(line)
    return lines


def indented_code(text: str) -> list[str]:
    """The lines of indented code blocks (four spaces after a blank line, outside fences)."""
    lines: list[str] = []
    previous_blank, in_block, fence = True, False, False
    for line in text.splitlines():
        if line.strip().startswith(("```", "~~~")):
            fence = not fence
        if not fence and line.startswith("    ") and line.strip() and (previous_blank or in_block):
            lines.append(line[4:])
            in_block = True
        elif line.strip():
            in_block = False
        previous_blank = not line.strip()
    return lines


# --- (a) the README ------------------------------------------------------------------------

def test_the_readme_is_short() -> None:
    size = len(README.read_bytes())
    assert size < README_LIMIT, f"README.md is {size} bytes; the details belong in docs/"


def test_the_readme_keeps_the_two_set_up_commands_ci_runs() -> None:
    text = README.read_text(encoding="utf-8")
    heading = re.search(r"^#{2,3} Set up on a fresh machine.*$", text, re.MULTILINE)
    assert heading, "README.md has no 'Set up on a fresh machine' section"
    section = text[heading.end():]
    following = re.search(r"^#{1,3} ", section, re.MULTILINE)
    section = section[:following.start()] if following else section
    commands = [line.strip() for line in code_blocks(section) + indented_code(section)]
    assert list(SETUP_COMMANDS) == [c for c in commands if c in SETUP_COMMANDS], commands

    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    execs = re.findall(r"^exec (.+)$", ci, re.MULTILINE)
    assert execs == [SETUP_COMMANDS[1]], f".ci/run runs {execs}, the README says {SETUP_COMMANDS[1]}"

    bootstrap = (ROOT / "packaging" / "bootstrap.py").read_text(encoding="utf-8")
    assert re.search(r'argv\[0\] not in \("run", "test"\)', bootstrap), \
        "packaging/bootstrap.py no longer takes exactly `run` and `test`"


# --- (b) relative links --------------------------------------------------------------------

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def links(text: str) -> list[str]:
    """Every markdown link target outside code (fenced blocks and inline code spans)."""
    prose, fence = [], False
    for line in text.splitlines():
        if line.strip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if not fence:
            prose.append(line)
    without_code = re.sub(r"`[^`\n]*`", "", "\n".join(prose))
    return LINK.findall(without_code)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    fence = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip().startswith(("```", "~~~")):
            fence = not fence
        heading = None if fence else re.match(r"#{1,6}\s+(.+?)\s*#*\s*$", line)
        if heading:
            base = slug(heading[1])
            found.add(base if base not in seen else f"{base}-{seen[base]}")
            seen[base] = seen.get(base, 0) + 1
    return frozenset(found)


@pytest.mark.parametrize("page", PAGES, ids=rel)
def test_every_relative_link_leads_somewhere(page: Path) -> None:
    broken = []
    for target in links(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("//"):
            continue  # http:, https:, mailto: and the like
        path, _, anchor = target.partition("#")
        destination = (page.parent / path).resolve() if path else page
        if not destination.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{target} (no such heading in {rel(destination)})")
        elif ROOT not in destination.parents and destination != ROOT:
            broken.append(f"{target} (outside the repository)")
    assert not broken, f"{rel(page)}: broken links: {broken}"


def test_the_docs_index_lists_every_page() -> None:
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    listed = {Path(t.partition("#")[0]).name for t in links(index)}
    pages = {p.name for p in (ROOT / "docs").glob("*.md")} - {"README.md"}
    assert not pages - listed, f"docs/README.md does not link {sorted(pages - listed)}"


# --- (c) quoted commands against the CLI ---------------------------------------------------

@pytest.fixture(scope="module")
def cli_help(tmp_path_factory):
    """`--help` of the CLI at a subcommand path, as the user would read it (English)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_") and k != "LANGUAGE"}
    env.update(LANG="C.UTF-8", HEARTH_DATA_DIR=str(tmp_path_factory.mktemp("data")),
               COLUMNS="200")

    @cache
    def text(path: tuple[str, ...]) -> str:
        done = subprocess.run([sys.executable, "-m", "app", *path, "--help"], capture_output=True,
                              text=True, env=env, cwd=ROOT, timeout=60)
        assert done.returncode == 0, f"hearth {' '.join(path)} --help: {done.stderr}"
        return done.stdout

    return text


def subcommands(help_text: str) -> set[str]:
    """The choices of a parser's subcommands, from its usage line ({a,b,c})."""
    usage = help_text.split("\n\n")[0]
    found = re.findall(r"\{([\w,-]+)\}", usage)
    options = set(re.findall(r"--[\w-]+ \{([\w,-]+)\}", usage))
    return {name for group in found if group not in options for name in group.split(",")}


def takes_value(help_text: str, option: str) -> bool:
    return bool(re.search(rf"{re.escape(option)}[ =](?:[A-Z][A-Z0-9_]*|\{{[^}}]*\}})", help_text))


COMMAND = re.compile(r"^(?:(?:\S*/)?python3?(?:\.exe)?\s+-m\s+app|hearth)(?:\s|$)")


def quoted_commands() -> list[tuple[str, str]]:
    """(where, command line) for every hearth / python -m app command in a code block."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        lines = code_blocks(text) + indented_code(text)
        joined: list[str] = []
        for line in lines:  # a trailing backslash continues the command
            if joined and joined[-1].endswith("\\"):
                joined[-1] = joined[-1][:-1] + " " + line.strip()
            else:
                joined.append(line.strip())
        for line in joined:
            words = line.split()
            while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
                words.pop(0)  # VAR=value before the command
            if words and words[0] == "sudo":
                words.pop(0)
            command = " ".join(words)
            if COMMAND.match(command):
                found.append((rel(page), command))
    return found


COMMANDS = quoted_commands()


def test_the_docs_quote_the_terminal_commands() -> None:
    assert len(COMMANDS) >= 15, COMMANDS  # not an empty check by a change of wording


@pytest.mark.parametrize(("where", "command"), COMMANDS, ids=[f"{w}: {c[:60]}" for w, c in COMMANDS])
def test_a_quoted_command_is_one_the_cli_has(cli_help, where: str, command: str) -> None:
    words = shlex.split(command, comments=True)
    words = words[words.index("app") + 1:] if words[0] != "hearth" else words[1:]
    path: list[str] = []
    help_text = cli_help(())
    skip_value = False
    for word in words:
        word = word.strip("[]")  # [--model ID]: an optional part, written as usage does
        if skip_value or not word or word in ("...", "…"):
            skip_value = False
            continue
        if word.startswith("-"):
            option = word.split("=", 1)[0]
            assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", help_text), (
                f"{where}: `{command}`: `hearth {' '.join(path)}` has no option {option}")
            skip_value = "=" not in word and takes_value(help_text, option)
            continue
        choices = subcommands(help_text)
        if choices:
            assert word in choices, (
                f"{where}: `{command}`: `hearth {' '.join(path)}` has no subcommand {word!r} "
                f"(it has {sorted(choices)})")
            path.append(word)
            help_text = cli_help(tuple(path))
        # otherwise a positional argument (a collection, a question, a path)
    leftover = subcommands(help_text) if path else set()  # `hearth` alone opens the window
    assert not leftover, f"{where}: `{command}` stops short of a subcommand ({sorted(leftover)})"
