"""Which model the app opens, the bundled starter model's first-launch placement,
copying a model into the library (cancellable, never leaving a partial file), and
checking that a model used where it is (library mode "reference") is still the file that
was imported before it is loaded."""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

from i18n import translate
from inference import cpu_variant
from inference.bundled import (
    choose_model,
    embedding_model,
    provision,
    retired_embedding_models,
    source_path,
    starter_model,
)
from inference.errors import ModelLoadError
from storage.paths import data_dir, models_dir

log = logging.getLogger(__name__)


def resolve_model() -> Path:
    """The model to open. Places the bundled starter model first if it is missing.

    Raises ModelLoadError with a message for the user when there is no model at all.
    """
    folder = models_dir()
    try:
        starter = provision(starter_model(), folder)
        # The CPU-variant probe loads the starter model in a separate process.
        cpu_variant.configure(starter, data_dir() / "cpu-variant.json")
    except ModelLoadError as exc:
        log.warning("bundled model not provisioned: %s", type(exc).__name__)
        chosen = choose_model(folder)
        if chosen is None:
            raise
        return chosen
    chosen = choose_model(folder)
    if chosen is None:  # pragma: no cover - provision just placed one
        raise ModelLoadError(translate("core.models", "No model was found in {folder}.").format(folder=folder))
    return chosen


def resolve_embedding_model() -> Path:
    """The bundled embedding model, placed in the models folder. Raises ModelLoadError."""
    return provision(embedding_model(), models_dir())


def previous_embedding_models() -> list[tuple[Path, str]]:
    """(path, manifest sha256) of the embedding models earlier versions shipped that are
    still here: in the models folder, where the earlier version placed them, or in this
    environment (a development install builds them for the tests).

    Loaded beside the default model, one answers for the collections made with it until
    their re-embedding is done; without it they answer by keywords alone meanwhile. Load
    it with ``LoadEmbedder(path)`` and no sha256: the worker hashes the file, so a file that
    is not the model it is named after gets an identity of its own and answers for nothing.
    Loading it only while some collection's ``embedding_model`` is its sha256 keeps the
    memory (45 MB) for when it is needed."""
    found = []
    for model in retired_embedding_models():
        path = models_dir() / model.file
        if not path.is_file():
            source = source_path(model)
            if source is None:
                continue
            path = source
        found.append((path, model.sha256))
    return found


class Cancelled(Exception):
    """A copy or hash was stopped (lock or quit); its partial file is gone."""


class ModelChanged(Exception):
    """A referenced model's file is no longer the one that was imported (its sha256
    differs). The message is for the user."""


def file_signature(path: Path) -> dict[str, int]:
    """What says cheaply that a file may have changed: its size and modification time, and
    which file it is and when its inode last changed (a file replaced in place with the
    same size and a reset mtime, ``touch -r``, still has a new ctime: nobody can set it)."""
    status = os.stat(path)
    return {"size": status.st_size, "mtime_ns": status.st_mtime_ns, "inode": status.st_ino,
            "ctime_ns": status.st_ctime_ns}


def verify_reference(path: Path, sha256: str, name: str,
                     cancel: threading.Event | None = None) -> dict[str, int]:
    """Hash a referenced model again; its signature (taken before hashing) when it is
    still the file the library knows, else ModelChanged. Stops within a block on cancel.

    A file replaced in place (a newer download under the same name, or a planted one)
    would otherwise be loaded as the model the user checked and trusted."""
    signature = file_signature(path)
    if hash_file(path, cancel) != sha256:
        raise ModelChanged(translate(
            "core.models",
            "The file of “{name}” changed since it was imported (its SHA-256 no longer "
            "matches), so Hearth did not load it. If you replaced it on purpose, remove the "
            "model from the library and import the file again.").format(name=name))
    return signature


BLOCK = 1 << 20


def hash_file(path: Path, cancel: threading.Event | None = None) -> str:
    """The file's sha256, stopping within one block when ``cancel`` is set."""
    digest = hashlib.sha256()
    with open(path, "rb") as src:
        while block := src.read(BLOCK):
            if cancel is not None and cancel.is_set():
                raise Cancelled(f"hashing {path.name} was stopped")
            digest.update(block)
    return digest.hexdigest()


def copy_with_hash(source: Path, folder: Path, cancel: threading.Event | None = None) -> tuple[Path, str]:
    """Copy into the library under a temporary name, hashing on the way; name it by its hash.

    The partial copy is removed whatever happens: a full disk, a read error, a cancel."""
    folder.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=folder, prefix=".importing-", suffix=".partial")
    partial = Path(name)  # unique: two imports at once never write the same file
    digest = hashlib.sha256()
    try:
        with open(source, "rb") as src, os.fdopen(handle, "wb") as dst:
            while block := src.read(BLOCK):
                if cancel is not None and cancel.is_set():
                    raise Cancelled(f"copying {source.name} was stopped")
                digest.update(block)
                dst.write(block)
        sha = digest.hexdigest()
        target = folder / f"{sha}.gguf"
        os.replace(partial, target)
        return target, sha
    finally:
        partial.unlink(missing_ok=True)


def check_projector(path: Path, text_width: int) -> None:
    """InvalidGGUF, in words, unless ``path`` is a projector of pictures for a model that
    wide (``inference.projectors``)."""
    from inference.projectors import check_projector as check

    check(path, text_width)


def projector_beside(model: Path, text_width: int) -> tuple[Path | None, str]:
    """A vision model's projector found beside ``model`` and checked
    (``inference.projectors``): (its path, "") or (None, why it was not kept; "" when
    there was none)."""
    from inference.gguf import InvalidGGUF
    from inference.projectors import check_projector, find_projector

    found = find_projector(model)
    if found is None:
        return None, ""
    try:
        check_projector(found, text_width)
    except InvalidGGUF as exc:
        return None, str(exc)
    return found, ""


def projector_of(entry: Any) -> Path | None:
    """A library entry's projector, if it has one, the file is there and it still reads as
    a projector for this model (checked again at each load by the bounded GGUF reader: a
    file changed in the user's folder since must not reach llama.cpp's own parser)."""
    from inference.gguf import InvalidGGUF

    kept = entry.info.get("projector")
    if not (isinstance(kept, str) and kept and Path(kept).is_file()):
        return None
    try:
        check_projector(Path(kept), int(entry.info.get("embedding_length") or 0))
    except (InvalidGGUF, OSError, ValueError):
        log.warning("a model's picture reader no longer reads as one; the model is loaded without it")
        return None
    return Path(kept)
