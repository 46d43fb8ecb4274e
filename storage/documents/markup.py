"""Text with headings: HTML (the standard library's parser, text only) and the heading
rules of Markdown and reStructuredText, which are Hearth's own."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from storage.documents.reading import Budget, Section


class _HTMLText(HTMLParser):
    SKIP = {"script", "style", "noscript", "template", "head", "svg", "iframe", "object"}
    BLOCK = {"p", "div", "br", "li", "tr", "section", "article", "table", "ul", "ol", "pre",
             "blockquote", "h1", "h2", "h3", "h4", "h5", "h6"}
    HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.skip_depth = 0
        self.sections: list[tuple[str | None, list[str]]] = [(None, [])]
        self.in_heading = False
        self.heading_text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in self.SKIP:
            self.skip_depth += 1
        elif tag in self.HEADINGS:
            self.in_heading, self.heading_text = True, []
        elif tag in self.BLOCK:
            self.sections[-1][1].append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP and self.skip_depth:
            self.skip_depth -= 1
        elif tag in self.HEADINGS and self.in_heading:
            self.in_heading = False
            title = " ".join("".join(self.heading_text).split())
            self.sections.append((title, [title, "\n"]))
        elif tag in self.BLOCK:
            self.sections[-1][1].append("\n")

    def handle_data(self, data: str) -> None:
        if self.skip_depth:
            return
        if self.in_heading:
            self.heading_text.append(data)
        else:
            self.sections[-1][1].append(data)


def read_html(text: str, budget: Budget) -> list[Section]:
    parser = _HTMLText()
    parser.feed(text)
    parser.close()
    sections = []
    for heading, parts in parser.sections:
        body = re.sub(r"\n\s*\n+", "\n\n", "".join(parts)).strip()
        if body:
            sections.append(Section(budget.take(body), heading=heading))
    return sections


def _markdown_heading(line: str, _next: str | None) -> str | None:
    match = re.match(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
    return match.group(1) if match else None


def _headed(text: str, budget: Budget, heading_of) -> list[Section]:
    lines = text.splitlines()
    sections: list[Section] = []
    heading: str | None = None
    current: list[str] = []
    skip = 0
    for index, line in enumerate(lines):
        if skip:
            skip -= 1
            continue
        following = lines[index + 1] if index + 1 < len(lines) else None
        title = heading_of(line, following)
        if title:
            if "\n".join(current).strip():
                sections.append(Section(budget.take("\n".join(current)), heading=heading))
            heading, current = title, [line]
            if heading_of is _rst_heading:
                skip = 1  # the underline
            continue
        if heading_of is _rst_heading and _RST_ADORNMENT.fullmatch(line.strip()):
            # A title's overline (the underline went with the title) or a transition:
            # decoration, not text. Left in, a line of "=" became a passage of its own
            # that every question matched (an embedding of nothing is near everything).
            continue
        current.append(line)
    if "\n".join(current).strip():
        sections.append(Section(budget.take("\n".join(current)), heading=heading))
    return sections


_RST_ADORNMENT = re.compile(r"([=\-~^\"'`#*+:._])\1{2,}")


def _rst_heading(line: str, following: str | None) -> str | None:
    if following and line.strip() and _RST_ADORNMENT.fullmatch(following.strip()) \
            and not _RST_ADORNMENT.fullmatch(line.strip()) \
            and len(following.strip()) >= len(line.strip()):
        return line.strip()
    return None


def read_rst(text: str, budget: Budget) -> list[Section]:
    return _headed(text, budget, _rst_heading)


def read_markdown(text: str, budget: Budget) -> list[Section]:
    return _headed(text, budget, _markdown_heading)
