"""The parser process as an adversary: its replies are checked JSON, never unpickled; it
is guarded and limited like the app, and holds no passphrase. Real child processes."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from storage.documents import isolation
from storage.documents.isolation import MEMORY_LIMIT, IsolatedParser
from storage.documents.parsers import ParseError
from tests.storage import parser_children


def test_a_child_that_replies_with_a_pickle_is_refused_and_nothing_runs(tmp_path: Path) -> None:
    path = tmp_path / "note.txt"
    path.write_text("hello")
    with IsolatedParser(timeout=60, child=parser_children.pickling_child) as parser:
        with pytest.raises(ParseError, match="not valid; the file may be crafted"):
            parser.parse(path)
        assert parser._process is None  # a child that says such things is not asked again
        with pytest.raises(ParseError, match="not valid"):
            parser.digest(path)
    assert not (tmp_path / "note.txt.pwned").exists()  # the pickle was never loaded


@pytest.mark.parametrize("reply", sorted(set(parser_children.MALFORMED) - {"big"}))
def test_a_malformed_reply_is_refused_as_a_broken_file(tmp_path: Path, reply: str) -> None:
    path = tmp_path / f"{reply}.txt"
    path.write_text("hello")
    with IsolatedParser(timeout=60, child=parser_children.malformed_child) as parser, \
            pytest.raises(ParseError, match="not valid; the file may be crafted"):
        parser.digest(path) if reply == "sha" else parser.parse(path)


def test_a_reply_past_the_size_bound_is_not_read(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "big.txt"
    path.write_text("hello")
    monkeypatch.setattr(isolation, "MAX_REPLY", 1000)  # the parent's bound; the child's is its own
    with IsolatedParser(timeout=60, child=parser_children.malformed_child) as parser, \
            pytest.raises(ParseError, match="larger than Hearth accepts"):
        parser.parse(path)


def test_the_real_child_still_answers_in_checked_json(tmp_path: Path) -> None:
    path = tmp_path / "note.md"
    path.write_text("# Owls\nBarn owls \x00hunt\n")
    (tmp_path / "plain.txt").write_text("Plain words, 汉字 too.")
    with IsolatedParser(timeout=60) as parser:
        with pytest.raises(ParseError, match="binary"):
            parser.parse(path)
        sections, notes = parser.parse(tmp_path / "plain.txt")
        assert [s.text for s in sections] == ["Plain words, 汉字 too."] and notes == []
        import hashlib

        assert parser.digest(tmp_path / "plain.txt") == hashlib.sha256(
            (tmp_path / "plain.txt").read_bytes()).hexdigest()


def test_the_child_is_guarded_limited_and_holds_no_passphrase(tmp_path: Path, monkeypatch) -> None:
    """Spawned as in a source install (``python -m app``): a fresh interpreter."""
    monkeypatch.setenv("HEARTH_PASSPHRASE", "correct horse battery staple")
    path = tmp_path / "note.txt"
    path.write_text("hello")
    with IsolatedParser(timeout=60, child=parser_children.probing_child) as parser:
        assert parser._context.get_start_method() == "spawn"
        with pytest.raises(ParseError) as raised:
            parser.parse(path)
    state = json.loads(str(raised.value))
    assert state["passphrase"] is None
    assert state["guard"] is True and state["network"] == "blocked"
    if sys.platform.startswith(("linux", "darwin")):
        assert state["core"] == [0, 0]
    if sys.platform.startswith("linux"):
        assert state["address_space"] == [MEMORY_LIMIT, MEMORY_LIMIT]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prlimit is Linux's")
def test_the_real_child_sets_its_limits(tmp_path: Path) -> None:
    import resource

    path = tmp_path / "note.txt"
    path.write_text("hello")
    with IsolatedParser(timeout=60) as parser:
        parser.parse(path)  # the child is up and has answered: its setup is done
        pid = parser._process.pid
        assert resource.prlimit(pid, resource.RLIMIT_CORE) == (0, 0)
        assert resource.prlimit(pid, resource.RLIMIT_AS) == (MEMORY_LIMIT, MEMORY_LIMIT)


def test_links_fifos_devices_and_swapped_files_are_refused_at_the_open(tmp_path: Path) -> None:
    outside = tmp_path / "private.txt"
    outside.write_text("the password is hunter2")
    os.symlink(outside, tmp_path / "link.txt")
    os.mkfifo(tmp_path / "fifo.txt")
    os.symlink("/dev/zero", tmp_path / "zero.txt")
    mine = tmp_path / "mine.txt"
    mine.write_text("my own note")
    identity = (mine.stat().st_dev, mine.stat().st_ino)
    with IsolatedParser(timeout=60) as parser:
        for name, reason in [("link.txt", "is a link"), ("zero.txt", "is a link"),
                             ("fifo.txt", "not a regular file")]:
            for read in (parser.parse, parser.digest):
                with pytest.raises(ParseError, match=reason):
                    read(tmp_path / name)
        assert parser.parse(mine, identity)[0][0].text == "my own note"
        mine.unlink()
        os.link(outside, mine)  # another file under the same name
        for read in (parser.parse, parser.digest):
            with pytest.raises(ParseError, match="changed while it was being imported"):
                read(mine, identity)


def _wait_for(path: Path, timeout: float = 30.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} did not appear"
        time.sleep(0.02)


def _slow_and_good(folder: Path) -> tuple[Path, Path]:
    """A file the slow child parses for ever, and one it reads at once."""
    (folder / "slow-parse.txt").write_text("a long scan, or a crafted file")
    (folder / "good.txt").write_text("plain words")
    return folder / "slow-parse.txt", folder / "good.txt"


def test_a_file_read_ahead_is_parsed_before_it_is_asked_for_and_a_kill_stops_it(tmp_path: Path) -> None:
    slow, good = _slow_and_good(tmp_path)
    with IsolatedParser(timeout=600, child=parser_children.slow_child) as parser:
        parser.read_ahead(slow)
        _wait_for(tmp_path / "slow-parse.txt.started")  # the child is in it, nobody waiting
        parser.kill()
        with pytest.raises(isolation.ParseStopped):
            parser.parse(slow)
        assert parser.parse(good)[0][0].text == "plain words"  # a fresh child, in step


def test_replies_read_ahead_answer_only_their_own_request(tmp_path: Path) -> None:
    """A reply is never taken for another file's, or for the same name read without its
    identity: replies read ahead for nothing are dropped, and the answers stay in step."""
    import hashlib

    files = {}
    for name in ("a", "b", "c"):
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text(f"the text of {name}")
    os.mkfifo(tmp_path / "fifo.txt")

    def identity(path: Path) -> tuple[int, int]:
        return path.stat().st_dev, path.stat().st_ino

    with IsolatedParser(timeout=60) as parser:
        parser.read_ahead(files["a"], identity(files["a"]))
        assert parser.parse(files["b"])[0][0].text == "the text of b"  # a's replies dropped
        parser.read_ahead(files["c"], identity(files["c"]))
        parser.read_ahead(files["a"])  # one file ahead at most: ignored
        assert parser.digest(files["c"], identity(files["c"])) == \
            hashlib.sha256(b"the text of c").hexdigest()
        assert parser.parse(files["c"], identity(files["c"]))[0][0].text == "the text of c"
        parser.read_ahead(files["a"], identity(files["a"]))
        assert parser.parse(files["a"])[0][0].text == "the text of a"  # not the same request
        parser.read_ahead(tmp_path / "fifo.txt")  # refused in the child: its errors are dropped
        assert parser.digest(files["b"]) == hashlib.sha256(b"the text of b").hexdigest()
        assert not parser._ahead


def test_a_file_read_ahead_that_never_ends_costs_its_time_limit_not_the_next_file(tmp_path: Path) -> None:
    slow, good = _slow_and_good(tmp_path)
    with IsolatedParser(timeout=1.0, child=parser_children.slow_child) as parser:
        parser.read_ahead(slow)
        # Asked for another file: the slow reply is awaited for its time limit, dropped with
        # its child, and the good file is read by a fresh one.
        assert parser.parse(good)[0][0].text == "plain words"


def test_a_file_changed_in_place_after_its_read_ahead_is_read_again(tmp_path: Path) -> None:
    """Review finding: the old content must not be recorded with the new size and time
    (every later refresh would then call the file unchanged)."""
    import hashlib

    path = tmp_path / "notes.txt"
    path.write_text("the old words")
    identity = (path.stat().st_dev, path.stat().st_ino)
    with IsolatedParser(timeout=60) as parser:
        parser.read_ahead(path, identity)
        # The child's first reply (the hash of the old content) is waiting: what it read
        # ahead is stale from the next line on.
        assert parser._conn is not None and parser._conn.poll(60)
        with open(path, "w") as fh:  # the same file (inode), new content
            fh.write("the new, longer words")
        assert (path.stat().st_dev, path.stat().st_ino) == identity
        assert parser.digest(path, identity) == hashlib.sha256(b"the new, longer words").hexdigest()
        assert parser.parse(path, identity)[0][0].text == "the new, longer words"


def test_a_page_picture_is_drawn_in_the_child_and_a_hostile_reply_is_refused(tmp_path) -> None:
    """The source viewer's page picture (issue #35, item 5): raw grey pixels and marks,
    checked in the parent before anything is made of them."""
    import base64

    from storage.documents.isolation import IsolatedParser
    from storage.documents.parser_replies import Malformed, checked
    from tests.documents_corpus import pdf

    path = pdf(tmp_path / "fees.pdf", ["Harbour. Moorings cost forty euros a night at the outer pier.",
                                       "Page two."])
    with IsolatedParser() as parser:
        found = parser.page_picture(path, 1, "Moorings cost forty euros a night")
    assert len(base64.b64decode(found["pixels"])) == found["width"] * found["height"]
    assert found["marks"] and all(0 <= m[0] < m[2] <= found["width"] for m in found["marks"])
    good = {"status": "ok", "peak": 1, "width": 2, "height": 2, "pixels": base64.b64encode(b"\0" * 4).decode(),
            "marks": [[0, 0, 1, 1]]}
    assert checked(json.dumps(good).encode(), "picture")["width"] == 2
    for hostile in ({**good, "width": 10**6}, {**good, "pixels": base64.b64encode(b"\0" * 9).decode()},
                    {**good, "marks": [[0, 0, 1]]}, {**good, "marks": [[0, 0, 1, 1]] * 1000},
                    {**good, "height": True}):
        with pytest.raises(Malformed):
            checked(json.dumps(hostile).encode(), "picture")
    with pytest.raises(Malformed):  # nested past Python's stack: escaped as RecursionError before
        checked(b"[" * 200_000 + b"]" * 200_000, "picture")


def _one_line_pdf(path: Path, text: str, mediabox: str = "0 0 612 792", rotate: int | None = None,
                  y: int = 740) -> Path:
    """A one-page PDF with ``text`` near the top of its page, written by hand (a page
    turned by /Rotate, or whose box does not start at 0)."""
    content = f"BT /F1 12 Tf 72 {y} Td ({text}) Tj ET".encode()
    turned = f" /Rotate {rotate}" if rotate is not None else ""
    from tests.documents_corpus import pdf_of_objects

    return pdf_of_objects(path, [
        b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [{mediabox}]{turned} /Resources << /Font "
        f"<< /F1 5 0 R >> >> /Contents 4 0 R >>".encode(),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"])


def test_a_turned_page_or_one_whose_box_does_not_start_at_0_is_marked_where_its_words_are(
        tmp_path: Path) -> None:
    """A landscape page stored upright and turned by /Rotate 90 (common in reports), or a
    page whose box starts elsewhere than 0: the marks came out of the picture (the page's
    coordinates taken as the picture's), the parent refused the reply as crafted and
    killed the reader, and the viewer showed no page."""
    from storage.documents.isolation import IsolatedParser

    words = "Quarterly revenue grew strongly in the northern region"
    pages = {"upright": _one_line_pdf(tmp_path / "upright.pdf", words),
             "turned": _one_line_pdf(tmp_path / "turned.pdf", words, rotate=90),
             "moved": _one_line_pdf(tmp_path / "moved.pdf", words, mediabox="0 792 612 1584", y=1540)}
    with IsolatedParser() as parser:
        found = {name: parser.page_picture(path, 1, words) for name, path in pages.items()}
    for name, picture in found.items():
        assert picture["marks"], name
        for left, top, right, bottom in picture["marks"]:
            assert 0 <= left < right <= picture["width"] and 0 <= top < bottom <= picture["height"], name
    upright, turned = found["upright"]["marks"][0], found["turned"]["marks"][0]
    assert upright[1] < found["upright"]["height"] * 0.1  # a line near the top, across
    assert found["turned"]["width"] > found["turned"]["height"]  # drawn as the reader sees it
    assert turned[0] > found["turned"]["width"] * 0.9 and turned[3] - turned[1] > turned[2] - turned[0]
    assert abs(found["moved"]["marks"][0][1] - upright[1]) <= 12  # the same place on the page


# The time limit and the priority --------------------------------------------------------
def test_the_time_limit_counts_the_childs_processor_time_not_its_wait_for_one(tmp_path: Path) -> None:
    """On a busy machine a sound file's child waits for a processor: that wait is not the
    file's fault (#43: a pasted image's text recognition took a minute under load and was
    stopped at the limit). A child at work is still stopped at its limit."""
    fine, sleepy, spin = (tmp_path / name for name in ("fine.txt", "sleepy.txt", "spin.txt"))
    for path in (fine, sleepy, spin):
        path.write_text("hello")
    assert parser_children.SLEEPY * 2 <= isolation.BACKSTOP  # room for a slow start
    with IsolatedParser(timeout=1.0, child=parser_children.slow_child) as parser:
        parser.parse(fine)  # started and warm
        assert parser.parse(sleepy)[0][0].text == "hello"  # 2 s of wall time, none of work
        with pytest.raises(ParseError, match="longer than 1 s"):
            parser.parse(spin)  # 2 s of work: stopped, where a clock that missed work would wait
        assert parser.parse(fine)[0][0].text == "hello"  # a fresh child took over


def test_an_imports_child_yields_the_processor_and_one_the_user_waits_for_does_not(tmp_path: Path) -> None:
    """An import is background work: its child runs below the app's priority, so an answer
    being written comes first. An attachment, a page picture or dictation is waited for:
    their children run at the app's own priority (under load a niced child got a tenth
    of a processor: a pasted image took 60 s instead of 9)."""
    import psutil

    path = tmp_path / "note.txt"
    path.write_text("hello")
    own = psutil.Process().nice()
    with IsolatedParser(timeout=60) as background, IsolatedParser(timeout=60, background=False) as waited:
        background.parse(path)
        waited.parse(path)
        lowered, kept = (psutil.Process(p._process.pid) for p in (background, waited))
        if sys.platform == "win32":
            assert lowered.nice() == psutil.BELOW_NORMAL_PRIORITY_CLASS
            assert kept.nice() == psutil.Process().nice()
        else:
            assert lowered.nice() == min(19, own + isolation.NICE) and kept.nice() == own
