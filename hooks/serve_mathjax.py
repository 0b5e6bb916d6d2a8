"""Serve MathJax from the site itself: copy it out of the django-static-mathjax wheel.

Only the SVG output bundle is published: it carries its fonts inside the
script, so formulas render from ``file://`` as well as over HTTP, and no font
is ever fetched.  Nothing is copied into the repository.
"""

from __future__ import annotations

from pathlib import Path

import mathjax  # the django-static-mathjax package: MathJax's es5 tree as package data
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ES5 = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
BUNDLE = "tex-svg.js"
PUBLISHED_AS = "assets/mathjax/" + BUNDLE


def on_files(files: Files, config: MkDocsConfig) -> Files:
    source = ES5 / BUNDLE
    if not source.is_file():
        raise PluginError(f"MathJax bundle not found at {source}: is django-static-mathjax installed?")
    files.append(File.generated(config, PUBLISHED_AS, abs_src_path=str(source)))
    return files
