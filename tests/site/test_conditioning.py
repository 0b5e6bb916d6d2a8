"""The conditioning page's sentences that state a behaviour, each checked on the model's output.

The sums are the record's own (``figures.conditioning_sums.ConditioningParams``:
FP64 and FP16 drawn, BF16 computed for the prose); the expected behaviour is
the sentence's, never a number copied from the program.  The bounds are
theorems, so they are held on every sum, not on medians.
"""

from __future__ import annotations

import io
import json
import math
import re
import shlex
import sys
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest

from figures import conditioning_numbers, conditioning_plot, conditioning_sums
from figures.contract import FigureFiles
from figures.looks import LOOKS, PALETTES
from figures.mpl_collisions import text_collisions
from figures.mpl_files import SVG_RC
from figures.mpl_style import style_axes
from figures.text import number, scientific, superscript
from fpsum.array_rounding import to_format
from fpsum.cli import main
from fpsum.conditioned import condition_number, conditioned_sums, kappa_limit, log_targets
from fpsum.exact_rounding import round_exact
from fpsum.formats import FP16, FP32, FP64
from fpsum.methods import total
from fpsum.names import METHOD_LABELS

PARAMS = conditioning_sums.ConditioningParams()
K = PARAMS.folds
ORDER = {"naive": 1, "pairwise": 1, "kahan": 1, "neumaier": 2, "sumtwo": 2, "sumk": K}
"""The power of 1/u near which each method's median error reaches 100 %."""
FACTOR = 30
"""How far past u^-k "near" may be: the medians reach 100 % between u^-k and 30 u^-k."""


@pytest.fixture(scope="module")
def panels() -> dict[str, conditioning_sums.Panel]:
    return conditioning_sums.compute(PARAMS)


def names() -> tuple[str, ...]:
    return PARAMS.formats + PARAMS.extra


# ---------------------------------------------------------------- the bounds: kappa times a constant


@pytest.mark.parametrize("name", names())
def test_every_sum_obeys_its_methods_bound(name: str, panels: dict[str, conditioning_sums.Panel]) -> None:
    """|ŝ − s| / |s| ≤ κ × constant (u for the correctly rounded sum), on every sum: theorems, so no exception."""
    panel = panels[name]
    bound = conditioning_sums.bounds(panel.fmt, PARAMS.n, K, panel.kappa)
    for method in ("naive", "pairwise", "sumtwo", "sumk", "correct"):
        assert (panel.errors[method] <= bound[method]).all(), method
    assert (panel.errors["neumaier"] <= bound["sumtwo"]).all(), "Neumaier gives Sum2's bits, so Sum2's bound"


def test_the_bounds_are_the_published_constants() -> None:
    fmt, n = FP16, PARAMS.n
    u, kappa = fmt.unit_roundoff, np.array([1.0, 1e3])
    g = (n - 1) * u / (1 - (n - 1) * u)
    bound = conditioning_sums.bounds(fmt, n, K, kappa)
    assert np.allclose(bound["naive"], g * kappa)
    assert np.allclose(bound["pairwise"], 5 * u / (1 - 5 * u) * kappa)  # ceil(log2 32) = 5
    assert np.allclose(bound["sumtwo"], u + g**2 * kappa)
    g2 = (2 * n - 2) * u / (1 - (2 * n - 2) * u)
    assert np.allclose(bound["sumk"], u + 3 * g**2 + g2**K * kappa)
    assert np.allclose(bound["correct"], u)


@pytest.mark.parametrize("name", names())
def test_random_rounding_errors_keep_the_naive_sum_below_root_n_u_kappa(
        name: str, panels: dict[str, conditioning_sums.Panel]) -> None:
    """"Every naive error in the figure stays below √n·u·κ", far below the worst case (n − 1)·u·κ."""
    panel = panels[name]
    u = panel.fmt.unit_roundoff
    assert (panel.errors["naive"] <= math.sqrt(PARAMS.n) * u * panel.kappa).all()
    assert np.median(panel.errors["naive"] / ((PARAMS.n - 1) * u * panel.kappa)) < 0.1


# ---------------------------------------------------------------- where each method stops helping


