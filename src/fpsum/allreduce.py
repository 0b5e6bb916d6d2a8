"""One element's all-reduce over N ranks: ring, tree, all-to-all or an in-network switch, with averaging.

A collective reduces one value per rank, element by element, so one element
tells the whole story.  The values are held in the *wire* format, the format
the buffer holds and the ranks send to each other; every addition is rounded
to the *accumulation* format (at least as wide as the wire) and, where its
result is sent on, to the wire format as well, ties to even throughout:

* **ring** (reduce-scatter, then all-gather): for the element in chunk c the
  partial sum starts at rank (c + 1) mod N and travels the ring; at each hop
  the receiving rank adds its own value in the accumulation format and
  rounds the result to the wire format to send it on.  The all-gather
  copies the result unchanged.
* **tree**: a binary tree of the ranks, split as the pairwise sum splits
  (:func:`fpsum.pairwise.pairwise_split`); each sum is rounded to the wire
  format before it is sent up.
* **alltoall**: the rank that owns the chunk receives the N values in the
  wire format and sums them once, in rank order, in the accumulation format;
  only the result is rounded to the wire format.
* **switch**: the exact sum rounded once to the wire format (an idealised
  in-network reduction; the accumulation format plays no part).

Averaging is ``none``, ``pre`` (1/N rounded to the wire format, each value
multiplied by it and the product rounded to the wire format, before the
reduction) or ``post`` (the result divided by N once, the quotient rounded
to the wire format).  :func:`reduce_ranks` runs many elements at once (any
leading axes, N on the last); :func:`allreduce` reduces one element and
reports its exact value and error.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, get_args

import numpy as np

from .array_rounding import to_format
from .correct import correct_sum
from .exact import exact_sum
from .exact_rounding import round_exact
from .formats import Format
from .pairwise import pairwise_split
from .rounded_once import round_quotient

Algorithm = Literal["ring", "tree", "alltoall", "switch"]
ALGORITHMS: tuple[Algorithm, ...] = get_args(Algorithm)
Average = Literal["none", "pre", "post"]
AVERAGES: tuple[Average, ...] = get_args(Average)


def check_accumulator(wire: Format, accumulate: Format) -> None:
    """``ValueError`` unless ``accumulate`` holds every value of ``wire`` (precision and exponent range).

    A format narrower than the wire (BF16 under an FP16 wire, say: fewer
    bits of precision) could not even hold the values it is given.  Formats
    only, so nothing here meets NaN, inf or -0.
    """
    if (accumulate.precision < wire.precision or accumulate.emax < wire.emax
            or accumulate.emin > wire.emin):
        raise ValueError(f"the accumulation format {accumulate.label} is narrower than the wire format "
                         f"{wire.label}: it cannot hold every value sent")


def ring_orders(n: int, chunks: np.ndarray | int, direction: int = 1) -> np.ndarray:
    """The ranks in the order the ring adds their values, for an element in each chunk: shape ``chunks.shape + (n,)``.

    Chunk c starts at rank (c + 1) mod N, goes up the ring and ends at rank
    c, which holds the reduced chunk.  ``direction=-1`` is the ring the other
    way round, as gloo's sends (each rank receives from rank + 1 and sends to
    rank - 1): chunk c then starts at rank (c - 1) mod N and goes down to c.
    ``ValueError`` for a chunk outside 0..N-1, N < 1 or another direction.
    Integers only: no NaN, inf or -0 cases.
    """
    if n < 1:
        raise ValueError("a reduction needs at least one rank")
    if direction not in (1, -1):
        raise ValueError(f"a ring goes up (1) or down (-1), not {direction}")
    chunk = np.asarray(chunks, dtype=np.int64)
    if chunk.size and (chunk.min() < 0 or chunk.max() >= n):
        raise ValueError(f"a chunk of a ring over {n} ranks lies between 0 and {n - 1}")
    orders: np.ndarray = (chunk[..., np.newaxis] + direction * (1 + np.arange(n))) % n
    return orders


def _add_on_wire(partial: np.ndarray, own: np.ndarray, wire: Format, accumulate: Format) -> np.ndarray:
    """``partial + own`` rounded to ``accumulate``, then to ``wire`` (both in ``wire.dtype``): one hop of a reduction.

    Each value of the wire format is exact in the accumulation format, so
    the addition there rounds once (in its dtype's arithmetic, as every
    method of the model does), and :func:`fpsum.array_rounding.to_format`
    rounds that sum once more, to the wire.
    """
    if accumulate == wire:
        same: np.ndarray = partial + own
        return same
    wide = partial.astype(accumulate.dtype) + own.astype(accumulate.dtype)
    return to_format(wide.astype(np.float64), wire)


# --8<-- [start:ring]
def ring_sum(
    values: np.ndarray,
    wire: Format,
    accumulate: Format,
    chunk: np.ndarray | int = 0,
    direction: int = 1,
) -> np.ndarray:
    """The ring's reduce-scatter of each element (the value of rank r in
    `values[..., r]`), the element lying in `chunk`.

    The partial sum starts at rank (chunk + 1) mod N; each of the N - 1 hops
    adds the receiving rank's own value in `accumulate` and rounds the sum to
    `wire` to send it on (`direction=-1`: from rank (chunk - 1) mod N down
    the ring). NaN and inf propagate (inf + -inf is NaN); -0.0 + -0.0 stays
    -0.0.
    """
    n = values.shape[-1]
    chunks = np.broadcast_to(chunk, values.shape[:-1])
    order = ring_orders(n, chunks, direction)  # the ranks, hop by hop
    ordered = np.take_along_axis(values, order, axis=-1)
    partial = ordered[..., 0]  # the first rank sends its own value
    with np.errstate(over="ignore", invalid="ignore"):
        for hop in range(1, n):
            own = ordered[..., hop]  # the value of the rank it reaches
            partial = _add_on_wire(partial, own, wire, accumulate)
    return partial
# --8<-- [end:ring]


def tree_sum(values: np.ndarray, wire: Format, accumulate: Format) -> np.ndarray:
    """A binary tree of the ranks, split as the pairwise sum splits, each sum rounded to ``accumulate`` then ``wire``.

    A power-of-two N is a balanced tree, one level at a time; any other N
    splits at :func:`fpsum.pairwise.pairwise_split`.  NaN and inf propagate
    up the tree (inf + -inf is NaN); -0.0 + -0.0 stays -0.0.
    """
    n = values.shape[-1]
    with np.errstate(over="ignore", invalid="ignore"):
        if n & (n - 1) == 0:
            level = values
            while level.shape[-1] > 1:
                level = _add_on_wire(level[..., 0::2], level[..., 1::2], wire, accumulate)
            return level[..., 0]
        left = pairwise_split(n)
        halves = tree_sum(values[..., :left], wire, accumulate), tree_sum(values[..., left:], wire, accumulate)
        return _add_on_wire(*halves, wire, accumulate)


def alltoall_sum(values: np.ndarray, wire: Format, accumulate: Format) -> np.ndarray:
    """The N values summed in rank order in ``accumulate``, only the result rounded to ``wire``.

    NaN and inf propagate (inf + -inf is NaN); a sum that overflows the wire
    format becomes inf (NaN or +-max_finite as the format overflows); a sum
    of -0.0 values stays -0.0.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        running = np.add.accumulate(values.astype(accumulate.dtype), axis=-1)  # rounds after each addition
        return to_format(running[..., -1].astype(np.float64), wire)


