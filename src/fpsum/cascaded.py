"""Error-free transformations and cascaded summation (Ogita, Rump and Oishi 2005), every operation in the format.

TwoSum turns one addition into two numbers: the rounded sum and its
rounding error, which in binary floating point with rounding to nearest
is itself a value of the format, so that ``s + e == a + b`` exactly
(Knuth, TAOCP vol. 2; Moller 1965).  VecSum applies it along a vector: the
running sum moves to the last entry and each step's error stays behind,
so the vector changes but its exact sum does not.  SumK applies VecSum
K - 1 times, then sums the vector naively: each pass pushes the rounding
errors one level further down, and the result is about as accurate as a
naive sum in K times the precision, rounded back to the format.  Sum2 is
SumK with K = 2.

Everything here is vectorised: the running sums of a pass are one
``np.add.accumulate`` and the errors of all its steps follow from the
values before and after each step at once, so no Python loop runs per
input (only per pass, and per pass over a few trailing entries for the
running totals).  The textbook loops in :mod:`fpsum.textbook` do the same
one scalar operation at a time; the tests hold these to them bit for bit.
"""

from __future__ import annotations

import numpy as np

from .formats import Format

DEFAULT_FOLDS = 3
"""K of SumK when none is given: about three times the working precision."""


def _check(values: np.ndarray, fmt: Format) -> None:
    if values.dtype != fmt.dtype:
        raise TypeError(f"inputs are {values.dtype}, expected {fmt.dtype} for {fmt.label}")
    if values.shape[-1] < 1:
        raise ValueError("a sum needs at least one input")


def _check_folds(folds: int) -> None:
    if folds < 1:
        raise ValueError(f"SumK needs K >= 1 (K = 1 is the naive sum), got {folds}")


# --8<-- [start:two_sum]
def two_sum_error(a: np.ndarray, b: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The rounding error of `s = fl(a + b)`, as TwoSum computes it:
    `a + b == s + error` exactly.

    Five more operations in the arrays' own dtype (Knuth's TwoSum without a
    branch): what `s` took from `b`, and from `a`, and what each lost, added.
    Exact for finite operands when nothing overflows, the intermediate `s - a`
    included: that one can overflow when `b` is within a rounding of the
    largest value (E5M2: a = -12288, b = 57344), and the error is then NaN.  A
    NaN or infinite `a`, `b` or `s` gives a NaN error (inf - inf); an exact sum
    gives a zero error, +0.0 in practice.  Call inside `np.errstate` to silence
    the warnings.
    """
    # the part of s that came from b ...
    b_virtual = s - a
    # ... and the part that came from a
    a_virtual = s - b_virtual
    # what each of them lost, added: exact
    error: np.ndarray = (a - a_virtual) + (b - b_virtual)
    return error
# --8<-- [end:two_sum]


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``s = fl(a + b)`` and its error ``e`` (:func:`two_sum_error`), elementwise in the arrays' dtype.

    ``a`` and ``b`` are arrays of one format's dtype (values of the working
    format).  NaN and inf: ``s`` as IEEE says, ``e`` NaN.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        s = a + b
        return s, two_sum_error(a, b, s)


# --8<-- [start:vec_sum]
def vec_sum(values: np.ndarray, fmt: Format) -> np.ndarray:
    """One pass of VecSum along the last axis: the same exact sum, its rounding
    errors moved to the front.

    Entry i (from 0) of the result is the error of step i + 1 of the naive
    running sum (adding input i + 1 to the sum of inputs 0..i), and the last
    entry is the naive sum itself, as the loop
    `p[i], p[i - 1] = TwoSum(p[i], p[i - 1])` leaves them. The running sums are
    one `np.add.accumulate`; every error follows from the sum before a step,
    the input and the sum after it, all steps at once. NaN and inf: the naive
    sum as IEEE says, the errors after it NaN.
    """
    _check(values, fmt)
    with np.errstate(over="ignore", invalid="ignore"):
        running = np.add.accumulate(values, axis=-1)
        errors = two_sum_error(
            values[..., 1:], running[..., :-1], running[..., 1:]
        )
        total = running[..., -1:]
        return np.concatenate([errors, total], axis=-1)
# --8<-- [end:vec_sum]


# --8<-- [start:sum_k]
def sum_k(
    values: np.ndarray, fmt: Format, folds: int = DEFAULT_FOLDS
) -> np.ndarray:
    """SumK along the last axis: K - 1 passes of `vec_sum()`, then a naive sum
    (shape `values.shape[:-1]`).

    `folds` is K (at least 1; K = 1 is the naive sum, K = 2 is Sum2). The naive
    sum runs left to right from the first entry, so a single input comes back
    unchanged (-0.0 included).  NaN and inf propagate into the errors, so a sum
    that meets one is NaN unless K = 1.
    """
    _check(values, fmt)
    _check_folds(folds)
    p = values
    for _ in range(folds - 1):
        p = vec_sum(p, fmt)
    with np.errstate(over="ignore", invalid="ignore"):
        running = np.add.accumulate(p, axis=-1)
        total: np.ndarray = running[..., -1]
    return total
# --8<-- [end:sum_k]


def sum_k_running(values: np.ndarray, fmt: Format, folds: int = DEFAULT_FOLDS) -> np.ndarray:
    """SumK of the first i inputs, for every i: entry i - 1 is ``sum_k(values[..., :i], fmt, folds)``, bit for bit.

    The pass-k vector of a prefix of i inputs is a part that every longer
    prefix shares (the first i - k entries, errors of earlier passes) and k
    entries of its own at the end: the errors of adding its own k trailing
    entries of pass k - 1 to the shared running sum, and the sum.  So each
    pass is one ``np.add.accumulate`` of the shared part, k TwoSums for the
    trailing entries of all prefixes at once, and the final sums are the
    shared running sum plus the K - 1 trailing entries.  Prefixes shorter
    than K are summed on their own.  NaN, inf and -0.0 as in :func:`sum_k`.
    """
    _check(values, fmt)
    _check_folds(folds)
    n = values.shape[-1]
    short = [sum_k(values[..., :i], fmt, folds)[..., np.newaxis] for i in range(1, min(folds - 1, n) + 1)]
    if n < folds:
        return np.concatenate(short, axis=-1)
    shared = values
    own: list[np.ndarray] = []  # pass k: k arrays, entry j for the prefix of k + 1 + j inputs
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(folds - 1):
            running = np.add.accumulate(shared, axis=-1)  # entry j: the shared part of that prefix, summed
            carried, trailing = running, []
            for entry in own:  # a prefix's own entries come after its shared part
                s = entry + carried
                trailing.append(two_sum_error(entry, carried, s))
                carried = s
            trailing.append(carried)
            shared = two_sum_error(shared[..., 1:], running[..., :-1], running[..., 1:])
            own = [t[..., 1:] for t in trailing]  # the next pass starts one prefix later
        totals = np.add.accumulate(shared, axis=-1)
        for entry in own:
            totals = totals + entry
    return np.concatenate([*short, totals], axis=-1)
