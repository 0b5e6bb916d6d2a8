"""FP4, FP6, the fnuz FP8 formats and E8M0 (issue 27): rounding and addition, bit for bit.

Held to ml_dtypes' casts and arithmetic, and to the exact references: every
value of each format, every midpoint between neighbours, a hair either side
of each midpoint, values beyond the largest (where FP4 and FP6 saturate and
the fnuz formats give NaN), and every two-operand addition of the format's
codes.  The summation methods in these formats are held to the slow
references in test_methods.py, test_more_methods.py, test_cascaded.py and
test_stochastic.py, which run over :data:`reference.NEW_FORMATS` too.
"""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from fpsum.array_rounding import to_format
from fpsum.e8m0 import E8M0, round_e8m0
from fpsum.exact_rounding import add_exact, round_exact
from fpsum.formats import E2M1, E2M3, E3M2, E4M3FNUZ, E5M2FNUZ, Format
from fpsum.rounded_once import add_rounded
from reference import NEW_FORMATS, as_bits, assert_same_bits

pytestmark = [
    pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning"),
]


def ids(fmt: Format) -> str:
    return fmt.name


def codes(fmt: Format) -> np.ndarray:
    """Every bit pattern of the format, as its values (FP4 and FP6 in the low bits of a byte)."""
    return np.arange(1 << fmt.bits, dtype=np.uint8).view(fmt.dtype)


def finite_values(fmt: Format) -> np.ndarray:
    """Every finite value, once, ascending, as float64 (-0.0 and +0.0 both, where the format has both)."""
    values = codes(fmt).astype(np.float64)
    return np.array(sorted(set(values[np.isfinite(values)].tolist()) | ({-0.0} if fmt.signed_zero else set())))


def ml_dtypes_cast(values: np.ndarray, fmt: Format) -> np.ndarray:
    """ml_dtypes' own cast of each float64 (every one here is exact in float32, so its float32 path rounds once)."""
    narrow = values.astype(np.float32)
    assert np.array_equal(narrow.astype(np.float64), values, equal_nan=True)
    return narrow.astype(fmt.dtype).astype(np.float64)


def probes(fmt: Format) -> np.ndarray:
    """The values, the midpoints between neighbours and a hair either side, both signs, and beyond the largest."""
    values = finite_values(fmt)
    positive = values[values > 0]
    mids = (positive[1:] + positive[:-1]) / 2
    low = positive[0] / 2  # the midpoint between zero and the smallest subnormal
    hair = np.ldexp(1.0, -15)  # small, and the probes stay exact in float32 (at most 5 + 15 bits)
    near = np.concatenate([[low], mids])
    top = fmt.max_finite
    beyond = np.array([top + fmt.ulp(top) / 4, top + fmt.ulp(top) / 2, top + fmt.ulp(top), 2 * top, 2.0**100])
    magnitudes = np.concatenate([positive, near, near * (1 + hair), near * (1 - hair), beyond])
    return np.concatenate([magnitudes, -magnitudes, [0.0, -0.0]])


@pytest.mark.parametrize("fmt", NEW_FORMATS, ids=ids)
def test_the_format_is_ml_dtypes_own(fmt: Format) -> None:
    info = ml_dtypes.finfo(fmt.dtype)  # type: ignore[no-untyped-call]
    values = finite_values(fmt)
    assert (fmt.bits, fmt.precision, fmt.emin, fmt.emax) == (info.bits, info.nmant + 1, info.minexp, info.maxexp - 1)
    assert fmt.max_finite == float(info.max) == values.max()
    assert fmt.smallest_subnormal == float(info.smallest_subnormal) == values[values > 0].min()
    assert fmt.smallest_normal == float(info.smallest_normal)
    nan_codes = int(np.isnan(codes(fmt).astype(np.float64)).sum())
    assert nan_codes == {"saturate": 0, "nan": 1}[fmt.overflow]  # FP4, FP6: no NaN; fnuz: one, where -0 would be
    assert not np.isinf(codes(fmt).astype(np.float64)).any()
    negative_zero_code = codes(fmt).astype(np.float64)[1 << (fmt.bits - 1)]  # sign bit alone: -0, or fnuz's NaN
    assert fmt.signed_zero == (negative_zero_code == 0 and bool(np.signbit(negative_zero_code)))


@pytest.mark.parametrize("fmt", NEW_FORMATS, ids=ids)
def test_rounding_is_ml_dtypes_cast_on_values_midpoints_and_beyond(fmt: Format) -> None:
    x = probes(fmt)
    want = ml_dtypes_cast(x, fmt)
    assert_same_bits(np.array([round_exact(float(v), fmt) for v in x]), want, x)
    assert_same_bits(to_format(x, fmt).astype(np.float64), want, x)
    assert_same_bits(np.array([round_exact(Fraction(float(v)), fmt) if v != 0 else round_exact(float(v), fmt)
                               for v in x]), want, x)