def _pre_divide(values: np.ndarray, wire: Format) -> np.ndarray:
    """Each value times 1/N rounded to ``wire``, the product rounded to ``wire``.

    The product of two values of a format up to FP32 is exact in float64
    (at most 48 bits), so rounding it is the one rounding; in FP64 the
    float64 product is itself the rounded one.
    """
    scale = round_exact(Fraction(1, values.shape[-1]), wire)
    with np.errstate(over="ignore", invalid="ignore"):
        return to_format(values.astype(np.float64) * scale, wire)


def reduce_ranks(values: np.ndarray, algorithm: Algorithm, wire: Format, accumulate: Format | None = None,
                 average: Average = "none", chunk: np.ndarray | int = 0, direction: int = 1) -> np.ndarray:
    """The all-reduced value of each element: ``values`` has the N ranks on its last axis, in ``wire.dtype``.

    ``accumulate`` defaults to ``wire``; ``chunk`` (an int, or an array
    broadcast against ``values.shape[:-1]``) and ``direction`` (1 up the
    ring, -1 down it: :func:`ring_orders`) matter to the ring alone.
    Returns ``values.shape[:-1]`` in ``wire.dtype``.  ``TypeError`` for
    values of another dtype; ``ValueError`` for an unknown algorithm or
    averaging, no ranks, an accumulation format narrower than the wire, or a
    chunk outside 0..N-1.  NaN and inf propagate as IEEE says (inf + -inf is
    NaN; the switch sees the exact sum, so one inf gives inf); a sum of -0.0
    values is -0.0.
    """
    if values.dtype != wire.dtype:
        raise TypeError(f"inputs are {values.dtype}, expected {wire.dtype} for {wire.label}")
    n = values.shape[-1]
    if n < 1:
        raise ValueError("a reduction needs at least one rank")
    acc = wire if accumulate is None else accumulate
    check_accumulator(wire, acc)
    if average not in AVERAGES:
        raise ValueError(f"unknown averaging {average!r} (choose from {', '.join(AVERAGES)})")
    ring_orders(n, chunk, direction)  # checks the chunk and the direction, whatever the algorithm
    sent = _pre_divide(values, wire) if average == "pre" else values
    if algorithm == "ring":
        result = ring_sum(sent, wire, acc, chunk, direction)
    elif algorithm == "tree":
        result = tree_sum(sent, wire, acc)
    elif algorithm == "alltoall":
        result = alltoall_sum(sent, wire, acc)
    elif algorithm == "switch":
        result = correct_sum(sent, wire)
    else:
        raise ValueError(f"unknown algorithm {algorithm!r} (choose from {', '.join(ALGORITHMS)})")
    if average == "post":
        return round_quotient(result.astype(np.float64), np.full(result.shape, float(n)), wire).astype(wire.dtype)
    return np.asarray(result)


