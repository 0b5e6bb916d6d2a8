"""The animated race figure: well-formed, small, animated, still when asked, scoped, described, reproducible."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from fpsum.formats import FP16
from fpsum.names import METHOD_LABELS
from fpsum.race import RACE_METHODS, Race, run_race

ROOT = Path(__file__).resolve().parents[2]

from figures.looks import DARK, LIGHT, LOOKS, MARKERS, Palette, css_properties  # noqa: E402
from figures.race.defs import path_data, polylines  # noqa: E402
from figures.race.errors import (  # noqa: E402
    LINSCALE,
    LogScale,
    error_domain,
    final_errors,
    power_of_ten,
    shown_errors,
)
from figures.race.layout import DURATION_S, ERRORS, PLOT, SERIES, layout, tick_decimals, ticks  # noqa: E402  # noqa: E402
from figures.race.style import STALL_DASH  # noqa: E402
from figures.race.svg import SVG_NS, XLINK_NS, race_figure_html, race_svg  # noqa: E402
from figures.text import number, significant  # noqa: E402
from race_cases import CASES, CSS_FILE, JS_FILE, fid, race, svg  # noqa: E402
from wcag import contrast  # noqa: E402

NS = {"svg": SVG_NS}
MAX_BYTES = 150_000


def parse(text: str) -> ET.Element:
    """The SVG's root element (the XML declaration, if any, is fine for ElementTree)."""
    return ET.fromstring(text.encode())


def style_text(root: ET.Element) -> str:
    """All the text of the SVG's <style> elements."""
    return "".join(s.text or "" for s in root.iter(f"{{{SVG_NS}}}style"))


def selectors(sheet: str) -> list[str]:
    """Every selector of every rule, inside at-rules too (innermost ``prelude { declarations }`` blocks)."""
    found = []
    for prelude in re.findall(r"([^{}]*)\{[^{}]*\}", sheet):
        found += [s.strip() for s in prelude.split(",")]
    return found


def seconds(value: str) -> float:
    """A SMIL clock value in seconds (``10s``, ``600ms``)."""
    match = re.fullmatch(r"([\d.]+)(ms|s)", value)
    assert match, f"unexpected clock value {value!r}"
    return float(match[1]) / (1000 if match[2] == "ms" else 1)


# ---------------------------------------------------------------- the SVG


@pytest.mark.parametrize("standalone", [True, False])
@pytest.mark.parametrize(("fmt", "kind"), CASES)
def test_well_formed_and_small(fmt: str, kind: str, standalone: bool) -> None:
    text = svg(fmt, kind, standalone)
    root = parse(text)
    assert root.tag == f"{{{SVG_NS}}}svg"
    assert len(text.encode()) <= MAX_BYTES
    assert len(race_figure_html(race(fmt, kind), fid(fmt, kind)).encode()) <= MAX_BYTES


@pytest.mark.parametrize(("fmt", "kind"), CASES)
def test_reveal_is_smil_of_about_ten_seconds(fmt: str, kind: str) -> None:
    root = parse(svg(fmt, kind, False))
    clocks = [a for a in root.iter(f"{{{SVG_NS}}}animate") if "data-race-clock" in a.attrib]
    assert len(clocks) == 1
    clock = clocks[0]
    assert clock.get("attributeName") == "width"
    assert 8 <= seconds(clock.get("dur", "")) <= 12
    assert clock.get("begin") == "0s" and clock.get("fill") == "freeze"


def counts_shown(strings: list[str]) -> list[int]:
    """Readout counts ("8,192") as integers."""
    return [int(text.replace(",", "")) for text in strings]


@pytest.mark.parametrize(("fmt", "kind"), CASES)
def test_standalone_readout_is_a_film_strip_stepping_through_the_race(fmt: str, kind: str) -> None:
    root = parse(svg(fmt, kind, True))
    stepped = [a for a in root.iter(f"{{{SVG_NS}}}animateTransform") if a.get("calcMode") == "discrete"]
    assert len(stepped) == 1
    values = stepped[0].get("values", "").split(";")
    times = [float(t) for t in stepped[0].get("keyTimes", "").split(";")]
    assert len(values) == len(times) > 40
    assert times[0] == 0 and times[-1] == 1 and times == sorted(times)
    assert seconds(stepped[0].get("dur", "")) == DURATION_S
    count = next(t for t in root.iter(f"{{{SVG_NS}}}text") if t.get("class") == "count")
    shown = counts_shown([span.text or "" for span in count])
    assert len(shown) == len(values) and shown[0] == 0 and shown == sorted(shown) and shown[-1] == race(fmt, kind).n
    assert count[-1].get("class") == "fin"


