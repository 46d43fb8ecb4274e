"""The folder walk of a document import: regular files inside the chosen folder only.

Links that lead out of the chosen folder are skipped and reported; FIFOs and devices are
never read (they would block or never end); each file is identified by (st_dev, st_ino)
so that one put in its place later is refused when it is opened (parsers.open_regular).
"""

from __future__ import annotations

import os
import stat as stat_module
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from i18n import translate
from storage.documents import parsers
from storage.documents.parsers import Identity
from storage.errors import why_not


def is_regular(info: os.stat_result) -> bool:
    return stat_module.S_ISREG(info.st_mode)


def identity_of(info: os.stat_result) -> Identity:
    return (info.st_dev, info.st_ino)


# The English text of ``outside()``, for code that compares reasons (the tests); what the
# walk reports is ``outside()``, in the interface language.
OUTSIDE = "a link that leads outside the chosen folder: not imported"


def outside() -> str:
    return translate("core.folders", "a link that leads outside the chosen folder: not imported")


def unreadable(exc: OSError) -> str:
    """Why a file or folder could not be read, in the user's words (the system's go to the log)."""
    return translate("core.folders", "cannot be read ({reason})").format(reason=why_not(exc))


def missing() -> str:
    return translate("core.folders", "does not exist (or is a broken link)")


@dataclass(frozen=True)
class Candidate:
    """A file the walk found: its real path, and which file it was (st_dev, st_ino) so
    that one put in its place later is not read instead."""

    path: Path
    identity: Identity


@dataclass
class Found:
    files: list[Candidate] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def _listing(root: Path, found: Found) -> Iterable[tuple[str, list[str], list[str],
                                                         Callable[[str], os.stat_result]]]:
    """The folders under ``root`` and how to lstat a name in each, following no link.

    ``os.fwalk`` holds each folder open, so a folder swapped for a link during the walk
    is not entered, and a name is looked up in the folder that was listed. Where it is
    missing (Windows) ``os.walk`` does, and every folder's real path is checked instead.
    """
    def problem(error: OSError) -> None:
        found.failed.append((str(error.filename), unreadable(error)))

    if hasattr(os, "fwalk"):
        for folder, dirs, names, fd in os.fwalk(root, onerror=problem, follow_symlinks=False):
            def lstat(name: str, fd: int = fd) -> os.stat_result:
                return os.stat(name, dir_fd=fd, follow_symlinks=False)
            yield folder, dirs, names, lstat
        return
    for folder, dirs, names in os.walk(root, onerror=problem, followlinks=False):
        if not _inside(Path(os.path.realpath(folder)), root):  # a junction, say
            dirs[:] = []
            found.skipped.append((folder, outside()))
            continue

        def lstat_in(name: str, folder: str = folder) -> os.stat_result:
            return os.lstat(os.path.join(folder, name))
        yield folder, dirs, names, lstat_in


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def _text_name(path: Path) -> bool:
    """Whether the path is text: a name in another encoding than the system's (a zip
    from another system, unpacked here) comes from the system with its bytes as lone
    surrogates, which no text file, the vault included, can hold. Such a file stopped the
    whole import at it."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def expand(paths: Iterable[Path]) -> Found:
    """Files under ``paths`` (folders recursively); problems and skipped links found on the way.

    Only regular files, and only those whose real path stays inside the chosen folder:
    a link to a file inside it counts as that file, a link that leads out of it (to a
    file or a folder) is skipped and reported, and links to folders are not followed
    (the folders inside are walked from their own place). A FIFO or a device is never
    read: it would block or never end. A path chosen itself (not found in a folder)
    is the user's choice and may be a link.
    """
    found = Found()
    seen: set[Identity] = set()

    def take(path: Path, info: os.stat_result) -> None:
        if not _text_name(path):
            found.failed.append((os.fsencode(path).decode("utf-8", "replace"), translate(
                "core.folders", "its name is not valid text (UTF-8), which Hearth cannot keep; "
                "rename it to import it")))
        elif not is_regular(info):
            found.failed.append((str(path), translate("core.folders", "is not a regular file")))
        elif identity_of(info) not in seen:
            seen.add(identity_of(info))
            found.files.append(Candidate(path, identity_of(info)))

    for given in paths:
        try:
            root = Path(os.path.realpath(given, strict=True))
            info = os.lstat(root)
        except OSError:
            found.failed.append((str(given), missing()))
            continue
        if not stat_module.S_ISDIR(info.st_mode):
            take(root, info)
            continue
        for folder, dirs, names, lstat in _listing(root, found):
            kept = []
            for name in sorted(dirs):
                if name.startswith("."):
                    continue
                try:
                    entry = lstat(name)
                except OSError as exc:
                    found.failed.append((os.path.join(folder, name), unreadable(exc)))
                    continue
                if stat_module.S_ISLNK(entry.st_mode):
                    target = Path(os.path.realpath(os.path.join(folder, name)))
                    if not _inside(target, root):
                        found.skipped.append((os.path.join(folder, name), outside()))
                    continue
                kept.append(name)
            dirs[:] = kept
            for name in sorted(names):
                file = Path(folder, name)
                if name.startswith(".") or not parsers.supported(file):
                    continue
                try:
                    entry = lstat(name)
                    if stat_module.S_ISLNK(entry.st_mode):
                        target = Path(os.path.realpath(file))
                        if not _inside(target, root):
                            found.skipped.append((str(file), outside()))
                            continue
                        file, entry = target, os.lstat(target)
                except FileNotFoundError:
                    found.failed.append((str(file), missing()))
                    continue
                except OSError as exc:
                    found.failed.append((str(file), unreadable(exc)))
                    continue
                take(file, entry)
    return found
