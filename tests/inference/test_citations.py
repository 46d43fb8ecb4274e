"""Citations the model cannot fake (issue #36, item 1): its own source list ends the answer
as it streams, and a citation that points at no passage is struck through, "not a source";
and grounding (item 2): the passages' sentences that support an answer, a caution where
none does or the model is too weak, and the documents' own best sentences on request.

The texts are what the starter model wrote in the new user's trial: after one true
sentence, "[2] (greenhouse-manual.pdf, page 4) Page 4: Insulation…", pages the 2-page PDF
does not have, laid out like the real source list."""

from __future__ import annotations

import queue
from pathlib import Path

import pytest

from core.answers import (
    UNSUPPORTED,
    extract,
    extract_markdown,
    grounding,
    language,
    shown,
    support,
    weakness,
)
from inference.citations import (
    document_answer,
    invented,
    until_own_sources,
    without_opening_markers,
)
from inference.protocol import Done, Generate, LoadModel, ModelSpec, Passages
from inference.rag import Passage, render
from inference.worker import InferenceWorker
from tests.fakes import FakeEngine
from tests.inference.test_worker import HELLO, _events_until

FUSE = "The spare heater fuse is kept in the blue tin on the potting bench [1]."
FABRICATED = (FUSE + "\n[2] (greenhouse-manual.pdf, page 4) Page 4: Insulation of the north wall…\n"
              "[3] (greenhouse-manual.pdf, page 6) Page 6: Ventilation…\n[4] (greenhouse-manual.pdf, page 7)")
PDF = [{"number": 1, "label": "greenhouse-manual.pdf, page 1", "path": "/docs/greenhouse-manual.pdf", "page": 1,
        "text": "Heating. The spare heater fuse is kept in the blue tin on the potting bench."},
       {"number": 2, "label": "greenhouse-manual.pdf, page 2", "path": "/docs/greenhouse-manual.pdf", "page": 2,
        "text": "Watering. Water seedlings every morning."}]
NOTES = [{"number": 1, "label": "travel-notes.md", "path": "/docs/travel-notes.md", "page": None,
          "text": "Night train to Lisbon: booking reference ZX-4471-LIS, carriage 7."}]


def streamed(text: str, numbers=frozenset({1, 2}), cut: int | None = None) -> str:
    pieces = list(text) if cut is None else [text[:cut], text[cut:]]
    return "".join(until_own_sources(iter(pieces), numbers))


def test_the_models_own_source_list_ends_the_answer_wherever_the_pieces_split_it() -> None:
    for cut in range(1, len(FABRICATED)):
        assert streamed(FABRICATED, cut=cut) == FUSE + "\n"
    assert streamed(FABRICATED) == FUSE + "\n"  # one character at a time


def test_what_starts_a_list_of_its_own() -> None:
    answer = "The fee is 40 euros [1].\n"
    for own in ("[3] The harbour office opens at nine.", "- [7] More text here", "Sources:\n[1] fees.pdf",
                "**References**\n", "## Sources", "来源：费用.pdf", "Question: What else?", "Q: And the fee?",
                "The numbered passages above come from my documents.", "[1] (fees.pdf, page 3) Moorings"):
        assert streamed(answer + own) == answer, own
    # Not a list of its own: a real passage's number leading a line, a list of points,
    # an answer that starts with its citation, a word that only begins like a heading.
    for kept in ("[2] also gives the winter rate.", "1. Pay at the office.\n2. Keep the receipt.",
                 "Sourcing the fuel is the owner's job.", "Questions are welcome at the office."):
        assert streamed(answer + kept) == answer + kept, kept
    assert streamed("[1] The fee is 40 euros.\nMore.") == "[1] The fee is 40 euros.\nMore."
    assert streamed("[5] The fee is 40 euros.") == "[5] The fee is 40 euros."  # nothing before it


def test_the_engine_stream_is_closed_and_one_piece_comes_out_per_piece_in() -> None:
    closed = []

    def engine():
        try:
            yield from ["The fee", " is 40 [1].", "\n[", "3] (fees.pdf)", " page 9", " more", " more"]
        finally:
            closed.append(True)

    out = list(document_answer(engine(), {1}))
    assert "".join(out) == "The fee is 40 [1].\n" and closed == [True]
    assert len(out) == 3  # "\n[" was held back until its line said what it is


