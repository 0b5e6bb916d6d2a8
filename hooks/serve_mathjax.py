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

The SVG font (``output/svg/fonts/tex.js``) is 1 MB, 440 KB gzipped: the
outline of every glyph of every TeX font, of which a page's formulas draw a
hundred or fewer.  It is also published split (:func:`read_font`):

- ``tex-lazy.js``: the font without the outlines (its measurements, 20 KB
  gzipped), which MathJax's worker loads instead of the font (over HTTP);
- ``tex-pages/<page>.js``: for each page with formulas, the outlines of the
  glyphs ``hooks/mathjax_glyphs.py`` guesses from the page's TeX; the page's
  first formula names the file (``data-fpsum-glyphs``), and the worker loads
  it before it typesets the page;
- ``tex-glyphs/<table>-<block>.js``: every outline, one file per font table
  and block of 64 code points, which the worker loads when MathJax is about to
  draw a glyph the page's file lacks (a guess missed, or a page brought in by
  instant navigation draws what the first page did not).

On the page (from ``file://``, where a file cannot be loaded at the moment a
glyph is drawn) MathJax loads the whole font, as before.  Both draw the same
outlines.
"""

from __future__ import annotations

import functools
import html
import json
import posixpath
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import mathjax  # the django-static-mathjax package: MathJax's es5 tree as package data
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # mkdocs loads hooks by file path
from hooks.mathjax_glyphs import GlyphGuess  # noqa: E402

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

FONT = "output/svg/fonts/tex.js"
LAZY_FONT = "output/svg/fonts/tex-lazy.js"
BLOCKS = "output/svg/fonts/tex-glyphs/"
PAGES = "output/svg/fonts/tex-pages/"
BLOCK_BITS = 6
"""A block file holds one font table's outlines for 64 consecutive code points."""
CHUNKS_GLOBAL = "fpsumGlyphChunks"
"""Set by tex-lazy.js: ``path`` (the block files' folder, under MathJax's), ``bits`` (a block is
``code >> bits``) and, for each font table, its blocks' numbers; block files are ``<table>-<hex block>.js``."""
ADD_GLOBAL = "fpsumAddGlyphs"
"""Called by the block and page files with a table's name and outlines (defined by mathjax-config.js's worker)."""
GLYPHS_ATTRIBUTE = "data-fpsum-glyphs"
"""On a page's first formula: the address of the page's outlines file."""

# In the font's code, each table's outlines are one call:
# T.<table>=(0,X.AddPaths)(Y.<table>,{<code>:"<path>",...},{...})
ADD_PATHS = re.compile(r"T\.(\w+)=\(0,\w+\.AddPaths\)\(\w+\.\w+,\{")
OUTLINE = re.compile(r'(\d+):"((?:[^"\\]|\\.)*)",?')
# A delimiter's entry, which lists the pieces its stretched form is built from, or names another entry by its code.
STRETCHED = re.compile(r"(?:(\d+):\{|c:(\d+),)[^{}]*?stretch:\[([\d,]+)\]")
ALIAS = re.compile(r"(\d+):\{[^{}]*?c:(\d+)")
FORMULA = re.compile(r'<(span|div) class="arithmatex[^"]*">(.*?)</\1>', re.S)
FIRST_FORMULA = re.compile(r'<(span|div) class="arithmatex')
TAG = re.compile(r"<[^>]+>")


@dataclass
class SvgFont:
    """MathJax's SVG font, split: its code without the outlines, the outlines, and how delimiters stretch."""

    lazy: str
    outlines: dict[str, dict[int, str]] = field(default_factory=dict)
    stretch: dict[int, set[int]] = field(default_factory=dict)

    def glyph_file(self, glyphs: dict[str, dict[int, str]]) -> str:
        """A script that adds these outlines (table -> code point -> outline) to the font."""
        calls = []
        for table, codes in sorted(glyphs.items()):
            outlines = {str(code): outline for code, outline in sorted(codes.items())}
            calls.append(f"self.{ADD_GLOBAL}({json.dumps(table)},{json.dumps(outlines)});\n")
        return "".join(calls)

    def block_files(self) -> dict[str, str]:
        """Every outline, as files of one table's block of 64 code points (file name -> text)."""
        blocks: dict[tuple[str, int], dict[int, str]] = defaultdict(dict)
        for table, codes in self.outlines.items():
            for code, outline in codes.items():
                blocks[table, code >> BLOCK_BITS][code] = outline
        return {f"{table}-{block:x}.js": self.glyph_file({table: codes})
                for (table, block), codes in sorted(blocks.items())}

    def lazy_font(self) -> str:
        """The font's code without outlines, and the list of block files."""
        index: dict[str, list[int]] = defaultdict(list)
        for table, codes in self.outlines.items():
            index[table] = sorted({code >> BLOCK_BITS for code in codes})
        chunks = {"path": BLOCKS, "bits": BLOCK_BITS, "tables": dict(sorted(index.items()))}
        return self.lazy + f"\nself.{CHUNKS_GLOBAL}={json.dumps(chunks)};\n"


