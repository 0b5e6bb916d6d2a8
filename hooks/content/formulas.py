r"""Every formula drawn when the site is built: the HTML a reader gets already holds MathJax's SVG.

pymdownx.arithmatex marks each formula (generic mode, no delimiters): a ``span.arithmatex``
(inline) or ``div.arithmatex`` (display) holding its TeX.  This hook

1. notes each page's formulas once its Markdown is HTML (``on_page_content``; this hook runs
   after ``hooks/content/tokens.py``, so a number in a formula is already in place);
2. draws all of them before any page is written (``on_env``, which mkdocs runs once every page
   has its HTML): from ``.cache/formulas/`` or, for the rest, in one Node process
   (``hooks/content/mathjax_render.py``);
3. folds each drawing's nested groups into its glyphs (``hooks/content/flat_svg.py``: the same drawing in
   about half the elements, which the browser styles and lays out on every load), and writes its
   size into its style (``sized``: math.css skips it off screen, and it keeps the size its style gives);
   and stops the build at a display formula too wide for a phone that has no narrow form
   (``hooks/content/formula_forms.py``, which takes each narrow form out of its page in step 1);
4. puts each drawing into the written page (``on_post_page``), in place of its TeX (a long display
   formula's with its narrow form's beside it), and the
   outlines of the glyphs the page draws once, in a hidden ``<svg>`` at the top of the article,
   where each formula's ``<use>`` finds them.  It sits inside the content, which
   mkdocs-material's instant navigation swaps for the next page's, so the next page's formulas
   come with their own outlines; an outline's id names one glyph of one font variant, so two
   pages never give one id two outlines.

The search index is built from each page's content before step 4 (mkdocs-material's search
plugin reads it in ``on_page_context``).  Just before, this hook's ``on_page_context`` puts each
formula's name in words (the drawing's ``aria-label``) in place of its TeX, so that the index, and
the search results it shows, read ``the square root of n times u``, not ``\sqrt{n}\,u``; step 4
then finds the page's formulas in the order they were noted.  A formula that is not valid TeX stops
the build with one message naming its page and the formula.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils.templates import TemplateContext

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # mkdocs loads hooks by file path
from hooks.content.flat_svg import flatten  # noqa: E402
from hooks.content.formula_forms import both, pair, problem, width_ex  # noqa: E402
from hooks.content.mathjax_render import Drawn, Formula, RenderError, draw, renderer_digest  # noqa: E402

FORMULA = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.S)
"""A formula as arithmatex writes it: its TeX, HTML-escaped, with no markup inside."""
ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">')
"""Where the page's content starts (mkdocs-material's template): the glyph outlines go first inside it."""
GLYPHS_ID = "fpsum-glyphs"
SPOKEN = re.compile(r'^<mjx-container [^>]*?aria-label="([^"]*)"')
"""The name in words that MathJax's speech rule engine gives a drawing, on its container (attribute-escaped)."""
SVG_SIZE = re.compile(r'<svg style="([^"]*)"([^>]*?) width="([^"]+)" height="([^"]+)"')
"""The start of MathJax's outer ``<svg>``: its style (the vertical alignment), then its width and height, in ex."""

_wanted: dict[str, list[Formula]] = {}
"""Each page's formulas, in order, by the page's source path (filled anew by every build)."""
_narrow: dict[str, dict[int, Formula]] = {}
"""Each page's narrow forms (hooks/content/formula_forms.py), by the index of the display formula each belongs to."""
_drawn: dict[Formula, Drawn] = {}
"""This build's drawings (from .cache/formulas/ or Node), emptied with ``_wanted`` as each build starts."""


def formula_of(match: re.Match[str]) -> Formula:
    """The formula an arithmatex element holds (its text, unescaped and trimmed, as MathJax was given it)."""
    return Formula(tex=html.unescape(match.group(2)).strip(), display=match.group(1) == "div")


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """A new build (``mkdocs serve`` rebuilds with the same hook): forget the last build's pages, and read
    the renderer's hash anew (an edit of tools/mathjax/render.js draws every formula again).
    """
    _wanted.clear()
    _narrow.clear()
    _drawn.clear()  # drawn with the last build's renderer, maybe: .cache/formulas/ keys on the renderer
    renderer_digest.cache_clear()
    return config


def spoken(container: str) -> str:
    """A drawing's name in words, as plain text (``ValueError`` if its container has none)."""
    match = SPOKEN.match(container)
    if not match or not match.group(1).strip():
        raise ValueError(f"a formula's drawing has no name in words: {container[:80]!r}")
    return html.unescape(match.group(1))


