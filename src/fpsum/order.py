"""The order of a sum: the same inputs, added in other orders, give other totals.

Floating-point addition is commutative but not associative, so a sum's
value depends on the order of its additions.  Three ways to change it: a
random permutation of the inputs (:func:`shuffled_totals`), a sort
(:func:`sorted_totals`), and the shape of a parallel reduction
(:func:`tree_reduction`, as a GPU splits a sum among threads).  Every
operation rounds to the working format, as in :mod:`fpsum.methods`.
"""

from __future__ import annotations

import numpy as np

from .formats import Format
from .methods import total
from .names import Method
from .pairwise import pairwise_sum

ORDER_STREAM = 0x4F52  # keeps the permutations' draws apart from the inputs' stream


def _check_1d(values: np.ndarray, fmt: Format) -> None:
    if values.dtype != fmt.dtype:
        raise TypeError(f"inputs are {values.dtype}, expected {fmt.dtype} for {fmt.label}")
    if values.ndim != 1 or values.size < 1:
        raise ValueError(f"expected a 1-D array of at least one input, got shape {values.shape}")


# --8<-- [start:orders]
def random_orders(n: int, orders: int, seed: int) -> np.ndarray:
    """`orders` random permutations of `0 .. n-1`, one per row: int64, shape
    `(orders, n)`.

    Uniform over permutations, from NumPy's PCG64 stream for
    `(ORDER_STREAM, seed)`: a stream of its own, because the one that drew the
    inputs (same seed) would make the first "random" order the inputs' sorted
    order.  Indices, not floats: no NaN, inf or -0 cases. `ValueError` unless
    `n` and `orders` are at least 1.
    """
    if n < 1 or orders < 1:
        raise ValueError(
            f"n and orders must be at least 1, got {n} and {orders}"
        )
    rng = np.random.default_rng([ORDER_STREAM, seed])
    indices = np.arange(n, dtype=np.int64)
    rows = np.tile(indices, (orders, 1))
    return rng.permuted(rows, axis=1)


def totals_in_orders(
    values: np.ndarray,
    orders: np.ndarray,
    fmt: Format,
    method: Method = "naive",
    *,
    seed: int = 0,
) -> np.ndarray:
    """The total of `values[order]` for each row `order` of `orders` (shape
    `(k, n)`); shape `(k,)`.

    All orders at once: one `(k, n)` array of permuted inputs, summed by
    `fpsum.methods.total()` (in its dtype: `fmt`'s, or the accumulator's for
    `wide`; `seed` is for `stochastic` only). `values` is 1-D in `fmt.dtype`; a
    row need not be a permutation. NaN, inf and -0.0 as the method says (for a
    naive sum, an exact zero is -0.0 only if every input is, in any order).
    """
    _check_1d(values, fmt)
    orders = np.asarray(orders)
    if orders.ndim != 2 or orders.shape[1] != values.size:
        raise ValueError(
            f"orders must have shape (k, {values.size}), got {orders.shape}"
        )
    totals = total(method, values[orders], fmt, seed=seed)
    return np.asarray(totals)
# --8<-- [end:orders]


def shuffled_totals(values: np.ndarray, fmt: Format, orders: int, seed: int, method: Method = "naive") -> np.ndarray:
    """The total of ``values`` in ``orders`` random orders (:func:`random_orders` with ``seed``); shape ``(orders,)``.

    ``values`` is 1-D in ``fmt.dtype``; the result is in the method's dtype,
    as :func:`fpsum.methods.total` gives it (``seed`` also seeds stochastic
    rounding's own stream, for that method).  Memory: an ``(orders, n)``
    array of inputs and one of indices.  NaN, inf and -0.0 as in
    :func:`totals_in_orders`.
    """
    _check_1d(values, fmt)
    return totals_in_orders(values, random_orders(values.size, orders, seed), fmt, method, seed=seed)


def sorted_totals(values: np.ndarray, fmt: Format, method: Method = "naive") -> dict[str, float]:
    """The total of ``values`` sorted four ways, as Python floats.

    Keys: ``"ascending"`` and ``"descending"`` (by value), and
    ``"ascending_magnitude"`` and ``"descending_magnitude"`` (by absolute
    value).  Sorts are stable (equal values, -0.0 and +0.0 among them, keep
    their order) and a descending order is the ascending one reversed.
    NaN inputs sort last in both ascending orders (first in the
    descending ones) and make every total NaN anyway; +-inf sort by value.
    """
    _check_1d(values, fmt)
    wide = values.astype(np.float64)
    by_value = np.argsort(wide, kind="stable")
    by_magnitude = np.argsort(np.abs(wide), kind="stable")
    orders = np.stack([by_value, by_value[::-1], by_magnitude, by_magnitude[::-1]])
    totals = totals_in_orders(values, orders, fmt, method).astype(np.float64)
    keys = ("ascending", "descending", "ascending_magnitude", "descending_magnitude")
    return {key: float(t) for key, t in zip(keys, totals)}


# --8<-- [start:tree]
def tree_reduction(
    values: np.ndarray, fmt: Format, workers: int
) -> np.ndarray:
    """A GPU-style reduction: `workers` grid-stride naive sums, then a pairwise
    tree over them.

    Worker t adds `values[t]`, `values[t + workers]`,
    `values[t + 2 * workers]`, ... left to right (the loop each thread of a
    reduction kernel runs), and the `workers` partial sums are added by
    `fpsum.pairwise.pairwise_sum()` (a balanced tree when `workers` is a power
    of two).  `workers = 1` is the naive sum; `workers = n` gives each worker
    one input, so the result is the pairwise sum of the inputs in their own
    order.  Every addition rounds to `fmt` (real kernels often accumulate
    16-bit inputs in FP32; this models a reduction in the format itself).
    `values` has shape `(..., n)` in `fmt.dtype`; the result has shape
    `values.shape[:-1]`, in `fmt.dtype`.  `ValueError` unless
    `1 <= workers <= n`.  NaN and inf propagate (inf + -inf is NaN); padding is
    -0.0, which changes nothing, so -0.0 sums stay -0.0.
    """
    if values.dtype != fmt.dtype:
        raise TypeError(
            f"inputs are {values.dtype}, expected {fmt.dtype} for {fmt.label}"
        )
    n = values.shape[-1]
    if not 1 <= workers <= n:
        raise ValueError(
            f"workers must be between 1 and n = {n}, got {workers}"
        )
    rounds = -(-n // workers)  # the longest worker's count
    rows = values.shape[:-1]
    # x + -0 == x
    padded = np.full(rows + (rounds * workers,), -0.0, dtype=values.dtype)
    padded[..., :n] = values
    # Row r holds the r-th input of every worker: worker t's inputs are column
    # t.
    grid = padded.reshape(rows + (rounds, workers))
    with np.errstate(over="ignore", invalid="ignore"):
        # rounds to fmt after every addition
        running = np.add.accumulate(grid, axis=-2)
        partials = running[..., -1, :]
    return np.asarray(pairwise_sum(partials, fmt))
# --8<-- [end:tree]
