"""Models already on this computer (issue #18): found read-only where LM Studio, Jan,
GPT4All and Ollama keep them, with what is there treated as not ours."""

from __future__ import annotations

import json
import os
from pathlib import Path

from core.discovery import find, places
from tests.inference import gguf_builder

DIGEST = "ab" * 32


def gguf(path: Path, name: str = "tiny") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gguf_builder.build({"general.name": name}))
    return path


def manifest(folder: Path, model: str, tag: str, layers: list[dict], namespace: str = "library") -> Path:
    path = folder / "manifests" / "registry.ollama.ai" / namespace / model / tag
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"schemaVersion": 2, "layers": layers}))
    return path


def test_each_apps_folders_are_searched_and_ollama_blobs_named_by_their_manifest(tmp_path: Path) -> None:
    home = tmp_path / "home"
    lm = gguf(home / ".lmstudio" / "models" / "lmstudio-community" / "Qwen2.5-7B" / "qwen2.5-7b-q4.gguf")
    gpt = gguf(home / ".local" / "share" / "nomic.ai" / "GPT4All" / "Llama-3.2-3B-Instruct-Q4_0.gguf")
    ollama = home / ".ollama" / "models"
    blob = gguf(ollama / "blobs" / f"sha256-{DIGEST}")
    manifest(ollama, "llama3.2", "3b", [{"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:" + "cd" * 32},
                                        {"mediaType": "application/vnd.ollama.image.model", "digest": f"sha256:{DIGEST}"}])
    found = find(places(home, env={}, platform="linux"))
    assert [(f.source, f.name, f.path) for f in found] == [
        ("LM Studio", "qwen2.5-7b-q4.gguf", lm), ("GPT4All", "Llama-3.2-3B-Instruct-Q4_0.gguf", gpt),
        ("Ollama", "llama3.2:3b", blob)]
    assert found[0].size == lm.stat().st_size


def test_what_only_looks_like_a_model_or_leads_elsewhere_is_not_offered(tmp_path: Path) -> None:
    home = tmp_path / "home"
    models = home / ".lmstudio" / "models"
    (models / "notes").mkdir(parents=True)
    (models / "notes" / "readme.gguf").write_text("a text file named .gguf")  # not GGUF inside
    outside = gguf(tmp_path / "private" / "elsewhere.gguf")
    os.symlink(outside, models / "link.gguf")  # a link leads out: not followed
    os.symlink(tmp_path / "private", models / "linked-folder")
    deep = models
    for level in range(10):
        deep = deep / f"d{level}"
    gguf(deep / "too-deep.gguf")
    ollama = home / ".ollama" / "models"
    (ollama / "blobs").mkdir(parents=True)
    gguf(tmp_path / "secret.gguf")
    manifest(ollama, "evil", "latest", [{"mediaType": "application/vnd.ollama.image.model",
                                         "digest": "sha256:../../../secret.gguf"}])  # a path, not a digest
    big = manifest(ollama, "huge", "latest", [])
    big.write_text(json.dumps({"layers": [], "pad": "x" * 300_000}))  # too big to read
    (ollama / "manifests" / "registry.ollama.ai" / "library" / "broken").mkdir(parents=True)
    (ollama / "manifests" / "registry.ollama.ai" / "library" / "broken" / "latest").write_bytes(b"\xff{not json")
    assert find(places(home, env={}, platform="linux")) == []


def test_the_places_follow_each_system_and_ollamas_own_setting(tmp_path: Path) -> None:
    home = tmp_path
    mac = places(home, env={}, platform="darwin")
    assert ("Jan", home / "Library" / "Application Support" / "Jan" / "data" / "models") in mac
    windows = places(home, env={"APPDATA": "C:/Users/me/AppData/Roaming", "LOCALAPPDATA": "C:/L",
                                "OLLAMA_MODELS": "D:/ollama"}, platform="win32")
    assert ("GPT4All", Path("C:/L") / "nomic.ai" / "GPT4All") in windows and ("Ollama", Path("D:/ollama")) in windows
