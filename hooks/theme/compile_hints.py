"""Patches mkdocs-material's bundle in the built site: a compile hint, so the browser compiles it off the main thread.

Chromium (136 and later) reads a compile hint at the top of a script: after
the magic comment ``//# allFunctionsCalledOnLoad`` it compiles every function
of the script on a background thread as the script streams in, rather than
each one on the page's main thread the first time it is called.
mkdocs-material's bundle calls most of its functions as the page starts, in
the page's longest task; with the hint that task no longer compiles them.
Other browsers ignore the comment.  The bundle is otherwise untouched (its
name, fingerprint included, stays: a copy cached without the comment runs
the same).
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig

HINT = "//# allFunctionsCalledOnLoad\n"
BUNDLES = "assets/javascripts/bundle.*.min.js"


def on_post_build(config: MkDocsConfig) -> None:
    """Put the compile hint at the top of mkdocs-material's bundle in the built site (once)."""
    for bundle in sorted(Path(config.site_dir).glob(BUNDLES)):
        code = bundle.read_text(encoding="utf-8")
        if not code.startswith(HINT):
            bundle.write_text(HINT + code, encoding="utf-8")
