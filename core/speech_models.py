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

import hashlib
import json
import os
import re
import shutil
import stat
import struct
import threading
from dataclasses import dataclass
from pathlib import Path

from core.settings import Settings
from i18n import translate
from storage.documents.isolation import IsolatedParser
from storage.paths import models_dir

FOLDER = "speech"  # under the models folder: one folder each
MARK = "hearth-speech.json"  # what Hearth recorded of it (name, sha256, size)
# tokenizer.json too: without it faster-whisper would fetch one from the internet.
NEEDED = ("model.bin", "config.json", "tokenizer.json")
VOCABULARIES = ("vocabulary.json", "vocabulary.txt")  # CTranslate2's own
OPTIONAL = ("preprocessor_config.json",)
MAX_MODEL = 8 << 30  # large-v3 in float32 is about 6 GB
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


def check_folder(folder: Path) -> dict[str, int]:
    """The files to copy and their sizes; SpeechModelError saying what is wrong."""
    try:
        info = os.lstat(folder)
    except OSError as exc:
        raise _refused(exc.strerror or str(exc)) from None
    if not stat.S_ISDIR(info.st_mode):
        raise _refused(translate("core.speech_models", "it is not a folder."))
    files: dict[str, int] = {}
    for name in (*NEEDED, *VOCABULARIES, *OPTIONAL):
        path = folder / name
        try:
            found = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise _refused(exc.strerror or str(exc)) from None
        if not stat.S_ISREG(found.st_mode):
            raise _refused(translate("core.speech_models", "{name} is not a plain file.").format(name=name))
        limit = MAX_MODEL if name == "model.bin" else MAX_SIDE_FILE
        if found.st_size > limit:
            raise _refused(translate("core.speech_models", "{name} is larger than a Whisper model's.").format(name=name))
        files[name] = found.st_size
    missing = [name for name in NEEDED if name not in files]
    if missing or not any(name in files for name in VOCABULARIES):
        raise _refused(translate("core.speech_models", "a Whisper model in CTranslate2 form has model.bin, "
                                 "config.json, tokenizer.json and vocabulary.txt (or .json), as CTranslate2's "
                                 "converter writes them with --copy_files tokenizer.json."))
    if files["model.bin"] < MIN_MODEL or not _is_whisper(folder / "model.bin"):
        raise _refused(translate("core.speech_models", "model.bin is not a CTranslate2 Whisper model."))
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        config = None
    if not isinstance(config, dict):
        raise _refused(translate("core.speech_models", "config.json does not read as a model's settings."))
    return files


def _is_whisper(path: Path) -> bool:
    """CTranslate2's header: a binary version, then the model spec's name (length-prefixed)."""
    try:
        with path.open("rb") as source:
            head = source.read(64)
    except OSError:
        return False
    if len(head) < 6 + len(SPEC):
        return False
    version, length = struct.unpack("<IH", head[:6])
    return 1 <= version <= 64 and head[6:6 + length].rstrip(b"\0") == SPEC


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip(".-")[:60] or "speech-model"


def import_folder(folder: Path, name: str = "", cancel: threading.Event | None = None,
                  child: IsolatedParser | None = None) -> SpeechModel:
    """Copy the model in ``folder`` into the models folder under ``name`` (the folder's
    name by default), after checking it and loading it in the isolated child."""
    from core.speech import SPEECH_MEMORY_LIMIT, SPEECH_TIMEOUT, silence_wav

    files = check_folder(folder)
    name = " ".join((name or folder.name).split())[:80] or "Whisper"
    if name in {m.name for m in imported()} or name == bundled_name():
        raise SpeechModelError(translate("core.speech_models", "A speech model called “{name}” is there "
                                         "already.").format(name=name))
    root = _root()
    root.mkdir(parents=True, exist_ok=True)
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
    try:
        for file_name in sorted(files, key=lambda f: f == "model.bin"):  # model.bin last
            with open(folder / file_name, "rb") as source, open(aside / file_name, "wb") as out:
                while block := source.read(1 << 20):
                    if cancel is not None and cancel.is_set():
                        raise SpeechModelError(translate("core.speech_models", "The import was cancelled; "
                                                         "nothing was kept."))
                    if file_name == "model.bin":
                        digest.update(block)
                    out.write(block)
        silence_wav(aside / ".silence.wav")
        own = child is None
        runner = child or IsolatedParser(timeout=SPEECH_TIMEOUT, memory_limit=SPEECH_MEMORY_LIMIT)
        try:
            runner.transcribe(aside / ".silence.wav", aside, "", 0, None, None, None)
        except Exception as exc:
            raise SpeechModelError(translate("core.speech_models", "The model in this folder did not load: "
                                             "{reason}").format(reason=exc)) from None
        finally:
            if own:
                runner.close()
        if cancel is not None and cancel.is_set():
            raise SpeechModelError(translate("core.speech_models", "The import was cancelled; nothing was kept."))
        (aside / ".silence.wav").unlink()
        (aside / MARK).write_text(json.dumps({"name": name, "size": files["model.bin"],
                                              "sha256": digest.hexdigest()}), encoding="utf-8")
        os.replace(aside, target)
    except OSError as exc:
        shutil.rmtree(aside, ignore_errors=True)
        if exc.errno == 28:
            raise SpeechModelError(translate("core.speech_models", "The disk is full: the speech model was not "
                                           "imported, and nothing of it was kept.")) from None
        raise SpeechModelError(translate("core.speech_models", "The speech model could not be imported ({reason}); "
                                       "nothing of it was kept.").format(reason=exc.strerror or exc)) from None
    except BaseException:
        shutil.rmtree(aside, ignore_errors=True)
        raise
    return SpeechModel(name, target, files["model.bin"])
