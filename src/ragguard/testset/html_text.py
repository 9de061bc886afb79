"""HTML to plain text with the standard library's parser: the text a reader sees, block
elements on lines of their own, scripts and styles left out, entities decoded, and where
in that text each ``<h1>``..``<h6>`` heading is."""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser

BLOCK_TAGS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "br",
        "dd",
        "div",
        "dl",
        "dt",
        "figcaption",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "td",
        "th",
        "tr",
        "ul",
    ]
)
HEADING_TAGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
HIDDEN_TAGS = frozenset(("script", "style", "template", "noscript", "head"))


@dataclass(frozen=True, slots=True)
class VisibleText:
    """An HTML page's visible text and its headings as (offset in ``text``, title)."""

    text: str
    headings: tuple[tuple[int, str], ...]


class _TextParser(HTMLParser):
    """Collects the visible text as blocks, each marked whether it is a heading: the first
    text after an ``<h1>``..``<h6>`` start tag, up to the next block boundary (so a heading
    left unclosed does not swallow the paragraphs after it)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[tuple[str, bool]] = []
        self.parts: list[str] = []
        self.hidden = 0
        self.heading = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in HIDDEN_TAGS:
            self.hidden += 1
        elif tag in BLOCK_TAGS:
            self.flush()
            self.heading = self.heading or tag in HEADING_TAGS

    def handle_endtag(self, tag: str) -> None:
        if tag in HIDDEN_TAGS:
            self.hidden = max(0, self.hidden - 1)
        elif tag in BLOCK_TAGS:
            self.flush()
            self.heading = self.heading and tag not in HEADING_TAGS

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)

    def flush(self) -> None:
        """End the block being collected; a heading ends with its first text."""
        text = "".join(self.parts)
        self.blocks.append((text, self.heading))
        self.parts = []
        if text.strip():
            self.heading = False


def visible_text(html: str) -> VisibleText:
    """The visible text of ``html`` (paragraphs apart by a blank line, spaces within a line
    collapsed) and where its headings start in it."""
    parser = _TextParser()
    parser.feed(html)
    parser.close()
    parser.flush()
    lines: list[str] = []
    headings: list[tuple[int, str]] = []
    offset = 0
    for block, is_heading in parser.blocks:
        pieces = [" ".join(piece.split()) for piece in block.split("\n\n")]
        for number, line in enumerate(piece for piece in pieces if piece):
            if is_heading and number == 0:
                headings.append((offset, line))
            lines.append(line)
            offset += len(line) + 2
    return VisibleText("\n\n".join(lines) + "\n", tuple(headings))


def html_to_text(html: str) -> str:
    """The visible text of ``html``."""
    return visible_text(html).text
