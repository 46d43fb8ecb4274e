"""The frozen retrieval evaluation (tests/evalset): the corpus builds the same bytes every
time, every label points at its answer, and a fixed slice of the held-out part (never
tuned on) finds its files and pages above floors well below the goals, so a regression
as large as the one #35 found fails here. The whole set is measured by
``python -m benchmarks --only retrieval``."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from tests import evalset
from tests.evalset import corpus

# A slice of the held-out part: the questions about every file but the two 250-page
# reference books (which take most of the indexing time), through the real pipeline.
BIG = ("debian-reference.en.pdf", "debian-reference.zh-cn.pdf")
# Measured on this slice at the end of the first round (2026-12-04): recall@5 0.83, page
# 0.71 (17 page questions). The floors sit below that by more than noise and above what
# the regression #35 found would give (recall@5 down 0.13, page down 0.40). Goals: 0.95.
FLOORS = {"recall@5": 0.70, "page": 0.45}
GROUP_FLOOR = 0.5  # recall@5 of each group (en, zh, cross: 8 to 20 questions each)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    try:
        debs = corpus.fetch()
    except corpus.Unavailable as exc:
        if corpus.shutil.which("apt-get"):
            pytest.fail(f"{exc} (packaging/bootstrap.py test fetches them)")
        pytest.skip(f"the evaluation corpus is Debian's documentation: {exc}")
    if not corpus.CJK_FONT.exists():
        pytest.skip(f"{corpus.CJK_FONT} is missing (packaging/bootstrap.py test installs it on Debian)")
    return corpus.build(tmp_path_factory.mktemp("evalset"), debs)


def test_the_corpus_is_the_same_bytes_every_time(built: dict[str, Path], tmp_path: Path) -> None:
    again = corpus.build(tmp_path, corpus.fetch())
    assert corpus.digest(tmp_path) == corpus.digest(built["en"].parent)
    files = {name: sorted(p.suffix for p in folder.iterdir()) for name, folder in again.items()}
    assert len(files["en"]) + len(files["zh"]) >= 150
    kinds = set(files["en"]) | set(files["zh"])
    assert kinds >= {".pdf", ".html", ".docx", ".epub", ".pptx", ".xlsx", ".md", ".rst", ".txt"}


def _text(path: Path) -> list[str]:
    """What a label is checked against: a PDF's pages (PDFium's text), else the file."""
    if path.suffix == ".pdf":
        import pypdfium2 as pdfium

        document = pdfium.PdfDocument(str(path))
        try:
            return [document[i].get_textpage().get_text_range() for i in range(len(document))]
        finally:
            document.close()
    if path.suffix in (".docx", ".pptx", ".xlsx", ".epub"):
        with zipfile.ZipFile(path) as archive:
            return [" ".join(re.sub(r"<[^>]+>", " ", archive.read(n).decode("utf-8", "replace"))
                             for n in archive.namelist() if n.endswith((".xml", ".html", ".xhtml")))]
    text = path.read_text(encoding="utf-8")
    return [re.sub(r"<[^>]+>", " ", text) if path.suffix == ".html" else text]


def test_the_set_is_large_and_every_label_points_at_its_answer(built: dict[str, Path]) -> None:
    import html

    questions = evalset.load()
    assert len(questions) >= 200 and len({q.id for q in questions}) == len(questions)
    groups = {g: [q for q in questions if q.group == g] for g in ("en", "zh", "cross")}
    assert all(len(g) >= 40 for g in groups.values())
    assert {q.lang for q in groups["cross"]} == {"en", "zh"}
    held = [q for q in questions if q.held_out]
    assert 0.25 <= len(held) / len(questions) <= 0.35
    squash = lambda text: re.sub(r"\s+", "", html.unescape(text))  # noqa: E731
    texts = {(lang, p.name): [squash(t) for t in _text(p)] for lang, folder in built.items()
             for p in folder.iterdir()}
    for q in questions:
        pages = texts[(q.collection, q.file)]
        if "-scan." in q.file:
            continue  # page images: their text is the OCR's (checked by the slice below)
        where = pages[q.page - 1] if q.page else "".join(pages)
        assert squash(q.answer) in where, q.id
        others = [name for (lang, name), t in texts.items()
                  if lang == q.collection and name != q.file and squash(q.answer) in "".join(t)]
        assert not others, (q.id, others)  # one place answers it


def test_a_latex_pdf_is_read_with_its_word_spaces(built: dict[str, Path]) -> None:
    """XeLaTeX sets word spaces as glyph positions, not characters; pypdf ran the words of
    the Debian Reference together ("grep(1)canbeusedtoperform..."), which neither search
    could match. The parser reads the text with PDFium."""
    from storage.documents.isolation import IsolatedParser

    with IsolatedParser(timeout=120) as parser:
        sections, _ = parser.parse(built["en"] / "debian-reference.en.pdf")
        guide, _ = parser.parse(built["en"] / "maint-guide.en.pdf")
    page = next(s for s in sections if s.page == 61)
    assert "grep(1) can be used to perform the text search using the regular expression" in page.text
    assert "predefined" in next(s for s in sections if s.page == 39).text and "\ufffe" not in "".join(s.text for s in sections)
    assert "Debian New Maintainers’ Guide" in guide[0].text


@pytest.mark.model
@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_a_held_out_slice_finds_its_files_and_pages(built: dict[str, Path], embedding_model_path: Path,
                                                    tmp_path: Path) -> None:
    from inference.bundled import embedding_model
    from inference.embedder import LlamaEmbedder
    from inference.llama_engine import LlamaEngine
    from inference.protocol import LoadEmbedder
    from inference.worker import InferenceWorker
    from tests.evalset.runner import EvalCollections

    questions = [q for q in evalset.load() if q.held_out and q.file not in BIG]
    files = {name: sorted(p for p in folder.iterdir() if p.name not in BIG) for name, folder in built.items()}
    worker = InferenceWorker(LlamaEngine, lambda _e: None, embedder_factory=LlamaEmbedder)
    worker.start()
    try:
        sha = embedding_model().sha256
        worker.submit(LoadEmbedder(embedding_model_path, sha))
        collections = EvalCollections(worker, sha, built, tmp_path / "vault", files)
        try:
            assert all(not report.failed for report in collections.reports.values()), collections.reports
            results = evalset.evaluate(collections.search(), questions)
        finally:
            collections.close()
    finally:
        worker.shutdown(5)
    every = results["all"]
    assert every["n"] >= 40 and every["n_page"] >= 15
    for key, floor in FLOORS.items():
        assert every[key] >= floor, (key, every)
    for group in ("en", "zh", "cross"):
        assert results[group]["recall@5"] >= GROUP_FLOOR, (group, results[group])
