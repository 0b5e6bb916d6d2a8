"""The normalisation page's sentences that state a behaviour, each checked on the model's output.

The parameters are the records' own (``figures.normalisation_cases``,
``figures.variance_kappa``, ``figures.softmax_error``, ``figures.rms_overflow``);
the expected behaviour is the sentence's, worked out by another route where
there is one (a scalar loop of numpy's float16, exact fractions, the ``fpsum``
command the page shows), never a number copied from the build.  The numbers
of sonos/tract PR #2586's table are the PR's, cited on the page.
"""

from __future__ import annotations

import math
import re
import shlex
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from figures import normalisation_cases, rms_overflow, softmax_error, variance_kappa
from fpsum.array_rounding import to_format
from fpsum.exact_rounding import round_exact
from fpsum.formats import BF16, E4M3, E5M2, FP16, FP32, Format, get_format
from fpsum.moments import MOMENT_METHODS, exact_moments, mean_variance
from fpsum.rms import rms, rms_statistics
from fpsum.softmax import denominator, softmax_terms
from look_checks import assert_looks_of_their_own
from page_commands import run_command

CASES = normalisation_cases.NormalisationCasesParams()
KAPPA = variance_kappa.VarianceKappaParams()
SOFTMAX = softmax_error.SoftmaxErrorParams()
RMS = rms_overflow.RmsOverflowParams()
TRACT = {0.5: {1024: 0.2, 2048: 2.1, 4096: 15.4, 8192: 38.2},
         1.0: {1024: 1.2, 2048: 3.8, 4096: 10.1, 8192: 28.3},
         2.0: {1024: 2.0, 2048: 4.6, 4096: 9.0, 8192: 14.2}}
"""sonos/tract PR #2586's table: the FP16 accumulator's error against FP32, in per cent, by spread and length."""


def fp16_running(values: list[float]) -> float:
    """A naive sum by numpy's float16 addition, one step at a time (each correctly rounded)."""
    total = np.float16(0)
    for v in values:
        total = np.float16(total + np.float16(v))
    return float(total)


# ---------------------------------------------------------------- LayerNorm of four numbers near 2,000


@pytest.fixture(scope="module")
def layernorm_rows() -> np.ndarray:
    return normalisation_cases.layernorm_rows(CASES)


def test_the_textbook_variance_of_rows_near_2000_goes_negative_and_far_too_high(layernorm_rows: np.ndarray) -> None:
    """Negative variances and variances several times the true 3/4, on rows whose true variance is near 3/4."""
    _, textbook = mean_variance(layernorm_rows, FP32, "textbook")
    _, welford = mean_variance(layernorm_rows, FP32, "welford")
    assert textbook.min() < 0 and (textbook < 0).sum() > 100
    assert textbook.max() > 5 * 0.75
    assert abs(float(np.mean(welford.astype(np.float64))) - 0.75) < 0.01  # E[population variance of 4] = 3/4


def test_the_textbook_variances_are_quarters_because_fp32_spaces_four_million_a_quarter_apart(
        layernorm_rows: np.ndarray) -> None:
    squares = (layernorm_rows.astype(np.float64) ** 2)
    assert squares.min() > 2**21 and squares.max() < 2**22  # one binade, whose FP32 spacing is 2**(21 - 23)
    _, textbook = mean_variance(layernorm_rows, FP32, "textbook")
    assert np.all(np.mod(textbook.astype(np.float64), 0.25) == 0)


@pytest.mark.parametrize("method", ["two-pass", "welford", "chan"])
def test_the_other_methods_never_go_negative_on_those_rows(method: str, layernorm_rows: np.ndarray) -> None:
    _, variance = mean_variance(layernorm_rows, FP32, method)  # type: ignore[arg-type]
    assert variance.min() >= 0


def test_the_layernorm_command_prints_the_textbook_formula_worked_out_one_rounding_at_a_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    numbers = normalisation_cases.build("normalisation-cases", CASES).numbers["layernorm"]
    assert isinstance(numbers, dict)
    command = str(numbers["command"])
    row = [float(w) for w in shlex.split(command.split(" | ")[0])[1:]]

    def r(v: Fraction) -> Fraction:
        return Fraction(round_exact(v, FP32))

    s1, s2 = Fraction(row[0]), r(Fraction(row[0]) ** 2)
    for x in row[1:]:
        s1, s2 = r(s1 + Fraction(x)), r(s2 + r(Fraction(x) ** 2))
    mean = r(s1 / 4)
    variance = r(r(s2 / 4) - r(mean * mean))
    report = run_command(command, monkeypatch)
    assert report["variance"] == float(variance) < 0
    assert 0 < float(exact_moments(np.array(row))[1]) == report["exact_variance"]


