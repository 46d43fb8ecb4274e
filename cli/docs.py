"""``docs add|list|search``: the document collections from the terminal."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cli.common import opened, terminal_safe
from core.document_progress import Progress, label
from core.documents import FAILED, INDEXED, PENDING, SKIPPED
from core.remote_embedding import choose, disclosure, sent_to, shown
from i18n import translate

PREVIEW = 240  # characters of a passage that `docs search` shows


def _status(status: str) -> str:
    """A document's state (a stored value, compared in code) in the user's words."""
    words = {INDEXED: translate("cli.commands", "indexed"),
             PENDING: translate("cli.commands", "pending"),
             SKIPPED: translate("cli.commands", "skipped"),
             FAILED: translate("cli.commands", "failed")}
    return words.get(status, status)


def docs_add(name: str, paths: list[str]) -> int:
    """Index ``paths`` into the collection ``name`` (made if new)."""
    return _ingest(name, paths)


def docs_sync(name: str) -> int:
    """Catch the collection up with its files and folders: the new and changed indexed,
    a renamed one's passages kept, the deleted dropped."""
    return _ingest(name, None)


def _show(progress: Progress) -> None:
    """A job's progress on one line of standard error, written over as it goes."""
    eta = (translate("cli.commands", ", about {seconds:.0f} s left").format(
        seconds=progress.eta_seconds) if progress.eta_seconds else "")
    what = (translate("cli.commands", "re-indexing for the embedding model: ")
            if progress.reembedding else "")
    chunks = progress.chunks_done  # a plain name: pyside6-lupdate skips an expression
    line = translate("cli.commands", "{what}[{done}/{total}] {chunks}{eta}").format(
        what=what, done=progress.files_done, total=progress.files_total,
        chunks=translate("cli.commands", "%n chunks", None, chunks), eta=eta)
    print(f"\r{line}  ", end="", file=sys.stderr, flush=True)


def docs_embed(name: str, engine: str, model_id: str) -> int:
    """Embed the collection on the intranet engine ``engine`` (its passages' text is sent
    there, and each question to it), or with this computer's model again (``engine`` "")."""
    with opened() as (documents, _client):
        collection = documents.collection(name)
        embedder = ""
        if engine:
            assert documents.engines is not None
            choice = choose(documents.engines(), engine, model_id)
            embedder = choice.model
            print(disclosure(choice, collection.name), file=sys.stderr)  # before anything leaves
        switched = documents.embed_with(collection, embedder, _show)
        print(file=sys.stderr)
        if switched.embedder:
            print(translate("cli.commands", "{collection} is now embedded by {model}.").format(
                collection=switched.name, model=shown(switched.embedding_model)))
        else:
            print(translate("cli.commands", "{collection} is now embedded on this computer.").format(
                collection=switched.name))
    return 0


def _ingest(name: str, paths: list[str] | None) -> int:
    with opened() as (documents, _client):
        collection = documents.collection(name, create=paths is not None)
        show = _show
        if sent_to(collection):  # said before any passage leaves
            print(translate("cli.commands", "The text of the passages goes to {model} to be "
                            "embedded; the documents, the index and the vectors stay on this "
                            "computer.").format(model=shown(sent_to(collection))), file=sys.stderr)

        report = (documents.add(collection, [Path(p) for p in paths], show) if paths is not None
                  else documents.sync(collection, show))
        print(file=sys.stderr)
        for path in report.indexed:
            print(translate("cli.commands", "indexed  {path}").format(path=path))
        for path, why in report.skipped:
            print(translate("cli.commands", "skipped  {path}: {why}").format(path=path, why=why))
        for path, why in report.failed:
            print(translate("cli.commands", "failed   {path}: {why}").format(path=path, why=why))
        chunks = report.chunks
        print(translate("cli.commands", "{indexed} indexed, {skipped} skipped, {failed} failed; "
                        "{chunks}").format(indexed=len(report.indexed), skipped=len(report.skipped),
                                           failed=len(report.failed),
                                           chunks=translate("cli.commands", "%n chunks", None, chunks)))
    # A script must see that a file was not indexed (a missing path, a broken file).
    return 1 if report.failed else 0


def docs_list() -> int:
    with opened(read_only=True) as (documents, _client):
        snapshot = documents.collections()
        for collection in snapshot.collections:
            docs = snapshot.documents.get(collection.id, ())
            count = len(docs)
            files = translate("cli.commands", "%n files", None, count)
            print(translate("cli.commands", "{collection}: {files}").format(
                collection=collection.name, files=files))
            if sent_to(collection):
                print("  " + translate("cli.commands", "embedded by {model}").format(
                    model=shown(sent_to(collection))))
            for doc in docs:
                why = f" ({doc.reason})" if doc.reason else ""
                print(f"  {_status(doc.status):<8} {doc.path}{why}")
    return 0


def docs_search(name: str, question: str, k: int, as_json: bool, mode: str) -> int:
    with opened(read_only=True) as (documents, _client):
        collection = documents.collection(name)
        hits = documents.wait(documents.find(question, collection, k, mode))
        rows = [{"file": h.chunk.path, "page": h.chunk.page, "section": h.chunk.heading,
                 "score": round(h.score, 6), "cosine": round(h.cosine, 4), "text": h.chunk.text}
                for h in hits]
        if as_json:
            print(json.dumps(rows, ensure_ascii=False, indent=2))
        else:
            for n, hit in enumerate(hits, start=1):
                # The passage as a reader sees it: one line, its spaces plain, control
                # characters gone, cut at a word. Scores are for --json.
                text = " ".join(terminal_safe(hit.chunk.text).split())
                if len(text) > PREVIEW:
                    text = text[:PREVIEW].rsplit(" ", 1)[0] + " …"
                print(translate("cli.commands", "[{number}] {passage}\n    {text}")
                      .format(number=n, passage=terminal_safe(label(hit.chunk)), text=text))
            if not rows:
                print(translate("cli.commands", "No relevant passages found."))
    return 0
