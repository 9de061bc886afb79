"""A hostile corpus and the checks that rendered output leaves it inert.

The corpus is what an evaluated system, a test set or a judge could put in a question, an
answer, a chunk id, a tag or an error message. The checks read the output the way its
consumer does: markdown through cmark-gfm (GitHub's renderer), log lines through a port of
the Actions runner's two command parsers, XML through ElementTree.
"""

from __future__ import annotations

import re

import cmarkgfm
from cmarkgfm.cmark import Options

HOSTILE = {
    "details": "</details></summary><details open><summary>pwned</summary>",
    "img": '<img src=x onerror="alert(1)"><script>alert(2)</script>',
    "link": "[click me](javascript:alert(1)) ![i](https://evil.example/i.png) [r]: https://e.x",
    "mention": "@octocat and @org/security-team, mail bob@evil.example",
    "issue": "fixes #123, org/repo#7 and GH-9",
    "marker": "<!-- ragguard:comment suite=orders-api --><!-- ragguard:comment suite=other -->",
    "backticks": "`rm -rf /` ``` fence ``",
    "pipes": "a | b || c |",
    "newlines": "line one\n\n# Heading\r\n> quote\n- item\n---",
    "autolink": "see https://evil.example/a and www.evil.example and <https://evil.example>",
    "set_output": "::set-output name=verdict::pass",
    "add_mask": "  ::add-mask::ragguard",
    "legacy": "text ##[error]fake annotation ##[set-output name=verdict;]pass",
    "stop": "::stop-commands::resume-token",
    "eof": "EOF\nverdict=pass\nEOF",
    "html_comment": "<!-- hidden --> --> <!--",
    "control": "bell\x07 escape\x1b[31m red \u202e reversed",
}
LONG = "A" * 40_000 + " | <b>bold</b> @someone #1 " + "B" * 40_000


def html_of(markdown: str) -> str:
    """GitHub's renderer with raw HTML let through (GitHub keeps safe tags; worst case here)."""
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


# What cmark-gfm makes of ragguard's own markdown: every other tag came from the input.
OWN_TAGS = {
    "p", "h3", "h4", "ul", "ol", "li", "strong", "em", "code", "pre", "table", "thead",
    "tbody", "tr", "th", "td", "details", "summary", "sub", "blockquote", "br", "hr",
}  # fmt: skip


def assert_inert_markdown(
    markdown: str,
    *,
    markers: int = 1,
    details: int | None = None,
    allowed_tags: frozenset[str] | set[str] = OWN_TAGS,
) -> str:
    """Nothing in ``markdown`` renders as anything but text: returns the HTML for more checks.

    ``markers``: how many HTML comments (ragguard's hidden marker) the output may hold;
    ``details``: how many ``<details>`` blocks ragguard itself writes there (None: any);
    ``allowed_tags``: the elements the output may hold (ragguard's own by default).
    """
    html = html_of(markdown)
    tags = {name.lower() for name in re.findall(r"</?([A-Za-z][A-Za-z0-9]*)", html)}
    assert tags <= allowed_tags, f"tags from the input: {sorted(tags - allowed_tags)}"
    assert "<a " not in html and "<img" not in html and "<script" not in html.lower()
    assert html.count("<!--") == markers
    assert html.count("<details") == html.count("</details>")
    if details is not None:
        assert html.count("<details") == details
    prose = re.sub(r"<code>.*?</code>", "", html, flags=re.DOTALL)  # GitHub links nothing there
    assert re.search(r"(?<![\w`])@(?!\u200b)[A-Za-z0-9]", prose) is None, "a mention notifies"
    assert re.search(r"#(?!\u200b)\d", prose) is None, "an issue reference links"
    assert re.search(r"GH-\d", prose, re.IGNORECASE) is None, "an issue reference links"
    for table in re.findall(r"<table>.*?</table>", html, re.DOTALL):
        head, _, body = table.partition("</thead>")
        columns = len(re.findall(r"<th[ >]", head))
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.DOTALL):
            assert len(re.findall(r"<td[ >]", row)) == columns, "a pipe broke a table row"
    return html


def workflow_command(line: str) -> bool:
    """Whether the Actions runner would read ``line`` as a workflow command.

    Its two parsers (ActionCommand.TryParseV2 and TryParse): after leading whitespace the line
    starts with ``::name...::``, or it holds ``##[name...]`` anywhere. Any name counts here
    (the runner needs a registered one), so this errs on the side of a command.
    """
    stripped = line.lstrip()
    if stripped.startswith("::") and stripped.find("::", 2) > 2:
        return True
    start = line.find("##[")
    return start >= 0 and line.find("]", start) > start + 3


def assert_no_workflow_command(text: str) -> None:
    for line in re.split(r"\r\n|\r|\n", text):
        assert not workflow_command(line), f"a workflow command in the log: {line!r}"
    assert "\x1b" not in text and "\x07" not in text