@pytest.mark.parametrize("name", names())
@pytest.mark.parametrize("method", ["naive", "pairwise", "kahan", "neumaier", "sumtwo"])
def test_each_method_loses_every_digit_a_little_beyond_its_power_of_one_over_u(
        name: str, method: str, panels: dict[str, conditioning_sums.Panel]) -> None:
    """Naive, pairwise and Kahan near 1/u; Neumaier and Sum2 near u^-2 (between u^-k and 30 u^-k)."""
    panel = panels[name]
    lost = conditioning_sums.lost_at(panel, method)
    assert lost is not None
    scale = panel.fmt.unit_roundoff ** -ORDER[method]
    assert scale <= lost <= FACTOR * scale, (lost, scale)


@pytest.mark.parametrize("name", ["fp64", "bf16", "fp16"])
def test_sumk_loses_every_digit_near_u_to_the_minus_k(name: str, panels: dict[str, conditioning_sums.Panel]) -> None:
    panel = panels[name]
    lost = conditioning_sums.lost_at(panel, "sumk")
    scale = panel.fmt.unit_roundoff ** -K
    assert lost is not None and scale <= lost <= FACTOR * scale


def test_fp16_sums_reach_past_u_cubed_and_stay_under_their_ceiling(panels: dict[str, conditioning_sums.Panel]) -> None:
    """"they reach X, well past u⁻³": the figure's FP16 sums, with magnitudes below 2¹⁵, kappa below 2¹⁵/2⁻²⁴.

    The old page said FP16 could not hold kappa beyond u⁻³ and SumK never lost its digits there.
    """
    fp16 = FP16
    panel = panels["fp16"]
    assert panel.kappa.max() > 10 * fp16.unit_roundoff ** -3
    sums = conditioned_sums(np.repeat(log_targets(1.0, kappa_limit(fp16, PARAMS.n),
                                                              PARAMS.per_decade), PARAMS.trials),
                                  PARAMS.n, fp16, PARAMS.seed)  # the figure's own sums, as compute_panel draws them
    assert (sums.absolute < 2.0**fp16.emax).all()
    assert np.nanmax(np.where(np.isfinite(sums.kappa), sums.kappa, np.nan)) == panel.kappa.max()
    assert panel.kappa.max() < 2.0 ** fp16.emax / fp16.smallest_subnormal
    numbers = conditioning_numbers.headline({"fp16": panel}, PARAMS)
    fp16_numbers = numbers["fp16"]
    assert isinstance(fp16_numbers, dict) and isinstance(fp16_numbers["sumk"], dict)
    assert fp16_numbers["sumk"]["lost"] != "never"


def test_the_span_of_an_fp16_sum_against_the_bits_of_the_folds() -> None:
    """"40 bits between 2⁻²⁴ and 2¹⁶"; three folds leave an error above the quantum, four below half of it."""
    fp16 = FP16
    span = conditioning_numbers.span_numbers(fp16, PARAMS.n, K)
    quantum = Fraction(fp16.smallest_subnormal)
    top = Fraction(2) ** math.ceil(math.log2(fp16.max_finite))  # just above the largest value, 65504
    assert top == 2**16 and quantum == Fraction(1, 2**24)
    bits = int(math.log2(top / quantum))
    assert span["span"] == str(bits) and span["span_power"] == "2" + superscript(bits)
    assert span["top"] == "2¹⁶" and span["held"] == "2¹⁵" and span["half_quantum"] == "2⁻²⁵"
    assert span["ceiling"] == scientific(float(Fraction(2**15) / quantum))
    assert span["overflowing"] == scientific(float(PARAMS.n * Fraction(fp16.max_finite) / quantum), 2)
    with np.errstate(over="ignore"):  # "adding two of the same sign first would overflow"
        assert np.isinf(np.float16(fp16.max_finite) + np.float16(fp16.max_finite - 32))
    p = round(-math.log2(fp16.unit_roundoff))
    assert (span["bits"], span["carried"], span["carried_next"]) == (str(p), str(K * p), str((K + 1) * p))
    assert K * p < bits < (K + 1) * p  # the span falls between three folds and four
    u = Fraction(fp16.unit_roundoff)
    assert u**K * 2**15 > quantum and u ** (K + 1) * 2**15 < quantum / 2
    assert span["error"] == "2" + superscript(15 - K * p)
    assert span["error_next"] == "2" + superscript(15 - (K + 1) * p)
    needs = Fraction(2) ** (K * p) * 2 * quantum  # magnitudes over a sum of two quanta: more than K p bits
    assert span["needs"] == "2" + superscript(round(math.log2(needs)))
    sums = conditioning_sums.search(PARAMS)
    assert (sums.exact != 0).all() and (np.abs(sums.exact) <= 2 * float(quantum)).mean() > 0.9
    assert (condition_number(sums.values)[1] > needs).all()  # the search's sums are such sums