@pytest.mark.parametrize(("fmt", "kind"), CASES)
def test_inline_readout_carries_every_frame_for_race_js_and_no_film_strip(fmt: str, kind: str) -> None:
    """One empty text per value and layout, its frames in data-race-frames; the final frame shows at the end."""
    r = race(fmt, kind)
    root = parse(svg(fmt, kind, False))
    assert not any(a.get("calcMode") == "discrete" for a in root.iter(f"{{{SVG_NS}}}animateTransform"))
    # A film strip has a tspan per frame; the most a page text has is the errors' key, a few lines.
    assert max(len(t) for t in root.iter(f"{{{SVG_NS}}}text")) <= 6, "a film strip in the page"
    live = [g for g in root.iter(f"{{{SVG_NS}}}g") if "data-race-live" in g.attrib]
    assert len(live) == 2  # the wide and the narrow layout
    for group in live:
        assert "anim" in group.get("class", "").split()
        texts = list(group.iter(f"{{{SVG_NS}}}text"))
        assert len(texts) == 1 + 5  # the count, then exact and the four methods
        assert all(not (t.text or "").strip() for t in texts), "filled before race.js runs"
        frames = [t.get("data-race-frames", "").split("|") for t in texts]
        assert len({len(f) for f in frames}) == 1 and len(frames[0]) > 40
        counts = counts_shown(frames[0])
        assert counts[0] == 0 and counts == sorted(counts) and counts[-1] < r.n
        hides = [a for a in group if a.tag == f"{{{SVG_NS}}}set"]
        assert [(a.get("attributeName"), a.get("to"), seconds(a.get("begin", ""))) for a in hides] == [
            ("visibility", "hidden", DURATION_S)]
    ending = [g for g in root.iter(f"{{{SVG_NS}}}g") if g.get("class") == "anim" and g.get("opacity") == "0"
              and any(seconds(a.get("begin", "")) == DURATION_S for a in g if a.tag == f"{{{SVG_NS}}}animate")]
    assert len(ending) == 2
    for group in ending:
        shown = "".join(group.itertext())
        assert f"{r.n:,}" in shown and all(number(v) in shown for v in r.final.values())


@pytest.mark.parametrize("standalone", [True, False])
@pytest.mark.parametrize(("fmt", "kind"), CASES)
def test_reduced_motion_and_print_show_the_still_final_frame(fmt: str, kind: str, standalone: bool) -> None:
    root = parse(svg(fmt, kind, standalone))
    sheet = style_text(root)
    for query in ("@media (prefers-reduced-motion:reduce)", "@media print"):
        block = sheet.split(query, 1)[1].split("}}", 1)[0] + "}"
        assert ".anim{display:none}" in block and ".still{display:inline}" in block
        assert ".lines{clip-path:none}" in block
    still = [g for g in root.iter(f"{{{SVG_NS}}}g") if g.get("class") == "still"]
    assert still
    final_texts = " ".join("".join(g.itertext()) for g in still)
    r = race(fmt, kind)
    for method, value in r.final.items():
        assert number(value) in final_texts, method
    assert not any(a.tag.endswith(("animate", "set", "animateTransform")) for g in still for a in g.iter())


@pytest.mark.parametrize("standalone", [True, False])
@pytest.mark.parametrize(("fmt", "kind"), CASES)
def test_ids_are_prefixed_and_references_resolve(fmt: str, kind: str, standalone: bool) -> None:
    text = svg(fmt, kind, standalone)
    root = parse(text)
    prefix = fid(fmt, kind) + "-"
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert ids and all(i.startswith(prefix) for i in ids if i), ids
    assert len(ids) == len(set(ids))
    wanted = set(re.findall(r'url\(#([^)]+)\)', text)) | set(re.findall(r'href="#([^"]+)"', text))
    wanted |= set(root.get("aria-labelledby", "").split())
    assert wanted and wanted <= set(ids)


