"""The dot-product page's sentences that state a behaviour, each checked on the model's output.

The parameters are the records' own (``figures.dot_error``,
``figures.promotion``, ``figures.matmul_error``, ``figures.dot_accuracy``), with fewer trials where the
sentence is about every trial or about a median that a few trials settle;
the expected behaviour is the sentence's, never a number copied from the program.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest

import fpsum
from figures import dot_accuracy, dot_error, matmul_error, promotion
from fpsum.array_rounding import to_format
from fpsum.bounds import gamma
from fpsum.dot import dot_running, exact_dot, exact_dot_running
from fpsum.dot2 import dot2, two_product
from fpsum.formats import BF16, FP16, FP32, get_format
from fpsum.inputs import make_inputs
from fpsum.matmul import matmul, relative_frobenius_error
from fpsum.matmul_exact import exact_matmul
from fpsum.tf32 import tf32_dot, to_tf32

DOT = dataclasses.replace(dot_error.DotErrorParams(), trials=4, k_max=2**14)
QUOTE = DOT.quote_k


@pytest.fixture(scope="module")
def panels() -> dict[tuple[str, str], dot_error.Panel]:
    return {(p.fmt.name, p.kind): p for p in dot_error.compute(DOT)}


def median_at(panel: dot_error.Panel, name: str, k: int) -> float:
    return float(np.median(panel.errors[name][:, int(np.nonzero(panel.ks == k)[0][0])]))


@pytest.mark.parametrize("fmt", DOT.formats)
def test_the_computed_dot_product_obeys_the_bound_gamma_k_kappa_in_every_trial(
        fmt: str, panels: dict[tuple[str, str], dot_error.Panel]) -> None:
    """|ŝ − s| / |s| ≤ γ_K κ wherever K u < 1, for the input-format accumulator: a theorem, held on every trial."""
    for kind in DOT.kinds:
        panel = panels[(fmt, kind)]
        u = panel.fmt.unit_roundoff
        gammas = np.array([gamma(int(k), u) for k in panel.ks.tolist()])
        bounded = np.isfinite(gammas)
        assert bounded.any()
        assert np.all(panel.errors["naive"][:, bounded] <= gammas[bounded] * panel.kappa[:, bounded])


def test_kappa_is_one_for_inputs_of_one_sign_and_grows_like_root_k_for_zero_mean(
        panels: dict[tuple[str, str], dot_error.Panel]) -> None:
    uniform, normal = panels[("fp16", "uniform")], panels[("fp16", "normal")]
    assert np.all(uniform.kappa == 1)
    grown = np.median(normal.kappa[:, -1]) / np.median(normal.kappa[:, 0])
    assert math.sqrt(DOT.k_max) / 8 < grown < 8 * math.sqrt(DOT.k_max)


@pytest.mark.parametrize("fmt", DOT.formats)
def test_one_sign_inputs_lose_products_before_the_sum_reaches_the_stall_point(
        fmt: str, panels: dict[tuple[str, str], dot_error.Panel]) -> None:
    """Products of uniform numbers are skewed: whole products are lost while the sum is below 2^p."""
    format_ = get_format(fmt)
    x, y = dot_error.draw_pairs(DOT, format_, "uniform")
    running = dot_running(x, y, format_, format_).astype(np.float64)
    products = fpsum.dot.products(x, y, format_).astype(np.float64)
    below = running[:, :-1] < format_.stall_point / 2
    lost = (running[:, 1:] == running[:, :-1]) & (products[:, 1:] != 0) & below
    assert lost.sum(axis=1).min() > 0


@pytest.mark.parametrize("fmt", DOT.formats)
def test_zero_mean_inputs_lose_less_but_bf16_still_loses(fmt: str,
                                                        panels: dict[tuple[str, str], dot_error.Panel]) -> None:
    uniform, normal = panels[(fmt, "uniform")], panels[(fmt, "normal")]
    assert median_at(normal, "naive", QUOTE) < median_at(uniform, "naive", QUOTE) / 4
    if fmt == "bf16":  # spacing 2 from 256 up: a partial sum of a few hundred still loses whole products
        x, y = dot_error.draw_pairs(DOT, BF16, "normal")
        running = dot_running(x, y, BF16, BF16).astype(np.float64)
        products = fpsum.dot.products(x, y, BF16).astype(np.float64)
        lost = (running[:, 1:] == running[:, :-1]) & (products[:, 1:] != 0)
        assert lost[:, :QUOTE].sum() > 0


@pytest.mark.parametrize("fmt", DOT.formats)
def test_an_fp32_accumulator_keeps_the_error_far_below_the_inputs_precision(
        fmt: str, panels: dict[tuple[str, str], dot_error.Panel]) -> None:
    for kind in DOT.kinds:
        panel = panels[(fmt, kind)]
        assert np.all(np.median(panel.errors["wide"], axis=0) < panel.fmt.unit_roundoff / 100)


@pytest.mark.parametrize("fmt", DOT.formats)
def test_the_truncating_accumulator_is_worse_than_its_promoted_self(
        fmt: str, panels: dict[tuple[str, str], dot_error.Panel]) -> None:
    panel = panels[(fmt, "uniform")]
    assert median_at(panel, "truncated", QUOTE) > 10 * median_at(panel, "promoted", QUOTE)
    # Promotion happens after the first N_c products: before that the two are the same accumulator.
    early = panel.ks < DOT.promote_every
    assert np.array_equal(panel.errors["truncated"][:, early], panel.errors["promoted"][:, early])


def test_promotion_every_128_recovers_fp8_dot_products_and_shorter_intervals_do_better() -> None:
    params = dataclasses.replace(promotion.PromotionParams(), trials=16)
    errors = promotion.compute(params)
    at128 = int(np.nonzero(params.intervals == 128)[0][0])
    never = float(np.median(errors.never["uniform"]))
    assert never > 0.02  # per cent errors, and more than the DeepSeek-V3 report's 2 %, as the page says
    assert float(np.median(errors.promoted["uniform"][:, at128])) < never / 50
    medians = np.median(errors.promoted["uniform"], axis=0)
    assert np.all(np.diff(medians) > 0)  # every halving of N_c helps inputs of one sign
    assert medians[-1] == never  # promoting once, after all K products, is not promoting
    assert float(np.median(errors.fp32["uniform"])) < medians[0]


def test_a_bf16_matrix_product_loses_with_k_unless_it_accumulates_in_fp32() -> None:
    params = matmul_error.MatmulParams()
    fmt = BF16
    ks = np.array([256, 1024, 4096])
    a = make_inputs("uniform", 4096, fmt, 3, trials=16)
    b = make_inputs("uniform", 4096, fmt, 4, trials=16).T
    exact = exact_matmul(a, b, at=ks)
    narrow = relative_frobenius_error(matmul(a, b, fmt, fmt, at=ks).astype(np.float64), exact)
    wide = matmul(a, b, fmt, FP32, at=ks)
    rounded = relative_frobenius_error(to_format(wide.astype(np.float64), fmt).astype(np.float64), exact)
    assert np.all(np.diff(narrow) > 0) and narrow[-1] > 0.1
    # FP32 accumulation: what is left is rounding the output to BF16, at most u of every entry.
    assert np.all(rounded <= fmt.unit_roundoff) and np.all(rounded > fmt.unit_roundoff / 8)
    assert params.format == "bf16"


def test_the_dot_figure_reads_the_running_dot_products_it_claims() -> None:
    """A panel's FP16 value at K is the dot product of the first K pairs, summed on its own."""
    x, y = dot_error.draw_pairs(dataclasses.replace(DOT, trials=2, k_max=1000, quote_k=1000), FP16, "uniform")
    running = dot_running(x, y, FP16, FP16)
    for k in (1, 17, 1000):
        alone = dot_running(x[:, :k], y[:, :k], FP16, FP16)[:, -1]
        assert np.array_equal(running[:, k - 1], alone)
    exact = exact_dot_running(x, y, np.array([1000]))[:, 0]
    assert np.all(np.abs(running[:, -1].astype(np.float64) - exact) > 0)


