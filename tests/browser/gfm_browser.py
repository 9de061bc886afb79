"""A comment as a reviewer sees it: GFM to HTML, laid out by a real headless browser.

The markdown goes through cmark-gfm (GitHub's renderer), is styled with GitHub's own
markdown CSS (``github-markdown-light.css`` from the npm package github-markdown-css, MIT,
beside this file) in a comment body of GitHub's width, and is laid out by headless Chromium
(Debian's ``chromium-headless-shell``; ``.ci/run`` installs it). A script in the page measures
what a reviewer meets: the height with ``<details>`` closed, and with every ``<details>``
opened, each table's width against the column (GitHub gives a wide table a horizontal
scrollbar, hiding its right part).

Run as a script to measure a comment file (and optionally save a screenshot)::

    python tests/browser/gfm_browser.py comment.md [--screenshot comment.png]
        [--renderer gfm|python-markdown]
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import cmarkgfm
from cmarkgfm.cmark import Options

HERE = Path(__file__).resolve().parent
# A PR comment on github.com at a 1280 px window: a 900 px comment box whose body has 16 px
# padding on each side (the measurements: "1,372 px wide in an 868 px body").
COMMENT_WIDTH = 900
BODY_WIDTH = 868
BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome")
_RESULT = re.compile(r'<pre id="ragguard-measure"[^>]*>(.*?)</pre>', re.S)

_MEASURE = """
const body = document.querySelector('.markdown-body');
const closedHeight = Math.round(body.getBoundingClientRect().height);
document.querySelectorAll('details').forEach(d => { d.open = true; });
const tables = [...body.querySelectorAll('table')].map(t => ({
  width: t.scrollWidth, visible: t.clientWidth,
  header: [...t.querySelectorAll('tr:first-child th')].map(th => th.textContent.trim()),
}));
const result = {
  height: closedHeight,
  openHeight: Math.round(body.getBoundingClientRect().height),
  bodyWidth: body.clientWidth, bodyScrollWidth: body.scrollWidth, tables: tables,
};
document.querySelectorAll('details').forEach(d => { d.open = false; });
const pre = document.createElement('pre');
pre.id = "ragguard-measure";
pre.style.display = "none";
pre.textContent = JSON.stringify(result);
document.documentElement.appendChild(pre);
"""


@dataclass(frozen=True)
class Table:
    width: int
    visible: int
    header: tuple[str, ...]

    @property
    def overflows(self) -> bool:
        return self.width > self.visible


@dataclass(frozen=True)
class Layout:
    """What the browser measured, in CSS pixels."""

    height: int
    open_height: int
    body_width: int
    body_scroll_width: int
    tables: tuple[Table, ...]

    @property
    def widest_table(self) -> int:
        return max((t.width for t in self.tables), default=0)

    @property
    def overflowing(self) -> tuple[Table, ...]:
        return tuple(t for t in self.tables if t.overflows)


def find_browser() -> str | None:
    """A headless Chromium on PATH (RAGGUARD_BROWSER names another)."""
    named = os.environ.get("RAGGUARD_BROWSER")
    if named:
        return shutil.which(named) or named
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


RENDERERS = ("gfm", "python-markdown")


def rendered_html(markdown: str, renderer: str = "gfm") -> str:
    """The comment's HTML by GitHub's renderer (cmark-gfm), or by python-markdown (what
    MkDocs and many wikis use) with its tables extension."""
    if renderer == "python-markdown":
        import markdown as python_markdown

        return python_markdown.markdown(markdown, extensions=["tables"])
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


def comment_html(markdown: str, renderer: str = "gfm") -> str:
    """The page: the renderer's HTML and GitHub's stylesheet, the comment body at GitHub's
    width."""
    rendered = rendered_html(markdown, renderer)
    css = (HERE / "github-markdown-light.css").read_text(encoding="utf-8")
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape('comment')}</title><style>{css}\n"
        "body { margin: 0; }\n"
        f".comment {{ width: {COMMENT_WIDTH}px; box-sizing: border-box; }}\n"
        f".markdown-body {{ width: {BODY_WIDTH}px; padding: 16px; }}\n"
        "</style></head><body><div class='comment'><div class='markdown-body'>"
        f"{rendered}</div></div><script>{_MEASURE}</script></body></html>"
    )


def _run_browser(browser: str, page: Path, *extra: str, height: int = 2000) -> str:
    command = [
        browser,
        "--headless",
        "--no-sandbox",  # CI runs as root, where Chromium's sandbox refuses to start
        "--disable-gpu",
        "--hide-scrollbars",
        f"--window-size={COMMENT_WIDTH},{height}",
        *extra,
        page.as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{browser} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return done.stdout


def measure(
    markdown: str, browser: str, screenshot: Path | None = None, renderer: str = "gfm"
) -> Layout:
    """Lay the comment out in ``browser`` and return what it measured."""
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "comment.html"
        page.write_text(comment_html(markdown, renderer), encoding="utf-8")
        dom = _run_browser(browser, page, "--dump-dom")
        found = _RESULT.search(dom)
        if found is None:
            raise RuntimeError("the browser ran no measuring script; its page:\n" + dom[:500])
        data = json.loads(html.unescape(found.group(1)))
        if screenshot is not None:
            _run_browser(
                browser, page, f"--screenshot={screenshot}", height=int(data["height"]) + 40
            )
    return Layout(
        height=data["height"],
        open_height=data["openHeight"],
        body_width=data["bodyWidth"],
        body_scroll_width=data["bodyScrollWidth"],
        tables=tuple(Table(t["width"], t["visible"], tuple(t["header"])) for t in data["tables"]),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("comment", type=Path)
    parser.add_argument("--screenshot", type=Path)
    parser.add_argument("--renderer", choices=RENDERERS, default="gfm")
    args = parser.parse_args(argv)
    browser = find_browser()
    if browser is None:
        print("no headless Chromium found (apt-get install chromium-headless-shell)")
        return 2
    text = args.comment.read_text(encoding="utf-8")
    layout = measure(text, browser, args.screenshot, args.renderer)
    print(
        f"{args.comment}: {len(args.comment.read_text(encoding='utf-8'))} characters, "
        f"height {layout.height} px (all details open: {layout.open_height} px), "
        f"widest table {layout.widest_table} px in a {BODY_WIDTH} px column, "
        f"{len(layout.overflowing)} of {len(layout.tables)} tables overflow"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