def test_the_worker_stops_generating_at_the_models_own_source_list() -> None:
    events: queue.Queue = queue.Queue()
    tokens = ["It", " is", " 40", " [1].", "\n", "[2]", " (fees.pdf,", " page", " 4)", " Page", " 4:", " x"] + [" y"] * 200
    engine = FakeEngine(tokens=tokens)
    passage = Passage(1, "fees.pdf, page 3", "Moorings cost 40 euros.", "/docs/fees.pdf", 3)
    worker = InferenceWorker(lambda: engine, events.put)
    worker.start()
    try:
        worker.submit(LoadModel(ModelSpec(Path("model.gguf"))))
        worker.submit(Generate(1, 1, HELLO, retrieval=Passages((passage,))))
        found = _events_until(events, lambda e: isinstance(e, Done) and e.request_id == 1)
        text = "".join(getattr(e, "text", "") for e in found if type(e).__name__ == "Chunk")
        assert text == "It is 40 [1].\n"  # the fake's opening "[1] " is not shown, then the answer
        done = next(e for e in found if isinstance(e, Done))
        assert done.stats.tokens < 20 and not done.stats.cut_off  # it stopped there, not at the limit
    finally:
        assert worker.shutdown(2.0)


def test_citations_that_point_at_no_passage_are_found() -> None:
    text = ("The fuse is in the blue tin [1]. [2] (greenhouse-manual.pdf, page 4) Page 4: Insulation [3], "
            "see also [1, 7] and (greenhouse-manual.pdf, page 2) and greenhouse-manual.pdf page 1.")
    assert [f.text for f in invented(text, PDF)] == [
        "greenhouse-manual.pdf, page 4", "[3]", "[1, 7]"]
    # The Markdown case: a file without pages cited with one, a file that is no source.
    text = "The reference is ZX-4471-LIS [1]. [3] (travel-notes.md, page 9) (itinerary.md) travel-notes.md"
    assert [f.text for f in invented(text, NOTES)] == ["[3]", "travel-notes.md, page 9", "itinerary.md"]
    # Chinese: full-width brackets, 第 n 页, a file name run into the words before it.
    zh = [{**PDF[0], "path": "/docs/温室手册.pdf", "label": "温室手册.pdf，第 1 页"}]
    text = "保险丝在蓝色铁盒里【1】【2】，见温室手册.pdf 第1页，另见温室手册.pdf 第4页。"
    assert [f.text for f in invented(text, zh)] == ["【2】", "温室手册.pdf 第4页"]


def test_code_prose_indexes_and_answers_without_documents_are_left_alone() -> None:
    text = "Use `items[3]` or\n```python\nx = rows[5]\nopen('a.pdf')  # page 9\n```\nthen list[4] and README.md."
    assert invented(text, PDF) == []
    assert invented("As [3] says (fees.pdf, page 2).", None) == []  # documents were off
    # A file name the passage itself gives is its words, not a citation.
    assert invented("See (manual-v2.pdf) as the passage says.",
                    [{**NOTES[0], "text": "The full list is in manual-v2.pdf."}]) == []


def test_an_invented_citation_is_struck_through_and_said_to_be_no_source() -> None:
    text = "The fuse is in the blue tin [1]. [3] (greenhouse-manual.pdf, page 4)"
    assert shown(text, PDF) == ("The fuse is in the blue tin [1]. ~~[3]~~ *(not a source)* "
                                "(~~greenhouse-manual.pdf, page 4~~ *(not a source)*)")
    assert shown("All true [1], [2].", PDF) == "All true [1], [2]."


def test_the_prompt_gives_passages_a_number_only() -> None:
    text = render([Passage(1, "greenhouse-manual.pdf, page 1", "Heating.\nThe fuse.", "/d/g.pdf", 1)], "Fuse?")
    assert "[1] Heating. The fuse." in text and "greenhouse-manual" not in text and "page" not in text


