"""Welford's divider at its edges, and the row extremes its FP16 route's bound comes from.

The divider's quotients are checked against Fractions in ``test_moments.py``;
here: FP16 quotients that a float32 division would round wrongly, the count
past which it refuses, as :func:`fpsum.count_division.divide_by_count` does, and
:func:`fpsum.moments._row_extremes` (FP16's and BF16's codes compared as
integers) against NumPy's max and min of the same rows.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from fpsum.count_division import MAX_COUNT, count_divider
from fpsum.exact_rounding import round_exact
from fpsum.formats import BF16, E4M3, FP16, FP32, Format
from fpsum.moments import _row_extremes
from reference import assert_same_bits, from_floats, make_values


def test_fp16_divider_divides_in_float64_where_float32_would_round_twice() -> None:
    """0.935546875 / 896,907 is 17.49999944 units of 2**-24 and rounds to 17, but its float32 quotient is 17.5,
    which ties to 18 (0.69970703125 / 71,799: 163.4999930, 163.5 in float32): the exact quotients rounded once,
    of either sign, whether the divider tests each quotient (no bound) or not (a bound of 1).
    """
    for d, k in ((0.935546875, 896_907), (0.69970703125, 71_799)):
        row = from_floats([d, -d], FP16)
        want = [round_exact(Fraction(v) / k, FP16) for v in (d, -d)]
        for reach in (float("inf"), 1.0):
            assert_same_bits(count_divider(MAX_COUNT, FP16, reach)(row, k), from_floats(want, FP16), row)


@pytest.mark.parametrize("fmt", (FP16, BF16, FP32, E4M3), ids=lambda f: f.name)
def test_welfords_divider_refuses_a_count_past_max_count(fmt: Format) -> None:
    """Each route ends where divide_by_count does: a ValueError for k = MAX_COUNT + 1, FP16's unchecked route too."""
    values = make_values(fmt, "codes", (8,), seed=6)
    for reach in (float("inf"), 1.0):  # FP16: its tested route, and the one that skips the test of each quotient
        divide = count_divider(MAX_COUNT, fmt, reach)
        divide(values, MAX_COUNT)  # the last count it takes
        with pytest.raises(ValueError, match="count"):
            divide(values, MAX_COUNT + 1)


@pytest.mark.parametrize("fmt", (FP16, BF16), ids=lambda f: f.name)
def test_row_extremes_are_numpys_max_and_min(fmt: Format) -> None:
    """Random codes (subnormals, -0.0, the largest values) with NaN of either sign and +-inf in some rows: each
    row's largest and smallest value as NumPy's max and min give them; a row with a NaN has one as its largest
    (sign bit clear) or smallest (set) value, so its width is NaN; one row on its own too.
    """
    rows = make_values(fmt, "codes", (12, 40), seed=7)
    specials = {1: np.inf, 3: -np.inf, 5: np.nan, 7: -np.nan, 9: -0.0, 11: 0.0}
    for row, value in specials.items():
        rows[row, [4, 20]] = value  # numpy keeps a NaN's sign bit
    rows[10] = np.array([-0.0, 0.0] * 20).astype(fmt.dtype)
    wide = rows.astype(np.float64)
    top, bottom = (extreme.astype(np.float64) for extreme in _row_extremes(rows))
    nan_rows = np.isnan(wide).any(axis=-1)
    assert nan_rows.tolist() == [row in (5, 7) for row in range(12)]
    assert np.isnan(top[5]) and np.isnan(bottom[7]) and not np.isnan(bottom[5]) and not np.isnan(top[7])
    assert np.array_equal(top[~nan_rows], wide[~nan_rows].max(axis=-1))  # -0.0 == 0.0: either is the extreme
    assert np.array_equal(bottom[~nan_rows], wide[~nan_rows].min(axis=-1))
    assert _row_extremes(rows)[0].dtype == fmt.dtype
    one_top, one_bottom = _row_extremes(rows[0])
    assert (float(one_top), float(one_bottom)) == (wide[0].max(), wide[0].min())
