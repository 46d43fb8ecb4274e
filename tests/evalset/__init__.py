"""The frozen retrieval evaluation: questions about real documents (``corpus.py``), written
from the documents' meaning by people who do not tune the search, committed before any
tuning, with a held-out part that tuning never looks at.

``questions/*.jsonl``, one question a line: ``id``, ``lang`` (the question's language),
``collection`` (``en`` or ``zh``: the documents' language; a question in the other
language is cross-lingual), ``question``, ``file``, ``page`` (the physical page, for a
PDF), ``kind`` (``keyword``: it names a command, file or term of the passage;
``paraphrase``: by meaning only) and ``answer`` (the passage's own words, to check the
label). The split is fixed by the question's id (``held_out``), so it cannot drift
towards what a change happens to do well on.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

QUESTIONS = Path(__file__).with_name("questions")
HELD_OUT_SHARE = 0.3
PAGE_SLACK = 1  # "the right page": the labelled one, or one either side (a passage may span)


@dataclass(frozen=True)
class Question:
    id: str
    lang: str
    collection: str
    question: str
    file: str
    page: int | None
    kind: str
    answer: str

    @property
    def held_out(self) -> bool:
        digest = hashlib.sha256(f"hearth-evalset:{self.id}".encode()).digest()
        return int.from_bytes(digest[:4], "big") / 2**32 < HELD_OUT_SHARE

    @property
    def group(self) -> str:
        """en, zh, or cross (a question in the other language than its documents)."""
        return self.lang if self.lang == self.collection else "cross"

    @property
    def format(self) -> str:
        name = self.file.lower()
        if name.endswith(".pdf"):
            return "pdf-scan" if "-scan." in name else "pdf-2col" if "customizing-kernel" in name else "pdf"
        return name.rsplit(".", 1)[-1]


def load(folder: Path = QUESTIONS) -> list[Question]:
    found = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                found.append(Question(row["id"], row["lang"], row["collection"], row["question"],
                                      row["file"], row.get("page"), row["kind"], row["answer"]))
    return found


# A ranked answer: (file name, page or None) for each hit, best first.
Ranked = Sequence[tuple[str, int | None]]


def scores(question: Question, ranked: Ranked) -> dict[str, float | None]:
    files = [Path(name).name for name, _page in ranked]
    rank = files.index(question.file) + 1 if question.file in files else 0
    page = None
    if question.page is not None:
        first = next((p for name, p in ranked if Path(name).name == question.file), None)
        page = float(first is not None and abs(first - question.page) <= PAGE_SLACK)
    return {"recall@1": float(rank == 1), "recall@5": float(0 < rank <= 5),
            "mrr": 1.0 / rank if rank else 0.0, "page": page}


def evaluate(search: Callable[[Question], Ranked], questions: Sequence[Question]
             ) -> dict[str, dict[str, float]]:
    """{slice: {recall@1, recall@5, mrr, page, n, n_page}} for every slice of the questions:
    all, by part (tune / held-out), by group (en, zh, cross), by kind and by format, and
    by group within each part."""
    rows = [(q, scores(q, search(q))) for q in questions]
    slices: dict[str, list[dict[str, float | None]]] = defaultdict(list)
    for q, s in rows:
        part = "held-out" if q.held_out else "tune"
        for name in ("all", part, q.group, f"{part}/{q.group}", f"kind/{q.kind}",
                     f"format/{q.format}", f"{q.group}/{q.kind}"):
            slices[name].append(s)
    out = {}
    for name, items in sorted(slices.items()):
        pages = [s["page"] for s in items if s["page"] is not None]
        out[name] = {key: sum(s[key] or 0.0 for s in items) / len(items)
                     for key in ("recall@1", "recall@5", "mrr")}
        out[name].update(page=sum(pages) / len(pages) if pages else float("nan"),
                         n=len(items), n_page=len(pages))
    return out


def misses(search: Callable[[Question], Ranked], questions: Sequence[Question]) -> list[str]:
    """One line per question that is not found first (for reading, never for tuning on the
    held-out part)."""
    lines = []
    for q in questions:
        ranked = search(q)
        s = scores(q, ranked)
        if s["recall@1"] < 1 or s["page"] == 0.0:
            got = ", ".join(f"{Path(n).name}{'' if p is None else f' p{p}'}" for n, p in ranked[:3])
            lines.append(f"{q.id} [{q.group}/{q.kind}] {q.question!r} -> want {q.file}"
                         f"{'' if q.page is None else f' p{q.page}'}; got {got}")
    return lines
