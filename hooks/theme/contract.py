"""Checks that the installed mkdocs-material still holds what each of our patches of it relies on; first in every build.

Every patch in hooks/theme/ names here what it reads, rewrites or forks in
mkdocs-material: a global of its scripts, a class or selector of its bundle
or style sheet, a block of its base template, the shape of its bundle's
``<script>`` tag, a partial (by the SHA-256 of the
upstream text the fork was made from).  :func:`problems` checks a theme
folder (mkdocs-material's ``templates``) and returns one line per target
that is missing or changed, naming the patch; as a hook, this module stops
the build on the first one, so an upgrade of mkdocs-material that breaks a
patch fails in seconds, before any page is built, instead of in the browser
tests or, silently, in a reader's browser.  tests/build/test_theme_contract.py
runs it on the pinned theme and on copies with one target renamed.

A target is looked for in exactly one file: a file's path is given as a
regex (mkdocs-material's scripts and sheets carry a hash in their names),
and a path that matches no file, or more than one, is a problem too.  Two
patches rely on pymdownx rather than on the theme (code_blocks.py reads
pymdownx.highlight's HTML, build_errors.py wraps pymdownx.snippets): they
are checked on the installed library, whatever theme folder is given.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # mkdocs loads hooks by file path
from hooks.theme import code_blocks  # noqa: E402
from hooks.theme.names import BUNDLE, SCROLLWRAP, TABLE_PAD, WRAPPED_TABLES  # noqa: E402

BASE = "base.html"
SCRIPT_GLOBALS = "partials/javascripts/base.html"
MAIN_CSS = r"assets/stylesheets/main\.[0-9a-f]+\.min\.css"
PALETTE_CSS = r"assets/stylesheets/palette\.[0-9a-f]+\.min\.css"


@dataclass(frozen=True)
class Target:
    """Text a patch needs in one file of the theme.

    ``file`` is a regex of the file's path in the theme folder (exactly one
    file must match); ``holds`` the text it must hold, a regex when
    ``regex``; ``why`` what the patch does with it, for the failure line.
    A text that starts or ends with a letter, digit, ``_`` or ``-`` must
    start or end a name there too: ``.md-typeset__table`` is not found in
    ``.md-typeset__tablebox``.
    """

    patch: str
    file: str
    holds: str
    why: str
    regex: bool = False

    def found_in(self, text: str) -> bool:
        """Whether ``text`` holds the target."""
        if self.regex:
            return re.search(self.holds, text) is not None
        before = r"(?<![\w-])" if re.match(r"[\w-]", self.holds) else ""
        after = r"(?![\w-])" if re.search(r"[\w-]\Z", self.holds) else ""
        return re.search(before + re.escape(self.holds) + after, text) is not None


@dataclass(frozen=True)
class Fork:
    """A partial of ours that replaces the theme's: ``upstream``, whose text had SHA-256 ``sha256`` when forked."""

    patch: str
    upstream: str
    sha256: str


def block(name: str) -> str:
    """A regex for the opening of the Jinja block ``name`` (a block that main.html fills)."""
    return r"\{%-?\s*block\s+" + name + r"\s*-?%\}"


