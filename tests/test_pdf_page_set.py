"""The hard PDF page set holds what it says: each answer on its labelled page and on no
other page of its file (as pypdf extracts them), front matter numbered i, ii, ... in the
PDF's page labels, and the contents and index citing the printed page numbers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests import pdf_page_set as pages
from tests.pdf_layout import printed, roman


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[list[str], list[str]]]:
    folder = tmp_path_factory.mktemp("pdf-pages")
    found = {}
    for path in pages.write_corpus(folder):
        reader = PdfReader(path)
        found[path.name] = ([page.extract_text() for page in reader.pages], list(reader.page_labels))
    return found


def test_each_answer_is_on_its_labelled_page_only(extracted) -> None:
    assert 30 <= len(pages.QUESTIONS) <= 60
    assert {q.lang for q in pages.QUESTIONS} == {"en", "zh"}
    for question in pages.QUESTIONS:
        texts, _labels = extracted[question.file]
        where = [n for n, text in enumerate(texts, start=1) if _squeezed(question.answer) in _squeezed(text)]
        assert where == [question.page], (question.text, where)


def test_front_matter_is_numbered_apart_in_the_page_labels(extracted) -> None:
    for doc in pages.DOCS:
        texts, labels = extracted[doc.file]
        assert len(texts) == len(doc.pages)
        if doc.page_labels:
            assert labels == [printed(doc, n) for n in range(1, len(texts) + 1)]
            assert labels[:doc.front] == [roman(n) for n in range(1, doc.front + 1)]
        else:  # journal pages: the printed numbers are only in the text
            assert labels == [str(n) for n in range(1, len(texts) + 1)]
            assert str(doc.printed_start) in texts[0].splitlines()[-1]


def test_contents_and_index_cite_printed_pages(extracted) -> None:
    port = pages.BY_FILE["port_manual.pdf"]
    texts, _labels = extracted[port.file]
    contents = texts[1]
    assert re.search(r"3\.2 Fuel dock \.{3,} 3$", contents, re.M)  # printed page 3 is index 7
    assert "Fuel dock opening hours" in texts[2]  # the revision history, in the front matter
    assert re.search(r"^fuel dock, 3$", texts[-1], re.M)
    assert "open from 06:00" in texts[6]
    zh = extracted["harbor_manual_zh.pdf"][0]
    assert re.search(r"3\.2 加油码头 \.{3,} 3$", zh[1], re.M) and "加油码头" in zh[-1]


def test_the_chinese_documents_need_no_system_font(tmp_path: Path) -> None:
    """The CJK font is built for the characters used and embedded: the text comes back."""
    doc = pages.BY_FILE["lurra_study_zh.pdf"]
    path = pages._write([doc], tmp_path)[0]
    assert "卢拉潮滩的沉积速率与粒径" in PdfReader(path).pages[0].extract_text()
