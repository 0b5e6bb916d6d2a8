"""The footer's version and commit: the site record's numbers, handed to the page template.

``hooks/theme/overrides/partials/copyright.html`` shows them under the licence line of
every page.  They come from the record ``site`` (``scripts/figures/site_info.py``:
CITATION.cff's version, the commit ``git rev-parse HEAD`` gave at build
time, or "an unknown commit" for a copy that is not a git checkout), read
from ``data/numbers.json`` like every number a page shows, so the footer and
the cite page's BibTeX name the same commit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))  # mkdocs loads hooks by file path
from figures import contract  # noqa: E402

KEY = "fpsum_build"
"""The template's ``config.extra`` key: ``{"version": ..., "built_from": ...}``."""


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Put the site's version and commit into ``config.extra`` (runs after gen-files wrote the numbers)."""
    numbers_file = files.get_file_from_path(contract.NUMBERS_PATH)
    if numbers_file is None:
        raise PluginError(f"{contract.NUMBERS_PATH} was not generated: did scripts/gen_figures.py run?")
    numbers = json.loads(numbers_file.content_string)
    config.extra[KEY] = {"version": numbers["site.version"], "built_from": numbers["site.built_from"]}
    return files