@pytest.fixture(scope="module")
def found() -> conditioning_sums.Search:
    return conditioning_sums.search(PARAMS)


def exact_relative(row: list[float], result: float) -> Fraction:
    """|result − s| / |s| with s the exact rational sum of the row (an oracle apart from the model)."""
    s = sum(map(Fraction, row), Fraction(0))
    return abs(Fraction(result) - s) / abs(s)


def test_the_counterexample_loses_every_digit_with_three_folds_and_is_exact_with_four(
        found: conditioning_sums.Search, monkeypatch: pytest.MonkeyPatch) -> None:
    assert found.example is not None
    row = found.values[found.example]
    wide = row.astype(np.float64).tolist()
    fp16 = FP16
    three = float(total("sumk", row, fp16, folds=K))
    four = float(total("sumk", row, fp16, folds=K + 1))
    assert exact_relative(wide, three) == 1 and three == 0
    assert exact_relative(wide, four) == 0
    assert float(total("correct", row, fp16)) == four
    a = sum((abs(Fraction(v)) for v in wide), Fraction(0))
    s = sum(map(Fraction, wide), Fraction(0))
    assert Fraction(10) ** 11 <= a / abs(s) <= Fraction(10) ** 12
    numbers = conditioning_numbers.search_numbers(found, PARAMS)
    example = numbers["example"]
    assert isinstance(example, dict)
    assert example["result"] == "0" and example["error"] == "1"
    assert example["exact"] == example["next_result"] == conditioning_numbers.quanta(float(s), -24)
    assert example["zeros"] == str(wide.count(0.0))
    # the command block: the shell joins the continued lines, printf writes each value on a line
    command = example["command"]
    assert isinstance(command, str)
    assert all(len(line) <= 60 for line in command.splitlines())
    printer, fpsum_part = command.replace("\\\n", "").split("|")
    words = shlex.split(printer)
    assert words[:2] == ["printf", "%s\\n"]
    assert [float(w) for w in words[2:]] == wide
    for folds, want in ((K, three), (K + 1, four)):
        argv = shlex.split(fpsum_part)[1:] + ["--json"]
        argv[argv.index("--folds") + 1] = str(folds)
        monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(words[2:]) + "\n"))
        out = io.StringIO()
        assert main(argv, out) == 0
        assert json.loads(out.getvalue())["result"] == want


def test_the_search_numbers_are_what_the_sums_give(found: conditioning_sums.Search) -> None:
    """"K = 3 lost every digit in X % of them, returned 0 in Y %; K = 4 was exact in Z": against exact rationals."""
    numbers = conditioning_numbers.search_numbers(found, PARAMS)
    fp16 = FP16
    rows = found.values.astype(np.float64).tolist()
    assert numbers["sums"] == number(len(rows)) and len(rows) >= 100
    low, high = PARAMS.search_band
    lost = zero = exact_next = 0
    for row, values in zip(rows, found.values):
        s = sum(map(Fraction, row), Fraction(0))
        a = sum((abs(Fraction(v)) for v in row), Fraction(0))
        assert low <= a / abs(s) <= high
        three = float(total("sumk", values, fp16, folds=K))
        four = float(total("sumk", values, fp16, folds=K + 1))
        lost += exact_relative(row, three) >= 1
        zero += three == 0
        exact_next += Fraction(four) == s
    assert numbers["lost"] == number(100 * lost / len(rows), 0) + " %"
    assert numbers["zero"] == number(100 * zero / len(rows), 0) + " %"
    assert numbers["next_exact"] == number(exact_next)
    assert lost / len(rows) > 0.5  # "most"
    again = conditioning_sums.search(PARAMS)  # seeded: the same sums every build
    assert np.array_equal(again.values.view(np.uint16), found.values.view(np.uint16))


def test_quanta_in_prose() -> None:
    assert [conditioning_numbers.quanta(v * 2.0**-24, -24) for v in (0, -1, 2, 3, -12)] == [
        "0", "−2⁻²⁴", "2⁻²³", "3 × 2⁻²⁴", "−12 × 2⁻²⁴"]
    with pytest.raises(ValueError):
        conditioning_numbers.quanta(2.0**-25, -24)


def test_the_page_no_longer_says_sumk_never_fails_in_fp16() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "conditioning.md").read_text(encoding="utf-8")
    assert "never loses its digits" not in page
    assert "exponent range runs out first" not in page


