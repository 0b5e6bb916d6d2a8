"""Every matplotlib figure is legible: no two labels overlap, none leaves its axes or the figure.

The check is ``figures.mpl_collisions.text_collisions``, from the extents matplotlib
draws.  ``figures.mpl_render.render`` runs it on every static figure before saving
(the light one: the dark SVG is the light one recoloured, same layout), so a
collision stops the build; these tests show the checker finds what it claims
to on small synthetic figures, and run it on the real figures with their real
data.
"""

from __future__ import annotations

import io
import json
import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure
from PIL import Image

from conftest import DARK_PROOF
from figures import looks, mpl_render, races, spacing
from figures.build import registry
from figures.contract import FigureFiles
from figures.looks import DARK, LIGHT, Palette
from figures.mpl_collisions import LayoutError, text_collisions
from figures.mpl_dark import RecolourError, dark_svg
from figures.mpl_dark_proof import PROOF_ENV, DarkDrawingError
from figures.mpl_files import RC, SLIDE_WIDTH_PX, SVG_RC, png_bytes, svg_bytes
from figures.mpl_labels import drawn_labels
from figures.mpl_render import render
from figures.mpl_style import InViewTicks, plain_tick_text, style_axes
from figures.variants import Layout, Sizes
from fpsum.formats import get_format
from fpsum.race import run_race
from repocopy import BuiltCopy
from wcag import contrast


@pytest.fixture
def figure() -> Iterator[Callable[..., Figure]]:
    """A factory of figures drawn with the build's settings, closed after the test."""
    made: list[Figure] = []

    def make(**kwargs: Any) -> Figure:
        with plt.rc_context(RC):
            fig = plt.figure(figsize=kwargs.pop("figsize", (4.0, 3.0)), layout="constrained", **kwargs)
        made.append(fig)
        return fig

    yield make
    for fig in made:
        plt.close(fig)


def one_problem(problems: list[str], *words: str) -> str:
    """The one problem reported, which must name every word."""
    assert len(problems) == 1, problems
    assert all(word in problems[0] for word in words), problems[0]
    return problems[0]


# ---------------------------------------------------------------- the checker, on synthetic figures


def test_a_clean_figure_has_no_collisions(figure: Callable[..., Figure]) -> None:
    fig = figure()
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1], label="rising")
    ax.annotate("far from the line", (0.95, 0.1), ha="right", va="bottom")
    ax.set_title("a title")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.legend(loc="upper left", frameon=False)
    assert text_collisions(fig) == []


def test_two_overlapping_texts_are_found_and_named(figure: Callable[..., Figure]) -> None:
    fig = figure()
    ax = fig.subplots()
    ax.set_xlim(0, 1)
    ax.annotate("first label", (0.3, 0.5))
    ax.annotate("second label", (0.35, 0.5))
    one_problem(text_collisions(fig), 'annotation "first label"', "overlaps", 'annotation "second label"')


def test_a_label_that_leaves_its_axes_is_found(figure: Callable[..., Figure]) -> None:
    fig = figure(figsize=(6.0, 3.0))
    ax = fig.subplots()
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.annotate("runs past the top of the plot", (0.5, 0.98), va="bottom")
    one_problem(text_collisions(fig), '"runs past the top of the plot"', "leaves its axes")


def test_a_label_that_leaves_the_figure_is_found(figure: Callable[..., Figure]) -> None:
    fig = figure()
    fig.subplots()
    fig.text(0.9, 0.5, "off the right edge")
    one_problem(text_collisions(fig), '"off the right edge"', "leaves the figure")


def test_a_label_crossed_by_a_line_is_found(figure: Callable[..., Figure]) -> None:
    fig = figure()
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1], label="diagonal")
    ax.annotate("struck through", (0.5, 0.5), ha="center", va="center")
    one_problem(text_collisions(fig), '"struck through"', 'crossed by the line "diagonal"')


