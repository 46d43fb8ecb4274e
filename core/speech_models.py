"""Speech models besides the bundled Whisper base (#41): another Whisper size in CTranslate2
format (the form faster-whisper reads: ``model.bin``, ``config.json`` and a tokenizer),
imported from a folder into the models folder and chosen for everything Hearth recognises.

A model folder is somebody else's file: it is checked before anything of it is copied
(regular files only, no link, sizes within bounds, ``model.bin`` a CTranslate2 Whisper
model by its header, ``config.json`` a JSON object), copied aside under a partial name
and put in place only once it has loaded and recognised a second of silence in the
isolated child (no network, memory and time limits): CTranslate2 parses it there, never
in Hearth's own process. A full disk, a cancel or a model that does not load leave
nothing behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
import struct
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from core.settings import Settings
from i18n import translate
from storage.errors import why_not
from storage.paths import models_dir

FOLDER = "speech"  # under the models folder: one folder each
MARK = "hearth-speech.json"  # what Hearth recorded of it (name, sha256, size)
# tokenizer.json too: without it faster-whisper would fetch one from the internet.
NEEDED = ("model.bin", "config.json", "tokenizer.json")
VOCABULARIES = ("vocabulary.json", "vocabulary.txt")  # CTranslate2's own
OPTIONAL = ("preprocessor_config.json",)
MAX_MODEL = 2 << 30  # what loads within the reader's 3 GB (medium in float16 is 1.5 GB; large is 3.1)
LOAD_TIMEOUT = 300.0  # loading it and hearing a second of silence
MAX_SIDE_FILE = 32 << 20  # config, tokenizer, vocabulary
MIN_MODEL = 1 << 20
SPEC = b"WhisperSpec"


class SpeechModelError(ValueError):
    """A folder that is not a speech model Hearth can use, said in the user's words."""


@dataclass(frozen=True)
class SpeechModel:
    name: str
    path: Path
    size: int
    bundled: bool = False


def bundled_name() -> str:
    return translate("core.speech_models", "Whisper base (bundled)")


def _root() -> Path:
    return models_dir() / FOLDER


def imported() -> list[SpeechModel]:
    """The speech models imported so far (a folder without Hearth's mark is not one)."""
    found = []
    root = _root()
    if not root.is_dir():
        return []
    for folder in sorted(root.iterdir()):
        mark = folder / MARK
        if folder.name.startswith(".") or not mark.is_file():
            continue
        try:
            data = json.loads(mark.read_text(encoding="utf-8"))
            found.append(SpeechModel(str(data["name"]), folder, int(data["size"])))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return found


def chosen() -> SpeechModel | None:
    """The imported model chosen for speech (None: the bundled one)."""
    name = Settings.load().speech_model
    return next((m for m in imported() if m.name == name), None) if name else None


def choose(name: str) -> None:
    """Recognise speech with ``name`` from now on ("" or the bundled model's name: the
    bundled one); SpeechModelError if no imported model has that name."""
    settings = Settings.load()
    if name and name not in {m.name for m in imported()}:
        raise SpeechModelError(translate("core.speech_models", "There is no speech model called “{name}”.").format(
            name=name))
    settings.speech_model = name
    settings.save()


def remove(name: str) -> None:
    model = next((m for m in imported() if m.name == name), None)
    if model is None:
        raise SpeechModelError(translate("core.speech_models", "There is no speech model called “{name}”.").format(
            name=name))
    if Settings.load().speech_model == name:
        choose("")
    shutil.rmtree(model.path)


def _refused(why: str) -> SpeechModelError:
    return SpeechModelError(translate("core.speech_models", "This folder is not a speech model Hearth can use: "
                                      "{why}").format(why=why))


def check_folder(folder: Path) -> dict[str, os.stat_result]:
    """The files to copy, as ``lstat`` sees them; SpeechModelError saying what is wrong.
    Their content is read only through descriptors that are checked to be these very
    files (``_opened``)."""
    try:
        info = os.lstat(folder)
    except OSError as exc:
        raise _refused(why_not(exc)) from None
    if not stat.S_ISDIR(info.st_mode):
        raise _refused(translate("core.speech_models", "it is not a folder."))
    files: dict[str, os.stat_result] = {}
    for name in (*NEEDED, *VOCABULARIES, *OPTIONAL):
        try:
            found = os.lstat(folder / name)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise _refused(why_not(exc)) from None
        if not stat.S_ISREG(found.st_mode):
            raise _refused(translate("core.speech_models", "{name} is not a plain file.").format(name=name))
        if name == "model.bin" and found.st_size > MAX_MODEL:
            raise _refused(translate("core.speech_models", "model.bin is larger than Hearth's reader can load "
                                     "(2 GB; Whisper medium in float16 is 1.5 GB)."))
        if name != "model.bin" and found.st_size > MAX_SIDE_FILE:
            raise _refused(translate("core.speech_models", "{name} is larger than a Whisper model's.").format(name=name))
        files[name] = found
    missing = [name for name in NEEDED if name not in files]
    if missing or not any(name in files for name in VOCABULARIES):
        raise _refused(translate("core.speech_models", "a Whisper model in CTranslate2 form has model.bin, "
                                 "config.json, tokenizer.json and vocabulary.txt (or .json), as CTranslate2's "
                                 "converter writes them with --copy_files tokenizer.json."))
    if files["model.bin"].st_size < MIN_MODEL:
        raise _refused(translate("core.speech_models", "model.bin is not a CTranslate2 Whisper model."))
    return files


