"""Slow, obviously right references for the tests, and helpers to compare bits.

Every summation reference here works on a list of Python floats (values of
the working format) and does one addition at a time with
:func:`fpsum.rounding.add_exact`: the exact rational sum, rounded once to the
format, ties to even.  Nothing is vectorised and nothing is clever, so each
function can be checked by reading it against the textbook definition.

The loops the pages show (naive, Kahan, Neumaier, pairwise) live in the model
package, :mod:`fpsum.textbook`, and are imported from there: the code on a page
is the code the vectorised model is tested against.  The others (the wider
accumulator, pairwise sums of every prefix) are here.

The only thing these references share with the vectorised model
(:mod:`fpsum.methods`) is ``add_exact``, which is itself held to NumPy's and
ml_dtypes' arithmetic, bit for bit, in ``test_rounding.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np

from fpsum.formats import FP32, FP64, Format
from fpsum.rounding import add_exact
from fpsum.textbook import kahan, largest_power_of_two_below, naive, neumaier
from fpsum.textbook import pairwise as pairwise  # the one-shot pairwise reference, for test_methods

Running = Callable[[Sequence[float], Format], list[float]]


def wide_accumulator(fmt: Format) -> Format:
    """The ``wide`` method's accumulator: FP32 for formats narrower than 32 bits, FP64 otherwise."""
    return FP32 if fmt.bits < 32 else FP64


def wide(xs: Sequence[float], fmt: Format) -> list[float]:
    """Recursive summation with the running total kept in the wider accumulator.

    Each input of ``fmt`` is exact in the accumulator, so only the additions round.
    """
    acc = wide_accumulator(fmt)
    s = xs[0]
    totals = [s]
    for x in xs[1:]:
        s = add_exact(s, x, acc)
        totals.append(s)
    return totals


def pairwise_prefixes(xs: Sequence[float], fmt: Format, counts: Sequence[int] | None = None) -> list[float]:
    """``[pairwise(xs[:i]) for i in counts]`` (default every i in 1..n), the same recursion memoised.

    The memo on (start, length) only avoids recomputing identical sub-sums;
    every value is still the definition's (left part) + (right part).
    """

    @functools.cache
    def part(start: int, length: int) -> float:
        if length == 1:
            return xs[start]
        left = largest_power_of_two_below(length)
        return add_exact(part(start, left), part(start + left, length - left), fmt)

    wanted = range(1, len(xs) + 1) if counts is None else counts
    return [part(0, i) for i in wanted]


RUNNING: dict[str, Running] = {
    "naive": naive,
    "wide": wide,
    "kahan": kahan,
    "neumaier": neumaier,
    "pairwise": pairwise_prefixes,
}


def exact_prefix_sums(xs: Sequence[float]) -> list[Fraction]:
    """Exact running sums, as Fractions."""
    total = Fraction(0)
    out = []
    for x in xs:
        total += Fraction(x)
        out.append(total)
    return out


# --- comparing bit patterns -------------------------------------------------

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def as_bits(values: np.ndarray) -> np.ndarray:
    """The raw bit patterns of a float array (any float dtype, ml_dtypes' included)."""
    array = np.ascontiguousarray(values)
    return array.view(_UINT[array.dtype.itemsize])


def mismatches(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Boolean mask of positions where ``got`` and ``want`` differ bit for bit, all NaNs equal.

    Both arrays must have the same dtype and shape; -0.0 and +0.0 differ.
    """
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    both_nan = np.isnan(got.astype(np.float64)) & np.isnan(want.astype(np.float64))
    differ: np.ndarray = (as_bits(got) != as_bits(want)) & ~both_nan
    return differ


def assert_same_bits(got: np.ndarray, want: np.ndarray, *inputs: np.ndarray, show: int = 8) -> None:
    """Assert bit-for-bit equality (all NaNs equal); on failure list the first few cases with their inputs."""
    bad = mismatches(got, want)
    if bad.any():
        where = np.argwhere(bad)[:show]
        lines = []
        for index in map(tuple, where):
            ins = ", ".join(f"{float(x[index])!r}" for x in inputs)
            lines.append(
                f"  at {index}: inputs ({ins}) got {float(got[index])!r} "
                f"[{int(as_bits(got)[index]):#x}], want {float(want[index])!r} [{int(as_bits(want)[index]):#x}]"
            )
        raise AssertionError(f"{int(bad.sum())} of {bad.size} differ:\n" + "\n".join(lines))


def from_floats(values: Sequence[float] | Sequence[Sequence[float]] | np.ndarray, fmt: Format) -> np.ndarray:
    """Python floats that are already values of ``fmt`` (or +-inf, NaN) as an array of ``fmt.dtype``.

    The cast is exact for such values, so any route gives the same bits;
    an assertion checks that nothing was rounded on the way.
    """
    wide = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        narrow: np.ndarray = wide.astype(fmt.dtype)
    back = narrow.astype(np.float64)
    assert np.all((back == wide) | (np.isnan(back) & np.isnan(wide))), "value not in the format"
    # The sign of zero must survive too.
    numbers = ~np.isnan(wide)
    assert np.all(np.signbit(back[numbers]) == np.signbit(wide[numbers]))
    return narrow