def test_cramped_tick_labels_are_found(figure: Callable[..., Figure]) -> None:
    fig = figure(figsize=(2.0, 2.0))
    ax = fig.subplots()
    ax.set_xticks(np.arange(0, 40, 2), [f"{v:,}" for v in 1000 * np.arange(0, 40, 2)])
    problems = text_collisions(fig)
    assert problems and all("x tick label" in p and "overlaps" in p for p in problems), problems


def test_a_legend_over_a_text_is_found(figure: Callable[..., Figure]) -> None:
    fig = figure()
    ax = fig.subplots()
    ax.plot([0, 1], [5, 5], label="a long legend entry", color="none")
    ax.set_ylim(0, 10)
    ax.text(0.02, 0.95, "under the legend", transform=ax.transAxes, va="top")
    ax.legend(loc="upper left")
    problems = text_collisions(fig)
    assert any('legend "a long legend entry"' in p and '"under the legend"' in p for p in problems), problems


def test_an_annotation_left_out_for_its_point_is_found(figure: Callable[..., Figure]) -> None:
    """Matplotlib silently skips an annotation whose data point is outside its axes."""
    fig = figure()
    ax = fig.subplots()
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.annotate("vanished", (0.5, -0.01), xytext=(0, 10), textcoords="offset points")
    one_problem(text_collisions(fig), '"vanished"', "not drawn")


def test_hidden_and_out_of_view_labels_count_for_nothing(figure: Callable[..., Figure]) -> None:
    """Shared axes hide the inner panel's tick labels, and ticks past the limits are not drawn."""
    fig = figure(figsize=(6.0, 3.0))
    left, right = fig.subplots(1, 2, sharey=True)
    for ax in (left, right):
        ax.plot([1, 2**16], [1e-8, 1])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlim(1, 2**16)
    right.annotate("", (2, 1e-4))  # empty: nothing to read, nothing to collide
    right.text(2, 1e-4, "hidden", visible=False)
    assert text_collisions(fig) == []


SMALL = Sizes(wide=(7.0, 3.0), narrow=(4.5, 3.0))
"""Sizes of the made-up figures below."""


def test_render_stops_on_a_collision_naming_the_figure_and_the_labels() -> None:
    def draw(palette: Palette, layout: Layout) -> Figure:
        fig, ax = plt.subplots(figsize=layout.size, layout="constrained")
        ax.annotate("one label", (0.3, 0.5))
        ax.annotate("another label", (0.32, 0.5))
        return fig

    with pytest.raises(LayoutError) as raised:
        render(draw, "made-up-figure", SMALL)
    message = str(raised.value)
    assert "'made-up-figure'" in message and "light palette" in message and "wide layout" in message
    assert '"one label"' in message and '"another label"' in message
    assert not plt.get_fignums(), "render closes the figure it rejects"


def test_render_writes_both_palettes_of_each_layout_and_the_slide_the_same_each_time() -> None:
    drawn: list[tuple[str, tuple[float, float], float]] = []

    def draw(palette: Palette, layout: Layout) -> Figure:
        drawn.append((layout.name, layout.size, float(plt.rcParams["font.size"])))
        fig, ax = plt.subplots(figsize=layout.size, layout="constrained")
        ax.plot([0, 1], [0, 1], color=palette.text)
        ax.set_title("title")
        return fig

    files = render(draw, "clean-figure", SMALL)
    stem = "figures/clean-figure"
    assert set(files) == {f"{stem}.svg", f"{stem}-dark.svg", f"{stem}-narrow.svg", f"{stem}-narrow-dark.svg",
                          f"{stem}.png", f"{stem}-text.json"}
    assert files == render(draw, "clean-figure", SMALL)
    assert files[f"{stem}-dark.svg"] == dark_svg(files[f"{stem}.svg"])
    assert files[f"{stem}-narrow-dark.svg"] == dark_svg(files[f"{stem}-narrow.svg"])
    assert b'width="324pt"' in files[f"{stem}-narrow.svg"] and b'width="504pt"' in files[f"{stem}.svg"]
    assert Image.open(io.BytesIO(files[f"{stem}.png"])).size == (1920, 1080)
    # Each layout is drawn at the font size that keeps its text at 11 px (24 on the slide) where it is
    # shown smallest: the 7-inch figure at 686 px, the 4.5-inch one at 328 px, the slide at 192 dpi.
    sizes = {name: font for name, _, font in drawn}
    assert sizes["wide"] * 686 / (7.0 * 72) >= 11 > (sizes["wide"] - 0.25) * 686 / (7.0 * 72)
    assert sizes["narrow"] * 328 / (4.5 * 72) >= 11 > (sizes["narrow"] - 0.25) * 328 / (4.5 * 72)
    assert sizes["slide"] * 192 / 72 == 24
    texts = json.loads(files[f"{stem}-text.json"])
    assert texts["slide"]["png_px"] == [1920, 1080] and texts["slide"]["smallest_font_px"] == 24
    assert texts["narrow"]["smallest_font_px"] >= 11 and texts["wide"]["smallest_font_px"] >= 11


