"""The code the pages include from src/ and scripts/ fits a block, is laid out as usual, its docstrings read as text.

A page includes code with pymdownx.snippets (``--8<-- "fpsum/textbook.py:naive"``:
a section between two markers, or a whole file); the includes are found in the
pages, so a new one is held to the same rules.  The rules:

- every line is at most 79 characters (PEP 8's limit): a code block has room
  for 79 columns from a 600 px screen up, at mkdocs-material's size on a
  desktop (whose block holds about 80); on a phone the font stays at 12 px and
  a longer line wraps, marked (``test_fits_screen`` checks all three in
  chromium).  Code typed in a page itself (a shell command) is not held to
  this: it wraps too;
- included code from src/ is laid out as ``ruff format`` lays it out at that
  width (one line per signature where it fits), not hand-wrapped narrower;
- docstrings carry no reStructuredText markup (``` ``x`` ```,
  ``:func:`add` ``), which a reader of the page sees raw: shown docstrings
  are written plain (`x` in single backquotes, ``add()``).
"""

from __future__ import annotations

import difflib
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from repocopy import REPO

sys.path.insert(0, str(REPO))
from hooks.theme.code_blocks import COLUMNS  # noqa: E402  (the hook marks a block with a longer line: it wraps)

BASES = (REPO / "src", REPO / "scripts", REPO / "docs" / "assets" / "javascripts")
"""Where the includes are looked up: the snippets extension's ``base_path`` in mkdocs.yml."""
INCLUDE = re.compile(r'^\s*--8<-- "([^"]+)"', re.M)
MARKER = re.compile(r"--8<-- \[(start|end):([\w-]+)\]")
RAW_MARKUP = re.compile(r"``|:(?:func|meth|mod|class|data|attr|obj|exc|const):`")


def includes() -> list[str]:
    """Every include of every page, as written: ``fpsum/textbook.py:naive``."""
    found = {ref for page in sorted((REPO / "docs").rglob("*.md")) for ref in INCLUDE.findall(page.read_text())}
    return sorted(found)


def shown(ref: str) -> list[str]:
    """The lines an include shows, as pymdownx.snippets cuts them (marker lines left out).

    ``AssertionError`` if the file or the section is not there (the strict build would fail too).
    """
    path, _, section = ref.partition(":")
    files = [base / path for base in BASES if (base / path).is_file()]
    assert files, f"{ref}: no such file under {[str(b) for b in BASES]}"
    lines = files[0].read_text(encoding="utf-8").splitlines()
    if section:
        marks = {(m.group(1), m.group(2)): i for i, line in enumerate(lines) if (m := MARKER.search(line))}
        assert ("start", section) in marks and ("end", section) in marks, f"{ref}: no such section"
        lines = lines[marks["start", section] + 1:marks["end", section]]
    return [line for line in lines if not MARKER.search(line)]


INCLUDES = includes()


def test_the_pages_include_code() -> None:
    """The search for includes finds them (an empty list would pass every test below)."""
    assert len(INCLUDES) >= 30 and "fpsum/textbook.py:naive" in INCLUDES


@pytest.mark.parametrize("ref", INCLUDES)
def test_every_shown_line_fits_the_columns(ref: str) -> None:
    long = [f"{len(line)}: {line}" for line in shown(ref) if len(line.expandtabs()) > COLUMNS]
    assert long == [], f"{ref}: lines over {COLUMNS} characters"


@pytest.mark.parametrize("ref", INCLUDES)
def test_shown_docstrings_carry_no_raw_markup(ref: str) -> None:
    raw = [line.strip() for line in shown(ref) if RAW_MARKUP.search(line)]
    assert raw == [], f"{ref}: reStructuredText markup a reader would see raw"


def test_the_markup_rule_tells_raw_markup_from_plain() -> None:
    assert RAW_MARKUP.search("(``IndexError`` otherwise)") and RAW_MARKUP.search("as in :func:`add`")
    assert not RAW_MARKUP.search("(`IndexError` otherwise), as in `add()`")


@pytest.mark.parametrize("ref", [ref for ref in INCLUDES if ref.startswith("fpsum/") and ":" in ref])
def test_shown_model_code_is_formatted_as_ruff_formats_it(ref: str) -> None:
    """A region of the model, taken out of its file (and its indentation), is what ``ruff format`` makes of it.

    The width is what is left of COLUMNS beside the region's indentation; a trailing comma does not force a
    call or a signature onto one line per argument (``skip-magic-trailing-comma``), quotes are left as written.
    """
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    lines = shown(ref)
    indent = min(len(line) - len(line.lstrip()) for line in lines if line.strip())
    code = textwrap.dedent("\n".join(lines)).strip("\n") + "\n"
    formatted = subprocess.run(
        [ruff, "format", "--isolated", "--line-length", str(COLUMNS - indent),
         "--config", "format.skip-magic-trailing-comma=true", "--config", "format.quote-style='preserve'", "-"],
        input=code, capture_output=True, text=True, check=True).stdout
    changed = [line for line in difflib.unified_diff(code.splitlines(), formatted.splitlines(), lineterm="", n=0)
               if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert changed == [], f"{ref}: ruff format would change it: {changed[:6]}"
