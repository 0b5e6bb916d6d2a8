"""Block scaling (MX, NVFP4) and dot products of block-scaled vectors, against references written apart.

The references share nothing with fpsum/blocks.py but the formats' values:
an element is the nearest value of a list of every value of the element
format (read off ml_dtypes' codes), found by search, ties to the value with
the even code; an MX scale is found by trying every E8M0 exponent; NVFP4's
scales by searching E4M3's values; all arithmetic is in Fractions.  Small
blocks are also worked out by hand.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np
import pytest

from fpsum.block_dot import block_dot, check_accumulator
from fpsum.blocks import BLOCK_FORMATS, BlockFormat, get_block_format, quantize
from fpsum.exact_rounding import round_exact
from fpsum.formats import BF16, E4M3, FP32, Format
from fpsum.hardware import TruncatedAccumulator
from fpsum.textbook import truncating_step

MX = [f for f in BLOCK_FORMATS.values() if f.scale == "e8m0"]


def ids(fmt: BlockFormat) -> str:
    return fmt.name


@functools.cache
def value_table(fmt: Format) -> list[tuple[Fraction, int]]:
    """Every finite value of ``fmt`` with its code, by reading all codes through ml_dtypes."""
    codes = np.arange(1 << fmt.bits, dtype=np.uint8).view(fmt.dtype).astype(np.float64)
    return [(Fraction(float(v)), code) for code, v in enumerate(codes.tolist()) if math.isfinite(v)]


@functools.cache
def table_top(fmt: Format) -> Fraction:
    return max(v for v, _ in value_table(fmt))


def nearest(value: Fraction, fmt: Format) -> Fraction:
    """The value of ``fmt`` nearest ``value``, a tie going to the even code; beyond the largest, the largest."""
    table = value_table(fmt)
    top = table_top(fmt)
    value = max(min(value, top), -top)
    best = min(table, key=lambda vc: (abs(vc[0] - value), vc[1] % 2, vc[1]))
    return best[0]


def mx_reference(block: list[float], fmt: BlockFormat) -> tuple[Fraction, list[Fraction]]:
    """The scale (by trying every E8M0 exponent) and the stored values of one MX block."""
    amax = max(abs(Fraction(v)) for v in block)
    emax = fmt.element.emax
    if amax == 0:
        k = -127
    else:  # the smallest k at which amax / 2**k lies below 2**(emax + 1): its binade is the element's top one
        k = next(k for k in range(-127, 128) if amax / Fraction(2) ** k < Fraction(2) ** (emax + 1))
        k = max(k, -127)
    scale = Fraction(2) ** k
    return scale, [nearest(Fraction(v) / scale, fmt.element) * scale for v in block]


def nvfp4_reference(values: list[float]) -> list[Fraction]:
    """The stored values of one NVFP4 tensor (blocks of 16), by search over E4M3's and E2M1's values."""
    element = get_block_format("nvfp4").element
    amax = max(abs(Fraction(v)) for v in values)
    tensor = Fraction(round_exact(amax / 2688, FP32)) if amax else Fraction(1)
    out = []
    for start in range(0, len(values), 16):
        block = [Fraction(v) for v in values[start:start + 16]]
        scale = nearest(max(abs(v) for v in block) / (6 * tensor), E4M3)
        divider = scale * tensor
        out += [nearest(v / divider, element) * divider if divider else Fraction(0) for v in block]
    return out


def draw(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "uniform":
        return rng.random(n)
    if kind == "normal":
        return rng.standard_normal(n)
    if kind == "outliers":
        values = rng.standard_normal(n) * 0.01
        values[rng.integers(0, n, max(1, n // 20))] *= 1e4
        return values
    if kind == "wide":
        return rng.standard_normal(n) * np.exp2(rng.integers(-40, 40, n))
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["uniform", "normal", "outliers", "wide"])
@pytest.mark.parametrize("fmt", MX, ids=ids)
def test_mx_matches_the_reference(fmt: BlockFormat, kind: str) -> None:
    rng = np.random.default_rng([len(fmt.name), len(kind)])
    values = draw(kind, 3 * fmt.block + 5, rng)  # a short last block too
    got = quantize(values, fmt)
    padded = np.concatenate([values, np.zeros(-len(values) % fmt.block)])
    want_values: list[Fraction] = []
    for b, start in enumerate(range(0, len(padded), fmt.block)):
        scale, stored = mx_reference(padded[start:start + fmt.block].tolist(), fmt)
        assert Fraction(float(got.scales[b])) == scale, b
        want_values += stored
    assert [Fraction(v) for v in got.values.tolist()] == want_values[:len(values)]


@pytest.mark.parametrize("kind", ["uniform", "normal", "outliers", "wide"])
def test_nvfp4_matches_the_reference(kind: str) -> None:
    values = draw(kind, 16 * 5 + 3, np.random.default_rng(len(kind)))
    got = quantize(values, get_block_format("nvfp4"))
    assert [Fraction(v) for v in got.values.tolist()] == nvfp4_reference(values.tolist())


def test_blocks_by_hand() -> None:
    """One outlier of 100 among ones: MXFP4's scale is 16, so 100 -> 96 (6.25 clamped to 6) and 1 -> 0."""
    block = np.ones(32)
    block[0] = 100.0
    mxfp4 = quantize(block, get_block_format("mxfp4"))
    assert mxfp4.scales.tolist() == [16.0] and mxfp4.values[0] == 96.0 and (mxfp4.values[1:] == 0).all()
    mxfp8 = quantize(block, get_block_format("mxfp8"))  # scale 2**(6 - 8): 100 / 0.25 = 400 -> 384 in E4M3
    assert mxfp8.scales.tolist() == [0.25] and mxfp8.values[0] == 96.0 and (mxfp8.values[1:] == 1).all()
    e3m2 = quantize(block, get_block_format("mxfp6-e3m2"))  # scale 2**(6 - 4) = 4: 25 -> 24, 0.25 kept
    assert e3m2.values[0] == 96.0 and (e3m2.values[1:] == 1).all()
    # NVFP4: blocks of 16, so the ones of the second block keep their own scale: 1 / 6 in E4M3 is 0.171875.
    nvfp4 = quantize(block, get_block_format("nvfp4"))
    assert nvfp4.scales.tolist()[0] == 448.0 and (nvfp4.values[1:16] == 0).all()
    assert np.allclose(nvfp4.values[16:], 1.0, rtol=0.1) and (nvfp4.values[16:] != 0).all()
    # In MX a block's largest value maps into [2**emax, 2**(emax + 1)): E2M1's 6 < 8 clamps 7.5 to 6.
    assert quantize(np.array([7.5, 1.0]), get_block_format("mxfp4")).values.tolist() == [6.0, 1.0]
    zeros = quantize(np.zeros(5), get_block_format("mxfp8"))
    assert zeros.scales.tolist() == [2.0**-127] and (zeros.values == 0).all()