@pytest.mark.parametrize("standalone", [True, False])
@pytest.mark.parametrize(("fmt", "kind"), CASES)
def test_every_style_selector_is_scoped(fmt: str, kind: str, standalone: bool) -> None:
    root = parse(svg(fmt, kind, standalone))
    found = selectors(style_text(root))
    assert len(found) > 10
    scope = f"#{fid(fmt, kind)}-svg"
    assert root.get("id") == scope[1:]
    bad = [s for s in found if not (s == scope or s.startswith(scope + " "))]
    assert not bad


@pytest.mark.parametrize(("fmt", "kind"), CASES)
def test_title_and_desc_say_what_every_method_ends_at(fmt: str, kind: str) -> None:
    r = race(fmt, kind)
    root = parse(svg(fmt, kind, False))
    assert root.get("role") == "img"
    title = root.find("svg:title", NS)
    desc = root.find("svg:desc", NS)
    assert title is not None and desc is not None
    assert root.get("aria-labelledby") == f"{title.get('id')} {desc.get('id')}"
    text = f"{title.text} {desc.text}"
    assert r.fmt.label in text and f"{r.n:,}" in text
    for method, value in r.final.items():
        assert number(value) in (desc.text or ""), method
        assert METHOD_LABELS[method] in (desc.text or "")
        stall = r.stalls[method]
        if stall is not None:
            assert f"after {stall:,} inputs" in (desc.text or "")
    assert f"exact total is {number(r.exact_final)}" in (desc.text or "")
    # The page tests read the exact total as the first number after the desc's last "exact total".
    assert (desc.text or "").split("exact total")[-1].startswith(f" is {number(r.exact_final)}")


def test_desc_of_fp16_uniform_reads_as_a_sentence() -> None:
    r = race("fp16", "uniform")
    desc = parse(svg("fp16", "uniform", False)).find("svg:desc", NS)
    assert desc is not None
    stall = r.stalls["naive"]
    assert stall is not None
    ends = {m: abs(r.final[m] - r.exact_final) / r.fmt.ulp(float(np.max(np.abs(r.exact)))) for m in r.final}
    assert desc.text == (
        f"FP16, {r.n:,} uniform inputs in [0, 1): the naive sum stalls at 2,048 after {stall:,} inputs; "
        f"FP32 accumulator ends at {number(r.final['wide'])}, Kahan at {number(r.final['kahan'])}, "
        f"pairwise at {number(r.final['pairwise'])}; the exact total is {number(r.exact_final)}. "
        "The lower plot shows each method's error, the distance of its total from the exact one, in ulps "
        "(1 ulp is the FP16 spacing at the largest magnitude the exact sum has reached so far), on a "
        "logarithmic scale whose bottom line, 0, is the exact sum's own; each point is the largest error in the "
        "last 128 inputs. The errors at the end, in ulps: "
        f"naive {significant(ends['naive'])}, FP32 accumulator {significant(ends['wide'])}, "
        f"Kahan {significant(ends['kahan'])}, pairwise {significant(ends['pairwise'])}."
    )
    assert significant(ends["naive"]) == "1,015" and ends["kahan"] < 0.5


@pytest.mark.parametrize("standalone", [True, False])
@pytest.mark.parametrize(("fmt", "kind"), CASES)
def test_no_urls_but_the_namespaces(fmt: str, kind: str, standalone: bool) -> None:
    urls = set(re.findall(r"https?://[^\s\"'<>)]*", svg(fmt, kind, standalone)))
    assert urls <= {SVG_NS, XLINK_NS}
    assert XLINK_NS in urls  # <use> refers with xlink:href, inline too (see race_svg)


@pytest.mark.parametrize("standalone", [True, False])
def test_output_is_deterministic(standalone: bool) -> None:
    fresh = run_race(FP16, "uniform")
    assert race_svg(fresh, "a", standalone) == race_svg(fresh, "a", standalone)
    assert race_svg(fresh, "a", standalone) == race_svg(race("fp16", "uniform"), "a", standalone)
    assert race_figure_html(fresh, "a") == race_figure_html(race("fp16", "uniform"), "a")