def test_the_extractive_answer_is_the_passages_best_sentences_with_their_citations() -> None:
    question = "备用的加热器保险丝放在哪里？"
    sources = [{"number": 1, "path": "/d/温室手册.pdf", "page": 1, "label": "温室手册.pdf",
                "text": "加热。温室加热器从十月运行到四月。备用的加热器保险丝放在盆栽台顶层架子上的蓝色铁盒里。"},
               {"number": 2, "path": "/d/温室手册.pdf", "page": 2, "label": "温室手册.pdf",
                "text": "浇水。每天早上九点前给幼苗浇水。"}]
    assert language(question) == "zh" and language("Where is the fuse?") == "en"
    assert weakness(question, sources, {"zh"}) == "language"
    assert weakness("Where is the fuse?", sources, {"zh"}) is None and weakness(question, [], {"zh"}) is None
    found = extract(question, sources)
    assert found[0] == {"number": 1, "text": "备用的加热器保险丝放在盆栽台顶层架子上的蓝色铁盒里。"}
    english = extract("Where is the spare heater fuse kept?", PDF)
    assert english[0] == {"number": 1, "text": "The spare heater fuse is kept in the blue tin on the potting bench."}
    # Markup in a document is shown as text, not acted on.
    hostile = [{"number": 1, "text": "The fuse [x](http://evil) is *here* <b>bold</b>.", "path": "/a.md"}]
    assert "\\[x\\]" in extract_markdown(extract("Where is the fuse?", hostile))
    # No shared word (a Chinese question about English pages): the top passage's opening.
    assert extract("保险丝在哪里？", PDF)[0] == {"number": 1, "text": "Heating."}


def test_the_sentences_that_support_an_answer_and_an_answer_that_nothing_supports() -> None:
    answer = "The spare heater fuse is kept in the blue tin [1]. Water the seedlings every morning [2]."
    assert support(answer, PDF) == ({"1": "Heating. The spare heater fuse is kept in the blue tin on the potting bench."[9:],
                                     "2": "Water seedlings every morning."}, False)
    ramble = "The Dragon's Breath project keeps its fuses in the castle vault, guarded by knights."
    assert support(ramble, PDF) == ({}, True)
    assert support("I don't know.", PDF) == ({}, False)  # nothing to ground: not judged
    assert support("保险丝放在城堡的地下室里，由骑士看守。", PDF) == ({}, False)  # another language: not judged
    stored = grounding("Where is the fuse?", ramble, PDF, set())
    assert stored["weak"] == UNSUPPORTED and stored["extract"][0]["number"] == 1
    assert grounding("Where is the fuse?", answer, PDF, set()) == {"support": support(answer, PDF)[0]}


def test_an_answer_shows_its_support_its_caution_and_the_extract_on_request(qtbot) -> None:
    from app.chat.message import MessageWidget
    from storage.chats import COMPLETE, Message

    ramble = "The fuse is in the blue tin [1]. The castle vault has [5] more (greenhouse-manual.pdf, page 9)."
    stats = {"sources": PDF, **grounding("Where is the spare heater fuse kept?", ramble, PDF, {"zh"})}
    widget = MessageWidget(Message(1, 1, 0, "assistant", ramble, COMPLETE, stats))
    qtbot.addWidget(widget)
    widget.show()
    assert "~~[5]~~ *(not a source)*" in widget.text() and "~~greenhouse-manual.pdf, page 9~~" in widget.text()
    assert "Supports the answer: “The spare heater fuse is kept in the blue tin" in widget.sources.text()
    assert widget.sources.buttons[0].source["support"].startswith("The spare heater fuse")
    assert not widget.caution.isVisible()  # supported, in a language the model speaks
    stats = {"sources": PDF, **grounding("保险丝在哪里？", "Dragon's Breath project castle knights vault.", PDF, {"zh"})}
    widget.show_message(Message(1, 1, 0, "assistant", "Dragon's Breath project castle knights vault.", COMPLETE, stats))
    assert widget.caution.isVisible() and widget.extract_button.isVisible() and not widget.extract_view.isVisible()
    widget.extract_button.click()
    assert widget.extract_view.isVisible() and "Heating. [1]" in widget.extract_view.toPlainText()
    assert widget.extract_button.text() == "Hide the best matching passages"


def test_the_source_viewer_marks_the_sentence_that_supports_the_answer(qtbot) -> None:
    from app.chat.source_viewer import SourceViewer

    source = {**PDF[0], "text": "Heating. The spare heater fuse is\nkept in the blue tin on the potting bench.",
              "support": "The spare heater fuse is kept in the blue tin on the potting bench."}
    viewer = SourceViewer(source, "Where is the fuse?")
    qtbot.addWidget(viewer)
    marks = [m.cursor.selectedText() for m in viewer.passage.extraSelections()]
    assert " ".join(marks[0].split()) == source["support"]  # across the line break
    assert marks[1:] == ["fuse"]  # then the question's words, shaded