def test_the_clamp_moves_the_largest_value_more_than_rounding_can() -> None:
    """[block-formats] MXFP4, 7.9 among 31 ones: the scale is 2**(2 - 2) = 1 and 7.9 is clamped to 6, off by 1.9,
    beyond a quarter of its binade's 4; each one is stored exactly.
    """
    block = np.array([7.9] + [1.0] * 31)
    q = quantize(block, get_block_format("mxfp4"))
    assert q.scales.tolist() == [1.0] and q.values[0] == 6.0 and (q.values[1:] == 1.0).all()
    assert 7.9 - q.values[0] == pytest.approx(1.9) and 7.9 - q.values[0] > 4 / 4


@pytest.mark.parametrize("fmt", MX, ids=ids)
def test_below_two_to_the_emax_minus_127_the_smallest_scale_binds(fmt: BlockFormat) -> None:
    """[block-formats] A block maximum of 2**(emax - 127) still lands in the top binade [2**emax, 2**(emax + 1));
    half of it gets the same scale 2**-127 and lands a binade lower.
    """
    emax = fmt.element.emax
    at, below = (quantize(np.full(32, 2.0 ** (emax - 127 + shift)), fmt) for shift in (0, -1))
    assert at.scales.tolist() == below.scales.tolist() == [2.0**-127]
    assert at.elements[0] == 2.0**emax and below.elements[0] == 2.0 ** (emax - 1)


def test_blocks_under_the_smallest_scale_by_hand() -> None:
    """[block-formats] MXFP8 (E4M3, emax 8) with maximum 2**-125: a / X = 2**-125 / 2**-127 = 4, not in [256, 512);
    MXFP4 of 1e-39: 1e-39 / 2**-127 is about 0.17, below a quarter (half of E2M1's smallest, 0.5), so zero.
    """
    low = quantize(np.full(32, 2.0**-125), get_block_format("mxfp8"))
    assert low.scales.tolist() == [2.0**-127] and (low.elements == 4.0).all() and (low.values == 2.0**-125).all()
    tiny = quantize(np.full(32, 1e-39), get_block_format("mxfp4"))
    assert 1e-39 / 2.0**-127 < 0.25 and (tiny.values == 0).all() and tiny.scales.tolist() == [2.0**-127]