def texts(root: ET.Element) -> str:
    """Every text node of the drawing (not the title or desc), joined."""
    return " ".join(
        "".join(t.itertext()) for t in root.iter(f"{{{SVG_NS}}}text")
    )


@pytest.mark.parametrize("standalone", [True, False])
def test_stall_level_is_marked_where_a_sum_stalls(standalone: bool) -> None:
    drawn = texts(parse(svg("fp16", "uniform", standalone)))
    assert "FP16 stalls at 2,048:" in drawn and "the ulp there is 2" in drawn
    assert "BF16 stalls at 256:" in texts(parse(svg("bf16", "ones", standalone)))


def test_no_stall_mark_where_nothing_gets_there() -> None:
    root = parse(svg("fp16", "normal", False))
    assert "stalls at" not in texts(root)
    assert "stroke-dasharray:6 4" not in svg("fp16", "normal", False)
    assert "stroke-dasharray:6 4" in svg("fp16", "uniform", False)


def test_axes_have_ticks_with_thousands_separators() -> None:
    drawn = texts(parse(svg("fp16", "ones", False)))
    for label in ("0", "2,000", "4,000", "6,000", "8,000", "running total", "inputs added"):
        assert label in drawn


def test_every_method_has_its_own_dash_or_marker_and_a_legend_entry() -> None:
    looks = [LOOKS[s] for s in SERIES]
    assert SERIES == ("exact", "naive", "wide", "kahan", "pairwise")
    assert len({(look.dash, look.width, look.marker) for look in looks}) == len(SERIES)
    assert len({look.marker for look in looks}) == len(SERIES)
    drawn = texts(parse(svg("bf16", "uniform", True)))
    for name in SERIES:
        assert LOOKS[name].label == METHOD_LABELS[name] and LOOKS[name].label in drawn


def test_text_is_at_least_14_units() -> None:
    sizes = re.findall(r"font-size:([\d.]+)px", svg("fp16", "uniform", False))
    assert sizes and min(float(s) for s in sizes) >= 14


# ---------------------------------------------------------------- the errors' plot


def group(root: ET.Element, gid: str) -> ET.Element:
    """The element with id ``gid``."""
    found = next((e for e in root.iter() if e.get("id") == gid), None)
    assert found is not None, gid
    return found


def polyline(d: str) -> list[tuple[float, float]]:
    """The points of path data as race paths write it: ``M x y`` then relative ``l`` steps (one run)."""
    assert d.count("M") == 1, d
    head, _, rest = d[1:].partition("l")
    numbers = [float(v) for v in re.findall(r"-?\d*\.?\d+", head)]
    points = [(numbers[0], numbers[1])]
    steps = [float(v) for v in re.findall(r"-?\d*\.?\d+", rest)]
    for dx, dy in zip(steps[::2], steps[1::2]):
        points.append((points[-1][0] + dx, points[-1][1] + dy))
    return points


def distance(point: tuple[float, float], points: list[tuple[float, float]]) -> float:
    """How far ``point`` is from a polyline."""
    p = np.array(point)
    best = math.inf
    for a, b in zip(np.array(points[:-1]), np.array(points[1:])):
        t = float(np.clip(np.dot(p - a, b - a) / max(float(np.dot(b - a, b - a)), 1e-12), 0, 1))
        best = min(best, float(np.linalg.norm(p - (a + t * (b - a)))))
    return best


