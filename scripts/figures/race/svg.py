"""Putting the race together: the two layouts, the SVG document and the page fragment."""

from __future__ import annotations

from html import escape

from fpsum.inputs import INPUT_LABELS
from fpsum.race import Race

from ..text import number
from .defs import defs
from .labels import axis_labels, desc_text, error_key, stall_label, stall_step_label, title_text
from .layout import (
    DURATION_S,
    ERRORS,
    HEIGHT,
    NARROW,
    PLOT,
    TEXT_X,
    WIDE,
    WIDTH,
    Layout,
    View,
    layout,
    num,
    stall_step,
)
from .readout import final_parts, legend, live_readout, moving_readout, narrow_readout, wide_readout
from .style import css

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"


def plot_part(lay: Layout, view: View, href: str) -> list[str]:
    """The grids, both plots' lines and the stall guide in the reveal clip, the cursor at its edge, for ``view``."""
    fid, where = lay.fid, view.transform()
    dur = f'begin="0s" dur="{DURATION_S}s" fill="freeze"'
    guide = f'<use {href}="#{fid}-stall"/>' if stall_step(lay) else ""
    return [
        f'<use {href}="#{fid}-grid"{where}/>',
        f'<g class="lines"{where} clip-path="url(#{fid}-reveal)">{guide}'
        f'<use {href}="#{fid}-lines"/><use {href}="#{fid}-errors"/></g>',
        f'<g class="anim"{where}><g class="cursor"><path d="M{num(PLOT.left)} {num(PLOT.top)}V{num(ERRORS.bottom)}"/>'
        f'<animateTransform attributeName="transform" type="translate" '
        f'values="0 0;{num(PLOT.right - PLOT.left)} 0" {dur}/>'
        f'<set attributeName="visibility" to="hidden" begin="{DURATION_S}s" fill="freeze"/></g></g>',
        *stall_step_parts(lay, view),
    ]


def stall_step_parts(lay: Layout, view: View) -> list[str]:
    """The stall guide's label, fading in when the reveal reaches the stall (the still frame has its own copy)."""
    found, label = stall_step(lay), stall_step_label(lay, view)
    if found is None or not label:
        return []
    begin = DURATION_S * found[0] / lay.race.n
    return [f'<g class="anim" opacity="0">{label}<animate attributeName="opacity" values="0;1" '
            f'begin="{begin:.3g}s" dur="0.4s" fill="freeze"/></g>']


def wide_layout(lay: Layout, href: str, live: bool) -> list[str]:
    """The layout for most screens and print: plot on the left, readout column on the right.

    ``live``: the readout is written by race.js (pages) rather than a film strip (standalone files).
    """
    place = wide_readout(lay)
    head = f"{lay.race.fmt.label} \u00b7 {INPUT_LABELS[lay.race.kind]} \u00b7 {number(lay.race.n)} inputs"
    return [
        '<g class="wide">',
        f'<text class="head" x="8" y="22">{escape(head)}</text>',
        f'<text class="muted" x="{num(TEXT_X)}" y="22">inputs added</text>',
        *axis_labels(lay, WIDE),
        *plot_part(lay, WIDE, href),
        stall_label(lay, WIDE),
        error_key(lay, WIDE, TEXT_X - 30, ERRORS.top + 30, chars=28),
        *legend(lay, place, href),
        *(live_readout(lay, place) if live else moving_readout(lay, place)),
        *final_parts(lay, WIDE, place, href, live, also=stall_step_label(lay, WIDE)),
        "</g>",
    ]


def narrow_layout(lay: Layout, href: str) -> list[str]:
    """The layout for narrow containers (phones): a bigger plot, the readout as a table below it."""
    place = narrow_readout(lay)
    return [
        '<g class="narrow">',
        *axis_labels(lay, NARROW),
        *plot_part(lay, NARROW, href),
        stall_label(lay, NARROW),
        f'<text class="muted" x="4" y="{num(place.count[1])}">inputs added</text>',
        error_key(lay, NARROW, 4, NARROW.point(0, ERRORS.bottom)[1] + 14 + 4.2 * NARROW.font, chars=46),
        *legend(lay, place, href),
        *live_readout(lay, place),
        *final_parts(lay, NARROW, place, href, live=True, also=stall_step_label(lay, NARROW)),
        "</g>",
    ]


