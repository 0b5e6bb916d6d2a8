"""Put the model's numbers and figures into the pages.

Pages never hold a number the model computes: they hold tokens.  What the
tokens look like, and where the figure builders (run by mkdocs-gen-files
before this hook) leave their output, is :mod:`figures.contract`, which
both sides import:

- ``{{ <id>.<key> }}`` becomes the text of that number of record ``<id>``,
  from ``data/numbers.json``;
- a paragraph holding only ``{{ figure <id> }}`` becomes the record's HTML
  fragment; fragments are consumed here and not published as files.  Links
  inside a fragment are resolved for the page with mkdocs's
  ``get_relative_url``, and its number placeholder becomes the figure's (or
  table's) number on that page;
- the generated style sheet of the method looks is added to every page.

An unknown token or figure stops the build with the page's name.
"""

from __future__ import annotations

import json
import posixpath
import re
import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))  # mkdocs loads hooks by file path
from figures import contract  # noqa: E402

KIND = re.compile(r'data-kind="(\w+)"')
CODE = re.compile(r"<pre.*?</pre>|<code.*?</code>", re.S)

_numbers: dict[str, str] = {}
_fragments: dict[str, str] = {}


FIGURE_ANCHOR = re.compile(r'<figure [^>]*\bid="([^"]+)"')
"""The permalink anchor of a figure fragment, ``fig-<id>``."""


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Every page gets the generated style sheet of the method looks."""
    if contract.LOOKS_CSS not in config.extra_css:
        config.extra_css.insert(0, contract.LOOKS_CSS)
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Read the numbers and take the fragments out of the file list (runs after gen-files)."""
    _numbers.clear()
    _fragments.clear()
    numbers_file = files.get_file_from_path(contract.NUMBERS_PATH)
    if numbers_file is None:
        raise PluginError(f"{contract.NUMBERS_PATH} was not generated: did scripts/gen_figures.py run?")
    _numbers.update(json.loads(numbers_file.content_string))
    folder = contract.FRAGMENTS_DIR + "/"
    for file in list(files):
        if file.src_uri.startswith(folder):
            _fragments[posixpath.splitext(file.src_uri[len(folder):])[0]] = file.content_string
            files.remove(file)
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Replace number tokens; leave figure tokens for after Markdown."""

    def number(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in _numbers:
            raise PluginError(f"{page.file.src_uri}: unknown number {{{{ {key} }}}}")
        return _numbers[key]

    return contract.NUMBER_TOKEN.sub(number, markdown)


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Replace figure paragraphs with their HTML; any token left over is an error."""
    counters: dict[str, int] = {}

    def figure(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in _fragments:
            raise PluginError(f"{page.file.src_uri}: unknown figure {name!r} (known: {', '.join(sorted(_fragments))})")
        fragment = _fragments[name]
        kind = KIND.search(fragment)
        label = kind.group(1) if kind else "Figure"
        counters[label] = counters.get(label, 0) + 1  # figures and tables count separately, per page
        linked = contract.ROOT_LINK.sub(lambda link: get_relative_url(link.group(1), page.url), fragment)
        if page.present_anchor_ids is not None:  # so that links to #fig-<id> from other pages are checked
            page.present_anchor_ids.update(FIGURE_ANCHOR.findall(fragment))
        return linked.replace(contract.FIGURE_NUMBER, str(counters[label]))

    html = contract.FIGURE_PARAGRAPH.sub(figure, html)
    # Braces in code are code (BibTeX, for one); number tokens were checked before Markdown.
    leftover = contract.ANY_TOKEN.search(CODE.sub("", html))
    if leftover:
        raise PluginError(f"{page.file.src_uri}: token {leftover.group(0)!r} was not replaced "
                          "(a figure token must be a paragraph of its own)")
    return html