@dataclass(frozen=True)
class Reduction:
    """One element's all-reduce: the result, its exact value and relative error, and the ring's order.

    Attributes:
        result: the reduced value, a value of the wire format.
        exact: the exact sum of the rank values (as rounded to the wire),
            divided by N when averaging.
        rel_error: ``|result - exact| / |exact|``; 0 for an exact zero met
            exactly, inf for a nonzero error on a zero sum or an infinite result.
        order: for the ring, the rank indices in the order their values
            were added; None for the other algorithms.
    """

    result: float
    exact: Fraction
    rel_error: float
    order: tuple[int, ...] | None


def relative_error(result: float, exact: Fraction) -> float:
    """``|result - exact| / |exact|`` as a float: 0 if both are zero, inf for an error on a zero sum.

    An inf result gives inf, a NaN result NaN; -0.0 counts as zero.
    """
    if math.isnan(result):
        return math.nan
    if math.isinf(result):
        return math.inf
    error = abs(Fraction(result) - exact)
    if exact == 0:
        return 0.0 if error == 0 else math.inf
    return float(error / abs(exact))


def allreduce(values: Sequence[float] | np.ndarray, algorithm: Algorithm, wire: Format,
              accumulate: Format | None = None, average: Average = "none", chunk: int = 0,
              direction: int = 1) -> Reduction:
    """One element's all-reduce (rank r's value is ``values[r]``, rounded to ``wire`` first), with its exact value.

    The same arithmetic as :func:`reduce_ranks`, and the same ``ValueError``
    cases; the values must be finite (``ValueError`` for NaN or inf: such a
    sum has no exact value), though the result may still overflow to inf
    (relative error inf).  -0.0 values add nothing to the exact sum.
    """
    wide = np.asarray(values, dtype=np.float64)
    if wide.ndim != 1:
        raise ValueError("one element's reduction takes one value per rank (a 1-D sequence)")
    if not np.all(np.isfinite(wide)):
        raise ValueError("an all-reduce's exact value needs finite inputs")
    held = to_format(wide, wire)
    result = float(reduce_ranks(held, algorithm, wire, accumulate, average, chunk, direction).astype(np.float64))
    n = held.shape[-1]
    exact = exact_sum(held.astype(np.float64)) / (n if average != "none" else 1)
    order = tuple(ring_orders(n, chunk, direction).tolist()) if algorithm == "ring" else None
    return Reduction(result, exact, relative_error(result, exact), order)
