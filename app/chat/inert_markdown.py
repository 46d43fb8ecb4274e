"""Model output rendered as Markdown that loads nothing: raw HTML off, images made inert
links, no resource ever fetched, no link passing for one of Hearth's own.

Three layers, because each alone has been bypassed: ``inert_images`` rewrites the common
image syntax into links before rendering; after rendering every image in the document
(nested or escaped brackets, reference-style images, whatever Qt's Markdown parser made
an image of) is replaced by a link (``_strip_images``); and ``loadResource`` answers every
request with a placeholder (``placeholder_resource``), because a ``None`` lets
QTextDocument read a local file itself.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QByteArray, QUrl
from PySide6.QtGui import (
    QColor,
    QImage,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextImageFormat,
)

from app.shell import style
from guard import markdown as inert
from i18n import translate

MARKDOWN_FEATURES = (
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub
    | QTextDocument.MarkdownFeature.MarkdownNoHTML
)


def inert_images(markdown: str) -> str:
    """Markdown images become plain links ("image: alt"): nothing is ever loaded, and the
    address opens only if the user clicks it and confirms. Answers that embed remote
    images are a known way to smuggle text out (the address carries it). The rewrite is
    guard/markdown.py's, which the Markdown export uses too."""
    return inert.inert_images(markdown, _image_label)


def _image_label(alt: str) -> str:
    """The words shown for an image ("image: alt"); alt is model output, only a value."""
    alt = alt or translate("chat.markdown", "untitled")
    return translate("chat.markdown", "image: {alt}").format(alt=alt)


def render_markdown(document: QTextDocument, markdown: str) -> None:
    """The one way model output becomes rich text: images inert, no HTML, code shaded.

    Qt takes a "---" block at the very start as YAML front matter and hides it: an answer
    that opens with a rule would lose its first lines. A blank line first is no front
    matter, and renders the same."""
    if markdown.startswith("---"):
        markdown = "\n" + markdown
    document.setMarkdown(inert_images(markdown), MARKDOWN_FEATURES)
    _strip_images(document)
    _refuse_copy_links(document)  # every render: Markdown escapes can spell the scheme
    _shade_code_blocks(document)


COPY_SCHEME = "hearth-copy"  # MarkdownView's own "Copy code" links: hearth-copy:N


def _refuse_copy_links(document: QTextDocument) -> None:
    """A link the model wrote to look like a "Copy code" one opens nothing and copies
    nothing: its address is made invalid (clicking it asks, as for any link).

    The links are changed after the walk, not during it: Qt merges a changed piece of text
    into the one before it when their formats are now the same ("[a](invalid:hearth-copy:0)"
    just before "[b](hearth-copy:0)"), freeing the piece the walk stands on (a crash)."""
    refused: list[tuple[int, int, QTextCharFormat]] = []
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            fmt = fragment.charFormat()
            if fmt.isAnchor() and QUrl(fmt.anchorHref()).scheme().lower() == COPY_SCHEME:
                fmt.setAnchorHref("invalid:" + fmt.anchorHref())
                refused.append((fragment.position(), fragment.length(), fmt))
            fragments += 1
        block = block.next()
    cursor = QTextCursor(document)
    for position, length, fmt in refused:  # a format change moves no text
        cursor.setPosition(position)
        cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
        cursor.setCharFormat(fmt)


def image_link_colour() -> QColor:
    return QColor(style.current().image_link)  # its contrast: app.shell.style


def image_fragments(document: QTextDocument) -> list[tuple[int, int, QTextImageFormat]]:
    """Every image in the document: (position, length, format)."""
    images: list[tuple[int, int, QTextImageFormat]] = []
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            if fragment.isValid() and fragment.charFormat().isImageFormat():
                images.append((fragment.position(), fragment.length(),
                               fragment.charFormat().toImageFormat()))
            fragments += 1
        block = block.next()
    return images


def _strip_images(document: QTextDocument) -> None:
    """Replace every image in the document by a link to its address ("[image: alt]"), so
    that no image format is left for the layout to load."""
    images = image_fragments(document)
    if not images:
        return
    cursor = QTextCursor(document)
    cursor.beginEditBlock()
    for position, length, image in reversed(images):
        alt = image.property(QTextFormat.Property.ImageAltText)
        label = " ".join(str(alt).split()) if isinstance(alt, str) and alt.strip() else ""
        link = QTextCharFormat()
        link.setAnchor(True)
        link.setAnchorHref(image.name())
        link.setFontUnderline(True)
        link.setForeground(image_link_colour())
        cursor.setPosition(position)
        cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(f"[{_image_label(label[:200])}]" * length, link)
    cursor.endEditBlock()


_PLACEHOLDER_IMAGE: QImage | None = None


def placeholder_resource(kind: int) -> Any:
    """What every resource request gets: never None, which would let Qt read the file."""
    global _PLACEHOLDER_IMAGE
    kind = int(getattr(kind, "value", kind))
    if kind == QTextDocument.ResourceType.ImageResource.value:
        if _PLACEHOLDER_IMAGE is None:
            _PLACEHOLDER_IMAGE = QImage(1, 1, QImage.Format.Format_ARGB32)
            _PLACEHOLDER_IMAGE.fill(0)
        return _PLACEHOLDER_IMAGE
    if kind == QTextDocument.ResourceType.StyleSheetResource.value:
        return " "
    return QByteArray(b" ")


class InertDocument(QTextDocument):
    """The scratch document pieces of a streaming answer are rendered in: it loads nothing."""

    def loadResource(self, type: int, name: QUrl | str) -> Any:  # noqa: A002 - Qt's signature
        return placeholder_resource(type)


def is_code(block: Any) -> bool:
    """A line of fenced or indented code, as Qt's Markdown reader marks it."""
    fmt = block.blockFormat()
    return bool(fmt.hasProperty(QTextFormat.Property.BlockCodeFence)
                or fmt.hasProperty(QTextFormat.Property.BlockCodeLanguage)
                or block.charFormat().fontFixedPitch())


def _shade_code_blocks(document: QTextDocument) -> None:
    """Give fenced and indented code a background so it stands apart from prose."""
    shade = QColor(style.current().code_background)  # its contrast: app.shell.style
    block = document.begin()
    while block.isValid():
        fmt = block.blockFormat()
        if is_code(block):
            shaded = QTextBlockFormat(fmt)
            shaded.setBackground(shade)
            QTextCursor(block).setBlockFormat(shaded)
        block = block.next()