def read_font(source: str) -> SvgFont:
    """Split the SVG font's code; ``PluginError`` if it is not laid out as expected (another MathJax version)."""
    kept: list[str] = []
    outlines: dict[str, dict[int, str]] = defaultdict(dict)
    at = 0
    for call in ADD_PATHS.finditer(source):
        table, pos = call.group(1), call.end()
        while (outline := OUTLINE.match(source, pos)) is not None:
            outlines[table][int(outline.group(1))] = json.loads(f'"{outline.group(2)}"')
            pos = outline.end()
        if source[pos] != "}":
            raise PluginError(f"MathJax's SVG font: the outlines of table {table} are not as expected")
        kept.append(source[at:call.end()])
        at = pos
    kept.append(source[at:])
    count = sum(len(codes) for codes in outlines.values())
    if count < 1000:
        raise PluginError(f"MathJax's SVG font: found {count} glyph outlines, expected thousands (another version?)")
    stretch: dict[int, set[int]] = defaultdict(set)
    for entry in STRETCHED.finditer(source):
        stretch[int(entry.group(1) or entry.group(2))].update(int(c) for c in entry.group(3).split(",") if c != "0")
    for entry in ALIAS.finditer(source):
        stretch[int(entry.group(1))] |= stretch.get(int(entry.group(2)), set()) | {int(entry.group(2))}
    return SvgFont(lazy="".join(kept), outlines=dict(outlines), stretch=dict(stretch))


@functools.cache
def split_font() -> tuple[SvgFont, GlyphGuess]:
    """The package's SVG font split, and the glyph guess through its tables and MathJax's TeX tables (read once)."""
    font = read_font((ES5 / FONT).read_text(encoding="utf-8"))
    tables = {table: set(codes) for table, codes in font.outlines.items()}
    return font, GlyphGuess((ES5 / "input/tex.js").read_text(encoding="utf-8"), tables, font.stretch)


def mathjax_files() -> list[str]:
    """The es5 paths to publish, in a stable order."""
    extensions = sorted(p.relative_to(ES5).as_posix() for p in (ES5 / AUTOLOADED).rglob("*.js"))
    return COMPONENTS + extensions


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add MathJax's files, and the split font, to the site; ``PluginError`` if the package lacks one."""
    for rel in mathjax_files():
        source = ES5 / rel
        if not source.is_file():
            raise PluginError(f"MathJax file {rel} not found under {ES5}: is django-static-mathjax 3.2 installed?")
        files.append(File.generated(config, PUBLISHED_UNDER + rel, abs_src_path=str(source)))
    font, _ = split_font()
    files.append(File.generated(config, PUBLISHED_UNDER + LAZY_FONT, content=font.lazy_font()))
    for name, text in font.block_files().items():
        files.append(File.generated(config, PUBLISHED_UNDER + BLOCKS + name, content=text))
    return files


def on_page_content(text: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Publish the outlines the page's formulas are guessed to draw, and name the file on its first formula."""
    if not FIRST_FORMULA.search(text):
        return text
    font, guess = split_font()
    formulas = [html.unescape(TAG.sub("", m.group(2))) for m in FORMULA.finditer(text)]
    glyphs: dict[str, dict[int, str]] = defaultdict(dict)
    for table, code in guess.glyphs(formulas):
        glyphs[table][code] = font.outlines[table][code]
    path = PUBLISHED_UNDER + PAGES + posixpath.splitext(page.file.dest_uri)[0] + ".js"
    files.append(File.generated(config, path, content=font.glyph_file(glyphs)))
    link = get_relative_url(path, page.url)
    return FIRST_FORMULA.sub(lambda m: f'<{m.group(1)} {GLYPHS_ATTRIBUTE}="{link}" class="arithmatex', text, count=1)