def test_render_stops_on_text_under_the_layouts_font_size_or_in_mathtext() -> None:
    def draw(palette: Palette, layout: Layout) -> Figure:
        fig, ax = plt.subplots(figsize=layout.size, layout="constrained")
        ax.set_title("a small title", fontsize=8)
        return fig

    with pytest.raises(LayoutError, match=r"'small-text' \(wide layout\).*\"a small title\" is 8 pt"):
        render(draw, "small-text", SMALL)

    def mathtext(palette: Palette, layout: Layout) -> Figure:
        fig, ax = plt.subplots(figsize=layout.size, layout="constrained")
        ax.set_title("u = 2$^{-11}$")
        return fig

    with pytest.raises(LayoutError, match="mathtext"):
        render(mathtext, "mathtext", SMALL)
    assert not plt.get_fignums(), "render closes the figures it rejects"


@pytest.mark.parametrize(("mathtext", "plain"), [
    (r"$\mathdefault{10^{-3}}$", "10⁻³"),
    (r"$\mathdefault{2^{12}}$", "2¹²"),
    (r"$\mathdefault{10^{0}}$", "10⁰"),
    (r"$\mathdefault{2\times10^{-2}}$", "2×10⁻²"),
    (r"$\mathdefault{-10^{2}}$", "−10²"),
    (r"$\mathdefault{0}$", "0"),
    ("", ""),
    ("plain already", "plain already"),
    (r"$\mathdefault{\alpha}$", r"$\mathdefault{\alpha}$"),
])
def test_log_tick_labels_become_plain_text(mathtext: str, plain: str) -> None:
    assert plain_tick_text(mathtext) == plain


def test_rendered_log_axes_label_their_ticks_as_matplotlib_does_in_plain_text() -> None:
    """The same ticks get labels (minor ones on a short axis too), each one text in the SVG, no mathtext."""

    def draw(palette: Palette, layout: Layout) -> Figure:
        shape = (3, 1) if layout.narrow else (1, 3)
        fig, (wide, short, symlog) = plt.subplots(*shape, figsize=layout.size, layout="constrained")
        wide.loglog([1, 2**16], [1e-6, 1e2], color=palette.text)
        wide.set_xscale("log", base=2)
        short.semilogy([0, 1], [0.02, 0.5], color=palette.text)
        symlog.plot([-100, 100], [0, 1], color=palette.text)
        symlog.set_xscale("symlog", linthresh=1.0)
        return fig

    svg = render(draw, "log-ticks", Sizes(wide=(11.0, 3.0), narrow=(4.5, 9.0)))["figures/log-ticks.svg"].decode()
    texts = set(re.findall(r"<text[^>]*>([^<]*)</text>", svg))
    assert {"2⁰", "2¹⁶", "10⁻⁶", "10²", "10⁻¹", "2×10⁻²", "3×10⁻¹", "−10²", "0"} <= texts, sorted(texts)
    assert "mathdefault" not in svg and "$" not in "".join(texts)


