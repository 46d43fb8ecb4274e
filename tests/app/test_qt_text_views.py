"""Qt text objects kept across edits of an answer's document: Qt moves, merges or frees
them as the text changes, so what the views keep must still say what the reader sees
(follow-up to the streaming view's deleted QTextList, d8b1e39)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication

from app.chat.conversation import ConversationView
from app.chat.inert_markdown import COPY_SCHEME
from app.chat.markdown import TAIL_LIMIT, MarkdownView
from storage.chats import COMPLETE, Message
from tests.app.test_widgets_streaming import ANSWER_ID, streaming_conversation

pytestmark = pytest.mark.gui


def links(view: MarkdownView) -> list[tuple[str, str]]:
    """Each link's text and address, as the document holds them."""
    found = []
    block = view.document().begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fmt = fragments.fragment().charFormat()
            if fmt.isAnchor():
                found.append((fragments.fragment().text(), fmt.anchorHref()))
            fragments += 1
        block = block.next()
    return found


@pytest.mark.parametrize("text", [
    "[a](invalid:hearth-copy:0)[b](hearth-copy:0)",
    "[a](invalid:hearth-copy:0)[b](hearth-copy:0)\n\nMore text.",
    "x [a](invalid:hearth-copy:0)[b](hearth-copy:0) [c](hearth-copy:1)",
])
def test_a_copy_link_refused_next_to_one_like_it_once_refused_renders(qtbot, text: str) -> None:
    """A refused link whose new address is its neighbour's is merged into it by Qt, which
    freed the piece of text the walk stood on: Hearth crashed (a segmentation fault) on
    rendering such an answer, and again each time its chat was opened."""
    view = MarkdownView()
    qtbot.addWidget(view)
    view.set_markdown(text)
    assert links(view) and all(not href.lower().startswith(COPY_SCHEME) for _, href in links(view))
    streamed = MarkdownView()
    qtbot.addWidget(streamed)
    for end in range(1, len(text) + 1):  # the streaming view renders its pieces the same way
        streamed.stream_markdown(text[:end])
    assert streamed.toPlainText() == view.toPlainText()
    assert all(not href.lower().startswith(COPY_SCHEME) for _, href in links(streamed))


@pytest.fixture
def conversation(qtbot) -> ConversationView:
    return streaming_conversation(qtbot, "Tell me something.")


def marked(view: ConversationView) -> list[str]:
    return [m.cursor.selectedText() for m in view.widget_for(ANSWER_ID).body.extraSelections()
            if m.cursor.hasSelection()]


def test_the_chat_searchs_marks_stay_on_their_words_while_an_answer_streams(conversation) -> None:
    """The marks are cursors Qt moves with each edit: one that ended where the open block
    starts grew over all of it as it was rendered again, those in it went, and the final
    rendering took them all away."""
    conversation.update_text(ANSWER_ID, "Hello world\n\nThe world is")
    assert conversation.highlight("WORLD") == 2
    assert marked(conversation) == ["world", "world"]
    conversation.update_text(ANSWER_ID, "Hello world\n\nThe world is round")
    assert marked(conversation) == ["world", "world"]
    conversation.update_text(ANSWER_ID, "Hello world\n\nThe world is round.\n\nA new world")
    assert marked(conversation) == ["world", "world", "world"]  # the new one too
    text = "Hello world\n\nThe world is round.\n\nA new world, the end."
    conversation.widget_for(ANSWER_ID).show_message(
        Message(ANSWER_ID, 1, 1, "assistant", text, COMPLETE, {}))
    assert marked(conversation) == ["world", "world", "world"]
    conversation.highlight("")
    conversation.update_text(ANSWER_ID, "Hello world")  # (a new answer, say)
    assert marked(conversation) == []


def select(view: MarkdownView, start: int, end: int) -> None:
    cursor = view.textCursor()
    cursor.setPosition(start)
    cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
    view.setTextCursor(cursor)


def test_the_readers_selection_does_not_grow_over_new_text(qtbot) -> None:
    """The selection is a cursor Qt moves with each edit too: one that ended where the
    open block starts (or at the end of a long open block) grew over the new text, and
    Ctrl+C copied what the reader had not selected."""
    view = MarkdownView()
    qtbot.addWidget(view)
    view.stream_markdown("Hello world\n\nMore")
    select(view, 6, 11)
    assert view.textCursor().selectedText() == "world"
    view.stream_markdown("Hello world\n\nMore text")
    view.stream_markdown("Hello world\n\nMore text\n\nAnother block")
    assert view.textCursor().selectedText() == "world"
    view.copy()
    assert QApplication.clipboard().text() == "world"

    long = "Intro\n\n" + "x " * TAIL_LIMIT + "end"  # the open block is extended as plain text
    view.stream_markdown(long)
    view.stream_markdown(long + ".")
    end = view.document().characterCount() - 1
    select(view, end - 4, end)
    view.stream_markdown(long + ". And more")
    assert view.textCursor().selectedText() == "end."
    select(view, 0, 5)  # in the finished text: left as it is
    view.stream_markdown(long + ". And more.\n\nDone")
    assert view.textCursor().selectedText() == "Intro"


def test_text_appended_after_a_link_at_the_end_of_a_long_block_is_not_part_of_it(qtbot) -> None:
    """Past TAIL_LIMIT the open block's new text is appended as is, in the format of its
    last character: after a link, the streamed words became part of the link."""
    view = MarkdownView()
    qtbot.addWidget(view)
    text = "word " * (TAIL_LIMIT // 5 + 10) + "[the harbour](https://example.org/harbour)"
    view.stream_markdown(text)
    view.stream_markdown(text + " and after it")
    assert view.toPlainText().endswith("the harbour and after it")
    assert [t for t, _href in links(view)] == ["the harbour"]
