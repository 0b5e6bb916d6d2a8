"""Patches mkdocs-material's bundle in the built site: a compile hint, so the browser compiles it off the main thread.

Chromium (136 and later) reads a compile hint at the top of a script: after
the magic comment ``//# allFunctionsCalledOnLoad`` it compiles every function
of the script on a background thread as the script streams in, rather than
each one on the page's main thread the first time it is called.
mkdocs-material's bundle calls most of its functions as the page starts, in
the page's longest task; with the hint that task no longer compiles them.
Other browsers ignore the comment.  The bundle is otherwise untouched (its
name, fingerprint included, stays: a copy cached without the comment runs
the same).  A built site without exactly one bundle stops the build: the
theme renamed or moved it, and the hint would go nowhere.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # mkdocs loads hooks by file path
from hooks.theme.names import BUNDLE, SCRIPTS  # noqa: E402

HINT = "//# allFunctionsCalledOnLoad\n"


def bundles(site_dir: Path) -> list[Path]:
    """The files of ``site_dir`` whose path is mkdocs-material's bundle's (:data:`names.BUNDLE`), sorted."""
    folder = site_dir / SCRIPTS
    found = folder.iterdir() if folder.is_dir() else iter(())
    return sorted(path for path in found if re.fullmatch(BUNDLE, path.relative_to(site_dir).as_posix()))


def on_post_build(config: MkDocsConfig) -> None:
    """Put the compile hint at the top of mkdocs-material's bundle in the built site (once).

    Raises ``PluginError`` unless the site holds exactly one bundle.
    """
    found = bundles(Path(config.site_dir))
    if len(found) != 1:
        raise PluginError(f"compile_hints.py: {len(found)} files in the built site are mkdocs-material's bundle "
                          f"({BUNDLE}), expected 1: nothing to give the compile hint to")
    code = found[0].read_text(encoding="utf-8")
    if not code.startswith(HINT):
        found[0].write_text(HINT + code, encoding="utf-8")
