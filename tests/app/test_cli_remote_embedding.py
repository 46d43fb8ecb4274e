"""`docs embed`: a collection embedded on the organisation's engine and back, as a script
runs it, against a real llama-server embedding with multilingual-e5 behind TLS (#43)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import retrieval_set
from tests.app.test_cli_engines import hearth

pytestmark = [pytest.mark.model, pytest.mark.e2e, pytest.mark.slow]
QUESTION = "What is the mooring fee per meter?"


def test_a_collection_is_embedded_on_the_engine_said_first_and_back_here(data_dir: Path, embedding_engine,
                                                                          tmp_path: Path) -> None:
    where = f"{embedding_engine.host}:{embedding_engine.port}"
    assert hearth(data_dir, "engines", "add", "Corp", embedding_engine.url, "--ca",
                  str(embedding_engine.pki.ca_path)).returncode == 0
    folder = retrieval_set.write_corpus(tmp_path / "corpus")
    assert hearth(data_dir, "docs", "add", "work", str(folder)).returncode == 0

    moved = hearth(data_dir, "docs", "embed", "work", "--engine", "corp")
    assert moved.returncode == 0, moved.stderr
    assert f"every passage of “work” goes to the engine Corp ({where})" in moved.stderr
    assert "work is now embedded by corp-multilingual-e5-small on Corp." in moved.stdout
    assert "embedded by corp-multilingual-e5-small on Corp" in hearth(data_dir, "docs", "list").stdout
    extra = tmp_path / "lighthouse.md"
    extra.write_text("# Lighthouse\n\nThe keeper logs every ship that passes at night.\n")
    added = hearth(data_dir, "docs", "add", "work", str(extra))
    assert added.returncode == 0, added.stderr
    assert "The text of the passages goes to corp-multilingual-e5-small on Corp" in added.stderr

    found = hearth(data_dir, "docs", "search", "work", QUESTION, "--json")
    assert found.returncode == 0, found.stderr
    assert "Your question goes to corp-multilingual-e5-small on Corp to be embedded" in found.stderr
    hits = json.loads(found.stdout)
    assert Path(hits[0]["file"]).name == "harbor.pdf" and hits[0]["cosine"] > 0.5

    # The engine gone: the question is searched by its words, and the command says why.
    assert hearth(data_dir, "engines", "remove", "Corp").returncode == 0
    alone = hearth(data_dir, "docs", "search", "work", QUESTION, "--json")
    assert alone.returncode == 0, alone.stderr
    assert "no longer among your engines" in alone.stderr and "by its keywords alone" in alone.stderr
    assert Path(json.loads(alone.stdout)[0]["file"]).name == "harbor.pdf"
    refused = hearth(data_dir, "docs", "embed", "work", "--engine", "Corp")
    assert refused.returncode == 1 and "no engine named Corp" in refused.stderr

    home = hearth(data_dir, "docs", "embed", "work", "--here")
    assert home.returncode == 0, home.stderr
    assert "work is now embedded on this computer." in home.stdout and "goes to the engine" not in home.stderr
    listed = hearth(data_dir, "docs", "list").stdout
    assert "embedded by" not in listed
    again = json.loads(hearth(data_dir, "docs", "search", "work", QUESTION, "--json").stdout)
    assert Path(again[0]["file"]).name == "harbor.pdf" and again[0]["cosine"] > 0.5