TARGETS: tuple[Target, ...] = (
    # The bundle's tag, in place of which the loader goes, and what the loader hands over to the bundle.
    Target("theme_on_demand.py", BASE, r"<script src=\"\{\{ '" + BUNDLE + r"' \| url \}\}\"></script>",
           "the bundle's <script> tag, which the loader replaces", regex=True),
    Target("theme_on_demand.py", BUNDLE, "document$=", "the bundle's document$, to which the loader hands the page"),
    Target("theme_on_demand.py", SCRIPT_GLOBALS, "__md_set=", "__md_set, with which the loader stores a palette"),
    Target("theme_on_demand.py", BUNDLE, '__md_get("__palette")', "the stored palette the bundle starts from"),
    Target("theme_on_demand.py", "partials/palette.html", 'data-md-component="palette"',
           "the palette toggle the loader applies before the bundle runs"),
    Target("theme_on_demand.py", "partials/search.html", 'data-md-component="search-query"',
           "the search field the loader focuses"),
    Target("theme_on_demand.py", "partials/header.html", 'for="__search"', "the search button the loader listens to"),
    # The page template's additions.
    *(Target("overrides/main.html", BASE, block(name), f"the block {name} that main.html fills", regex=True)
      for name in ("extrahead", "header", "config", "libs", "scripts")),
    Target("overrides/main.html", BASE, 'class="no-js"', "the class no-js that the head script replaces by js"),
    Target("overrides/main.html", MAIN_CSS, ".no-js", "main.css's rules on no-js, which restyle the page when it goes"),
    Target("overrides/main.html", SCRIPT_GLOBALS, "__md_get=",
           "__md_get, with which the header script reads the palette"),
    Target("overrides/main.html", "partials/palette.html", "data-md-color-media",
           "the palettes' media queries, from which the header script picks the system's"),
    Target("overrides/main.html", PALETTE_CSS, "[data-md-color-switching]",
           "the attribute that turns transitions off, set early by the header script"),
    Target("overrides/main.html", BASE, 'id="__config"', "the configuration the config script edits from disk"),
    # The tables' wrapping, and the boxes a11y.js names.
    Target("table_wraps.py", BUNDLE, f'"{SCROLLWRAP}"', "the class of the box the bundle wraps each table in"),
    Target("table_wraps.py", BUNDLE, f'"{TABLE_PAD}"', "the class of the inner box the bundle wraps each table in"),
    Target("table_wraps.py", BUNDLE, WRAPPED_TABLES, "the selector of the tables the bundle wraps"),
    Target("table_wraps.py", MAIN_CSS, f".{SCROLLWRAP}", "main.css's rules for the box a table scrolls in"),
    Target("table_wraps.py", MAIN_CSS, f".{TABLE_PAD}", "main.css's rules for the box that pads a table"),
    Target("overrides/assets/javascripts/a11y.js", BUNDLE, '"md-code__nav"',
           "the class of a code block's <nav>, which a11y.js names"),
    # The code blocks the bundle sets up lazily.
    Target("code_blocks.py", BUNDLE, "content.lazy", "the feature that sets a code block up when it comes into view"),
    # The site without an address.
    Target("address.py", BUNDLE, "navigation.instant", "the feature address.py leaves out of a build without site_url"),
    # The 404 page's root.
    Target("not_found.py", "mkdocs_theme.yml", "- 404.html", "the 404 page, a template the theme builds on its own"),
    Target("not_found.py", BASE, '"base": base_url', "the configuration's root, which not_found.py rewrites"),
    Target("not_found.py", SCRIPT_GLOBALS, '__md_scope=new URL("{{ config.extra.scope | d(base_url) }}"',
           "the scope of what the scripts store, which not_found.py rewrites"),
    Target("not_found.py", BASE, '<meta charset="utf-8">', "the first element of the head, after which the root goes"),
)

FORKS: tuple[Fork, ...] = (
    Fork("overrides/partials/search.html", "partials/search.html",
         "bfd556535abcddb99396ab2a7e3acc2ebcd3f36756007d3969396caa4126be30"),
    Fork("overrides/partials/copyright.html", "partials/copyright.html",
         "bc86bca3bf75070fe5d72e2a3463bdddf87c10f4d6459c945fe81c5d384e35ea"),
)
"""mkdocs-material 9.8.2's partials, which our forks copy but for the lines they change."""


def theme_files(theme: Path) -> list[str]:
    """The paths of the files in the theme folder ``theme``, relative to it (hidden folders and the icons left out)."""
    paths = []
    for folder, dirs, files in os.walk(theme):
        dirs[:] = [name for name in dirs if not name.startswith(".")]
        paths += [Path(folder, name).relative_to(theme).as_posix() for name in files]
    return sorted(paths)