TICKS = Sizes(wide=(8.0, 6.0), narrow=(4.5, 12.0))
"""Four panels, two by two (wide) or stacked (narrow)."""
TICKS_WIDE = TICKS.layouts()[0]


def test_ticks_are_made_only_in_view_and_the_drawing_does_not_change() -> None:
    """Log, symlog, linear and shared axes: no tick made outside the view, and the same SVG and PNG bytes
    as with matplotlib's own locators (which make ticks a decade or two beyond the view).
    """

    def draw(palette: Palette, layout: Layout = TICKS_WIDE) -> Figure:
        shape = (4, 1) if layout.narrow else (2, 2)
        fig, axes = plt.subplots(*shape, figsize=layout.size, layout="constrained", sharey=True)
        wide, short, symlog, linear = axes.flat
        wide.loglog([1, 2**16], [1e-6, 1e2], color=palette.text)
        wide.set_xscale("log", base=2)
        short.semilogy([0, 1], [0.02, 0.5], color=palette.text)
        short.minorticks_on()
        symlog.plot([-100, 100], [0, 1], color=palette.text)
        symlog.set_xscale("symlog", linthresh=1.0)
        linear.plot([0.05, 0.95], [0.3, 7.0], color=palette.text)
        return fig

    with_view_ticks = render(draw, "ticks", TICKS)
    made: list[list[float]] = []

    def unwrapped(fig: Figure, palette: Palette) -> None:
        styled(fig, palette)
        for ax in fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                for ticker in (axis.major, axis.minor):
                    if isinstance(ticker.locator, InViewTicks):
                        ticker.locator = ticker.locator.inner
                made.append([float(x) for x in axis.get_majorticklocs()])

    styled = style_axes
    mpl_render.style_axes = unwrapped  # type: ignore[assignment]  # what render calls
    try:
        as_matplotlib = render(draw, "ticks", TICKS)
    finally:
        mpl_render.style_axes = styled  # type: ignore[assignment]
    assert with_view_ticks == as_matplotlib
    with plt.rc_context(RC):
        fig = draw(LIGHT)
        style_axes(fig, LIGHT)
        fig.canvas.draw()
        for ax in fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                low, high = sorted(axis.get_view_interval())
                close = 1e-9 * (high - low)  # an end of the view, as rounded, counts as in it
                for locs in (axis.get_majorticklocs(), axis.get_minorticklocs()):
                    assert all(low - close <= x <= high + close for x in locs), (low, high, locs)
        plt.close(fig)
    assert any(min(locs) < 1e-6 for locs in made if locs), "matplotlib's own locators reach beyond the view"


def test_the_dark_svg_is_the_light_one_in_the_dark_palettes_colours() -> None:
    """Each colour swapped for its dark one, nothing else: ids and links that look like colours are kept."""
    light = (b'<path style="fill: #ffffff; stroke: #C0392B"/><use xlink:href="#m3623274f23"/>'
             b'<path clip-path="url(#p0a1b2c3d4)" style="stroke: #212121"/>')
    assert dark_svg(light) == (b'<path style="fill: #1e2129; stroke: #ff8a65"/><use xlink:href="#m3623274f23"/>'
                                   b'<path clip-path="url(#p0a1b2c3d4)" style="stroke: #e6e6e6"/>')


def test_a_colour_outside_the_tables_or_a_raster_image_stops_the_render() -> None:
    """The dark figure cannot be made from such a light one by swapping colours: the build says which figure."""

    def stray_colour(palette: Palette, layout: Layout) -> Figure:
        fig, ax = plt.subplots(figsize=layout.size, layout="constrained")
        ax.plot([0, 1], [0, 1], color="#123456")
        return fig

    def raster(palette: Palette, layout: Layout) -> Figure:
        fig, ax = plt.subplots(figsize=layout.size, layout="constrained")
        ax.imshow(np.eye(3), cmap="gray")
        return fig

    with pytest.raises(RecolourError, match=r"'stray'.*#123456 has no dark counterpart"):
        render(stray_colour, "stray", SMALL)
    with pytest.raises(RecolourError, match=r"'raster'.*raster image"):
        render(raster, "raster", SMALL)
    assert not plt.get_fignums()