def test_passages_the_context_had_no_room_for_are_said_at_the_answer(qtbot) -> None:
    from app.chat.message import MessageWidget
    from inference.generation import place_passages
    from inference.protocol import ChatMessage, Retrieved
    from storage.chats import COMPLETE, Message

    passages = [Passage(n, f"a.md, part {n}", "Moorings cost forty euros a night. " * 20, "/d/a.md") for n in (1, 2, 3)]
    events: list = []
    command = Generate(1, 1, (ChatMessage("user", "What do moorings cost?"),),
                       retrieval=Passages(tuple(passages)))
    # A context with room for one passage: two are left out, and the event says so.
    messages, numbers = place_passages(command, lambda ms: sum(len(m.content) for m in ms) // 4,
                                       330, events.append)
    retrieved = next(e for e in events if isinstance(e, Retrieved))
    assert numbers == {1} and retrieved.left_out == 2
    stats = {"sources": [passages[0].as_dict()],
             **grounding("What do moorings cost?", "Moorings cost forty euros a night [1].",
                         [passages[0].as_dict()], set(), retrieved.left_out)}
    assert stats["weak"] == "context" and stats["left_out"] == 2
    widget = MessageWidget(Message(1, 1, 0, "assistant", "Moorings cost forty euros a night [1].", COMPLETE, stats))
    qtbot.addWidget(widget)
    widget.show()
    assert widget.caution.isVisible() and widget.caution.text().startswith("⚠ 2 passages found in your documents")


@pytest.mark.parametrize(("pieces", "shown"), [
    (["[1]\n", "The spare fuse is in the shed."], "The spare fuse is in the shed."),
    (["[", "1] ", "The spare ", "fuse [1] is in the shed."], "The spare fuse [1] is in the shed."),
    (["  【2】", "备用保险丝在棚里。"], "备用保险丝在棚里。"),
    (["[note] keep this"], "[note] keep this"),
    (["The fuse [1]."], "The fuse [1]."),
    (["[1]"], "[1]"),  # nothing but markers: shown as written, not an empty answer
    (["[1, ", "2, 3]"], "[1, 2, 3]"),
])
def test_markers_an_answer_opens_with_are_not_shown(pieces: list[str], shown: str) -> None:
    """#36 item 9: ``ask`` printed a lone "[1]" before the answer (the model copying the
    passages' layout); a marker before any word cites nothing."""
    assert "".join(document_answer(iter(pieces), {1, 2})) == shown
    only_markers = shown.startswith("[") and "]" in shown and not shown.split("]")[-1].strip()
    # one piece out per piece in (an answer of markers alone comes out whole, at the end)
    assert len(list(without_opening_markers(iter(pieces)))) == len(pieces) + only_markers


def test_a_sentence_the_document_wrapped_over_lines_supports_the_answer_whole() -> None:
    """A text file's or a PDF page's line breaks inside a sentence do not end it (the
    sentence shown under the citation was cut there); a blank line still ends one, and
    Chinese wrapped mid-sentence is joined without a space."""
    wrapped = [{"number": 1, "label": "lease.txt", "path": "/d/lease.txt",
                "text": "Rent\n\nThe tenant pays the rent on the first\nday of each month, by bank transfer\n"
                        "to the landlord's account.\nA late payment costs a fee of ten euros."}]
    answer = "The tenant pays the rent on the first day of each month by bank transfer [1]."
    assert support(answer, wrapped)[0] == {"1": "The tenant pays the rent on the first day of each month, "
                                                "by bank transfer to the landlord's account."}
    chinese = [{"number": 1, "label": "租约.txt", "path": "/d/租约.txt",
                "text": "租金\n\n租户应在每月第一天通过银行\n转账向房东支付租金，\n逾期付款需缴纳十欧元罚款。"}]
    assert support("租户应在每月第一天通过银行转账向房东支付租金。[1]", chinese)[0] == {
        "1": "租户应在每月第一天通过银行转账向房东支付租金，逾期付款需缴纳十欧元罚款。"}


def test_the_source_viewer_marks_a_chinese_sentence_wrapped_over_lines(qtbot) -> None:
    from app.chat.source_viewer import SourceViewer

    source = {**PDF[0], "text": "租金。租户应在每月第一天通过银行\n转账支付租金。",
              "support": "租户应在每月第一天通过银行转账支付租金。"}
    viewer = SourceViewer(source, "")
    qtbot.addWidget(viewer)
    marks = [m.cursor.selectedText() for m in viewer.passage.extraSelections()]
    assert "".join(marks[0].split()) == source["support"]  # across the line break