@pytest.mark.parametrize("fmt", NEW_FORMATS, ids=ids)
def test_beyond_the_largest_value(fmt: Format) -> None:
    """FP4 and FP6 saturate (they have no infinity and no NaN); the fnuz formats give their NaN."""
    top = fmt.max_finite
    tie = top + fmt.ulp(top) / 2  # halfway to the next value the format would have
    for value in (tie, 2 * top, 1e300, math.inf):
        got = round_exact(value, fmt)
        if fmt.overflow == "saturate":
            assert got == top and round_exact(-value, fmt) == -top
        else:
            assert math.isnan(got) and math.isnan(round_exact(-value, fmt))
    below = top + fmt.ulp(top) / 4
    assert round_exact(below, fmt) == top  # rounds down to the largest value, in every format
    if fmt.overflow == "saturate":
        with pytest.raises(ValueError, match="has no NaN"):
            round_exact(math.nan, fmt)
        with pytest.raises(ValueError, match="has no NaN"):
            to_format(np.array([1.0, math.nan]), fmt)


@pytest.mark.parametrize("fmt", [E4M3FNUZ, E5M2FNUZ], ids=ids)
def test_the_fnuz_formats_have_one_zero(fmt: Format) -> None:
    tiny = fmt.smallest_subnormal
    for value in (-0.0, -tiny / 4, -tiny / 2):
        assert as_bits(np.array([round_exact(value, fmt)])) == as_bits(np.array([0.0]))
    assert math.copysign(1, add_exact(-0.0, -0.0, fmt)) == 1
    assert math.copysign(1, float(to_format(np.array([-0.0]), fmt)[0])) == 1


@pytest.mark.parametrize("fmt", NEW_FORMATS, ids=ids)
def test_every_addition_of_two_values(fmt: Format) -> None:
    """All pairs of codes (NaN aside): the exact reference, the vectorised model and ml_dtypes' arithmetic agree."""
    values = codes(fmt)
    finite = np.isfinite(values.astype(np.float64))
    a, b = (grid.ravel() for grid in np.meshgrid(values[finite], values[finite]))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    exact = np.array([add_exact(x, y, fmt) for x, y in zip(a64.tolist(), b64.tolist())])
    assert_same_bits(add_rounded(a64, b64, fmt).astype(np.float64), exact, a64, b64)
    assert_same_bits((a + b).astype(np.float64), exact, a64, b64)


def test_e2m1_has_fifteen_values_and_saturates_as_the_design_notes_say() -> None:
    assert finite_values(E2M1)[finite_values(E2M1) >= 0].tolist() == [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
    assert round_exact(7.0, E2M1) == 6.0 and round_exact(100.0, E2M1) == 6.0
    assert (E2M3.max_finite, E3M2.max_finite, E2M3.precision, E3M2.precision) == (7.5, 28.0, 4, 3)


def e8m0_probes() -> np.ndarray:
    powers = np.exp2(np.arange(-130, 130, dtype=np.float64))
    hair = 1 + np.ldexp(1.0, -20)
    values = np.concatenate([powers, 1.5 * powers, 1.5 * powers * hair, 1.5 * powers / hair, 1.25 * powers,
                             1.9 * powers, powers * hair, powers / hair])
    return np.concatenate([values, -values, [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-45, 3e38]])


def test_e8m0_rounding_is_ml_dtypes_cast() -> None:
    """Every power of two in range and beyond it, the ties between them and a hair either side."""
    x = e8m0_probes()
    want = np.array([float(np.float64(v).astype(E8M0.dtype)) for v in x.tolist()])  # ml_dtypes from float64
    assert_same_bits(round_e8m0(x), want, x)


def test_e8m0_values() -> None:
    values = E8M0.values
    assert values.size == 255 and values[0] == 2.0**-127 and values[-1] == 2.0**127
    every = np.arange(255, dtype=np.uint8).view(E8M0.dtype).astype(np.float64)
    assert_same_bits(values, every)
    assert math.isnan(float(np.array([255], dtype=np.uint8).view(E8M0.dtype).astype(np.float64)[0]))
    assert math.isnan(round_e8m0(0.0)) and math.isnan(round_e8m0(-1.0)) and round_e8m0(1e-45) == 2.0**-127
    assert round_e8m0(1.5) == 2.0 and round_e8m0(3.0) == 4.0 and round_e8m0(1.4999) == 1.0  # ties go up