# ---------------------------------------------------------------- the four methods against kappa


@pytest.fixture(scope="module")
def kappa_panels() -> dict[str, variance_kappa.Panel]:
    return {p.fmt.name: p for p in variance_kappa.compute(KAPPA)}


def test_the_measured_fp32_slopes_are_chan_golub_and_leveques_powers(
        kappa_panels: dict[str, variance_kappa.Panel]) -> None:
    panel = kappa_panels["fp32"]
    slopes = {m: variance_kappa.slope(panel, m) for m in MOMENT_METHODS}
    assert 1.8 < slopes["textbook"] < 2.2
    assert 0.85 < slopes["welford"] < 1.15 and 0.85 < slopes["chan"] < 1.15
    assert 1.7 < slopes["two-pass"] < 2.3  # the (κu)² term, once it shows


def test_the_slopes_by_another_route_two_points_a_decade_and_more_apart(
        kappa_panels: dict[str, variance_kappa.Panel]) -> None:
    """The textbook error grows ~κ² between κ = 4 and 256, Welford's ~κ between 1,024 and 2**20."""
    panel = kappa_panels["fp32"]

    def growth(method: str, low: float, high: float) -> float:
        i, j = (int(np.argmin(np.abs(np.log(panel.kappa / k)))) for k in (low, high))
        e = panel.medians[method]
        return math.log(e[j] / e[i]) / math.log(panel.kappa[j] / panel.kappa[i])

    assert 1.7 < growth("textbook", 4, 256) < 2.3
    assert 0.7 < growth("welford", 1024, 2**20) < 1.3
    assert 0.7 < growth("chan", 1024, 2**20) < 1.3


def test_the_record_quotes_the_fitted_slopes(kappa_panels: dict[str, variance_kappa.Panel]) -> None:
    numbers = variance_kappa.numbers(list(kappa_panels.values()), KAPPA)
    for name, panel in kappa_panels.items():
        quoted = numbers[name]
        assert isinstance(quoted, dict)
        for method, key in (("textbook", "textbook"), ("two-pass", "twopass"), ("welford", "welford")):
            entry = quoted[key]
            assert isinstance(entry, dict)
            fitted = variance_kappa.slope(panel, method)
            assert entry["slope"] == ("none" if math.isnan(fitted) else f"{fitted:.2f}")


def test_two_pass_stays_at_the_rounding_of_a_short_sum_until_kappa_passes_10_to_the_4(
        kappa_panels: dict[str, variance_kappa.Panel]) -> None:
    panel = kappa_panels["fp32"]
    u = FP32.unit_roundoff
    flat = panel.kappa < 5e3
    assert np.all(panel.medians["two-pass"][flat] < 8 * u)
    assert np.all(panel.medians["two-pass"][panel.kappa > 5e4] > 8 * u)


@pytest.mark.parametrize("fmt", ["fp32", "bf16"])
def test_the_measured_errors_stay_under_the_pages_first_order_bounds(
        fmt: str, kappa_panels: dict[str, variance_kappa.Panel]) -> None:
    """The Maths section's orders of size, with a constant of 1: nκ²u (textbook), nκu (Welford), κu log2 n
    (Chan's merges), nu + (nκu)² (two-pass), above every median error until the variance is lost.
    """
    panel = kappa_panels[fmt]
    n, u, k = KAPPA.n, panel.fmt.unit_roundoff, panel.kappa
    bounds = {"textbook": n * k**2 * u, "welford": n * k * u, "chan": k * u * math.log2(n),
              "two-pass": n * u + (n * k * u) ** 2}
    for method, bound in bounds.items():
        errors = panel.medians[method]
        kept = errors < 1
        assert kept.any() and np.all(errors[kept] <= bound[kept]), (fmt, method)


def test_the_maths_section_attributes_no_bound_formula_to_a_source() -> None:
    """The published bounds could not be quoted from Chan, Golub and LeVeque or Higham here (issue 41): a sentence
    of the Maths section that writes a bound (nκ²u, nκu, κu log2 n, nu + n²κ²u²) names no source for it.
    """
    page = (Path(__file__).resolve().parents[2] / "docs" / "normalisation.md").read_text(encoding="utf-8")
    maths = page[page.index("{#maths}"):page.index("{#code}")]
    sentences = re.split(r"(?<=[.:;])\s+", maths)
    formulas = ("n\\kappa^2 u", "n\\kappa u", "\\kappa u \\log_2 n", "nu + n^2\\kappa^2u^2")
    for sentence in sentences:
        if any(f in sentence for f in formulas):
            assert not re.search(r"Golub|LeVeque|Higham|published", sentence), sentence


