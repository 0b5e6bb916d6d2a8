"""The dot-product page's sentences that state a behaviour, each checked on the model's output.

The parameters are the records' own (``figures.dot_error``,
``figures.promotion``, ``figures.matmul_error``), with fewer trials where the
sentence is about every trial or about a median that a few trials settle;
the expected behaviour is the sentence's, never a number copied from the program.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import fpsum
from figures import dot_error, matmul_error, promotion
from fpsum.dot import dot_running, exact_dot_running
from fpsum.matmul import exact_matmul, matmul, relative_frobenius_error

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
        gamma = np.array([fpsum.gamma(int(k), u) for k in panel.ks.tolist()])
        bounded = np.isfinite(gamma)
        assert bounded.any()
        assert np.all(panel.errors["naive"][:, bounded] <= gamma[bounded] * panel.kappa[:, bounded])


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
    format_ = fpsum.get_format(fmt)
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
        x, y = dot_error.draw_pairs(DOT, fpsum.BF16, "normal")
        running = dot_running(x, y, fpsum.BF16, fpsum.BF16).astype(np.float64)
        products = fpsum.dot.products(x, y, fpsum.BF16).astype(np.float64)
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
    assert never > 0.01  # a K = 4096 sum of one sign in 14 truncating bits: per cent errors
    assert float(np.median(errors.promoted["uniform"][:, at128])) < never / 50
    medians = np.median(errors.promoted["uniform"], axis=0)
    assert np.all(np.diff(medians) > 0)  # every halving of N_c helps inputs of one sign
    assert medians[-1] == never  # promoting once, after all K products, is not promoting
    assert float(np.median(errors.fp32["uniform"])) < medians[0]


def test_a_bf16_matrix_product_loses_with_k_unless_it_accumulates_in_fp32() -> None:
    params = matmul_error.MatmulParams()
    fmt = fpsum.BF16
    ks = np.array([256, 1024, 4096])
    a = fpsum.make_inputs("uniform", 4096, fmt, 3, trials=16)
    b = fpsum.make_inputs("uniform", 4096, fmt, 4, trials=16).T
    exact = exact_matmul(a, b, at=ks)
    narrow = relative_frobenius_error(matmul(a, b, fmt, fmt, at=ks).astype(np.float64), exact)
    wide = matmul(a, b, fmt, fpsum.FP32, at=ks)
    rounded = relative_frobenius_error(fpsum.to_format(wide.astype(np.float64), fmt).astype(np.float64), exact)
    assert np.all(np.diff(narrow) > 0) and narrow[-1] > 0.1
    # FP32 accumulation: what is left is rounding the output to BF16, at most u of every entry.
    assert np.all(rounded <= fmt.unit_roundoff) and np.all(rounded > fmt.unit_roundoff / 8)
    assert params.format == "bf16"


def test_the_dot_figure_reads_the_running_dot_products_it_claims() -> None:
    """A panel's FP16 value at K is the dot product of the first K pairs, summed on its own."""
    x, y = dot_error.draw_pairs(dataclasses.replace(DOT, trials=2, k_max=1000, quote_k=1000), fpsum.FP16, "uniform")
    running = dot_running(x, y, fpsum.FP16, fpsum.FP16)
    for k in (1, 17, 1000):
        alone = dot_running(x[:, :k], y[:, :k], fpsum.FP16, fpsum.FP16)[:, -1]
        assert np.array_equal(running[:, k - 1], alone)
    exact = exact_dot_running(x, y, np.array([1000]))[:, 0]
    assert np.all(np.abs(running[:, -1].astype(np.float64) - exact) > 0)
