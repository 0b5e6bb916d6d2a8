"""Serve MathJax from the site itself: copy it out of the django-static-mathjax wheel.

MathJax is published as its separate components (``startup.js`` loads the
rest), not as the single 2 MB ``tex-svg.js`` bundle: each component is then
evaluated as a task of its own, so loading MathJax never blocks the page for
long, and the context menu (400 KB) is left out.  The components are the
ones ``tex-svg.js`` bundles -- TeX input (with the extensions it autoloads,
all published), SVG output, assistive MathML for screen readers -- less the
menu -- and the light DOM MathJax uses inside a web worker.  SVG output
carries its fonts inside the scripts, so formulas render from ``file://`` as
well as over HTTP, and no font is ever fetched.
``docs/assets/javascripts/mathjax-config.js`` starts MathJax (in a worker, or
on the page from ``file://``) on pages that have formulas.  Nothing is copied
into the repository.
"""

from __future__ import annotations

from pathlib import Path

import mathjax  # the django-static-mathjax package: MathJax's es5 tree as package data
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ES5 = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
PUBLISHED_UNDER = "assets/mathjax/"
# What mathjax-config.js asks the loader for, and what that pulls in.
COMPONENTS = [
    "startup.js",
    "core.js",
    "input/tex.js",
    "output/svg.js",
    "output/svg/fonts/tex.js",
    "a11y/assistive-mml.js",
    "adaptors/liteDOM.js",  # the DOM MathJax works on inside a web worker
]
AUTOLOADED = "input/tex/extensions"  # \color, \cancel, \boldsymbol, ... load on first use


def mathjax_files() -> list[str]:
    """The es5 paths to publish, in a stable order."""
    extensions = sorted(p.relative_to(ES5).as_posix() for p in (ES5 / AUTOLOADED).rglob("*.js"))
    return COMPONENTS + extensions


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add MathJax's files to the site; ``PluginError`` if the package lacks one."""
    for rel in mathjax_files():
        source = ES5 / rel
        if not source.is_file():
            raise PluginError(f"MathJax file {rel} not found under {ES5}: is django-static-mathjax 3.2 installed?")
        files.append(File.generated(config, PUBLISHED_UNDER + rel, abs_src_path=str(source)))
    return files