@pytest.mark.parametrize("fmt, where", [("fp32", 2**12), ("bf16", 2**4)])
def test_the_textbook_variance_is_lost_first_near_u_to_the_minus_half(
        fmt: str, where: int, kappa_panels: dict[str, variance_kappa.Panel]) -> None:
    panel = kappa_panels[fmt]
    first = {m: int(np.argmax(panel.medians[m] >= 1)) if (panel.medians[m] >= 1).any() else len(panel.kappa)
             for m in MOMENT_METHODS}
    assert all(first["textbook"] < first[m] for m in MOMENT_METHODS if m != "textbook")
    assert where / 2 <= panel.kappa[first["textbook"]] <= 2 * where


def test_bf16_rows_at_the_largest_kappa_are_quantised_to_about_a_standard_deviation(
        kappa_panels: dict[str, variance_kappa.Panel]) -> None:
    offset = 2.0 ** KAPPA.max_exponents[KAPPA.formats.index("bf16")]
    spacing = float(BF16.ulps(np.array([offset - 1.0]))[0])  # the spacing just below the largest offset
    assert 0.5 <= spacing <= 2 and 0.5 * offset <= kappa_panels["bf16"].kappa[-1] <= 2 * offset


@pytest.mark.parametrize("fmt", [FP16, BF16, FP32, E4M3, E5M2])
def test_no_method_but_the_textbook_one_returns_a_negative_variance(fmt: Format) -> None:
    """Random rows at several offsets, every operation in the format."""
    rng = np.random.default_rng(5)
    for offset in (0.0, 3.0, 30.0, 300.0):
        rows = to_format(offset + rng.standard_normal((200, 37)), fmt).astype(fmt.dtype)
        for method in ("two-pass", "welford", "chan"):
            _, variance = mean_variance(rows, fmt, method)  # type: ignore[arg-type]
            finite = np.isfinite(variance.astype(np.float64))
            assert np.all(variance.astype(np.float64)[finite] >= 0), (fmt.name, offset, method)


@pytest.mark.parametrize("fmt", [FP16, BF16, FP32, E4M3])
def test_welford_and_chan_give_exactly_zero_on_constant_rows(fmt: Format) -> None:
    values = to_format(np.random.default_rng(2).uniform(-100, 100, 50), fmt)
    rows = np.repeat(values[:, np.newaxis], 300, axis=1).astype(fmt.dtype)
    for method in ("welford", "chan"):
        _, variance = mean_variance(rows, fmt, method)
        assert np.all(variance == 0), (fmt.name, method)


def test_fp16_two_pass_on_ones_takes_the_stalled_mean_and_is_not_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    numbers = normalisation_cases.ones(CASES)
    n = CASES.ones
    mean = fp16_running([1.0] * n) / n  # exact: a power of two over a power of two
    deviation = float(np.float16(1.0) - np.float16(mean))
    expected = fp16_running([deviation * deviation] * n) / n
    report = run_command(numbers["command"], monkeypatch)
    assert report["mean"] == mean < 1 and report["variance"] == expected > 0


def test_the_two_pass_identity_and_the_exact_subtraction_near_the_mean() -> None:
    """mean of (x - m̂)² = σ² + δ² exactly; and fl(x - m̂) = x - m̂ for x within a factor of 2 of m̂ (Sterbenz)."""
    rng = np.random.default_rng(9)
    row = to_format(1e4 + rng.standard_normal(64), FP32)
    mean, variance = exact_moments(row)
    m_hat = Fraction(float(mean_variance(row[np.newaxis].astype(np.float32), FP32, "two-pass")[0][0]))
    delta = m_hat - mean
    assert sum(((Fraction(x) - m_hat) ** 2 for x in row.tolist()), Fraction(0)) / len(row) == variance + delta**2
    differences = row.astype(np.float32) - np.float32(m_hat)
    assert all(Fraction(float(d)) == Fraction(x) - m_hat for d, x in zip(differences.tolist(), row.tolist()))


