"""Untrusted text in the comment: inert under GitHub's renderer (cmark-gfm) and under
python-markdown, and shown without stray backslashes by both (issue 28, item 11).

GitHub reads more punctuation as markup than python-markdown unescapes: a ``\\:`` or ``\\~``
that cmark-gfm turns into ``:`` or ``~`` stays ``\\:`` under python-markdown. So only what
cmark-gfm would read as markup is escaped, by a backslash python-markdown also honours, or by
an entity both decode.
"""

from __future__ import annotations

import re
from html import unescape

import cmarkgfm
import markdown
import pytest
from cmarkgfm.cmark import Options

from compare_cases import GOLDEN_CASES
from ragguard.compare import compare
from ragguard.render import escape_markdown, render_comment, render_summary

HOSTILE = {
    "autolink": "see https://evil.example/a, ftp://x.example and www.evil.example",
    "email": "mail bob@evil.example",
    "strike": "~~gone~~ and ~also~",
    "math": "$x^2$ and $$y$$",
    "setext": "===",
    "list": "1) one",
    "link": "[click me](javascript:alert(1)) ![i](https://evil.example/i.png)",
    "tag": '<img src=x onerror="alert(1)">',
}
# python-markdown passes a block of raw HTML (the comment's folded <details>) through as it
# is, markdown inside and all: only what it renders as markdown can be checked there.
_RAW_DETAILS = re.compile(r"<details>.*?</details>", re.S)


def _github(text: str) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)


def _python_markdown(text: str) -> str:
    return markdown.markdown(text, extensions=["tables"])


def _shown_text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


@pytest.mark.parametrize("key", sorted(HOSTILE))
@pytest.mark.parametrize(
    "render", [_github, _python_markdown], ids=["cmark-gfm", "python-markdown"]
)
def test_untrusted_text_renders_as_itself_with_no_markup(key, render) -> None:
    html = render(escape_markdown(HOSTILE[key]))
    assert re.fullmatch(r"<p>[^<]*</p>\n?", html), html  # one paragraph of text, no element
    assert unescape(_shown_text(html)).strip() == HOSTILE[key].replace("@", "@\u200b")


def test_escaping_keeps_what_github_needs_and_no_more() -> None:
    assert escape_markdown("2026-11-28T09:00:00+00:00") == "2026\\-11\\-28T09:00:00\\+00:00"
    assert escape_markdown("https://e.x") == "https&#58;//e\\.x"
    assert escape_markdown("a ~b~ $c$ = d") == "a &#126;b&#126; &#36;c&#36; &#61; d"
    assert escape_markdown("(x) {y} 'z' \"w\" ^") == "\\(x\\) {y} 'z' \"w\" ^"


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_the_comment_and_summary_show_no_stray_backslash_under_either_renderer(name) -> None:
    comparison = compare(*GOLDEN_CASES[name]())
    for text in (render_comment(comparison), render_summary(comparison)):
        assert "\\" not in _shown_text(_github(text))
        assert "\\" not in _shown_text(_python_markdown(_RAW_DETAILS.sub("", text)))


def test_the_footer_reads_plainly_under_python_markdown() -> None:
    comment = render_comment(compare(*GOLDEN_CASES["regression-hallucination"]()))
    footer = _shown_text(_python_markdown(comment)).strip().splitlines()[-1]
    assert footer.startswith(
        "Baseline: commit 1f2e3d4c5b6a on main, created 2026-11-28T09:00:00+00:00 "
    )
