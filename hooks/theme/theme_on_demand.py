"""Patches mkdocs-material's page: its bundle starts on the reader's first move, not in the page load's longest task.

Each page's ``<script>`` tag for mkdocs-material's bundle is replaced by the
script in ``theme_loader.js`` (inlined: a request of its own would cost a
round trip), given the bundle's address and the polyfills' (mkdocs.yml's
``extra.polyfills``, needed only from disk).  The loader fetches them on the
reader's first touch, click, pointer move, wheel, scroll, key or focus; why,
and what it keeps of what the reader did before, is in its own comment.  The
page's other scripts (race.js, a11y.js, the playground's) run as before.

The build stops, naming the page, if a page holds no bundle tag or more than
one (mkdocs-material renamed or moved it: the loader would load nothing), or
if a palette of mkdocs.yml follows the system's preference by itself
(``media: "(prefers-color-scheme)"``): the loader applies a palette toggle
itself before the bundle runs, and handles only palettes with a scheme each.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.pages import Page

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # mkdocs loads hooks by file path
from hooks.theme.names import BUNDLE  # noqa: E402

LOADER = Path(__file__).with_name("theme_loader.js")
BUNDLE_TAG = re.compile(f'<script src="(?P<root>[^"]*?){BUNDLE}"></script>')
SOURCES_MARK = '{ bundle: "", polyfills: [] } /* SOURCES */'
"""The loader's stand-in argument (valid JavaScript, so that the file type-checks), replaced by the addresses."""
ABSOLUTE = re.compile(r"^([a-z][a-z0-9+.-]*:|/)", re.I)
"""An address with a scheme or from the host's root; any other is a path in the site."""


def loader_script(bundle: str, polyfills: list[str]) -> str:
    """The inline ``<script>`` that loads ``bundle`` (after ``polyfills`` from disk) on the first move.

    The loader's opening comment (everything before ``// @ts-check``) stays in the repository.
    """
    source = LOADER.read_text(encoding="utf-8")
    code = source[source.index("// @ts-check") + len("// @ts-check"):].strip()
    sources = json.dumps({"bundle": bundle, "polyfills": polyfills}).replace("</", "<\\/")
    if code.count(SOURCES_MARK) != 1:
        raise PluginError(f"{LOADER.name} must hold {SOURCES_MARK} exactly once")
    return "<script>/* mkdocs-material's bundle, started on the first move: hooks/theme/theme_loader.js */\n" \
        + code.replace(SOURCES_MARK, sources) + "\n</script>"


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Refuse a palette the loader could not apply before the bundle runs."""
    for palette in config.theme.get("palette") or []:
        if palette.get("media") == "(prefers-color-scheme)":
            raise PluginError("theme_on_demand.py: a palette with media '(prefers-color-scheme)' is not handled "
                              "by hooks/theme/theme_loader.js; give each palette a scheme of its own")
    return config


def with_loader(output: str, name: str, config: MkDocsConfig) -> str:
    """``output`` (the page ``name``) with the loader in place of its one bundle tag."""
    tags = list(BUNDLE_TAG.finditer(output))
    if len(tags) != 1:
        raise PluginError(f"{name}: {len(tags)} script tags for mkdocs-material's bundle, "
                          "expected 1 (hooks/theme/theme_on_demand.py)")
    tag = tags[0]
    root = tag.group("root")
    bundle = tag.group(0).split('"')[1]
    polyfills = [path if ABSOLUTE.match(path) else root + path for path in config.extra.get("polyfills", [])]
    return output[:tag.start()] + loader_script(bundle, polyfills) + output[tag.end():]


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    """Each page of the site."""
    return with_loader(output, page.file.src_uri, config)


def on_post_template(output: str, template_name: str, config: MkDocsConfig) -> str:
    """The page templates built on their own: the 404 page (not the sitemap)."""
    return with_loader(output, template_name, config) if template_name.endswith(".html") else output
