"""An export's file (#43's review of what can lose or leak the user's data): written whole
or not at all, on a real full disk (a small tmpfs); readable by its owner alone; a link in
its place replaced, never followed; and a failure said with the file's name, not as a
fault of Hearth's own data folder."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from storage import export
from storage.chats import ChatStore

SECRET = b"SECRET-PLAIN " * 50_000  # more than the small disk has left


def test_an_export_on_a_full_disk_leaves_what_was_there_and_no_plain_text(make_small_disk) -> None:
    """Written in place, a full disk left half the chat in plain text in the file and what
    it held before gone; a file that was there kept its permissions (0644)."""
    disk = make_small_disk(1)
    target = disk.path / "notes.md"
    target.write_text("my own notes")
    target.chmod(0o644)
    disk.fill()
    with pytest.raises(OSError) as caught:
        export.write(target, SECRET)
    assert caught.value.errno == errno.ENOSPC
    assert target.read_text() == "my own notes"
    assert sorted(p.name for p in disk.path.iterdir()) == [".filler", "notes.md"]  # no partial file
    disk.free()
    export.write(target, b"# A chat\n")
    assert target.read_bytes() == b"# A chat\n" and stat.S_IMODE(target.stat().st_mode) == 0o600


def test_a_link_in_the_exports_place_is_replaced_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere" / "planted.md"
    elsewhere.parent.mkdir()
    link = tmp_path / "chat.md"
    link.symlink_to(elsewhere)
    export.write(link, b"# A chat\n")
    assert not elsewhere.exists() and not link.is_symlink() and link.read_bytes() == b"# A chat\n"


def test_the_terminal_says_which_file_could_not_be_written(make_small_disk, store: ChatStore, capsys) -> None:
    """The terminal's `chats export` let the OSError through, which was said as Hearth's
    own trouble: "The disk is full … Hearth keeps trying" (it had already given up), or, for
    a read-only folder, "Hearth's data folder cannot be written to" (it could)."""
    from cli.chats import _export

    chat = store.create_chat("Private chat")
    store.add_message(chat.id, "user", "SECRET-PLAIN " * 50_000)
    disk = make_small_disk(1)
    disk.fill()
    target = disk.path / "chat.md"
    assert _export(store, str(chat.id), target) == 1
    said = capsys.readouterr().err
    # Which file, and why in the user's words (the system's "No space left on device" goes to the log).
    assert str(target) in said and "the disk is full" in said and "keeps trying" not in said
    assert "No space left" not in said
    assert not target.exists() and sorted(os.listdir(disk.path)) == [".filler"]
