"""Recursive ("naive") summation, ``s = fl(s + x)`` left to right: every prefix, chosen prefixes, a wider total.

:func:`naive_running` is one ``np.add.accumulate``; :func:`naive_at` gives
the same totals at chosen counts, a block of inputs at a time, and skips
the blocks that cannot move a stalled sum, for the sweeps over n;
:func:`wide_running` keeps the total in FP32, or FP64 from FP32 up.  Apart from the other methods because the stall test
(``_stall_limits``) is the naive sum's alone.
"""

from __future__ import annotations

import numpy as np

from .formats import Format, accumulator_for
from .method_checks import _check, _prefix_counts

NAIVE_BLOCK = 1 << 14
"""Running totals held at a time by :func:`naive_at`: a block that stays in cache."""


def naive_running(values: np.ndarray, fmt: Format) -> np.ndarray:
    """Left to right, ``s = fl(s + x)`` (recursive summation).

    ``np.add.accumulate`` rounds to the dtype after every addition, so it is
    exactly this loop, at native speed.  Starts from the first input, so a
    lone -0.0 stays -0.0; NaN and inf propagate as IEEE says (inf + -inf is NaN).
    """
    _check(values, fmt)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.add.accumulate(values, axis=-1)


def naive_at(values: np.ndarray, fmt: Format, counts: np.ndarray) -> np.ndarray:
    """``naive_running(values, fmt)[..., counts - 1]``, a block of inputs at a time.

    The running totals are carried from block to block, each block's first
    addition being ``fl(total + x)`` as in one pass, so the same bits come
    out and only a block of running totals is ever held.  A stalled sum is
    not added up: after a block that left every total where it was, a block
    whose inputs all lie within :func:`_stall_limits` is skipped, since each
    of its additions rounds back to the total.  Counts in any order, repeats
    allowed; ``ValueError`` outside 1..n.  NaN, inf and -0.0 as in
    :func:`naive_running`.
    """
    _check(values, fmt)
    n = values.shape[-1]
    wanted, position = np.unique(_prefix_counts(counts, n), return_inverse=True)
    rows = values.reshape(-1, n)
    picked = np.empty((rows.shape[0], wanted.size), dtype=values.dtype)
    width = max(1, NAIVE_BLOCK // rows.shape[0])
    carried = rows[:, :0]  # the running total so far: none before the first input
    limits = None  # while every total stays put: the inputs that leave it there lie strictly inside these
    compared = np.float64 if fmt.precision > 24 else np.float32  # holds every value of the format
    with np.errstate(over="ignore", invalid="ignore"):
        for begin in range(0, int(wanted.max(initial=0)), width):
            inputs = rows[:, begin:begin + width]
            if limits is not None and _within(inputs.astype(compared, copy=False), limits):
                running = np.broadcast_to(carried, inputs.shape)
            else:
                block = np.concatenate([carried, inputs], axis=-1)  # fl(total + x) comes first
                running = np.add.accumulate(block, axis=-1)[:, carried.shape[-1]:]
                unmoved = carried.size and np.all(running[:, -1:] == carried)
                limits = _stall_limits(running[:, -1], fmt) if unmoved else None
            first, last = np.searchsorted(wanted, (begin + 1, begin + width + 1))  # the counts in this block
            picked[:, first:last] = running[:, wanted[first:last] - begin - 1]
            carried = running[:, -1:]
    return picked[:, position].reshape(values.shape[:-1] + position.shape)


def _within(inputs: np.ndarray, limits: tuple[np.ndarray, np.ndarray]) -> bool:
    """Whether every row of ``inputs`` lies strictly between its ``limits``; never if it holds a NaN."""
    return bool(np.all((inputs.min(axis=-1) > limits[0]) & (inputs.max(axis=-1) < limits[1])))


def _stall_limits(totals: np.ndarray, fmt: Format) -> tuple[np.ndarray, np.ndarray] | None:
    """Per total, the bounds strictly between which every input x gives ``fl(total + x) == total``.

    Half the gap to the neighbour below and above: the exact sum is then
    nearer the total than any other value, ties aside.  The gap toward zero
    from a normal power of two is half the gap away from zero.  None if a
    total is zero (-0.0 + 0.0 is +0.0), infinite or NaN.
    """
    total = totals.astype(np.float64)
    if not np.all(np.isfinite(total) & (total != 0)):
        return None
    away = fmt.ulps(total)  # the gap to the neighbour away from zero
    power = (np.frexp(np.abs(total))[0] == 0.5) & (np.abs(total) > fmt.smallest_normal)
    toward = np.where(power, away / 2, away)
    below, above = np.where(total > 0, toward, away), np.where(total > 0, away, toward)
    return -below / 2, above / 2


def wide_running(values: np.ndarray, fmt: Format) -> np.ndarray:
    """Inputs in ``fmt``, running total in a wider format (FP32, or FP64 from FP32 up).

    Returned in the accumulator's dtype: the point is that it is not rounded
    back to ``fmt``.  NaN, inf and -0.0 convert exactly and propagate as in
    :func:`naive_running`; an E4M3 input NaN stays NaN.
    """
    _check(values, fmt)
    wide = values.astype(accumulator_for(fmt).dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.add.accumulate(wide, axis=-1)
