"""Patches mkdocs-material's table wrapping: the build wraps each table as its late script would, so nothing moves.

mkdocs-material's script wraps each table of a page in two ``<div>``, of the
classes ``names.SCROLLWRAP`` and, inside it, ``names.TABLE_PAD``: the outer
box scrolls sideways on a narrow screen, the inner one pads the table.
The script starts only when the reader first moves (theme_on_demand.py), so
wrapped then, a table would move and change its width under the reader's
finger.  Here the build gives every table that wrapping, so the page is laid
out as it will stay from its first paint.  When the script starts it wraps the
table once more, inside this wrapping; layout.css makes that inner pair add
nothing (no margin, no padding, no scrolling of its own), and a11y.js names
only the outer box.

The tables wrapped are those mkdocs-material's script wraps,
``names.WRAPPED_TABLES``: a table with a class (a code block's line numbers)
is left as it is.  Tables do not nest in Markdown, so a table's end is the
first ``</table>`` after its start.  The classes and the selector are
mkdocs-material's (hooks/theme/names.py); hooks/theme/contract.py stops the
build, naming this patch, if its bundle no longer holds them.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # mkdocs loads hooks by file path
from hooks.theme.names import SCROLLWRAP, TABLE_PAD  # noqa: E402

TABLE = re.compile(r"<table(?![^>]*\sclass=)[^>]*>.*?</table>", re.S)
"""A table without a class attribute, whole (the tables that ``names.WRAPPED_TABLES`` selects)."""
OPEN = f'<div class="{SCROLLWRAP}"><div class="{TABLE_PAD}">'
CLOSE = "</div></div>"


def wrap_tables(html: str) -> str:
    """``html`` with each table without a class inside mkdocs-material's two wrapping boxes (none: unchanged)."""
    return TABLE.sub(lambda table: OPEN + table.group(0) + CLOSE, html)


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Wrap the page's tables."""
    return wrap_tables(html)