def test_relative_input_errors_of_u_change_the_variance_by_at_most_about_2_kappa_u() -> None:
    """The worst signs for each input, against the bound 2κu, at several κ."""
    u = 2.0**-24
    rng = np.random.default_rng(4)
    for offset in (0.0, 10.0, 1000.0):
        x = offset + rng.standard_normal(100)
        mean, var = x.mean(), x.var()
        kappa = math.sqrt(1 + mean**2 / var)
        change = 2 * u * float(np.mean(np.abs((x - mean) * x)))  # first order, every sign the worst
        assert change <= 2 * kappa * u * var * (1 + 1e-9)
        assert change >= 0.5 * kappa * u * var  # and not far below: the bound is reached in order of size


# ---------------------------------------------------------------- softmax


def test_fp16_equal_logits_stall_at_2048_and_the_probabilities_add_up_to_2(monkeypatch: pytest.MonkeyPatch) -> None:
    numbers = normalisation_cases.equal_logits(CASES)
    n = CASES.logits
    stalled = fp16_running([1.0] * n)
    report = run_command(numbers["command"], monkeypatch)
    assert report["denominator"] == stalled == FP16.stall_point < n
    assert report["exact_probability_sum"] == n / stalled == 2
    assert report["probability_sum"] == fp16_running([1 / stalled] * n) == 1


def test_pairwise_equal_logits_are_exact_until_the_last_addition_overflows(monkeypatch: pytest.MonkeyPatch) -> None:
    half = CASES.overflow_n // 2
    assert float(denominator(np.zeros((1, half), dtype=np.float16), FP16, "pairwise")[0]) == half
    assert 2 * half > FP16.max_finite
    report = run_command(normalisation_cases.equal_logits(CASES)["overflow_command"], monkeypatch)
    assert report["denominator"] == "inf"


def test_bf16_equal_logits_stall_at_256_exercise(monkeypatch: pytest.MonkeyPatch) -> None:
    answer = normalisation_cases.exercises(CASES)["bf16"]
    report = run_command(answer["command"], monkeypatch)
    assert report["denominator"] == 2.0**BF16.precision
    assert report["exact_probability_sum"] == CASES.logits / 2.0**BF16.precision


def test_fp16_textbook_variance_of_ones_is_a_quarter_exercise(monkeypatch: pytest.MonkeyPatch) -> None:
    answer = normalisation_cases.exercises(CASES)["textbook"]
    n = CASES.ones
    mean = fp16_running([1.0] * n) / n
    report = run_command(answer["command"], monkeypatch)
    assert report["mean"] == mean and report["variance"] == mean - mean * mean == 0.25


def test_softmax_terms_lie_between_0_and_1_and_the_max_gives_exactly_1() -> None:
    for fmt in (FP16, BF16):
        logits = to_format(3 * np.random.default_rng(1).standard_normal((8, 1000)), fmt).astype(fmt.dtype)
        terms = softmax_terms(logits, fmt).astype(np.float64)
        assert np.all((terms >= 0) & (terms <= 1)) and np.all(terms.max(axis=-1) == 1)


@pytest.mark.parametrize("fmt", [FP16, BF16])
def test_from_2_to_the_p_a_term_below_1_is_lost_and_a_term_of_1_ties_back(fmt: Format) -> None:
    s = fmt.dtype.type(2.0**fmt.precision)
    terms = to_format(np.random.default_rng(3).uniform(0, 1, 1000), fmt).astype(fmt.dtype)
    assert np.all(s + terms == s) and s + fmt.dtype.type(1) == s


@pytest.fixture(scope="module")
def softmax_panels() -> dict[tuple[str, str], softmax_error.Panel]:
    return {(p.fmt.name, p.kind): p for p in softmax_error.compute(SOFTMAX)}


@pytest.mark.parametrize("fmt", ["fp16", "bf16"])
def test_naive_and_online_drift_far_while_pairwise_stays_near_u(
        fmt: str, softmax_panels: dict[tuple[str, str], softmax_error.Panel]) -> None:
    panel = softmax_panels[(fmt, "normal")]
    u = get_format(fmt).unit_roundoff
    at = int(np.nonzero(panel.ns == softmax_error.QUOTE_N)[0][0])
    assert panel.medians["naive"][at] > 0.1 and panel.medians["naive"][-1] > 0.5
    assert np.all(panel.medians["pairwise"] <= 2 * u)
    ratio = panel.medians["online"] / panel.medians["naive"]
    assert np.all((ratio > 1 / 1.5) & (ratio < 1.5))  # the online line follows the naive one closely


def test_equal_logits_online_is_the_naive_sum() -> None:
    for fmt in (FP16, BF16):
        rows = np.zeros((1, 5000), dtype=fmt.dtype)
        assert denominator(rows, fmt, "online")[0] == denominator(rows, fmt, "naive")[0]