def test_each_light_colour_has_one_dark_colour_and_both_stand_out_on_their_background(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every colour a figure draws, but the grid's and the background's, has WCAG's 3:1 for graphics."""
    dark = looks.dark_colours()
    for light, shade in dark.items():
        if light in (LIGHT.grid, LIGHT.background):
            continue
        assert contrast(light, LIGHT.background) >= 3.0, light
        assert contrast(shade, DARK.background) >= 3.0, (light, shade)
    clash = {**looks.FORMAT_COLOURS, "fp32": (LIGHT.text, "#ffffff")}
    monkeypatch.setattr(looks, "FORMAT_COLOURS", clash)
    with pytest.raises(ValueError, match=f"light colour {LIGHT.text} is {DARK.text} in one dark table and #ffffff"):
        looks.dark_colours()


def test_the_slide_png_is_matplotlibs_picture_on_white_without_the_alpha_channel(figure: Callable[..., Figure]) -> None:
    """As the build draws it (styled: a transparent background), a translucent band is blended with white."""
    fig = figure(figsize=(4.0, 3.0))
    ax = fig.subplots()
    ax.fill_between([0, 1], [0, 0], [1, 1], color="#2e7d32", alpha=0.2, lw=0)
    ax.plot([0, 1], [0, 1], lw=3, alpha=0.5, color="#c0392b")
    ax.set_title("half-transparent line")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    style_axes(fig, LIGHT)
    fig.set_layout_engine("none")
    ours = Image.open(io.BytesIO(png_bytes(fig)))
    reference = io.BytesIO()
    fig.savefig(reference, format="png", dpi=SLIDE_WIDTH_PX / 4.0, facecolor="white")
    theirs = Image.open(reference)
    assert ours.mode == "RGB" and theirs.mode == "RGBA" and ours.size == theirs.size == (1920, 1440)
    on_white = Image.alpha_composite(Image.new("RGBA", theirs.size, "white"), theirs).convert("RGB")
    assert np.array_equal(np.asarray(ours), np.asarray(on_white))
    # Inside the band, away from the line: a fifth of #2e7d32 over white, not the colour itself.
    corner = fig.axes[0].transData.transform((0.9, 0.1)) * 480 / fig.dpi
    pixel = np.asarray(ours)[1440 - int(corner[1]), int(corner[0])]
    blended = [round(255 * 0.8 + channel * 0.2) for channel in (0x2E, 0x7D, 0x32)]
    assert np.abs(pixel.astype(int) - blended).max() <= 2, (pixel, blended)
    assert round(ours.info["dpi"][0]) == 480


def test_every_title_is_drawn_in_the_palettes_text_colour_wherever_it_is_placed(figure: Callable[..., Figure]) -> None:
    """A title placed left or right (``loc=``) is coloured as the centre one: in the saved SVG, not left black."""
    fig = figure(figsize=(6.0, 3.0))
    ax = fig.subplots()
    for loc in ("left", "center", "right"):
        ax.set_title(f"{loc} title", loc=loc, fontsize="medium")
    style_axes(fig, DARK)
    root = ET.fromstring(svg_bytes(fig))
    fills = {text.text: dict(part.split(": ", 1) for part in text.get("style", "").split("; ")).get("fill")
             for text in root.iter("{http://www.w3.org/2000/svg}text") if (text.text or "").endswith(" title")}
    assert fills == {"left title": DARK.text, "center title": DARK.text, "right title": DARK.text}


# ---------------------------------------------------------------- the real figures, with their real data

def static_figures() -> list[str]:
    """The records drawn through ``render``: the static figures, from the registry."""
    return [record.id for record in registry()
            if getattr(sys.modules[record.build.__module__], "render", None) is render]


def test_every_static_figure_s_dark_svgs_are_its_dark_drawings(built_copy: BuiltCopy) -> None:
    """The cold build drew each layout of every static figure in the dark palette too, and each was its light
    drawing recoloured (``figures.mpl_dark_proof``; a difference stops that build): its list names them all.
    """
    proven = (built_copy.repo.parent / DARK_PROOF).read_text(encoding="utf-8").split("\n")
    wide, narrow, _ = spacing.SIZES.layouts()  # every figure's layouts have these names
    expected = {f"{figure_id} {layout.name}" for figure_id in static_figures() for layout in (wide, narrow)}
    assert set(filter(None, proven)) == expected


def test_a_dark_drawing_that_differs_in_more_than_colour_stops_the_build(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A figure that draws something only in the dark palette: its dark SVG, recoloured from the light one,
    cannot be right, and the proof says which figure and layout.
    """
    def draw(palette: Palette, layout: Layout, dark_title: bool) -> Figure:
        fig, axes = plt.subplots(figsize=layout.size)
        axes.plot([0, 1], [0, 1], color=palette.text)
        if dark_title and palette is DARK:
            axes.set_title("only in the dark")
        return fig

    sizes = spacing.SIZES
    proof = tmp_path / DARK_PROOF
    monkeypatch.setenv(PROOF_ENV, str(proof))
    with pytest.raises(DarkDrawingError, match=r"figure 'dark-only', wide layout"):
        render(lambda palette, layout: draw(palette, layout, True), "dark-only", sizes)
    proof.unlink(missing_ok=True)
    render(lambda palette, layout: draw(palette, layout, False), "same", sizes)
    assert proof.read_text(encoding="utf-8").split() == ["same", "wide", "same", "narrow"]


def test_race_slides_are_legible() -> None:
    """The races' slide PNGs are drawn by ``races.race_png`` through ``figures.mpl_render.slide_png``, which raises on a
    collision or a text too small: each race's makes a 1920 x 1080 PNG with text of 24 px or more.
    """
    checked = 0
    for record in registry():
        if record.build is races.build:
            race = run_race(get_format(record.params.format), record.params.kind,
                                  n=record.params.n, seed=record.params.seed, samples=record.params.samples)
            png, text = races.race_png(race, record.id)
            assert Image.open(io.BytesIO(png)).size == (1920, 1080), record.id
            assert text["smallest_font_px"] >= 24, (record.id, text)
            checked += 1
    assert checked >= 6


def test_every_static_figure_of_the_build_passed_the_check(site_dir: Path) -> None:
    """The strict build checks every figure drawn through ``render`` (in the light palette; ``render`` raises
    ``LayoutError``, which fails the build), so a built site proves them all legible, error-vs-n-fp32 and
    the figures not drawn above included; here: each such figure of the registry is in the site.
    """
    static = static_figures()
    assert {"error-vs-n", "error-vs-n-fp32", "spacing", "neumaier"} <= set(static)
    for figure_id in static:
        files = FigureFiles.of(figure_id)
        assert (site_dir / files.svg).is_file() and (site_dir / files.dark_svg).is_file(), figure_id


def test_checked_figures_are_checked_at_their_own_size() -> None:
    """A figure of the real size (not a thumbnail) is what the checker measures: its dpi is the figure's."""
    wide = spacing.SIZES.layouts()[0]
    with plt.rc_context(SVG_RC | {"font.size": wide.font_pt}):  # as render draws it
        fig = spacing.draw(next(r.params for r in registry() if r.id == "spacing"), LIGHT, wide)
        style_axes(fig, LIGHT)
    try:
        width, height = fig.get_size_inches()
        assert (width, height) == spacing.SIZES.wide
        assert text_collisions(fig) == []
        labels = drawn_labels(fig)
        assert {"x tick label", "y tick label", "x-axis label", "y-axis label", "legend text", "legend"} <= {
            label.kind for label in labels}
        assert all(fig.bbox.contains(label.box.x0 + 0.5, label.box.y0 + 0.5) for label in labels)
    finally:
        plt.close(fig)
