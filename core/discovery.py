"""Models the user already has: GGUF files in the folders where LM Studio, Jan, GPT4All
and Ollama keep them, found read-only and offered for import by reference.

Nothing is downloaded, copied or changed; the app looks only after the user agreed, and
only in the folders listed (``places``). What it reads there is not its own: links are
not followed, the walk is bounded in depth and in count, an Ollama manifest is read only
if small and must name its blob by a sha256 digest (a digest that spells a path is
ignored), and a file is offered only if it starts like a GGUF file. The import itself then
validates the file as any other (``inference.modelinfo.read_info``).
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

MAX_DEPTH = 6  # folders below a place
MAX_FOUND = 500
MAX_MANIFEST = 256 * 1024  # bytes of one Ollama manifest
GGUF_MAGIC = b"GGUF"
OLLAMA_MODEL = "application/vnd.ollama.image.model"
_DIGEST = re.compile(r"sha256[:-]([0-9a-f]{64})")


@dataclass(frozen=True)
class Found:
    name: str  # what the other app calls it ("llama3.2:3b", or the file's name)
    path: Path
    source: str  # "LM Studio", "Jan", "GPT4All", "Ollama"
    size: int


def places(home: Path | None = None, env: Mapping[str, str] | None = None,
           platform: str = sys.platform) -> list[tuple[str, Path]]:
    """Where each app keeps its models on this system (whether or not they exist)."""
    home = home or Path.home()
    env = os.environ if env is None else env
    if platform == "win32":
        appdata = Path(env.get("APPDATA") or home / "AppData" / "Roaming")
        local = Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local")
        jan, gpt4all = appdata / "Jan" / "data" / "models", local / "nomic.ai" / "GPT4All"
    elif platform == "darwin":
        support = home / "Library" / "Application Support"
        jan, gpt4all = support / "Jan" / "data" / "models", support / "nomic.ai" / "GPT4All"
    else:
        data = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
        jan, gpt4all = data / "Jan" / "data" / "models", data / "nomic.ai" / "GPT4All"
    found = [("LM Studio", home / ".lmstudio" / "models"), ("LM Studio", home / ".cache" / "lm-studio" / "models"),
             ("Jan", jan), ("Jan", home / "jan" / "models"), ("GPT4All", gpt4all),
             ("Ollama", Path(env["OLLAMA_MODELS"]) if env.get("OLLAMA_MODELS") else home / ".ollama" / "models")]
    if platform.startswith("linux"):
        found.append(("Ollama", Path("/usr/share/ollama/.ollama/models")))  # its system service
    return found


def existing(candidates: list[tuple[str, Path]]) -> list[tuple[str, Path]]:
    """The places that are there (real folders, not links), for the user to agree to."""
    return [(source, path) for source, path in candidates if _is_folder(path)]


def find(candidates: list[tuple[str, Path]], limit: int = MAX_FOUND) -> list[Found]:
    """The GGUF files in those places, each once, at most ``limit``."""
    results: list[Found] = []
    seen: set[tuple[int, int]] = set()
    for source, folder in existing(candidates):
        walk = _ollama(folder) if source == "Ollama" else _gguf_files(folder)
        for name, path in walk:
            info = _regular(path)
            if info is None or (info.st_dev, info.st_ino) in seen or not _starts_like_gguf(path):
                continue
            seen.add((info.st_dev, info.st_ino))
            results.append(Found(name, path, source, info.st_size))
            if len(results) >= limit:
                return results
    return results


def _is_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _regular(path: Path) -> os.stat_result | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info if stat.S_ISREG(info.st_mode) else None


def _starts_like_gguf(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == GGUF_MAGIC
    except OSError:
        return False


def _files(folder: Path) -> Iterator[Path]:
    """Every file under ``folder`` in a stable order: links not followed, ``MAX_DEPTH`` deep."""
    base = len(folder.parts)
    for root, dirs, files in os.walk(folder, followlinks=False):
        if len(Path(root).parts) - base >= MAX_DEPTH:
            dirs.clear()
        dirs.sort()
        for name in sorted(files):
            yield Path(root) / name


def _gguf_files(folder: Path) -> Iterator[tuple[str, Path]]:
    for path in _files(folder):
        if path.name.lower().endswith(".gguf"):
            yield path.name, path


def _ollama(folder: Path) -> Iterator[tuple[str, Path]]:
    """Ollama keeps models as blobs named by digest; manifests (one per model and tag,
    under manifests/<registry>/<namespace>/<model>/<tag>) name the blob of the weights."""
    manifests, blobs = folder / "manifests", folder / "blobs"
    if not _is_folder(manifests) or not _is_folder(blobs):
        return
    base = len(manifests.parts)
    for manifest in _files(manifests):
        digest = _model_digest(manifest)
        if digest is None:
            continue
        parts = manifest.parts[base:]
        model = parts[-2] if len(parts) >= 2 else "model"
        namespace = parts[-3] if len(parts) >= 3 else ""
        name = (f"{namespace}/" if namespace and namespace != "library" else "") + f"{model}:{manifest.name}"
        yield name, blobs / f"sha256-{digest}"


def _model_digest(manifest: Path) -> str | None:
    """The hex digest of the weights a manifest names, or None (not one, too big, odd)."""
    info = _regular(manifest)
    if info is None or info.st_size > MAX_MANIFEST:
        return None
    try:
        data = json.loads(manifest.read_bytes())
    except (OSError, ValueError):
        return None
    layers = data.get("layers") if isinstance(data, dict) else None
    for layer in layers if isinstance(layers, list) else []:
        if isinstance(layer, dict) and layer.get("mediaType") == OLLAMA_MODEL:
            match = _DIGEST.fullmatch(str(layer.get("digest", "")))
            return match.group(1) if match else None
    return None