def test_the_model_agrees_with_tracts_table_in_size_and_growth() -> None:
    table = softmax_error.tract_table(SOFTMAX)
    for spread, published in TRACT.items():
        ours = {n: float(table["sd" + f"{spread:g}".replace(".", "")][f"n{n}"]) for n in published}
        lengths = sorted(ours)
        assert all(ours[a] < ours[b] for a, b in zip(lengths, lengths[1:])), (spread, ours)
        for n in (4096, 8192):
            assert published[n] / 3 < ours[n] < 3 * published[n], (spread, n, ours[n])
    at_8192 = {s: float(table["sd" + f"{s:g}".replace(".", "")]["n8192"]) for s in TRACT}
    assert max(at_8192, key=lambda s: at_8192[s]) == min(TRACT)  # the narrowest spread is the worst


# ---------------------------------------------------------------- RMSNorm


def test_eight_200s_overflow_the_fp16_sum_of_squares_and_the_prescale_avoids_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    row = np.full(RMS.case_n, RMS.case_value)
    plain = rms(row, FP16, FP16, RMS.eps)
    assert plain.mean_square == math.inf and plain.scale == 0
    c = rms_overflow.prescale(row)
    scaled = rms(row, FP16, FP16, RMS.eps, prescale=c)
    assert math.isfinite(scaled.mean_square) and scaled.scale_rel_error < 0.01
    assert 2 * RMS.case_value**2 > FP16.max_finite  # inf after two squares
    report = run_command(rms_overflow.case(RMS)["command"], monkeypatch)
    assert report["result"] == "inf"


def test_the_prescale_brings_the_largest_magnitude_into_half_to_one() -> None:
    rng = np.random.default_rng(8)
    for scale in (1e-3, 0.7, 1.0, 3.0, 900.0):
        row = to_format(scale * rng.standard_normal(100), FP16)
        c = rms_overflow.prescale(row)
        top = float(np.max(np.abs(row))) * c
        assert math.frexp(c)[0] == 0.5 and 0.5 < top <= 1


def test_below_the_overflow_the_prescale_changes_no_rounding() -> None:
    """c² times the plain mean square, bit for bit, where both stay in FP16's normal range."""
    z = np.random.default_rng(RMS.seed).standard_normal((RMS.trials, RMS.n))
    for sigma in (0.25, 1.0, 4.0):
        rows = to_format(sigma * z, FP16).astype(np.float16)
        for row in rows:
            c = rms_overflow.prescale(row)
            plain, _ = rms_statistics(row[np.newaxis], FP16, RMS.eps)
            scaled, _ = rms_statistics(row[np.newaxis], FP16, RMS.eps, prescale=c)
            assert float(scaled[0]) == float(plain[0]) * c * c


def test_the_rms_figure_overflows_from_the_quoted_sigma_and_only_the_plain_fp16_line_does() -> None:
    medians = rms_overflow.compute(RMS)
    sigmas = RMS.sigmas()
    lost = medians["naive"] >= 1
    first = int(np.argmax(lost))
    assert lost.any() and np.all(lost[first:]) and not lost[:first].any()
    assert RMS.n * sigmas[first] ** 2 > FP16.max_finite
    assert np.all(medians["prescaled"] < 0.01) and np.all(medians["wide"] < 1e-5)


def test_pairwise_equal_logits_match_fp32_where_the_figure_draws_no_line(
        softmax_panels: dict[tuple[str, str], softmax_error.Panel]) -> None:
    """The caption: pairwise on equal logits equals the FP32 sum (error 0) except where it overflows (a cross)."""
    for fmt in ("fp16", "bf16"):
        medians = softmax_panels[(fmt, "equal")].medians["pairwise"]
        assert np.all((medians == 0) | np.isinf(medians))
    assert np.isinf(softmax_panels[("fp16", "equal")].medians["pairwise"][-1])


# ---------------------------------------------------------------- one look per method


NORMALISATION_LOOKS = ("textbook", "twopass", "welford", "chan", "online", "prescaled")


def test_the_normalisation_methods_have_looks_of_their_own() -> None:
    """Colours no other look has, WCAG 3:1 on both backgrounds, a marker each, dashes and markers that differ."""
    from figures.looks import MOMENT_LOOKS

    assert set(MOMENT_LOOKS) == set(MOMENT_METHODS) and set(MOMENT_LOOKS.values()) <= set(NORMALISATION_LOOKS)
    assert_looks_of_their_own(NORMALISATION_LOOKS, list(MOMENT_LOOKS.values()))
