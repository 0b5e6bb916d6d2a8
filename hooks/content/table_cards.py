"""A wide table reads on a phone as one card per row, each value under its column's name.

On a phone (below 720 px, layout.css) a table marked ``data-fpsum-cards``
stops being laid out as a grid: each row is a card headed by its first cell,
and every other cell shows its column's header, written here into the cell as
``data-label`` (layout.css draws it with ``attr()``, as text a screen reader
skips).  So the column a reader came for is on the screen without scrolling
sideways, whatever the table's width.  Wider, the table is a table again.

A table laid out as blocks is no longer a table to some screen readers
(Safari's drops the semantics a ``display`` other than the table ones loses):
each of its elements gets the ARIA role it has natively (``table``,
``rowgroup``, ``row``, ``columnheader``, ``rowheader``, ``cell``), and the
header row stays in the page, only clipped out of sight.

The tables carded are those too wide for a 360 px screen, a narrower one
being easier to compare by eye as a grid.  A table is at least as wide as
its words: each column as wide as the longest word of its cells, plus its
padding (``PADDING`` characters).  Where that sum is more than ``FITS``
characters the table is carded: on the site's tables at 360 px, those of
50 characters or more overflowed and those of 43 or less fitted.  A
formula in a cell counts no characters (its text is an SVG drawing).  A table with a class
(a code block's line numbers) or without a ``<thead>`` is left as it is, and
so is one with a cell that spans (a card has one value per column).  A
header's label is its text with the tags stripped.
"""

from __future__ import annotations

import html
import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

TABLE = re.compile(r"<table(?![^>]*\sclass=)([^>]*)>(.*?)</table>", re.S)
"""A table without a class attribute: its attributes and its inside."""
HEAD = re.compile(r"<thead[^>]*>(.*?)</thead>", re.S)
ROW = re.compile(r"<tr([^>]*)>(.*?)</tr>", re.S)
CELL = re.compile(r"<(t[hd])((?:\s[^>]*)?)>(.*?)</\1>", re.S)
"""A cell: its tag, its attributes, its inside (cells do not nest in Markdown's tables)."""
TAG = re.compile(r"<[^>]+>")
PADDING = 2.5
"""A cell's padding on a phone (0.8em on either side, layout.css), in characters of the table's text."""
FITS = 46
"""The width, in characters, of the widest table a 360 px screen holds (see the module's docstring)."""


def text(fragment: str) -> str:
    """The text of an HTML fragment, tags stripped, entities read, white space joined."""
    return " ".join(html.unescape(TAG.sub("", fragment)).split())


def least_width(rows: list[list[str]]) -> float:
    """The least width of a table of ``rows`` (each its cells' texts), in characters: the longest word per column."""
    columns = max((len(row) for row in rows), default=0)
    longest = [max((len(word) for row in rows if i < len(row) for word in row[i].split()), default=0)
               for i in range(columns)]
    return sum(longest) + PADDING * columns


def wide(rows: list[list[str]]) -> bool:
    """Whether a table of ``rows`` (header included, each its cells' texts) is too wide for a phone."""
    return least_width(rows) > FITS


def with_role(attributes: str, role: str) -> str:
    """``attributes`` with ``role``; unchanged if they have a role already."""
    return attributes if re.search(r"\srole=", attributes) else f' role="{role}"' + attributes


def card_table(match: re.Match[str]) -> str:
    """The table of ``match`` marked for cards, if it is wide; else unchanged."""
    attributes, inside = match.group(1), match.group(2)
    head_match = HEAD.search(inside)
    if head_match is None or "colspan" in inside or "rowspan" in inside:
        return match.group(0)
    labels = [text(cell.group(3)) for cell in CELL.finditer(head_match.group(1))]
    body = inside[head_match.end():]
    cells = [[text(cell.group(3)) for cell in CELL.finditer(row)] for _, row in ROW.findall(inside)]
    if not wide(cells):
        return match.group(0)

    def header_row(row: re.Match[str]) -> str:
        cells = CELL.sub(lambda c: f"<th{with_role(c.group(2), 'columnheader')}>{c.group(3)}</th>", row.group(2))
        return f"<tr{with_role(row.group(1), 'row')}>{cells}</tr>"

    def body_row(row: re.Match[str]) -> str:
        cells = list(CELL.finditer(row.group(2)))
        out = []
        for index, cell in enumerate(cells):
            tag, cell_attributes, cell_inside = cell.groups()
            role = "rowheader" if tag == "th" else "cell"
            if index > 0 and index < len(labels):
                cell_attributes = f' data-label="{html.escape(labels[index])}"' + cell_attributes
            out.append(f"<{tag}{with_role(cell_attributes, role)}>{cell_inside}</{tag}>")
        return f"<tr{with_role(row.group(1), 'row')}>" + "\n".join(out) + "</tr>"

    head = ROW.sub(header_row, head_match.group(1))
    rows = ROW.sub(body_row, body)
    groups = re.sub(r"<(thead|tbody)>", r'<\1 role="rowgroup">', inside[:head_match.start()]
                    + f"<thead>{head}</thead>" + rows)
    return f'<table data-fpsum-cards{with_role(attributes, "table")}>{groups}</table>'


def card_tables(html_text: str) -> str:
    """``html_text`` with each wide table marked for cards on a phone."""
    return TABLE.sub(card_table, html_text)


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Mark the page's wide tables."""
    return card_tables(html)