# --- products in FP32, and attention's P·V ---------------------------------------------------------


def test_every_product_of_two_fp16_numbers_is_exact_and_normal_in_fp32() -> None:
    """At most 22 bits, and from the smallest (2^-48) to the largest it lies in FP32's normal range."""
    every = np.arange(2**16, dtype=np.uint16).view(np.float16)
    every = every[np.isfinite(every.astype(np.float64)) & (every != 0)]
    extremes = np.array([2.0**-24, 6.1e-5, 1.0, 65504.0], dtype=np.float16)
    x, y = np.meshgrid(every, extremes)
    exact = x.astype(np.float64) * y.astype(np.float64)
    assert np.all(np.abs(exact) >= FP32.smallest_normal) and np.all(np.abs(exact) <= FP32.max_finite)
    assert np.array_equal(fpsum.dot.products(x, y, FP32).astype(np.float64), exact)


def test_bf16_products_are_exact_in_fp32_from_2_to_the_minus_134_and_can_be_rounded_below() -> None:
    with np.errstate(invalid="ignore"):  # ml_dtypes warns casting its NaN codes
        every = np.arange(2**16, dtype=np.uint16).view(BF16.dtype).astype(np.float64)
    every = to_format(every[np.isfinite(every) & (every != 0)], BF16)
    rng = np.random.default_rng(0)
    x = rng.choice(every, 200_000)
    y = rng.choice(every, 200_000)
    exact = np.abs(x.astype(np.float64) * y.astype(np.float64))
    with np.errstate(over="ignore"):
        rounded = np.abs(fpsum.dot.products(x, y, FP32).astype(np.float64))
    kept = (exact >= 2.0**-134) & (exact <= FP32.max_finite)
    assert ((exact >= FP32.smallest_normal) & kept).sum() > 1000 and (kept & (exact < 2.0**-126)).sum() > 10
    assert np.array_equal(rounded[kept], exact[kept])
    assert np.any(rounded[exact < 2.0**-134] != exact[exact < 2.0**-134])
    params = dot_accuracy.CasesParams()
    square, fp32 = dot_accuracy.tiny_square(params)
    assert square < Fraction(2) ** -134 and Fraction(fp32) != square


