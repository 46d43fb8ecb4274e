"""The passages' markers the model echoes are not part of its answer (issue #18, item 5):
``</passages>`` ended answers on screen and in the store."""

from __future__ import annotations

import queue
from pathlib import Path

from inference.protocol import Done, Generate, LoadModel, ModelSpec, Passages
from inference.rag import without_markers
from inference.worker import InferenceWorker
from tests.fakes import FakeEngine
from tests.inference.test_worker import HELLO, _events_until


def joined(pieces: list[str]) -> str:
    return "".join(without_markers(iter(pieces)))


def test_a_closing_marker_ends_the_answer_wherever_the_pieces_split_it() -> None:
    text = "Moorings cost 40 euros a night [1].</passages>\n\n[1] (fees.pdf) Moorings cost"
    for cut in range(1, len(text)):
        assert joined([text[:cut], text[cut:]]) == "Moorings cost 40 euros a night [1]."
    assert joined(list(text)) == "Moorings cost 40 euros a night [1]."  # one character at a time
    assert joined(["The fee is 40 [1]. < / Passages >", " and then"]) == "The fee is 40 [1]. "


def test_an_opening_marker_is_left_out_and_other_angle_brackets_stay() -> None:
    assert joined(["<passa", "ges>\nThe fee is 40 [1]."]) == "\nThe fee is 40 [1]."
    code = "if a < b and b > c: print('<p>') # <pass"
    assert joined([code[:10], code[10:]]) == code  # a tail that never became a marker is kept
    assert joined(["x <", "= y"]) == "x <= y"


def test_one_piece_comes_out_for_each_piece_in_and_the_engine_stream_is_closed() -> None:
    closed = []

    def engine():
        try:
            yield from ["An", " answer", " <", "/passages>", " echoed", " passages"]
        finally:
            closed.append(True)

    out = list(without_markers(engine()))
    assert out == ["An", " answer", " "] and closed == [True]  # the "<" waited for the next piece


def test_the_worker_cuts_a_document_answer_at_the_marker_and_leaves_plain_chat_alone() -> None:
    events: queue.Queue = queue.Queue()
    engine = FakeEngine(tokens=["It", " is", " 40", " [1].", "</pass", "ages>", " [1]", " (fees)"])
    worker = InferenceWorker(lambda: engine, events.put)
    worker.start()
    try:
        worker.submit(LoadModel(ModelSpec(Path("model.gguf"))))
        worker.submit(Generate(1, 1, HELLO, retrieval=Passages(())))
        chunks = _events_until(events, lambda e: isinstance(e, Done) and e.request_id == 1)
        # The fake's "[1] " opens the answer: a marker before any word is not shown (#36).
        assert "".join(getattr(e, "text", "") for e in chunks if type(e).__name__ == "Chunk") == "It is 40 [1]."
        worker.submit(Generate(2, 1, HELLO))  # without documents the text is the model's own
        chunks = _events_until(events, lambda e: isinstance(e, Done) and e.request_id == 2)
        assert "".join(getattr(e, "text", "") for e in chunks
                       if type(e).__name__ == "Chunk") == "[2] It is 40 [1].</passages> [1] (fees)"
    finally:
        assert worker.shutdown(2.0)


def test_a_closing_marker_with_a_line_break_inside_still_ends_the_answer() -> None:
    assert joined(["Done [1]. <\n/ passages\t>", " and more"]) == "Done [1]. "
