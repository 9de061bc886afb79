"""HTML to plain text with the standard library's parser: the text a reader sees, block
elements on lines of their own, scripts and styles left out, entities decoded."""

from __future__ import annotations

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
HIDDEN_TAGS = frozenset(("script", "style", "template", "noscript", "head"))


class _TextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in HIDDEN_TAGS:
            self.hidden += 1
        elif tag in BLOCK_TAGS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in HIDDEN_TAGS:
            self.hidden = max(0, self.hidden - 1)
        elif tag in BLOCK_TAGS:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    """The visible text of ``html``: paragraphs apart by a blank line, spaces within a line
    collapsed."""
    parser = _TextParser()
    parser.feed(html)
    parser.close()
    blocks = "".join(parser.parts).split("\n\n")
    lines = (" ".join(block.split()) for block in blocks)
    return "\n\n".join(line for line in lines if line) + "\n"