def one_file(theme: Path, paths: list[str], pattern: str) -> tuple[str | None, str]:
    """The text of the one file of ``paths`` that ``pattern`` matches whole, or None and why not."""
    found = [path for path in paths if re.fullmatch(pattern, path)]
    if len(found) != 1:
        return None, f"{len(found)} files of mkdocs-material match {pattern}, expected 1"
    return (theme / found[0]).read_text(encoding="utf-8"), found[0]


@cache  # the installed library's, whatever the theme: once per process
def highlight_problem() -> str | None:
    """Why code_blocks.py would find no block or no line in pymdownx.highlight's HTML, or None if it finds both."""
    import markdown  # type: ignore[import-untyped]  # here: only this check needs it

    text = markdown.markdown("```python\ndef f():\n    return 1\n```\n", extensions=["pymdownx.superfences",
                             "pymdownx.highlight"], extension_configs={"pymdownx.highlight": {
                                 "line_spans": code_blocks.LINE_SPANS}})
    blocks = code_blocks.CODE_BLOCK.findall(text)
    if len(blocks) != 1 or len(code_blocks.LINE.findall(blocks[0])) != 2:
        return f"pymdownx.highlight's code block is no longer in the form code_blocks.py reads: {text[:120]!r}"
    return None


def snippets_problem() -> str | None:
    """Why build_errors.py could not wrap pymdownx.snippets, or None if it can."""
    from pymdownx import snippets

    preprocessor = getattr(snippets, "SnippetPreprocessor", None)
    if not hasattr(snippets, "SnippetMissingError") or not callable(getattr(preprocessor, "run", None)):
        return "pymdownx.snippets has no SnippetMissingError or no SnippetPreprocessor.run to wrap"
    return None


LIBRARY_CHECKS: tuple[tuple[str, Callable[[], str | None]], ...] = (
    ("code_blocks.py", highlight_problem),
    ("build_errors.py", snippets_problem),
)
"""The patches that rely on pymdownx rather than on the theme, and the check of each."""


def problems(theme: Path) -> list[str]:
    """One line per target of a patch that the theme folder ``theme`` (or pymdownx) lacks, each naming the patch.

    An empty list: every patch finds what it relies on.  ``theme`` is
    mkdocs-material's ``templates`` folder (or a copy of it).
    """
    paths = theme_files(theme)
    lines = []
    for target in TARGETS:
        text, where = one_file(theme, paths, target.file)
        if text is None:
            lines.append(f"{target.patch}: {where} ({target.why})")
        elif not target.found_in(text):
            lines.append(f"{target.patch}: mkdocs-material's {where} no longer holds {target.holds!r} ({target.why})")
    for fork in FORKS:
        text, where = one_file(theme, paths, re.escape(fork.upstream))
        if text is None:
            lines.append(f"{fork.patch}: {where} (the partial it forks)")
        elif hashlib.sha256(text.encode()).hexdigest() != fork.sha256:
            lines.append(f"{fork.patch}: mkdocs-material's {where} has changed since it was forked: "
                         "make the fork again from the new one, and put the new SHA-256 in hooks/theme/contract.py")
    for patch, check in LIBRARY_CHECKS:
        problem = check()
        if problem:
            lines.append(f"{patch}: {problem}")
    return lines


def installed_theme(config: MkDocsConfig) -> Path:
    """mkdocs-material's templates folder of this build: the theme folder with a ``mkdocs_theme.yml``."""
    for folder in config.theme.dirs:
        if Path(folder, "mkdocs_theme.yml").is_file():
            return Path(folder)
    raise PluginError("contract.py: no theme folder with a mkdocs_theme.yml: is mkdocs-material installed?")


def require(theme: Path) -> None:
    """Raise ``PluginError`` with :func:`problems`' first line (and how many more) if there is any."""
    found = problems(theme)
    if found:
        more = f" (and {len(found) - 1} more: hooks/theme/contract.py)" if len(found) > 1 else ""
        raise PluginError(found[0] + more)


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Stop the build, naming the patch, if the installed mkdocs-material lacks what a patch relies on."""
    require(installed_theme(config))
    return config