def on_page_content(text: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Note the page's formulas, and take out the narrow forms (hooks/content/formula_forms.py); its HTML keeps the wide
    forms' TeX until ``on_page_context`` gives the search index their words.
    """
    if "arithmatex" in FORMULA.sub("", text):
        raise PluginError(f"{page.file.src_uri}: a formula's element is not as pymdownx.arithmatex writes it "
                          "(generic mode, no markup inside)")
    try:
        paired = pair(text, [(m, formula_of(m)) for m in FORMULA.finditer(text)])
    except ValueError as error:
        raise PluginError(f"{page.file.src_uri}: {error}") from None
    _wanted[page.file.src_uri] = paired.formulas
    _narrow[page.file.src_uri] = paired.narrow
    return paired.text


def failure_message(error: RenderError) -> str:
    """One message: each bad formula with the pages it is on, and MathJax's complaint."""
    if not error.failures:
        return str(error)
    lines = []
    for formula, complaint in error.failures.items():
        pages = sorted(src for src, formulas in _wanted.items()
                       if formula in formulas or formula in _narrow.get(src, {}).values())
        kind = "display formula" if formula.display else "formula"
        lines.append(f"{', '.join(pages)}: TeX error in {kind} {formula.tex!r}: {complaint}")
    return "\n".join(lines)


def sized(container: str) -> str:
    """The container with its drawing's width and height in the drawing's style too, as well as in its attributes.

    math.css skips a drawing's insides while it is off screen (``content-visibility: auto``), and an
    element skipped keeps only the size its style gives it: an ``<svg>``'s width and height
    attributes are its natural size, which a skipped one loses (it would shrink to nothing, and the
    text around it move, until it is drawn).  ``ValueError`` if the drawing does not start as
    MathJax's does.
    """
    def with_size(match: re.Match[str]) -> str:
        style, between, width, height = match.groups()
        return (f'<svg style="{style.rstrip(";")}; width: {width}; height: {height};"{between} '
                f'width="{width}" height="{height}"')

    sized_container, count = SVG_SIZE.subn(with_size, container, count=1)
    if count != 1:
        raise ValueError("its <svg> does not start with a style, a width and a height")
    return sized_container


def on_env(env: Environment, config: MkDocsConfig, files: Files) -> Environment:
    """Draw every page's formulas (every page has its HTML by now; none is written yet)."""
    needed = [formula for formulas in (*_wanted.values(), *(n.values() for n in _narrow.values()))
              for formula in formulas if formula not in _drawn]
    try:
        drawn = draw(needed)
    except RenderError as error:
        raise PluginError(failure_message(error)) from None
    try:  # the cache holds MathJax's drawing as it was; the page gets it folded (hooks/content/flat_svg.py)
        _drawn.update({formula: Drawn(sized(flatten(d.container)), d.glyphs) for formula, d in drawn.items()})
    except ValueError as error:
        raise PluginError(f"a formula's drawing is not as MathJax writes it: {error}") from None
    check_widths()
    return env


def check_widths() -> None:
    """``PluginError``, one line for each, for a display formula too wide for a phone without a narrow form,
    and for a narrow form that is too wide or not needed (hooks/content/formula_forms.py).
    """
    lines = []
    for src, formulas in _wanted.items():
        for i, formula in enumerate(formulas):
            if not formula.display:
                continue
            narrow = _narrow[src].get(i)
            narrow_ex = None if narrow is None else width_ex(_drawn[narrow].container)
            wrong = problem(formula, width_ex(_drawn[formula].container), narrow_ex)
            if wrong:
                lines.append(f"{src}: {wrong}")
    if lines:
        raise PluginError("\n".join(lines))


def glyph_defs(formulas: list[Formula]) -> str:
    """The hidden ``<svg>`` with the outline of every glyph the formulas draw, each once, in id order."""
    outlines: dict[str, str] = {}
    for formula in formulas:
        outlines.update(_drawn[formula].glyphs)
    paths = "".join(f'<path id="{gid}" d="{outlines[gid]}"></path>' for gid in sorted(outlines))
    return (f'<svg id="{GLYPHS_ID}" xmlns="http://www.w3.org/2000/svg" aria-hidden="true" focusable="false" '
            f'style="display: none"><defs>{paths}</defs></svg>')


@event_priority(50)  # before mkdocs-material's search plugin (priority 0) reads the content into its index
def on_page_context(context: TemplateContext, page: Page, config: MkDocsConfig, nav: Navigation) -> TemplateContext:
    """Each formula's TeX in the page's content replaced by its name in words: what the search index holds."""
    formulas = iter(_wanted.get(page.file.src_uri, []))

    def words(match: re.Match[str]) -> str:
        formula = next(formulas, None)
        if formula != formula_of(match):
            raise PluginError(f"{page.file.src_uri}: formula {formula_of(match).tex!r} is not the one noted there")
        tag = match.group(1)
        return f'<{tag} class="arithmatex">{html.escape(spoken(_drawn[formula].container))}</{tag}>'

    if page.content is not None:
        page.content = FORMULA.sub(words, page.content)
    return context


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    """Each formula's words (``on_page_context``) replaced by its drawing, in the order the page's formulas were
    noted, and the page's glyph outlines at the top of its article.
    """
    formulas = _wanted.get(page.file.src_uri, [])
    if not formulas:
        return output
    narrow = _narrow.get(page.file.src_uri, {})
    noted = iter(enumerate(formulas))

    def drawing(match: re.Match[str]) -> str:
        index, formula = next(noted, (-1, None))
        tag = match.group(1)
        if formula is None or formula.display != (tag == "div"):
            raise PluginError(f"{page.file.src_uri}: formula {match.group(2)!r} is in the page, not in its content")
        if index in narrow:
            try:
                classes, inside = both(_drawn[formula].container, _drawn[narrow[index]].container)
            except ValueError as error:
                raise PluginError(f"{page.file.src_uri}: {formula.tex!r} and its narrow form: {error}") from None
            return f'<{tag} class="{classes}">{inside}</{tag}>'
        return f'<{tag} class="arithmatex">{_drawn[formula].container}</{tag}>'

    output, count = FORMULA.subn(drawing, output)
    if count != len(formulas):
        raise PluginError(f"{page.file.src_uri}: {len(formulas)} formulas in its content, {count} in the page")
    drawn = [*formulas, *narrow.values()]
    output, found = ARTICLE.subn(lambda m: m.group(0) + glyph_defs(drawn), output, count=1)
    if not found:
        raise PluginError(f"{page.file.src_uri}: no <article> for the formulas' glyphs (mkdocs-material's template?)")
    return output
