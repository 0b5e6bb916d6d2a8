"""Compensated summation, Kahan's and Neumaier's: every operation rounded to the format.

Each carries what every addition lost in a second running sum, the
compensation, and feeds it back.  Kahan's loop runs over the inputs,
vectorised over trials; Neumaier's needs no loop, as its compensation
never enters the sum.  Both marked sections are shown on the pages.  The
cascaded methods, which carry the errors exactly (Sum2, SumK), are
:mod:`fpsum.cascaded`.
"""

from __future__ import annotations

import numpy as np

from .formats import Format
from .method_checks import _check


# --8<-- [start:kahan]
def kahan_running(values: np.ndarray, fmt: Format) -> np.ndarray:
    """Kahan's compensated summation (Kahan 1965), every operation rounded to
    `fmt`.

    The compensation `c` holds the low-order part lost by the last addition,
    and is subtracted from the next input before it is added. Non-finite values
    poison `c` as well as `s`: once an inf enters, the result is NaN
    (inf - inf), as it would be on hardware.
    """
    _check(values, fmt)
    # loop over inputs, vectorised over trials
    columns = np.moveaxis(values, -1, 0)
    columns = np.ascontiguousarray(columns)
    totals = np.empty_like(columns)
    s = np.zeros_like(columns[0])
    c = np.zeros_like(columns[0])
    with np.errstate(over="ignore", invalid="ignore"):
        for i, x in enumerate(columns):
            # the input, less what was lost last time
            y = x - c
            # low-order bits of y are lost here ...
            t = s + y
            # ... and recovered here (algebraically zero)
            c = (t - s) - y
            s = t
            totals[i] = s
    return np.moveaxis(totals, 0, -1)
# --8<-- [end:kahan]


# --8<-- [start:neumaier]
def _running_from_zero(values: np.ndarray) -> np.ndarray:
    """`0, fl(0 + x0), fl(fl(0 + x0) + x1), ...` along the last axis, one entry
    longer than `values`.

    Starting from +0 like a loop with `s = 0` (so a leading -0.0 becomes +0.0).
    """
    zero = np.zeros_like(values[..., :1])
    from_zero = np.concatenate([zero, values], axis=-1)
    return np.add.accumulate(from_zero, axis=-1)


def neumaier_running(values: np.ndarray, fmt: Format) -> np.ndarray:
    """Neumaier's improved Kahan-Babuska summation (Neumaier 1974), every
    operation in `fmt`.

    Like Kahan's, but the lost low-order part is taken from whichever of `s`
    and `x` is smaller in magnitude, so an input larger than the running sum no
    longer wipes out the correction.  The compensation is added back at the
    end: entry i is `fl(s + c)` after i + 1 inputs. The result is bit for bit
    the textbook loop, but `s` never sees `c`, so `s` and `c` are both plain
    running sums and no Python loop is needed. Infinities and NaN propagate
    into `c` and give NaN, as with Kahan.
    """
    _check(values, fmt)
    with np.errstate(over="ignore", invalid="ignore"):
        # s before and after each input: the naive sum
        s = _running_from_zero(values)
        before, after = s[..., :-1], s[..., 1:]
        s_bigger = np.abs(before) >= np.abs(values)
        # the larger of s and x ...
        big = np.where(s_bigger, before, values)
        # ... and the smaller, whose low bits were lost
        small = np.where(s_bigger, values, before)
        # exactly what each addition threw away
        lost = (big - after) + small
        # c is a naive running sum of the losses
        c = _running_from_zero(lost)[..., 1:]
        totals: np.ndarray = after + c
        return totals
# --8<-- [end:neumaier]
