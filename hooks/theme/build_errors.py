"""Patches pymdownx.snippets: a missing snippet stops the build with one line naming the page, not a traceback.

pymdownx.snippets (``check_paths: true``) raises ``SnippetMissingError`` when
a page includes a file that does not exist; mkdocs reports only its own
errors (``PluginError`` and kin) as a line, anything else as a traceback.
This hook turns that one error into a ``PluginError`` that names the page.
If pymdownx.snippets no longer has that error or the method wrapped here,
loading the hook stops the build in one line (hooks/theme/contract.py).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from pymdownx import snippets

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # mkdocs loads hooks by file path
from hooks.theme.contract import snippets_problem  # noqa: E402

_problem = snippets_problem()
if _problem:
    raise PluginError(f"build_errors.py: {_problem}")

_page = [""]  # the page being converted: Markdown does not tell the preprocessor
_run = getattr(snippets.SnippetPreprocessor, "_run_without_page_name", snippets.SnippetPreprocessor.run)


def _run_naming_the_page(self: snippets.SnippetPreprocessor, lines: list[str]) -> Any:
    try:
        return _run(self, lines)
    except snippets.SnippetMissingError as error:
        raise PluginError(f"{_page[0]}: {error}") from None


# Once, even when `mkdocs serve` loads this hook again for each rebuild.
snippets.SnippetPreprocessor._run_without_page_name = _run
snippets.SnippetPreprocessor.run = _run_naming_the_page


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Note the page being built, so that a missing snippet's error names it."""
    _page[0] = page.file.src_uri
    return markdown
