"""Faults on files, folders and names said in the user's words, in the interface language:
the system's own text ("No such file or directory", "Read-only file system", "Name or
service not known"), an exception's type or a traceback never reach the sentence; they are
in the log. Real failures: a file or folder no longer there, a parser that meets an
unexpected error, a read-only disk (a tmpfs remounted read-only, as root), a host name no
network knows, and the terminal's ``transcribe`` of a missing file."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import i18n
from core import speech_models
from core.engines import EngineRecord, Engines
from inference.intranet import EngineError
from storage.documents import parser_child
from storage.documents.isolation import IsolatedParser
from storage.documents.parsers import ParseError
from storage.erase import erase_everything

HAN = re.compile(r"[\u4e00-\u9fff]")
SYSTEM = ("Errno", "No such file", "Read-only file system", "Permission denied", "Name or service",
          "name resolution", "Traceback", "Error", "not known", "strerror")


@pytest.fixture(params=["zh_CN", "en"])
def lang(request):
    i18n.install(i18n.Catalog.load(request.param))
    yield request.param
    i18n.install(None)


def _in_users_words(text: str, lang: str, translated: bool = True) -> None:
    """``translated``: the sentence's Chinese is in assets/translations already (a new one is
    English in the Chinese window until then, but never the system's words)."""
    assert not [w for w in SYSTEM if w in text], text
    if lang == "zh_CN" and translated:
        assert HAN.search(text), text


def test_a_document_no_longer_there_is_said_so(tmp_path: Path, lang: str) -> None:
    with IsolatedParser(timeout=60) as parser, pytest.raises(ParseError) as caught:
        parser.parse(tmp_path / "gone.txt")
    said = str(caught.value)
    _in_users_words(said, lang)
    if lang == "en":
        assert said == "cannot be read (it is no longer there (it was moved, renamed or deleted))"


def test_a_parser_that_fails_unexpectedly_says_so_without_its_exception(tmp_path: Path, lang: str) -> None:
    page = tmp_path / "page.png"
    page.write_bytes(b"\x89PNG\r\n")
    reply = parser_child.handle({"op": "ocr", "path": str(page), "page": "not a number"}, 1 << 30)
    assert reply["kind"] == parser_child.CRASHED and "ValueError" in reply["values"]["error"]  # for the log
    said = parser_child.reason(reply["kind"], reply["values"])
    _in_users_words(said, lang, translated=False)
    assert "ValueError" not in said and "not a number" not in said
    if lang == "en":
        assert said == "Hearth's reader could not read this file (the details are in the log)"


def test_a_speech_model_folder_no_longer_there_is_said_so(tmp_path: Path, lang: str) -> None:
    with pytest.raises(speech_models.SpeechModelError) as caught:
        speech_models.check_folder(tmp_path / "whisper-gone")
    _in_users_words(str(caught.value), lang)
    if lang == "en":
        assert str(caught.value).endswith("it is no longer there (it was moved, renamed or deleted)")


def test_a_host_name_no_network_knows_is_said_so(lang: str) -> None:
    record = EngineRecord("far", "https://no-such-host.invalid:8443")
    with pytest.raises(EngineError) as caught:
        Engines.client(record)
    _in_users_words(str(caught.value), lang, translated=False)
    if lang == "en":
        assert str(caught.value) == ("The engine's host name no-such-host.invalid cannot be found on this network; "
                                     "check the address.")


def test_files_that_cannot_be_deleted_are_said_in_words(make_small_disk, lang: str) -> None:
    disk = make_small_disk(1)
    (disk.path / "notes.md").write_text("kept")
    done = subprocess.run(["mount", "-o", "remount,ro", str(disk.path)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"remounting the tmpfs read-only failed here: {done.stderr.strip()}")
    problems = erase_everything(disk.path, keep=set())
    assert problems and all(p.startswith(str(disk.path)) for p in problems)
    for problem in problems:
        _in_users_words(problem.split(": ", 1)[1], lang, translated=False)
    if lang == "en":
        assert problems[0].endswith(": Hearth is not allowed to delete it (it is read-only or not yours)")


def test_the_terminal_says_a_missing_recording_in_words(data_dir: Path, tmp_path: Path) -> None:
    from tests.tools.test_cli_tools import PASSPHRASE, ROOT

    for lang in ("zh_CN.UTF-8", "C.UTF-8"):
        env = dict(os.environ, HEARTH_DATA_DIR=str(data_dir), HEARTH_PASSPHRASE=PASSPHRASE, LANG=lang)
        env.pop("LANGUAGE", None)
        env.pop("LC_ALL", None)
        done = subprocess.run([sys.executable, "-m", "app", "transcribe", str(tmp_path / "gone.wav")], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode != 0
        _in_users_words(done.stderr, "zh_CN" if lang.startswith("zh") else "en")
        if lang == "C.UTF-8":
            assert "it is no longer there (it was moved, renamed or deleted)" in done.stderr, done.stderr
