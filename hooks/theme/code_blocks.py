"""Patches code blocks for mkdocs-material's content.lazy: each is sized while skipped off screen; long lines wrap.

mkdocs-material's ``content.lazy`` feature (mkdocs.yml) sets up a code block
-- its copy button, and keyboard access when it scrolls sideways -- only when
it comes into view, and layout.css has the browser skip styling, laying out and
drawing a block off screen (``content-visibility``).  Skipped, a block keeps
a height worked out from its number of lines: here each highlighted block gets
it, as the custom property ``--fpsum-code-lines`` of its ``<pre>``.  A line
longer than the block is wide wraps (layout.css), so a block that wraps is
taller once drawn than it was guessed: a block with a line over ``COLUMNS``
is marked, and never skipped; below 720 px, where any block may wrap, none
is.  (Keyboard access to a block that is not set up yet: a11y.js.)

Each line is a span of its own (pymdownx.highlight's ``line_spans``): a line
that wraps goes on under its own indentation plus two columns, beside a mark
in the gap (layout.css).  Here a line indented by spaces gets that indentation,
in columns, as ``--fpsum-indent`` (at most ``MAX_INDENT``: on a phone a deeper
hang would leave a wrapped line too little room).  A line indented by tabs
counts none (the shown code has none).

A ``<pre>`` of a page that is not a block in the form pymdownx.highlight
writes, or a block whose lines are not each in a span of their own, stops
the build, naming this hook and the page: it would be left unsized, or its
lines unindented, without a word.
"""

from __future__ import annotations

import html
import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

CODE_BLOCK = re.compile(r"<pre><span></span><code>(.*?)</code></pre>", re.S)
"""A block as pymdownx.highlight writes it; its last line ends with a newline."""
PRE = re.compile(r"<pre\b")
LINE_SPANS = "__span"
"""pymdownx.highlight's ``line_spans`` in mkdocs.yml: the prefix of each line's span's id."""
LINE = re.compile(f'(<span id="{LINE_SPANS}-[\\d-]+")>(.*?\\n)(?=</span>)', re.S)
"""A line's span, its opening tag up to ``>``, and its inside (ending with its newline)."""
TAG = re.compile(r"<[^>]+>")
LINES = "--fpsum-code-lines"
INDENT = "--fpsum-indent"
MAX_INDENT = 16
COLUMNS = 79
"""The longest line a block shows unwrapped from a small tablet up (layout.css sizes its font for it; the code
the pages include is held to it, tests/build/test_shown_code.py).  A block with a longer line wraps at every width, is
taller than its line count says, and is marked ``data-fpsum-wraps``: layout.css never skips it off screen."""


def longest(code: str) -> int:
    """How many columns the longest line of the HTML of a block's code takes."""
    return max((len(line) for line in html.unescape(TAG.sub("", code)).expandtabs().split("\n")), default=0)


def lines(code: str) -> int:
    """How many lines the HTML of a block's code shows (its last line ends with a newline, in or out of a span)."""
    return TAG.sub("", code).rstrip("\n").count("\n") + 1


def indent(line: str) -> int:
    """How many spaces the HTML of a line starts with (at most ``MAX_INDENT``); a blank line has none."""
    text = html.unescape(TAG.sub("", line)).rstrip("\n")
    return min(len(text) - len(text.lstrip(" ")), MAX_INDENT) if text.strip() else 0


def indented(code: str) -> str:
    """The HTML of a block's code with each indented line's span carrying its indentation."""

    def one(line: re.Match[str]) -> str:
        spaces = indent(line.group(2))
        style = f' style="{INDENT}: {spaces}"' if spaces else ""
        return f"{line.group(1)}{style}>{line.group(2)}"

    return LINE.sub(one, code)


def prepared(html: str, name: str) -> str:
    """The HTML of the page ``name`` with every highlighted code block given its line count and indentations.

    Raises ``PluginError`` naming the page if a ``<pre>`` is not a block as
    pymdownx.highlight writes it, or a block's lines are not each in a span.
    """
    blocks = CODE_BLOCK.findall(html)
    if len(blocks) != len(PRE.findall(html)):
        raise PluginError(f"code_blocks.py: {name}: {len(PRE.findall(html)) - len(blocks)} <pre> not in the form "
                          "pymdownx.highlight writes (<pre><span></span><code>): they would be left unsized")

    def counted(block: re.Match[str]) -> str:
        if len(LINE.findall(block.group(1))) != lines(block.group(1)):
            raise PluginError(f"code_blocks.py: {name}: a code block's lines are not each in a span "
                              f'<span id="{LINE_SPANS}-..."> (pymdownx.highlight\'s line_spans in mkdocs.yml)')
        code = indented(block.group(1))
        wraps = " data-fpsum-wraps" if longest(code) > COLUMNS else ""
        return f'<pre style="{LINES}: {lines(code)}"{wraps}><span></span><code>{code}</code></pre>'

    return CODE_BLOCK.sub(counted, html)


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Give every highlighted code block its line count, and each of its indented lines its indentation."""
    return prepared(html, page.file.src_uri)