def test_a_block_with_nan_or_inf() -> None:
    values = np.ones(64)
    values[3] = math.nan
    values[40] = math.inf
    got = quantize(values, get_block_format("mxfp8"))
    assert np.isnan(got.values).all() and np.isnan(got.scales).all()
    with pytest.raises(ValueError, match="finite values only"):
        quantize(values, get_block_format("nvfp4"))
    with pytest.raises(ValueError, match="at least one value"):
        quantize(np.zeros(0), get_block_format("mxfp4"))
    with pytest.raises(KeyError, match="unknown block format 'mxfp5'"):
        get_block_format("mxfp5")


def dot_reference(x: np.ndarray, y: np.ndarray, fmt: BlockFormat, accumulate: Format | TruncatedAccumulator,
                  ) -> tuple[float, Fraction]:
    """Block values from the reference quantizers' values, summed in Fractions, accumulated step by step."""
    if fmt.scale == "e8m0":
        def stored(v: np.ndarray) -> list[Fraction]:
            padded = np.concatenate([v, np.zeros(-len(v) % fmt.block)]).tolist()
            return sum((mx_reference(padded[s:s + fmt.block], fmt)[1] for s in range(0, len(padded), fmt.block)),
                       [])
    else:
        def stored(v: np.ndarray) -> list[Fraction]:
            return nvfp4_reference(v.tolist()) + [Fraction(0)] * (-len(v) % fmt.block)
    xs, ys = stored(x), stored(y)
    blocks = [sum((a * b for a, b in zip(xs[s:s + fmt.block], ys[s:s + fmt.block])), Fraction(0))
              for s in range(0, len(xs), fmt.block)]
    if isinstance(accumulate, TruncatedAccumulator):
        every = None if accumulate.promote_every is None else accumulate.promote_every // fmt.block
        narrow, wide = Fraction(0), Fraction(0)
        for s in range(0, len(blocks), accumulate.block):
            narrow = truncating_step(narrow, blocks[s:s + accumulate.block], accumulate.bits)
            if every and (s + accumulate.block) % every == 0:
                wide, narrow = Fraction(round_exact(wide + narrow, FP32)), Fraction(0)
        return round_exact(wide + narrow, FP32), sum(blocks, Fraction(0))
    total = 0.0
    for b in blocks:
        total = round_exact(Fraction(total) + b, accumulate)
    return total, sum(blocks, Fraction(0))


ACCUMULATORS = [FP32, BF16, TruncatedAccumulator(14, 4, None), TruncatedAccumulator(14, 4, 128)]


@pytest.mark.parametrize("accumulate", ACCUMULATORS, ids=["fp32", "bf16", "truncated", "truncated-promoted"])
@pytest.mark.parametrize("fmt", list(BLOCK_FORMATS.values()), ids=ids)
def test_block_dot_matches_the_reference(fmt: BlockFormat, accumulate: Format | TruncatedAccumulator) -> None:
    rng = np.random.default_rng([len(fmt.name), 3])
    for kind, k in (("uniform", 300), ("normal", 256), ("outliers", 512)):
        x, y = draw(kind, k, rng), draw(kind, k, rng)
        got = block_dot(x, y, fmt, accumulate)[0]
        result, quantized = dot_reference(x, y, fmt, accumulate)
        exact = sum((Fraction(a) * Fraction(b) for a, b in zip(x.tolist(), y.tolist())), Fraction(0))
        assert (got.result, got.quantized, got.exact) == (result, quantized, exact), kind
        assert got.quantization_rel_error == float(abs(quantized - exact) / abs(exact))
        assert got.accumulation_rel_error == float(abs(Fraction(result) - quantized) / abs(quantized))


def test_rows_are_independent_dot_products() -> None:
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal((3, 100)), rng.standard_normal((3, 100))
    fmt = get_block_format("nvfp4")
    together = block_dot(x, y, fmt, FP32)
    assert [r.result for r in together] == [block_dot(x[i], y[i], fmt, FP32)[0].result for i in range(3)]


def test_bad_requests() -> None:
    fmt = get_block_format("mxfp8")
    with pytest.raises(ValueError, match="does not fall on a step"):
        check_accumulator(get_block_format("nvfp4"), TruncatedAccumulator(14, 4, 32))
    with pytest.raises(ValueError, match="finite inputs"):
        block_dot(np.array([1.0, math.nan]), np.ones(2), fmt, FP32)
    with pytest.raises(ValueError, match="shape"):
        block_dot(np.ones(3), np.ones(4), fmt, FP32)
