r"""A long display formula's narrow form: the same formula broken over lines, which a phone shows instead.

A display formula wider than a phone's column scrolls sideways inside its box,
and a reader sees it cut mid-symbol.  The page's author writes a narrow form
right after it: a display formula whose first line is the TeX comment
``% narrow`` (MathJax would skip it; this hook reads it)::

    $$
    u = 2^{-p}, \qquad x_{\max} = \left(2 - 2^{1-p}\right) 2^{e_{\max}} .
    $$

    $$
    % narrow
    \begin{gathered} u = 2^{-p}, \\ x_{\max} = \left(2 - 2^{1-p}\right) 2^{e_{\max}} . \end{gathered}
    $$

The page then holds one ``div.arithmatex`` with both drawings, the wide one
first (``fpsum-wide``, ``fpsum-narrow``), and a class
``fpsum-narrow-below-<N>``, ``N`` the wide drawing's width rounded up to a
whole ex (:data:`SWITCHES_EX`): math.css shows the narrow drawing, and hides
the wide one, while the content of the formula's box is narrower than ``N``
ex of the box's own font (a container query).  Printed, the wide one shows.
Both drawings are images with one name, the wide form's words: only one is
shown at a time (the other is ``display: none``, which screen readers
skip), so a reader hears one formula at every width.

The build stops, with one line for each, at a display formula wider than
:data:`WIDEST_EX` with no narrow form, a narrow form wider than that, a
narrow form for a formula that fits, and a narrow form that follows no
display formula.  The search index keeps the wide form's TeX alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hooks.content.mathjax_render import Formula

MARK = "% narrow"
"""The first line of a narrow form's TeX."""
COLUMN_PX = 328
"""The column a display formula has on a 360 px phone: mkdocs-material pads it 0.8rem (16 px) each side."""
FONT_PX = 16
"""The text's size on a phone (mkdocs-material's .md-typeset: 0.8rem of a 20 px root)."""
EX_PER_EM = 0.55
"""The x-height MathJax's ex stands for, in em: a little above Liberation Sans' and Roboto's 0.528 (the
browser sizes a drawing in the x-height of the text's font), so a drawing that fits here fits in them."""
WIDEST_EX = COLUMN_PX / (FONT_PX * EX_PER_EM)
"""The widest display formula a phone's column holds, in ex (about 37.3)."""
SWITCHES_EX = tuple(range(38, 101))
"""The widths (ex) at which math.css can switch a formula to its narrow form: one rule each."""
WIDTH = re.compile(r'<svg style="[^"]*"[^>]*? width="([\d.]+)ex"')
"""The width of MathJax's outer ``<svg>``, in ex."""
LABEL = re.compile(r'(<mjx-container [^>]*?aria-label=")([^"]*)(")')
CLASS = re.compile(r'(<mjx-container class=")([^"]*)(")')


@dataclass(frozen=True)
class Paired:
    """A page's formulas with the narrow forms taken out: ``narrow`` maps a wide formula's index to its narrow form."""

    text: str
    formulas: list[Formula]
    narrow: dict[int, Formula]


def narrow_form(formula: Formula) -> Formula | None:
    """The formula without its mark if it is a narrow form (display, first line ``% narrow``), else None."""
    first, _, rest = formula.tex.partition("\n")
    if not formula.display or first.strip() != MARK:
        return None
    return Formula(tex=rest.strip(), display=True)


def pair(text: str, found: list[tuple[re.Match[str], Formula]]) -> Paired:
    """Take each narrow form out of the page's HTML and pair it with the display formula right before it.

    ``found`` is each formula's element in ``text`` with its formula, in order.  ``ValueError`` names a
    narrow form with anything but white space between it and a display formula before it.
    """
    kept: list[Formula] = []
    narrow: dict[int, Formula] = {}
    pieces: list[str] = []
    end = 0
    previous: tuple[re.Match[str], Formula] | None = None
    for match, formula in found:
        short = narrow_form(formula)
        if short is None:
            kept.append(formula)
            previous = (match, formula)
            continue
        if (previous is None or not previous[1].display or len(kept) - 1 in narrow
                or text[previous[0].end():match.start()].strip()):
            raise ValueError(f"a narrow form follows no display formula directly: {short.tex!r}")
        narrow[len(kept) - 1] = short
        pieces.append(text[end:previous[0].end()])
        end = match.end()
    pieces.append(text[end:])
    return Paired("".join(pieces), kept, narrow)


def width_ex(container: str) -> float:
    """The drawing's width in ex, as MathJax wrote it; ``ValueError`` if it has none."""
    found = WIDTH.search(container)
    if found is None:
        raise ValueError("its <svg> has no width in ex")
    return float(found.group(1))


def switch_ex(width: float) -> int:
    """The smallest of :data:`SWITCHES_EX` at least ``width``; ``ValueError`` past the widest."""
    for switch in SWITCHES_EX:
        if width <= switch:
            return switch
    raise ValueError(f"{width:g} ex wide, past math.css's widest switch ({SWITCHES_EX[-1]} ex)")


def problem(wide: Formula, wide_ex: float, narrow_ex: float | None) -> str | None:
    """What is wrong with a display formula's forms, in a phrase (None if nothing): see the module's docstring."""
    if narrow_ex is None:
        if wide_ex > WIDEST_EX:
            return (f"display formula {wide.tex!r} is {wide_ex:g} ex wide, wider than a phone's column "
                    f"({WIDEST_EX:.1f} ex): write its narrow form after it (hooks/content/formula_forms.py)")
        return None
    if wide_ex <= WIDEST_EX:
        return f"display formula {wide.tex!r} fits a phone's column ({wide_ex:g} ex): it needs no narrow form"
    if narrow_ex > WIDEST_EX:
        return (f"the narrow form of {wide.tex!r} is {narrow_ex:g} ex wide, wider than a phone's column "
                f"({WIDEST_EX:.1f} ex)")
    try:
        switch_ex(wide_ex)
    except ValueError as error:
        return f"display formula {wide.tex!r} is {error}"
    return None


def with_class(container: str, name: str) -> str:
    """The container with ``name`` added to its classes."""
    return CLASS.sub(lambda m: f"{m.group(1)}{m.group(2)} {name}{m.group(3)}", container, count=1)


def both(wide: str, narrow: str) -> tuple[str, str]:
    """The element's class and what it holds: both drawings, the narrow one named with the wide one's words."""
    label = LABEL.search(wide)
    if label is None:
        raise ValueError("the wide drawing has no aria-label")
    named = LABEL.sub(lambda m: f"{m.group(1)}{label.group(2)}{m.group(3)}", narrow, count=1)
    switch = switch_ex(width_ex(wide))
    return (f"arithmatex fpsum-narrow-below-{switch}",
            with_class(wide, "fpsum-wide") + with_class(named, "fpsum-narrow"))

