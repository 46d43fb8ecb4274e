"""The models that ship with Hearth, and putting them into the user's models folder.

Each bundled model has a manifest in ``assets/models`` (file, sha256, license, the
package that carries it). Provisioning finds the file in that installed package (or in
the frozen app's bundle), verifies its hash and places it in the models folder with a
hard link where possible, a verified copy otherwise. Nothing here touches the network.

A manifest with ``"bundled": false`` is a model an earlier version shipped: no longer in
the installer, still known by its sha256 (how its collections are embedded, its prefixes,
and that its file in the models folder is no chat model). The default embedding model is
the one marked ``"default": true``, never whichever file sorts first.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import json
import os
import shutil
import sys
from dataclasses import dataclass
from importlib import util as importlib_util
from pathlib import Path

from i18n import translate
from inference.errors import ModelLoadError

_HASH_CHUNK = 1 << 20


@dataclass(frozen=True)
class BundledModel:
    id: str
    name: str
    role: str
    file: str
    sha256: str
    license: str
    package: str
    package_file: str
    converted: bool = False  # built at install time from the package (see packaging/)
    default: bool = False  # the one of its role that the app uses unless the user chose another
    bundled: bool = True  # False: shipped by an earlier version only (known, not installed)
    # Embedding models: what the model was trained to see before a question and a passage
    # (multilingual-e5: "query: " and "passage: "), and the chunk size it is cut for.
    query_prefix: str = ""
    passage_prefix: str = ""
    chunk_tokens: int = 0  # 0: the chunker's default
    # The cosine below which a passage found by this model's vectors alone is not relevant
    # (0: the search's default). multilingual-e5 puts every pair of texts above 0.65.
    min_cosine: float = 0.0
    # Chat models: the languages it answers too poorly to be trusted with a document
    # question (SmolLM2-135M: Chinese; benchmarks/starter_bench.py measures it).
    weak_languages: tuple[str, ...] = ()


def assets_dir() -> Path:
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        return Path(frozen_root) / "assets"
    return Path(__file__).resolve().parent.parent / "assets"


@functools.cache
def known_models() -> tuple[BundledModel, ...]:
    """Every manifest, retired ones included, read once (they ship with the app)."""
    found = []
    for path in sorted((assets_dir() / "models").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        fields = {k: data[k] for k in BundledModel.__dataclass_fields__ if k in data}
        if "weak_languages" in fields:
            fields["weak_languages"] = tuple(fields["weak_languages"])
        found.append(BundledModel(**fields))
    return tuple(found)


def manifests() -> tuple[BundledModel, ...]:
    """The models this version ships (the installer carries these and no others)."""
    return tuple(m for m in known_models() if m.bundled)


def _default(role: str) -> BundledModel:
    """The shipped model of ``role`` marked default, else the only one; a manifest set with
    two candidates and no default is a packaging mistake, refused rather than guessed."""
    shipped = [m for m in manifests() if m.role == role]
    marked = [m for m in shipped if m.default]
    chosen = marked if marked else shipped
    if len(chosen) != 1:
        raise LookupError(f"{len(chosen)} default {role} models in assets/models: mark exactly one")
    return chosen[0]


def weak_languages(path: Path | str) -> frozenset[str]:
    """The languages the model in ``path`` is known to answer poorly in: a bundled model's,
    recognised by its file name (none known for any other)."""
    name = Path(path).name
    return frozenset(next((m.weak_languages for m in known_models() if m.role == "chat" and m.file == name), ()))


def starter_model() -> BundledModel:
    return _default("chat")


def embedding_model() -> BundledModel:
    """The default embedding model: new collections are embedded with it, and collections
    made by another are re-embedded with it in the background."""
    return _default("embedding")


def retired_embedding_models() -> tuple[BundledModel, ...]:
    """Embedding models that earlier versions shipped, whose collections may still wait for
    their re-embedding."""
    return tuple(m for m in known_models() if m.role == "embedding" and not m.bundled)


def by_sha256(sha256: str) -> BundledModel | None:
    """The manifest of a model file, shipped now or before, by its sha256."""
    return next((m for m in known_models() if sha256 and m.sha256 == sha256), None)


def converted_dir() -> Path:
    """Where the install step puts models it converted (inside the environment)."""
    return Path(sys.prefix) / "hearth-models"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(_HASH_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def source_path(model: BundledModel) -> Path | None:
    """Where the installed package (or the frozen bundle) keeps the model file."""
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        candidate = Path(frozen_root) / "models" / model.file
        return candidate if candidate.is_file() else None
    if model.converted:
        candidate = converted_dir() / model.file
        return candidate if candidate.is_file() else None
    top_package = model.package_file.split("/", 1)[0]
    spec = importlib_util.find_spec(top_package)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location).parent / model.package_file
        if candidate.is_file():
            return candidate
    return None


def provision(model: BundledModel, models_dir: Path) -> Path:
    """Make sure ``model`` is in ``models_dir``, verified; return its path there."""
    target = models_dir / model.file
    source = source_path(model)
    if target.is_file() and (source is None or target.stat().st_size == source.stat().st_size):
        return target
    if source is None:
        raise ModelLoadError(translate(
            "inference.bundled",
            "The bundled model {name} is not installed. Run the install command from "
            "the README again (it installs the package {package})."
        ).format(name=model.name, package=model.package))
    models_dir.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        try:
            os.link(source, partial)
        except OSError:
            shutil.copyfile(source, partial)
        if sha256_of(partial) != model.sha256:
            raise ModelLoadError(translate(
                "inference.bundled",
                "The bundled model file {path} is damaged (its checksum does not match). "
                "Reinstall the package {package}."
            ).format(path=source, package=model.package))
        os.replace(partial, target)
    except OSError as exc:
        raise ModelLoadError(_placing_failed(model, source, models_dir, exc)) from exc
    finally:
        partial.unlink(missing_ok=True)  # gone once placed; never left half-written
    return target


def _placing_failed(model: BundledModel, source: Path, folder: Path, exc: OSError) -> str:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        need = source.stat().st_size / (1 << 20)
        return translate(
            "inference.bundled",
            "The disk is full: the bundled model {name} ({size:,.0f} MB) could not be "
            "placed in {folder}. Nothing was left behind; free some space and start Hearth again."
        ).format(name=model.name, size=need, folder=folder)
    reason = exc.strerror or str(exc)
    return translate(
        "inference.bundled",
        "The bundled model {name} could not be placed in {folder} ({reason}). "
        "Nothing was left behind."
    ).format(name=model.name, folder=folder, reason=reason)


def choose_model(models_dir: Path) -> Path | None:
    """The model the app opens: the starter model if present, else the first GGUF by name."""
    starter = models_dir / starter_model().file
    if starter.is_file():
        return starter
    not_chat = {m.file for m in known_models() if m.role != "chat"}
    candidates = sorted(p for p in models_dir.glob("*.gguf") if p.is_file() and p.name not in not_chat)
    return candidates[0] if candidates else None


def bundled_name(path: Path) -> str | None:
    """The friendly name of a bundled model file, or None for the user's own models."""
    for model in known_models():
        if model.file == path.name:
            return model.name
    return None
