"""Patches mkdocs-material's 404 page: its links and its scripts' root work under a sub-path, and from disk.

A host serves ``404.html`` at whatever address the site lacks, ``/path/old/gone`` as well as
``/path/gone.html``, so a link relative to the address shown would miss.  mkdocs therefore writes
the 404 page's links from the host's root (``/index.html``, or from ``site_url``'s path when there
is one), and those miss too: from disk (``file:///index.html``), and on a host that serves the site
under a sub-path it was not built for.  This hook writes the 404 page's links from the site's root
(``index.html``, ``assets/...``: right from disk, where the page sits in that root) and gives the
served page a ``<base>``, the root its links resolve from: ``site_url``'s path when the build has
one (``SITE_URL``), so any missing address at any depth; without one, the folder of the address
shown (set by a script), which is the root for any missing page of the site (its pages all sit in
its root: ``use_directory_urls: false``) but not for a deeper address, which nothing in such a
build can place.
"""

from __future__ import annotations

import html
import json
import re
from urllib.parse import urlsplit

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.utils.templates import TemplateContext

PAGE = "404.html"
CHARSET = re.compile(r'<meta charset="utf-8">')
"""The first element of mkdocs-material's head (it must come in the first 1024 bytes): the root follows it."""
SCRIPT = """<script>/* The 404 page's links start from the site's root: hooks/theme/not_found.py */
(function (served) {{
  if ((location.protocol === "file:") === served) return;
  var base = document.createElement("base");
  base.href = location.pathname.replace(/[^/]*$/, "");
  document.head.prepend(base);
}})({served});</script>"""
THEME_ROOTS = (re.compile(r'(<script id="__config" type="application/json">\{[^<]*?"base": )"\."'),
               re.compile(r'(__md_scope=new URL\()"\."'))
"""Where mkdocs-material's scripts take the site's root from (its configuration; the scope of what it stores),
which they resolve against the address shown, not against the page's ``<base>``."""


def root_of(site_url: str | None) -> str | None:
    """The path of the site's root on its host: ``site_url``'s (``/`` for none), or None without an address."""
    return (urlsplit(site_url).path or "/") if site_url else None


def with_root(output: str, root: str | None) -> str:
    """The 404 page (its links from the site's root) with the root to resolve them from, first in its head.

    Without an address, a script gives the served page a ``<base>``: the folder of the address shown.
    With one, the page's ``<base>`` is the address's path, there when the page is parsed (the browser's
    look-ahead fetches the style sheets from it too), and mkdocs-material's scripts take the same root; a
    script puts a ``<base>`` before it from disk, the page's own folder.  ``PluginError`` if the page or
    mkdocs-material's scripts are not as this expects.
    """
    if root is None:
        head = SCRIPT.format(served="true")
    else:
        head = SCRIPT.format(served="false") + f'<base href="{html.escape(root)}">'
        for pattern in THEME_ROOTS:
            output, count = pattern.subn(lambda m: m.group(1) + json.dumps(root), output, count=1)
            if count != 1:
                raise PluginError(f"{PAGE}: mkdocs-material's root is not where hooks/theme/not_found.py looks for it")
    output, found = CHARSET.subn(lambda m: m.group(0) + head, output, count=1)
    if not found:
        raise PluginError(f"{PAGE}: no <meta charset> to put the root after (mkdocs-material's template?)")
    return output


def on_template_context(context: TemplateContext, template_name: str, config: MkDocsConfig) -> TemplateContext:
    """The 404 page's links from the site's root, as the pages in the root have them (mkdocs: from the host's)."""
    if template_name == PAGE:
        context["base_url"] = "."
    return context


def on_post_template(output: str, template_name: str, config: MkDocsConfig) -> str:
    """The root to resolve the 404 page's links from, first in its head."""
    return with_root(output, root_of(config.site_url)) if template_name == PAGE else output
