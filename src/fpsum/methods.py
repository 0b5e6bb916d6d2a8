"""Summation methods, every operation in the working format.

Each method takes inputs of shape ``(..., n)`` already stored in
``fmt.dtype`` and returns the *running* totals, shape ``(..., n)``: entry
``i`` is what the method gives for the first ``i + 1`` inputs.  The final sum
is the last entry; the error-versus-n sweeps read the running totals at many
n in one pass.  Leading axes are independent trials and are vectorised over,
so no Python loop runs per trial.

Arithmetic is the dtype's own: NumPy's float16 and ml_dtypes' types add in
float32 and round once, which is correctly rounded (checked bit for bit
against :func:`fpsum.rounding.add_exact` in the tests).  NaN and overflow
follow the format: an FP16 sum of large values reaches inf and stays there,
an E4M3 one becomes NaN.
"""

from __future__ import annotations

from typing import Callable, Literal, get_args

import numpy as np

from .formats import Format, accumulator_for

Method = Literal["naive", "wide", "kahan", "pairwise"]
METHODS: tuple[Method, ...] = get_args(Method)

METHOD_LABELS: dict[str, str] = {
    "naive": "naive",
    "wide": "FP32 accumulator",
    "kahan": "Kahan",
    "pairwise": "pairwise",
    "exact": "exact",
}


def _check(values: np.ndarray, fmt: Format) -> None:
    if values.dtype != fmt.dtype:
        raise TypeError(f"inputs are {values.dtype}, expected {fmt.dtype} for {fmt.label}")
    if values.shape[-1] < 1:
        raise ValueError("a sum needs at least one input")


def naive_running(values: np.ndarray, fmt: Format) -> np.ndarray:
    """Left to right, ``s = fl(s + x)`` (recursive summation).

    ``np.add.accumulate`` rounds to the dtype after every addition, so it is
    exactly this loop, at native speed.
    """
    _check(values, fmt)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.add.accumulate(values, axis=-1)


def wide_running(values: np.ndarray, fmt: Format) -> np.ndarray:
    """Inputs in ``fmt``, running total in a wider format (FP32, or FP64 from FP32 up).

    Returned in the accumulator's dtype: the point is that it is not rounded
    back to ``fmt``.
    """
    _check(values, fmt)
    wide = values.astype(accumulator_for(fmt).dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.add.accumulate(wide, axis=-1)


# --8<-- [start:kahan]
def kahan_running(values: np.ndarray, fmt: Format) -> np.ndarray:
    """Kahan's compensated summation (Kahan 1965), every operation rounded to ``fmt``.

    The compensation ``c`` holds the low-order part lost by the last
    addition, and is subtracted from the next input before it is added.
    Non-finite values poison ``c`` as well as ``s``: once an inf enters,
    the result is NaN (inf - inf), as it would be on hardware.
    """
    _check(values, fmt)
    columns = np.moveaxis(values, -1, 0)  # loop over inputs, vectorised over trials
    totals = np.empty_like(columns)
    s = np.zeros_like(columns[0])
    c = np.zeros_like(columns[0])
    with np.errstate(over="ignore", invalid="ignore"):
        for i, x in enumerate(columns):
            y = x - c          # the input, corrected by what was lost last time
            t = s + y          # low-order bits of y are lost here ...
            c = (t - s) - y    # ... and recovered here (algebraically zero)
            s = t
            totals[i] = s
    return np.moveaxis(totals, 0, -1)
# --8<-- [end:kahan]


# --8<-- [start:pairwise]
def pairwise_split(n: int) -> int:
    """Size of the left part of a pairwise sum of ``n >= 2`` inputs.

    The largest power of two strictly below ``n``: a power-of-two ``n`` splits
    in half all the way down, a perfectly balanced tree.
    """
    return 1 << ((n - 1).bit_length() - 1)


def pairwise_sum(values: np.ndarray, fmt: Format) -> np.ndarray:
    """Recursive pairwise sum along the last axis: (left part) + (right part), rounded.

    Straight from the definition; the running version below gets the same
    numbers for every prefix at once.
    """
    _check(values, fmt)
    n = values.shape[-1]
    if n == 1:
        return values[..., 0]
    left = pairwise_split(n)
    with np.errstate(over="ignore", invalid="ignore"):
        result: np.ndarray = pairwise_sum(values[..., :left], fmt) + pairwise_sum(values[..., left:], fmt)
    return result
# --8<-- [end:pairwise]


def _balanced_levels(values: np.ndarray) -> list[np.ndarray]:
    """Sums of complete aligned blocks: level k holds the balanced sums of blocks of 2**k inputs."""
    levels = [values]
    with np.errstate(over="ignore", invalid="ignore"):
        while levels[-1].shape[-1] >= 2:
            below = levels[-1]
            even = below.shape[-1] - below.shape[-1] % 2
            levels.append(below[..., 0:even:2] + below[..., 1:even:2])
    return levels


def pairwise_running(values: np.ndarray, fmt: Format) -> np.ndarray:
    """The pairwise sum of the first i inputs, for every i, as :func:`pairwise_sum` computes it.

    The first ``i`` inputs split, by the binary digits of ``i``, into
    complete aligned blocks of 2**k (a binary counter of complete blocks); the
    pairwise tree adds each block's balanced sum, the smallest (rightmost)
    first.  Done for all ``i`` at once, one vector operation per binary digit.
    """
    _check(values, fmt)
    n = values.shape[-1]
    levels = _balanced_levels(values)
    counts = np.arange(1, n + 1)
    totals = np.zeros_like(values)
    started = np.zeros(n, dtype=bool)
    with np.errstate(over="ignore", invalid="ignore"):
        for k, blocks in enumerate(levels):
            has_block = (counts >> k) & 1 == 1
            if not has_block.any():
                continue
            index = np.where(has_block, (counts >> k) - 1, 0)
            block = blocks[..., index]
            combined = np.where(started, block + totals, block)
            totals = np.where(has_block, combined, totals)
            started |= has_block
    return totals


RUNNING: dict[Method, Callable[[np.ndarray, Format], np.ndarray]] = {
    "naive": naive_running,
    "wide": wide_running,
    "kahan": kahan_running,
    "pairwise": pairwise_running,
}


def running_totals(method: Method, values: np.ndarray, fmt: Format) -> np.ndarray:
    """Running totals of ``method`` (see the module docstring); ``ValueError`` for an unknown method."""
    try:
        run = RUNNING[method]
    except KeyError:
        raise ValueError(f"unknown method {method!r} (known: {', '.join(RUNNING)})") from None
    return run(values, fmt)


def total(method: Method, values: np.ndarray, fmt: Format) -> np.ndarray:
    """The final sum of ``method`` over the last axis (shape ``values.shape[:-1]``)."""
    if method == "pairwise":
        return pairwise_sum(values, fmt)
    return running_totals(method, values, fmt)[..., -1]
