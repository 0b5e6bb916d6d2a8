"""Put the model's numbers and figures into the pages.

Pages never hold a number the model computes: they hold tokens.
``{{ race.fp16.uniform.naive }}`` becomes the text of that number, taken
from ``data/numbers.json``, which the figure scripts (run by
mkdocs-gen-files) write.  A paragraph holding only ``{{ figure NAME }}``
becomes the figure's HTML, from the fragment ``_fragments/NAME.html`` the
scripts wrote; fragments are consumed here and not published as files.
Relative links inside a fragment are written from the site root as
``@root@/...`` and rewritten for the page that shows it; ``@number@`` becomes
the figure's (or table's) number on that page.

An unknown token or figure stops the build with the page's name.
"""

from __future__ import annotations

import json
import posixpath
import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

NUMBERS_PATH = "data/numbers.json"
FRAGMENT_DIR = "_fragments/"
NUMBER_TOKEN = re.compile(r"\{\{\s*([a-z0-9_.]+)\s*\}\}")
FIGURE_PARAGRAPH = re.compile(r"<p>\s*\{\{\s*figure\s+([a-z0-9-]+)\s*\}\}\s*</p>")
ANY_TOKEN = re.compile(r"\{\{.*?\}\}")
KIND = re.compile(r'data-kind="(\w+)"')
CODE = re.compile(r"<pre.*?</pre>|<code.*?</code>", re.S)

_numbers: dict[str, str] = {}
_fragments: dict[str, str] = {}


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Read the numbers and take the fragments out of the file list (runs after gen-files)."""
    _numbers.clear()
    _fragments.clear()
    numbers_file = files.get_file_from_path(NUMBERS_PATH)
    if numbers_file is None:
        raise PluginError(f"{NUMBERS_PATH} was not generated: did scripts/gen_figures.py run?")
    _numbers.update(json.loads(numbers_file.content_string))
    for file in list(files):
        if file.src_uri.startswith(FRAGMENT_DIR):
            name = posixpath.splitext(file.src_uri[len(FRAGMENT_DIR):])[0]
            _fragments[name] = file.content_string
            files.remove(file)
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Replace number tokens; leave figure tokens for after Markdown."""

    def number(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in _numbers:
            raise PluginError(f"{page.file.src_uri}: unknown number {{{{ {key} }}}}")
        return _numbers[key]

    return NUMBER_TOKEN.sub(number, markdown)


def _root_prefix(page: Page) -> str:
    """What ``@root@/`` becomes on ``page``: '' for a top-level page, '../' one level down."""
    return "../" * page.url.count("/")


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Replace figure paragraphs with their HTML; any token left over is an error."""
    root = _root_prefix(page)
    counters: dict[str, int] = {}

    def figure(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in _fragments:
            raise PluginError(f"{page.file.src_uri}: unknown figure {name!r} (known: {', '.join(sorted(_fragments))})")
        fragment = _fragments[name]
        kind = KIND.search(fragment)
        label = kind.group(1) if kind else "Figure"
        counters[label] = counters.get(label, 0) + 1  # figures and tables count separately, per page
        return fragment.replace("@root@/", root).replace("@number@", str(counters[label]))

    html = FIGURE_PARAGRAPH.sub(figure, html)
    # Braces in code are code (BibTeX, for one); number tokens were checked before Markdown.
    leftover = ANY_TOKEN.search(CODE.sub("", html))
    if leftover:
        raise PluginError(f"{page.file.src_uri}: token {leftover.group(0)!r} was not replaced "
                          "(a figure token must be a paragraph of its own)")
    return html
