"""The site's own style sheets reach a page as one file: its head waits for three style sheets, not ten.

A page cannot paint before every style sheet linked in its head has
arrived, and each is a request of its own: on a phone's network a request
costs a round trip or more (Lighthouse's mobile preset simulates 150 ms),
and a browser opens at most six connections to a host, so ten sheets queue.
The sheets named in ``extra_css`` (the generated ``looks.css``, which
tokens.py puts first, then mkdocs.yml's, in its order) are joined, in that
order and each under a comment naming it, into one file,
``assets/stylesheets/extra.<hash>.css``: with mkdocs-material's two, the only
style sheets a page links.  ``<hash>`` is the first 8 hex digits of the
joined text's SHA-256, as mkdocs-material names its own, so a host may keep
the file for a year: any edit gives a new name.  The parts are not
published on their own.

Joining keeps every rule's meaning because the parts share one folder (a
relative ``url()`` resolves the same) and none holds a rule that is only
valid at the top of a sheet (``@import``, ``@charset``, ``@namespace``); a
part that breaks either stops the build, naming it.  tests/site/test_stylesheet.py
checks the built site.
"""

from __future__ import annotations

import hashlib
import posixpath
import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

FOLDER = "assets/stylesheets"
"""Where the parts are, and the joined sheet is written."""

TOP_ONLY = re.compile(r"@(import|charset|namespace)\b")
"""At-rules a browser obeys only at the very top of a sheet: joined after another part, they would be ignored."""


def joined_name(text: str) -> str:
    """The joined sheet's path for its text: ``assets/stylesheets/extra.<8 hex digits of its SHA-256>.css``."""
    return f"{FOLDER}/extra.{hashlib.sha256(text.encode()).hexdigest()[:8]}.css"


def join(parts: list[tuple[str, str]]) -> str:
    """The parts' texts, in order, each under a comment with its path; ``parts`` is ``(path, text)`` pairs.

    Raises ``PluginError`` for a part outside :data:`FOLDER` or one holding a :data:`TOP_ONLY` rule.
    """
    pieces = []
    for path, text in parts:
        if posixpath.dirname(path) != FOLDER:
            raise PluginError(f"extra_css: {path} is not in {FOLDER}/, so its relative url()s would break when joined")
        top_only = TOP_ONLY.search(text)
        if top_only:
            raise PluginError(f"extra_css: {path} holds an @{top_only.group(1)} rule, which only works "
                              "at the top of a sheet and would be ignored once joined")
        pieces.append(f"/* ---- {posixpath.basename(path)} ---- */\n{text.rstrip()}\n")
    return "\n".join(pieces)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Replace the ``extra_css`` files by their join (runs after gen-files has written looks.css)."""
    parts = []
    for path in config.extra_css:
        file = files.get_file_from_path(path)
        if file is None:
            raise PluginError(f"extra_css names {path}, which is not among the site's files")
        parts.append((path, file.content_string))
        files.remove(file)
    text = join(parts)
    name = joined_name(text)
    files.append(File.generated(config, name, content=text))
    config.extra_css = [name]
    return files
