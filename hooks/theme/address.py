"""Patches mkdocs-material's features: without the site's address, instant navigation (which needs it) is left out.

mkdocs-material's instant navigation swaps in only the pages its sitemap
lists, and it reads each ``<loc>`` as an absolute address; mkdocs writes a
page into the sitemap only when it knows ``site_url``.  A build without an
address (no ``SITE_URL``: the public address is not known yet) would ship a
feature that silently does nothing, so this hook leaves it out of such a
build, and every link loads its page whole.  ``SITE_URL``, or ``mkdocs
serve`` (which sets its own address), keeps it.  tests/build/test_citation.py
checks both builds.
"""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig

NEEDS_ADDRESS = ("navigation.instant",)
"""Theme features that need ``site_url``; their sub-features (``navigation.instant.prefetch``) go with them."""


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Drop :data:`NEEDS_ADDRESS` (and their sub-features) from the theme's features when ``site_url`` is unset."""
    if not config.site_url:
        features = config.theme.get("features", [])
        config.theme["features"] = [f for f in features
                                    if not any(f == n or f.startswith(n + ".") for n in NEEDS_ADDRESS)]
    return config