def model_errors(r: Race, method: str) -> np.ndarray:
    """The lower plot's values, written out from their definition independently of the renderer.

    At each sampled count, the largest ``|total - exact|`` over the last n/64 inputs, in ulps of the format
    at the largest ``|exact|`` so far.
    """
    steps, exact = r.steps.tolist(), r.exact.tolist()
    unit, peak = [], 0.0
    for value in exact:
        peak = max(peak, abs(value))
        unit.append(r.fmt.ulp(peak))
    errors = [abs(t - e) / u for t, e, u in zip(r.totals[method].tolist(), exact, unit)]  # type: ignore[index]
    return np.array([max(err for c, err in zip(steps, errors) if count - r.n // 64 < c <= count) for count in steps])


@pytest.mark.parametrize("standalone", [True, False])
@pytest.mark.parametrize(("fmt", "kind"), CASES)
def test_the_errors_are_drawn_in_every_layout_revealed_with_the_totals(fmt: str, kind: str, standalone: bool) -> None:
    """Both plots' lines in one clipped group per layout; the cursor runs down both; both in the still frame."""
    root = parse(svg(fmt, kind, standalone))
    prefix = fid(fmt, kind)
    layouts = [g for g in root.iter(f"{{{SVG_NS}}}g") if g.get("class") in ("wide", "narrow")]
    assert len(layouts) == (1 if standalone else 2)
    for layout_group in layouts:
        lines = [g for g in layout_group.iter(f"{{{SVG_NS}}}g") if g.get("class") == "lines"]
        assert len(lines) == 1
        assert lines[0].get("clip-path") == f"url(#{prefix}-reveal)"
        used = [u.get(f"{{{XLINK_NS}}}href") for u in lines[0].iter(f"{{{SVG_NS}}}use")]
        assert {f"#{prefix}-lines", f"#{prefix}-errors"} <= set(used)
        cursor = next(g for g in layout_group.iter(f"{{{SVG_NS}}}g") if g.get("class") == "cursor")
        top, bottom = (float(v) for v in re.findall(r"[\d.]+", cursor[0].get("d", ""))[1:3])
        assert top < 100 and bottom > 440  # from the totals' top to the errors' axis (wide-plot units)
    reveal = group(root, f"{prefix}-reveal")[0]
    assert float(reveal.get("height", "0")) >= float(root.get("viewBox", "").split()[3])
    assert ".lines{clip-path:none}" in style_text(root)  # the still frame shows both plots whole


@pytest.mark.parametrize("standalone", [True, False])
def test_every_error_line_takes_its_look_from_the_table(standalone: bool) -> None:
    root = parse(svg("bf16", "normal", standalone))
    errors = group(root, f"{fid('bf16', 'normal')}-errors")
    styles = [path.get("style", "") for path in errors.iter(f"{{{SVG_NS}}}path")]
    assert len(styles) == len(SERIES)
    for s in SERIES:
        look = LOOKS[s]
        assert (f"fill:none;stroke:var(--look-{s},{look.light});stroke-width:{look.width:g};"
                f"stroke-dasharray:{look.dasharray()}") in styles, s
    markers = [g.get("style", "") for g in errors if g.tag == f"{{{SVG_NS}}}g"]
    assert [f"fill:var(--look-{s}," in m for s, m in zip(SERIES[1:], markers)] == [True] * 4


@pytest.mark.parametrize(("fmt", "kind"), [("fp16", "uniform"), ("bf16", "ones"), ("fp16", "normal")])
def test_error_lines_follow_the_models_running_errors(fmt: str, kind: str) -> None:
    """At sampled counts, each method's error line passes where the model's error puts it; exact's is 0."""
    r = race(fmt, kind)
    lay = layout(r, fid(fmt, kind))
    errors = group(parse(svg(fmt, kind, False)), f"{fid(fmt, kind)}-errors")
    paths = [p for p in errors if p.tag == f"{{{SVG_NS}}}path"]
    by_series = dict(zip(SERIES[::-1], paths))  # drawn exact last
    assert polyline(by_series["exact"].get("d", "")) == [(PLOT.left, ERRORS.bottom), (PLOT.right, ERRORS.bottom)]
    assert lay.err(0.0) == ERRORS.bottom
    for method in RACE_METHODS:
        points = polyline(by_series[method].get("d", ""))
        expected = model_errors(r, method)
        for index in np.linspace(0, len(r.steps) - 1, 9).round().astype(int).tolist():
            where = (lay.x(float(r.steps[index])), lay.err(float(expected[index])))
            assert distance(where, points) <= 0.3, (method, int(r.steps[index]), float(expected[index]))


def test_the_error_scale_is_matplotlibs_symlog() -> None:
    """Linear from 0 to lo over one decade's height, logarithmic above: the PNG's scale, the same picture."""
    from matplotlib.scale import SymmetricalLogTransform

    scale = LogScale(1e-4, 2e3, 100.0, 0.0)
    assert scale(0) == 100 and scale(2e3) == pytest.approx(0) and scale(-1) == 100 and math.isnan(scale(math.nan))
    assert scale(1e-4) == pytest.approx(100 - 100 / scale.decades)
    symlog = SymmetricalLogTransform(10, 1e-4, LINSCALE)
    top = symlog.transform(np.array([2e3]))[0]
    for value in (0, 5e-5, 1e-4, 3e-3, 1, 700):
        assert 100 - scale(value) == pytest.approx(100 * symlog.transform(np.array([value]))[0] / top)
    assert scale.decade_ticks() == [-4, -2, 0, 2]
    assert LogScale(0.1, 2e3, 1, 0).decade_ticks() == [-1, 0, 1, 2, 3]
    assert [power_of_ten(e) for e in (-4, -1, 0, 1, 2)] == ["10\u207b\u2074", "10\u207b\u00b9", "1", "10", "10\u00b2"]


def test_the_error_scale_shows_every_method_and_naives_blow_up() -> None:
    """FP32's tiny errors sit on the log part; after the stall naive is far above every other method."""
    for fmt, kind in (("fp16", "uniform"), ("bf16", "uniform"), ("bf16", "ones"), ("fp16", "ones")):
        r = race(fmt, kind)
        shown = shown_errors(r)
        lo, hi = error_domain(shown)
        wide = shown["wide"][shown["wide"] > 0]
        assert not wide.size or np.median(wide) >= lo
        assert max(float(np.nanmax(v)) for v in shown.values()) <= hi
        stall = r.stalls["naive"]
        assert stall is not None
        after = r.steps >= stall + r.n // 64
        others = max(float(shown[m][after].max()) for m in ("wide", "kahan", "pairwise"))
        assert float(shown["naive"][after].min()) > 20 * max(others, 1.0), (fmt, kind)
    # The ± normal race: naive ends several times as far off as pairwise, in FP16.
    ends = final_errors(race("fp16", "normal"))
    assert ends["naive"] > 5 * ends["pairwise"] > 5 * ends["kahan"] > 0 and ends["wide"] < 1e-3


@pytest.mark.parametrize("standalone", [True, False])
def test_errors_plot_is_labelled_and_explained(standalone: bool) -> None:
    root = parse(svg("fp16", "uniform", standalone))
    drawn = texts(root)
    for label in ("error |total \u2212 exact|, in ulps (log scale)", "10\u00b2", "10\u207b\u2074"):
        assert label in drawn, label
    keys = [" ".join(t.itertext()) for t in root.iter(f"{{{SVG_NS}}}text") if "1 ulp" in "".join(t.itertext())]
    assert keys == ["Each point: the largest error in the last 128 inputs. 1 ulp: the FP16 spacing at the largest "
                    "|exact total| so far."] * (1 if standalone else 2)
    zeros = [t for t in root.iter(f"{{{SVG_NS}}}text") if t.get("class") == "muted" and "".join(t.itertext()) == "0"]
    assert len(zeros) == (1 if standalone else 2) * 3  # the totals', the errors' and the inputs' 0, in each layout
    desc = root.find("svg:desc", NS)
    assert desc is not None and "logarithmic scale whose bottom line, 0, is the exact sum's own" in (desc.text or "")


@pytest.mark.parametrize("standalone", [True, False])
def test_the_stall_is_marked_through_both_plots_when_the_reveal_gets_there(standalone: bool) -> None:
    r = race("bf16", "uniform")
    stall = r.stalls["naive"]
    assert stall is not None
    root = parse(svg("bf16", "uniform", standalone))
    prefix = fid("bf16", "uniform")
    guide = group(root, f"{prefix}-stall")
    x = layout(r, prefix).x(stall)
    assert guide.get("d") == (f"M{x:.1f} {PLOT.top:g}V{PLOT.bottom:g}M{x:.1f} {ERRORS.top:g}V{ERRORS.bottom:g}"
                              .replace(".0 ", " "))
    assert STALL_DASH in guide.get("style", "")
    label = f"after {stall:,} inputs"
    fading = [g for g in root.iter(f"{{{SVG_NS}}}g") if g.get("class") == "anim" and label in "".join(g.itertext())]
    begins = [seconds(a.get("begin", "")) for g in fading for a in g if a.tag == f"{{{SVG_NS}}}animate"]
    assert begins == [pytest.approx(DURATION_S * stall / r.n, abs=0.01)] * (1 if standalone else 2)
    still = [g for g in root.iter(f"{{{SVG_NS}}}g") if g.get("class") == "still"]
    assert len(still) == (1 if standalone else 2) and all(label in "".join(g.itertext()) for g in still)
    assert f"{prefix}-stall" not in svg("bf16", "normal", standalone).replace("bf16-normal", "bf16-uniform")


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize(("value", "text"), [
    (4078.0, "4,078"),
    (4078.14208984375, "4,078.142"),
    (2048.0, "2,048"),
    (-110.625, "\u2212110.625"),
    (14.9765625, "14.977"),
    (-0.0, "0"),
    (0.0004, "0"),
    (math.nan, "NaN"),
    (-math.inf, "\u2212\u221e"),
])
def test_totals_are_written_as_the_site_writes_numbers(value: float, text: str) -> None:
    assert number(value) == text


def test_nice_ticks() -> None:
    assert ticks(0, 8192) == [0, 2000, 4000, 6000, 8000]
    assert ticks(0, 4282) == [0, 1000, 2000, 3000, 4000]
    assert ticks(-117.1, 24.8) == [-100, -75, -50, -25, 0]
    assert ticks(0, 1.4) == [0, 0.25, 0.5, 0.75, 1, 1.25]
    assert [tick_decimals(ticks(0, hi)) for hi in (8192, 1.4, 1.1)] == [0, 2, 1]
    assert number(-75.0, decimals=tick_decimals([-100, -75])) == "\u221275"
    assert number(2000.0, decimals=tick_decimals([0, 2000])) == "2,000"
    assert number(0.25, decimals=tick_decimals([0, 0.25])) == "0.25"


def test_lines_break_where_a_total_is_not_finite_and_lose_only_tiny_wiggles() -> None:
    xs = np.arange(8.0)
    runs = polylines(xs, np.array([0, 1, math.nan, 3, 4, math.inf, 6, 7.0]))
    assert runs == [[(0, 0), (10, 10)], [(30, 30), (40, 40)], [(60, 60), (70, 70)]]  # tenths of a unit
    assert path_data(runs) == "M0 0l1 1M3 3l1 1M6 6l1 1"
    wiggle = np.array([0.0, 0.05, 0.0, -0.05, 0.0, 5.0, 0.0])  # a 0.05 wiggle goes, a 5-unit spike stays
    kept = polylines(np.arange(7.0), wiggle)
    assert len(kept) == 1 and (50, 50) in kept[0] and all(abs(y) < 1 for x, y in kept[0] if x != 50)


# ---------------------------------------------------------------- colours, the page's CSS and JS


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=["light", "dark"])
def test_colours_meet_wcag_aa(palette: Palette) -> None:
    colours = css_properties(palette)
    bg = colours["bg"]
    for name in ("text", "muted"):
        assert contrast(colours[name], bg) >= 4.5, name
    for name in [*SERIES, "axis"]:
        assert contrast(colours[name], bg) >= 3.0, name


@pytest.mark.parametrize("standalone", [True, False])
def test_every_line_takes_its_look_from_the_table(standalone: bool) -> None:
    """Colour, width and dashes of each series' line, its marker shape, and (standalone) its dark colour."""
    root = parse(svg("fp16", "uniform", standalone))
    prefix = fid("fp16", "uniform")
    lines = next(g for g in root.iter(f"{{{SVG_NS}}}g") if g.get("id") == f"{prefix}-lines")
    styles = [path.get("style", "") for path in lines.iter(f"{{{SVG_NS}}}path")]
    shapes = {e.get("id"): e for e in root.iter() if e.get("id", "").startswith(f"{prefix}-mk-")}
    for s in SERIES:
        look = LOOKS[s]
        assert (f"fill:none;stroke:var(--look-{s},{look.light});stroke-width:{look.width:g};"
                f"stroke-dasharray:{look.dasharray()}") in styles, s
        if look.marker:
            shape = shapes[f"{prefix}-mk-{look.marker}"]
            corners = MARKERS[look.marker].points
            assert shape.tag == f"{{{SVG_NS}}}{'path' if corners else 'circle'}", s
            if corners:
                assert shape.get("d", "").count("L") == len(corners) - 1, s
    sheet = style_text(root)
    assert "--race-" not in sheet
    if standalone:
        dark = sheet.split("@media (prefers-color-scheme:dark)", 1)[1]
        for name in (*SERIES, "text", "muted", "axis", "grid", "bg"):
            assert f"--look-{name}:{css_properties(DARK)[name]}" in dark, name


def test_race_css_leaves_the_colours_to_the_looks() -> None:
    css = CSS_FILE.read_text()
    assert "--race-" not in css
    assert not re.search(r"--look-[a-z]+\s*:", css), "race.css declares a look colour; looks.css does"


def test_race_css_keeps_hidden_buttons_hidden_and_is_a_container() -> None:
    css = CSS_FILE.read_text()
    assert re.search(r"\.race__button\[hidden\]\s*\{\s*display:\s*none", css)
    assert re.search(r"\.race\s*\{[^}]*container:\s*race\s*/\s*inline-size", css)
    assert ":focus-visible" in css


def test_html_fragment_contract() -> None:
    html = race_figure_html(race("fp16", "uniform"), "fp16-uniform")
    assert html.startswith('<div class="race" id="fp16-uniform" data-race-duration="10">')
    assert "\n\n" not in html  # one raw HTML block for Markdown
    buttons = re.findall(r"<button [^>]*>[^<]*</button>", html)
    assert len(buttons) == 2
    for button, action, label in zip(buttons, ("pause", "restart"), ("Pause", "Restart")):
        assert 'type="button"' in button and " hidden" in button
        assert f'data-race-action="{action}"' in button and button.endswith(f">{label}</button>")
    assert html.count('id="fp16-uniform-svg"') == 1
    shell, rest = html.split("</svg>", 1)
    assert "<title" in shell and "<desc" in shell and "<style>" in shell and "<use" not in shell
    assert re.search(r'<template class="race__drawing"><svg [^>]*>.*<use .*</svg></template>', rest, re.S)
    assert "<noscript>" not in html  # no fallback unless one is given
    with_fallback = race_figure_html(race("fp16", "uniform"), "fp16-uniform", "figures/x.svg")
    assert re.search(r'<noscript><img class="race__fallback" src="figures/x.svg" alt="FP16, [^"]+"></noscript>',
                     with_fallback)


def test_the_page_fragment_draws_the_inline_svg() -> None:
    """Shell plus template drawing, put together as race.js does, is the inline SVG the other tests check."""
    r = race("bf16", "normal")
    html = race_figure_html(r, "x")
    shell = re.search(r"<svg .*?</svg>", html, re.S)
    drawing = re.search(r'<template class="race__drawing"><svg [^>]*>\n(.*)\n</svg></template>', html, re.S)
    assert shell and drawing
    assert shell[0].replace("</svg>", drawing[1] + "\n</svg>") == race_svg(r, "x", standalone=False).rstrip("\n")


def test_race_js_wires_what_the_html_promises() -> None:
    js = JS_FILE.read_text()
    # Set up on every page: each one instant navigation brings in (document$), or the one page parsed.
    assert "onEveryPage(setUpPage)" in js
    assert all(needed in js for needed in ("document$.subscribe(run)", "DOMContentLoaded"))
    for needed in ("pauseAnimations", "unpauseAnimations", "setCurrentTime",
                   ".tabbed-set", 'data-race-action', '"pause"', '"restart"', "data-race-duration",
                   "data-race-clock", "data-race-frames", "prefers-reduced-motion"):
        assert needed in js, needed
    node = shutil.which("node")
    if node:
        subprocess.run([node, "--check", str(JS_FILE)], check=True)


# ---------------------------------------------------------------- in a browser
# Each test opens its pages in contexts from pytest-playwright's ``new_context``
# (Debian's chromium, see conftest.py), closed when the test ends.

"""The errors' lines in a layout of the race ``#one``: their size on screen and their group's clip."""


