"""The two hooks that make a phone readable: wide tables marked as cards, code lines given their indentation.

``hooks/content/table_cards.py`` marks a table too wide for a 360 px screen
(``data-fpsum-cards``), writes each body cell's column name into it
(``data-label``) and gives each element its table role; a narrow table, one
with a class, without a header or with a spanning cell is left as it is.
``hooks/theme/code_blocks.py`` counts a block's lines and writes each indented
line's indentation on its span.  How the pages look with them: tests/browser/test_fits_screen.py.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from hooks.content import table_cards  # noqa: E402
from hooks.theme import code_blocks  # noqa: E402

WIDE = ("<table>\n<thead>\n<tr>\n<th>call</th>\n<th>result</th>\n<th>how it adds</th>\n<th>type</th>\n</tr>\n"
        "</thead>\n<tbody>\n"
        '<tr>\n<td>NumPy <code>x.sum()</code></td>\n<td style="text-align: right">4,078</td>\n'
        "<td>float32 inside: blocks of 128 with 8 accumulators, blocks combined pairwise</td>\n"
        "<td>float8_e4m3fn</td>\n</tr>\n</tbody>\n</table>")
"""Its least width: 7 + 6 + 13 + 13 characters of words, 4 x 2.5 of padding: 49, past 46."""
NARROW = ("<table>\n<thead>\n<tr><th>a</th><th>b</th><th>c</th></tr>\n</thead>\n<tbody>\n"
          "<tr><td>1</td><td>2</td><td>3</td></tr>\n</tbody>\n</table>")


def test_a_wide_table_is_marked_each_cell_labelled_and_every_element_given_its_role() -> None:
    carded = table_cards.card_tables(WIDE)
    assert carded.startswith('<table data-fpsum-cards role="table">')
    groups = re.findall(r"<(thead|tbody) ([^>]*)>", carded)
    assert groups == [("thead", 'role="rowgroup"'), ("tbody", 'role="rowgroup"')]
    assert carded.count('<tr role="row">') == 2
    assert carded.count('<th role="columnheader">') == 4
    cells = re.findall(r"<td([^>]*)>(.*?)</td>", carded)
    assert cells == [(' role="cell"', "NumPy <code>x.sum()</code>"),
                     (' role="cell" data-label="result" style="text-align: right"', "4,078"),
                     (' role="cell" data-label="how it adds"',
                      "float32 inside: blocks of 128 with 8 accumulators, blocks combined pairwise"),
                     (' role="cell" data-label="type"', "float8_e4m3fn")]


def test_a_header_label_is_its_text_escaped() -> None:
    header = "<th>how <em>it</em> adds &amp; &quot;why&quot;</th>"
    carded = table_cards.card_tables(WIDE.replace("<th>how it adds</th>", header))
    assert 'data-label="how it adds &amp; &quot;why&quot;"' in carded


def test_a_narrow_table_and_the_tables_a_card_cannot_hold_are_left_as_they_are() -> None:
    assert table_cards.card_tables(NARROW) == NARROW
    for left in (WIDE.replace("<table>", '<table class="highlighttable">'),
                 re.sub(r"</?thead>", "", WIDE),
                 WIDE.replace("<td>NumPy", '<td colspan="2">NumPy')):
        assert table_cards.card_tables(left) == left


def test_a_table_is_wide_when_its_longest_words_and_padding_pass_the_screen() -> None:
    """Eleven columns of a word of two characters: 11 x (2 + 2.5) = 49.5 characters, past 46; ten: 45."""
    assert table_cards.least_width([["ab"] * 11]) == 49.5
    assert table_cards.wide([["ab"] * 11]) and not table_cards.wide([["ab"] * 10])
    assert table_cards.least_width([["a long cell of short words", "x"], ["y", "z"]]) == 5 + 1 + 2 * 2.5


def test_each_indented_line_of_a_block_gets_its_indentation() -> None:
    code = ('<span id="__span-0-1"><span class="k">def</span> f():\n</span>'
            '<span id="__span-0-2"><span class="w">    </span><span class="k">return</span> 1\n</span>'
            '<span id="__span-0-3">\n</span>'
            '<span id="__span-0-4">' + " " * 40 + "x\n</span>")
    html = f"<pre><span></span><code>{code}</code></pre>"
    out = code_blocks.prepared(html, "page.md")
    assert out.startswith('<pre style="--fpsum-code-lines: 4"><span></span><code>')
    assert re.findall(r'<span id="__span-0-(\d)"( style="[^"]*")?>', out) == [
        ("1", ""), ("2", ' style="--fpsum-indent: 4"'), ("3", ""),
        ("4", f' style="--fpsum-indent: {code_blocks.MAX_INDENT}"')]
    assert re.sub(r' style="[^"]*"', "", out) == html