@pytest.mark.parametrize("name", names())
def test_below_their_limits_the_accurate_methods_stay_at_u(
        name: str, panels: dict[str, conditioning_sums.Panel]) -> None:
    """Sum2 and Neumaier at the level of u up to κ ≈ 1/u, SumK up to u^-(K-1); the correctly rounded sum always."""
    panel = panels[name]
    u = panel.fmt.unit_roundoff
    for method, reach in (("sumtwo", 1), ("neumaier", 1), ("sumk", K - 1)):
        inside = panel.centres < u**-reach / 10
        assert inside.any() and (panel.medians[method][inside] <= u).all(), method
    assert (panel.errors["correct"] < u).all()
    assert conditioning_sums.lost_at(panel, "correct") is None


@pytest.mark.parametrize("name", names())
def test_kahan_is_about_twice_as_accurate_as_naive_no_more(
        name: str, panels: dict[str, conditioning_sums.Panel]) -> None:
    """Mixed signs: Kahan's error grows like κ·u, as the naive sum's does, a small factor lower."""
    panel = panels[name]
    u = panel.fmt.unit_roundoff
    gain = conditioning_numbers.median_ratio(panel, 1 / u)
    assert 1 < gain < 5
    inside = panel.centres < 1 / u
    assert inside.sum() >= 3
    slope = np.polyfit(np.log10(panel.centres[inside]), np.log10(panel.medians["kahan"][inside]), 1)[0]
    assert 0.7 < slope < 1.3  # proportional to κ (BF16 has only three bins below 1/u)


@pytest.mark.parametrize("name", names())
def test_neumaier_and_sum2_give_the_same_bits_on_every_sum(
        name: str, panels: dict[str, conditioning_sums.Panel]) -> None:
    assert panels[name].same == 0
    assert np.array_equal(panels[name].errors["neumaier"], panels[name].errors["sumtwo"])


def test_tiny_fp16_sums_are_exact(panels: dict[str, conditioning_sums.Panel]) -> None:
    """"Every multiple of 2⁻²⁴ below 2⁻¹³ is a value of FP16": such sums come out exact, SumK's until it fails."""
    fp16 = FP16
    numbers = conditioning_numbers.headline({"fp16": panels["fp16"]}, PARAMS)["fp16"]
    assert isinstance(numbers, dict) and (numbers["quantum"], numbers["exact_below"]) == ("2⁻²⁴", "2⁻¹³")
    sums = conditioned_sums(np.repeat(log_targets(1.0, kappa_limit(fp16, PARAMS.n), 2), 8),
                                  PARAMS.n, fp16, seed=9)
    tiny = np.abs(sums.exact) < 2.0 ** (fp16.emin + 1)
    assert tiny.any()
    assert np.array_equal(total("correct", sums.values[tiny], fp16).astype(np.float64), sums.exact[tiny])
    first = conditioning_sums.exact_from(panels["fp16"])
    assert first is not None
    later = panels["fp16"].centres >= first
    assert (panels["fp16"].medians["correct"][later] == 0).all()
    assert np.median(np.abs(sums.exact[sums.kappa >= first])) < 2.0 ** (fp16.emin + 1)  # "mostly that small"
    # "So is SumK's median sum, until κ ≈ (lost), where its median error jumps from 0 to 1."
    lost = conditioning_sums.lost_at(panels["fp16"], "sumk")
    assert lost is not None and lost > first
    medians = panels["fp16"].medians["sumk"]
    between = later & (panels["fp16"].centres < lost)
    assert between.sum() >= 3 and (medians[between] == 0).all()
    assert (medians[panels["fp16"].centres >= lost] >= 1).all()


def test_rounding_twice_lands_on_a_tie() -> None:
    """The page's FP32 example: fsum's float64 result is an FP32 tie, and the tie goes the other way."""
    numbers = conditioning_numbers.twice_numbers()
    exact = sum(map(Fraction, conditioning_numbers.TWICE), Fraction(0))
    via = math.fsum(conditioning_numbers.TWICE)
    assert Fraction(via) != exact and via == 2.0**24 + 1  # a float64 value halfway between FP32's 2^24 and 2^24 + 2
    assert float(to_format(np.array(via), FP32)) == 2.0**24
    assert round_exact(exact, FP32) == 2.0**24 + 2
    assert (numbers["twice"], numbers["once"]) == ("16,777,216", "16,777,218")