def _opened(folder: Path, name: str, seen: os.stat_result) -> int:
    """A descriptor of ``folder/name`` that is the file ``seen`` described: not a link
    (O_NOFOLLOW), not a pipe left waiting (O_NONBLOCK), the same device, inode and size."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(folder / name, flags)
    except OSError as exc:
        raise _refused(why_not(exc)) from None
    now = os.fstat(fd)
    if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino, now.st_size) != \
            (seen.st_dev, seen.st_ino, seen.st_size):
        os.close(fd)
        raise _refused(translate("core.speech_models", "{name} changed while it was being read.").format(name=name))
    return fd


def _is_whisper(head: bytes) -> bool:
    """CTranslate2's header: a binary version, then the model spec's name (length-prefixed)."""
    if len(head) < 6 + len(SPEC):
        return False
    version, length = struct.unpack("<IH", head[:6])
    return 1 <= version <= 64 and head[6:6 + length].rstrip(b"\0") == SPEC


def _check_content(name: str, fd: int) -> None:
    if name == "model.bin" and not _is_whisper(os.pread(fd, 64, 0)):
        raise _refused(translate("core.speech_models", "model.bin is not a CTranslate2 Whisper model."))
    if name == "config.json":
        size = os.fstat(fd).st_size
        try:
            config = json.loads(os.pread(fd, size, 0).decode("utf-8"))
        except (ValueError, RecursionError):
            config = None
        if not isinstance(config, dict):
            raise _refused(translate("core.speech_models", "config.json does not read as a model's settings."))


def _sweep(root: Path) -> None:
    """What an import killed midway left (a quit, a crash): gone after an hour."""
    for stale in root.glob(".importing-*"):
        with contextlib.suppress(OSError):
            if time.time() - stale.stat().st_mtime > 3600:
                shutil.rmtree(stale, ignore_errors=True)


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip(".-")[:60] or "speech-model"


def import_folder(folder: Path, name: str = "", cancel: threading.Event | None = None) -> SpeechModel:
    """Copy the model in ``folder`` into the models folder under ``name`` (the folder's
    name by default), after checking it and loading it in the isolated child."""
    from core.speech_child import isolated_child, silence_wav

    files = check_folder(folder)
    name = " ".join((name or folder.name).split())[:80] or "Whisper"
    if name in {m.name for m in imported()} or name == bundled_name():
        raise SpeechModelError(translate("core.speech_models", "A speech model called “{name}” is there "
                                         "already.").format(name=name))
    cancelled = SpeechModelError(translate("core.speech_models", "The import was cancelled; nothing was kept."))
    root = _root()
    root.mkdir(parents=True, exist_ok=True)
    _sweep(root)
    slug = _slug(name)
    target = root / slug
    n = 1
    while target.exists():
        n += 1
        target = root / f"{slug}-{n}"
    aside = root / f".importing-{target.name}"
    shutil.rmtree(aside, ignore_errors=True)
    aside.mkdir()
    digest = hashlib.sha256()
    opened: dict[str, int] = {}
    try:
        for file_name, seen in files.items():
            opened[file_name] = _opened(folder, file_name, seen)
            _check_content(file_name, opened[file_name])
        for file_name in sorted(files, key=lambda f: f == "model.bin"):  # model.bin last
            left = files[file_name].st_size  # what was checked, and no more
            with open(aside / file_name, "wb") as out:
                while left > 0:
                    if cancel is not None and cancel.is_set():
                        raise cancelled
                    block = os.read(opened[file_name], min(1 << 20, left))
                    if not block:
                        raise _refused(translate("core.speech_models", "{name} changed while it was being "
                                                 "read.").format(name=file_name))
                    if file_name == "model.bin":
                        digest.update(block)
                    out.write(block)
                    left -= len(block)
        silence_wav(aside / ".silence.wav")
        with isolated_child(cancel, timeout=LOAD_TIMEOUT) as runner:
            try:
                runner.transcribe(aside / ".silence.wav", aside, "", 0, None, None, None)
            except Exception as exc:
                if cancel is not None and cancel.is_set():
                    raise cancelled from None
                raise SpeechModelError(translate("core.speech_models", "The model in this folder did not load in "
                                                 "Hearth's reader: {reason}").format(reason=exc)) from None
        if cancel is not None and cancel.is_set():
            raise cancelled
        (aside / ".silence.wav").unlink()
        (aside / MARK).write_text(json.dumps({"name": name, "size": files["model.bin"].st_size,
                                              "sha256": digest.hexdigest()}), encoding="utf-8")
        os.replace(aside, target)
    except OSError as exc:
        shutil.rmtree(aside, ignore_errors=True)
        if exc.errno == 28:
            raise SpeechModelError(translate("core.speech_models", "The disk is full: the speech model was not "
                                             "imported, and nothing of it was kept.")) from None
        raise SpeechModelError(translate("core.speech_models", "The speech model could not be imported ({reason}); "
                                         "nothing of it was kept.").format(reason=why_not(exc, root, writing=True))) from None
    except BaseException:
        shutil.rmtree(aside, ignore_errors=True)
        raise
    finally:
        for fd in opened.values():
            os.close(fd)
    return SpeechModel(name, target, files["model.bin"].st_size)