def test_softmax_weights_are_positive_but_their_products_with_v_take_v_s_sign() -> None:
    params = dot_accuracy.CasesParams()
    p, v = dot_accuracy.attention_rows(params)
    assert np.all(p.astype(np.float64) > 0)
    products = fpsum.dot.exact_products(p, v)
    assert np.array_equal(np.sign(products), np.sign(v.astype(np.float64)))
    assert np.all((products > 0).any(axis=1) & (products < 0).any(axis=1))
    assert float(np.median(dot_accuracy.kappas(p, v))) > 10
    assert np.all(dot_accuracy.kappas(p, np.ones_like(p)) == 1)  # the sum of the weights: no cancellation


def test_rounding_an_fp32_result_to_fp16_costs_at_most_half_an_ulp_unless_it_overflows() -> None:
    values = make_inputs("normal", 50_000, FP32, 3) * np.float32(30_000)
    with np.errstate(over="ignore"):  # beyond FP16's largest value the cast gives inf, as it should
        rounded = to_format(values.astype(np.float64), FP16).astype(np.float64)
    finite = np.isfinite(rounded)
    assert np.all(np.abs(values.astype(np.float64) - rounded)[finite]
                  <= FP16.ulps(rounded[finite]) / 2)
    beyond = np.abs(values.astype(np.float64)) > FP16.max_finite + FP16.ulp(FP16.max_finite) / 2
    assert beyond.any() and np.all(np.isinf(rounded[beyond]))


# --- TF32 ------------------------------------------------------------------------------------------


def test_tf32_inputs_cost_hundreds_of_times_fp32_s_error_for_zero_mean_data_and_less_for_one_sign() -> None:
    params = dot_accuracy.Tf32Params()
    fp32, tf32, x, y = dot_accuracy.tf32_errors(params, "normal")
    ratio_normal = np.median(tf32) / np.median(fp32)
    assert ratio_normal > 100
    fp32_u, tf32_u, _, _ = dot_accuracy.tf32_errors(params, "uniform")
    assert 1 < np.median(tf32_u) / np.median(fp32_u) < ratio_normal / 10
    # The error is the inputs' rounding: the model's result is far closer to the exact dot product of the
    # rounded inputs than that is to the exact dot product of the inputs.
    rx, ry = to_tf32(x), to_tf32(y)
    exact = exact_dot_running(x, y, np.array([params.k]))[:, 0]
    of_rounded = exact_dot_running(rx, ry, np.array([params.k]))[:, 0]
    computed = tf32_dot(x, y).astype(np.float64)
    assert np.all(np.abs(computed - of_rounded) < np.abs(of_rounded - exact) / 10)