def test_the_rounding_twice_command(monkeypatch: pytest.MonkeyPatch) -> None:
    command = conditioning_numbers.twice_numbers()["command"]
    assert isinstance(command, str)
    printed = shlex.split(command)[1].replace("\\n", "\n").split()
    assert [float(v) for v in printed] == list(conditioning_numbers.TWICE)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(printed)))
    out = io.StringIO()
    assert main(shlex.split(command[command.index("fpsum"):])[1:] + ["--json"], out) == 0
    assert json.loads(out.getvalue())["result"] == 2.0**24 + 2


# ---------------------------------------------------------------- the example and its commands


@pytest.mark.parametrize(("method", "want"), [("naive", 0.0), ("kahan", 0.0), ("neumaier", 2.0), ("sumtwo", 2.0),
                                               ("sumk", 2.0), ("correct", 2.0)])
def test_the_four_term_example_and_its_command(method: str, want: float, monkeypatch: pytest.MonkeyPatch) -> None:
    command = conditioning_numbers.example_numbers()["command"]
    assert isinstance(command, str)
    stdin = "\n".join(repr(v) for v in conditioning_numbers.EXAMPLE) + "\n"
    argv = shlex.split(command[command.index("fpsum"):])[1:] + ["--json"]
    argv[argv.index("--method") + 1] = method
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    out = io.StringIO()
    assert main(argv, out) == 0
    assert json.loads(out.getvalue())["result"] == want
    assert float(total(method, np.array(conditioning_numbers.EXAMPLE), FP64)) == want
    _, _, kappa = condition_number(np.array([conditioning_numbers.EXAMPLE]))
    assert kappa[0] == pytest.approx(1e100)


def test_the_example_command_reads_what_printf_writes() -> None:
    command = conditioning_numbers.example_numbers()["command"]
    assert isinstance(command, str)
    printed = shlex.split(command)[1].replace("\\n", "\n").split()
    assert [float(v) for v in printed] == list(conditioning_numbers.EXAMPLE)
    words = conditioning_numbers.example_numbers()["sum"]
    assert isinstance(words, str)
    assert [float(w.replace("10¹⁰⁰", "1e100")) for w in words.replace(" − ", " + -").split(" + ")] == list(
        conditioning_numbers.EXAMPLE)


# ---------------------------------------------------------------- the figure


def test_the_figure_is_legible_in_both_palettes_and_every_layout(panels: dict[str, conditioning_sums.Panel]) -> None:
    for palette in PALETTES:
        for layout in conditioning_plot.SIZES.layouts():
            with plt.rc_context(SVG_RC | {"font.size": layout.font_pt}):  # as render draws it
                fig = conditioning_plot.draw(panels, PARAMS, palette, layout)
                style_axes(fig, palette)
                try:
                    assert text_collisions(fig) == [], (palette.name, layout.name)
                finally:
                    plt.close(fig)


def test_scientific_numbers() -> None:
    assert scientific(8.1e31) == "8 × 10³¹"
    assert scientific(1e100) == "10¹⁰⁰"
    assert scientific(2047.9) == "2 × 10³"
    assert scientific(9.6e15) == "10¹⁶"
    assert scientific(3e-4) == "3 × 10⁻⁴"


def test_the_built_figure_draws_every_method_in_its_look(site_dir: Path) -> None:
    files = FigureFiles.of("conditioning")
    for svg in (files.svg, files.dark_svg):
        ids = {g.get("id", "") for g in ET.parse(site_dir / svg).getroot().iter("{http://www.w3.org/2000/svg}g")}
        for method in conditioning_sums.METHODS:
            assert any(i.startswith(f"look-{method}-") for i in ids), (svg, method)
    assert (site_dir / files.csv).read_text().splitlines()[0].split(",") == [
        "format", "method", "n", "kappa_median", "sums", "median_relative_error", "bound"]
    for method in ("sumtwo", "sumk", "correct"):
        assert LOOKS[method].label == METHOD_LABELS[method]


def test_the_page_shows_the_figure_and_the_loops(site_dir: Path) -> None:
    html = (site_dir / "conditioning.html").read_text(encoding="utf-8")
    assert 'id="fig-conditioning"' in html
    text = re.sub(r"<[^>]+>", "", html)
    for words in ("def two_sum(", "def vec_sum(", "def sum_k(", "def correctly_rounded(", "def conditioned_sums("):
        assert words in text, words