def svg_parts(race: Race, figure_id: str, standalone: bool) -> tuple[str, str, str]:
    """The SVG in three pieces: the opening tag with title, desc and style; the drawing; the closing tag.

    Both variants use ``xlink:href`` for ``<use>``: mkdocs-material's
    instant navigation rewrites every element's ``href`` property, which a
    ``<use>`` element only has as a getter (a console error).  The root's id
    is ``{figure_id}-svg``; every other id starts with ``{figure_id}-``.
    """
    fid = figure_id
    lay = layout(race, fid)
    href = "xlink:href"
    head = [
        '<?xml version="1.0" encoding="UTF-8"?>' if standalone else "",
        f'<svg xmlns="{SVG_NS}" xmlns:xlink="{XLINK_NS}" id="{fid}-svg" class="race__svg" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" preserveAspectRatio="xMidYMin meet" role="img" '
        f'aria-labelledby="{fid}-title {fid}-desc">',
        f'<title id="{fid}-title">{escape(title_text(race))}</title>',
        f'<desc id="{fid}-desc">{escape(desc_text(race))}</desc>',
        f"<style>{css(fid, standalone)}</style>",
    ]
    drawing = [
        defs(lay, href, film_strip=standalone),
        f'<rect class="bg" width="{WIDTH}" height="{HEIGHT}"/>' if standalone else "",
        *wide_layout(lay, href, live=not standalone),
        *([] if standalone else narrow_layout(lay, href)),
    ]
    return "\n".join(p for p in head if p), "\n".join(p for p in drawing if p), "</svg>"


def race_svg(race: Race, figure_id: str, standalone: bool) -> str:
    """The race as an SVG document.

    ``standalone`` (a file of its own): XML declaration, a background, a
    dark scheme and the film-strip readout; the wide layout only.  Inline (in
    a page, once race.js has put the drawing in): both layouts, with the
    readout race.js writes.
    """
    return "\n".join(svg_parts(race, figure_id, standalone)) + "\n"


def race_figure_html(race: Race, figure_id: str, fallback_src: str = "") -> str:
    """The fragment a page inlines: the SVG, its drawing to come, and Pause/Restart buttons.

    The ``<svg>`` in the page holds only its title, description and style,
    which keep its place and say what it shows.  The drawing waits in a
    ``<template>``, which the browser parses but neither styles nor lays out;
    race.js moves it into the ``<svg>`` when the figure comes near the view,
    or when the browser is idle, or before printing.  Six drawn races would
    add their elements to every style and layout pass while the page loads.
    Without JavaScript the ``<svg>`` is hidden and ``fallback_src`` (the
    standalone animated SVG, when given) is shown in its place.

    No blank lines, so Markdown keeps it as one raw HTML block.  race.js
    finds the ``.race`` wrapper, its ``svg``, its ``template``, its
    ``[data-race-action]`` buttons (hidden until race.js shows them) and the
    animation's length in ``data-race-duration``.
    """
    fid = escape(figure_id)
    head, drawing, tail = svg_parts(race, figure_id, standalone=False)
    controls = "".join(
        f'<button type="button" class="race__button" data-race-action="{action}" '
        f'aria-describedby="{fid}-title" hidden>{label}</button>'
        for action, label in (("pause", "Pause"), ("restart", "Restart"))
    )
    fallback = (f'<noscript><img class="race__fallback" src="{escape(fallback_src)}" '
                f'alt="{escape(desc_text(race))}"></noscript>\n') if fallback_src else ""
    return (
        f'<div class="race" id="{fid}" data-race-duration="{DURATION_S}">\n'
        f"{head}\n{tail}\n"
        f'<template class="race__drawing"><svg xmlns="{SVG_NS}" xmlns:xlink="{XLINK_NS}">\n'
        f"{drawing}\n</svg></template>\n"
        f"{fallback}"
        f'<div class="race__controls" role="group" aria-label="Animation controls">{controls}</div>\n'
        "</div>\n"
    )