# --- √K·u ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def record_panels() -> list[dot_error.Panel]:
    """The record's own panels: the sentences quote its medians and its crossing K."""
    return dot_error.compute(dot_error.DotErrorParams())


def test_root_k_u_is_a_typical_size_for_zero_mean_data_and_fails_for_one_sign_once_products_are_lost(
        record_panels: list[dot_error.Panel]) -> None:
    params = dot_error.DotErrorParams()
    for panel in record_panels:
        median = np.median(dot_error.scaled(panel), axis=0)
        root = dot_error.root_k_u(panel)
        if panel.kind == "normal":
            assert np.all(median < root)
            continue
        cross = dot_error.crossing(panel)
        assert 0 < cross < len(panel.ks) and panel.ks[cross] <= params.quote_k
        upto = panel.ks <= params.quote_k
        assert np.all(median[:cross] <= root[:cross]) and np.all((median > root)[cross:][upto[cross:]])
        # γ_K, where it exists, bounds every trial (test_the_computed_dot_product_obeys_the_bound...)
        assert params.quote_k * panel.fmt.unit_roundoff >= 1  # and at quote_k it does not exist
        u, k = panel.fmt.unit_roundoff, params.scale_k
        assert gamma(k, u) > math.sqrt(k) * (math.sqrt(k) * u)  # "more than √K times √K·u"
        # products are lost whole once the median is above √K·u
        k = int(panel.ks[cross])
        x, y = dot_error.draw_pairs(dataclasses.replace(params, k_max=k, quote_k=k), panel.fmt, "uniform")
        running = dot_running(x, y, panel.fmt, panel.fmt).astype(np.float64)
        lost = (running[:, 1:] == running[:, :-1]) & (fpsum.dot.products(x, y, panel.fmt)[:, 1:] != 0)
        assert np.all(lost.sum(axis=1) > 0)


# --- Dot2 ------------------------------------------------------------------------------------------


def test_dot2_is_under_its_bound_and_a_hundred_times_better_than_naive_in_every_row() -> None:
    rows = dot_accuracy.dot2_rows(dot_accuracy.Dot2Params())
    assert rows[-1].bound > 1  # the page: "a bound above 1, as in the last row"
    for row in rows:
        exact = exact_dot(row.x, row.y)
        absolute = exact_dot(np.abs(row.x.astype(np.float64)), np.abs(row.y.astype(np.float64)))
        n = row.x.shape[-1]
        u = Fraction(row.fmt.unit_roundoff)
        gamma = n * u / (1 - n * u)
        error = abs(Fraction(float(dot2(row.x, row.y, row.fmt))) - exact)
        assert error <= u * abs(exact) + gamma**2 * absolute
        naive = abs(Fraction(float(fpsum.dot.dot(row.x, row.y, row.fmt, row.fmt))) - exact)
        assert naive >= 100 * error
        assert row.fmt.emax - row.fmt.emin > 20  # FP16 and FP32: the table's formats


def test_dot2_fails_in_fp16_when_a_product_s_error_underflows() -> None:
    params = dot_accuracy.CasesParams()
    x, y = dot_accuracy.underflow_pair(params)
    a = float(x[0])
    assert 2 * math.floor(math.log2(a)) < FP16.emin + FP16.precision - 1  # -4 for FP16
    h, r = two_product(x[:1], x[:1], FP16)
    assert float(r[0]) == 0 and Fraction(float(h[0])) != Fraction(a) ** 2  # the error is lost
    exact, bound = dot_accuracy.dot2_bound(x, y, FP16)
    assert exact == Fraction(a) ** 2 - Fraction(float(h[0])) != 0
    result = float(dot2(x, y, FP16))
    assert result == 0 and abs(Fraction(result) - exact) > bound and bound < abs(exact) / 100
