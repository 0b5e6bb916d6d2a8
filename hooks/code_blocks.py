"""Code blocks that cost the page nothing until a reader comes near them.

mkdocs-material's ``content.lazy`` feature (mkdocs.yml) sets up a code block
-- its copy button, and keyboard access when it scrolls sideways -- only when
it comes into view, and layout.css has the browser skip styling, laying out and
drawing a block off screen (``content-visibility``).  Skipped, a block must
keep the height it will have, so that nothing moves when it is drawn: here
each highlighted block gets its number of lines, as the custom property
``--fpsum-code-lines`` of its ``<pre>``, from which layout.css works the height
out.  That holds because a line never wraps: one that does not fit scrolls
sideways in its block.  (Keyboard access to a block that is not set up yet: a11y.js.)
"""

from __future__ import annotations

import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

CODE_BLOCK = re.compile(r"<pre><span></span><code>(.*?)</code></pre>", re.S)
"""A block as pymdownx.highlight writes it; its last line ends with a newline."""
LINES = "--fpsum-code-lines"


def lines(code: str) -> int:
    """How many lines the HTML of a block's code shows."""
    return code.rstrip("\n").count("\n") + 1


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Give every highlighted code block its line count."""

    def counted(block: re.Match[str]) -> str:
        return f'<pre style="{LINES}: {lines(block.group(1))}">' + block.group(0).removeprefix("<pre>")

    return CODE_BLOCK.sub(counted, html)
