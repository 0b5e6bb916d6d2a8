"""Dot products of block-scaled vectors, and their error split into quantization and accumulation.

As modelled: ``x`` and ``y`` are quantized to a block format
(:func:`fpsum.blocks.quantize`); in each block the products of the
elements are summed exactly (the elements have at most 4 significant bits,
so a wide fixed-point sum holds them, as block-scaled multiply units do;
the spec leaves the internal precision and the order of the sums to the
implementation, OCP MX v1.0 sec. 6.1); each block's sum is multiplied by
the two blocks' scales, exactly; and these block values are accumulated,
block after block, in the accumulator:

* a :class:`~fpsum.formats.Format` (FP32 or BF16; FP16 and FP64 too): each
  block value added to the running sum and the sum rounded once, to
  nearest, ties to even;
* a :class:`~fpsum.hardware.TruncatedAccumulator`: the truncating model of
  :mod:`fpsum.hardware` with the block values as its terms,
  ``model.block`` of them a step, its narrow sum added into FP32 every
  ``model.promote_every`` elements (a multiple of the block size times
  ``model.block``).

The two errors are measured exactly, in rationals:
``quantization_rel_error = |q - e| / |e|`` and
``accumulation_rel_error = |r - q| / |q|``, where ``e`` is the exact dot
product of the inputs, ``q`` that of their quantized values, and ``r`` the
computed result (inf where the denominator is 0 and the numerator is not; 0
where both are).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .blocks import BlockFormat, Quantized, element_quantum, quantize
from .exact import exact_sum
from .exact_rounding import round_exact
from .formats import FP32, Format
from .hardware import TruncatedAccumulator
from .textbook import truncating_step

Accumulator = Format | TruncatedAccumulator
LIMB = 16
"""Bits of the low half of an element's integer in :func:`block_values` (products stay within int64)."""


@dataclass(frozen=True)
class BlockDot:
    """One dot product of block-scaled vectors: the result and the parts of its error (see the module docstring).

    ``exact`` and ``quantized`` are the exact dot products of the inputs and
    of their quantized values; the errors are float64 (rounded once from
    the exact ratios).
    """

    result: float
    exact: Fraction
    quantized: Fraction
    quantization_rel_error: float
    accumulation_rel_error: float


def _integers(quantized: Quantized) -> np.ndarray:
    """Each element as the integer it is times 2**element_quantum (int64; |m| < 2**32 for every format)."""
    integers: np.ndarray = np.rint(np.ldexp(quantized.elements, -element_quantum(quantized.fmt))).astype(np.int64)
    return integers


def block_values(xq: Quantized, yq: Quantized) -> list[list[Fraction]]:
    """The exact value of each block's part of the dot product, for each row: sum(e_x e_y) * scales.

    ``xq`` and ``yq``: one block format, one shape (..., K), finite values
    (a NaN or inf block has no integers; -0 elements count as 0).
    The products of the elements' integers are summed in int64 in two
    halves (each below 2**48, so 32 of them cannot overflow), then joined
    and scaled as Python integers.
    """
    fmt = xq.fmt
    size = fmt.block
    rows_x, rows_y = (_integers(q).reshape(-1, q.elements.shape[-1]) for q in (xq, yq))
    k = rows_x.shape[-1]
    padded = -(-k // size) * size
    mx, my = (np.pad(m, ((0, 0), (0, padded - k))).reshape(m.shape[0], -1, size) for m in (rows_x, rows_y))
    high = ((mx >> LIMB) * my).sum(axis=-1).tolist()
    low = ((mx & ((1 << LIMB) - 1)) * my).sum(axis=-1).tolist()
    dividers = [(q.scales * q.tensor_scales[..., np.newaxis]).reshape(mx.shape[0], -1).tolist() for q in (xq, yq)]
    unit = Fraction(2) ** (2 * element_quantum(fmt))
    rows = []
    for r in range(mx.shape[0]):
        rows.append([((h << LIMB) + lo) * unit * Fraction(sx) * Fraction(sy)
                     for h, lo, sx, sy in zip(high[r], low[r], dividers[0][r], dividers[1][r])])
    return rows


# --8<-- [start:accumulate]
def _accumulate_rounded(values: Sequence[Fraction], acc: Format) -> float:
    """Block after block, the running sum plus the block's exact value, rounded
    once to `acc`.
    """
    total = 0.0
    for value in values:
        if not math.isfinite(total):
            break  # an infinity or NaN stays
        total = round_exact(Fraction(total) + value, acc)
    return total
# --8<-- [end:accumulate]


def _accumulate_truncated(values: Sequence[Fraction], model: TruncatedAccumulator, block: int) -> float:
    """The truncating model with the block values as its terms, promoted into FP32 as ``model`` says."""
    every = None if model.promote_every is None else model.promote_every // block
    narrow, wide = Fraction(0), 0.0
    for start in range(0, len(values), model.block):
        narrow = truncating_step(narrow, values[start:start + model.block], model.bits)
        if every is not None and (start + model.block) % every == 0:
            wide, narrow = round_exact(Fraction(wide) + narrow, FP32), Fraction(0)
    return round_exact(Fraction(wide) + narrow, FP32)


def check_accumulator(fmt: BlockFormat, accumulate: Accumulator) -> None:
    """``ValueError`` unless ``accumulate`` can take ``fmt``'s block values.

    A truncating model's promotion must fall on a step boundary: every
    ``promote_every`` elements must be a whole number of its steps of
    ``model.block`` blocks.  Only the formats are checked: no NaN, inf or -0 is involved.
    """
    if isinstance(accumulate, TruncatedAccumulator) and accumulate.promote_every is not None:
        step = fmt.block * accumulate.block
        if accumulate.promote_every % step:
            raise ValueError(f"promotion every {accumulate.promote_every} elements does not fall on a step of "
                             f"{accumulate.block} blocks of {fmt.block} ({step} elements)")


def _relative(error: Fraction, reference: Fraction) -> float:
    if reference == 0:
        return 0.0 if error == 0 else math.inf
    return float(abs(error) / abs(reference))


def _exact_dots(x: np.ndarray, y: np.ndarray) -> list[Fraction]:
    """The exact dot product of each row: through float64 products where they are exact (inputs that are FP32
    values, whose products have at most 48 bits), else in Fractions.
    """
    rows_x, rows_y = x.reshape(-1, x.shape[-1]), y.reshape(-1, y.shape[-1])
    if all(np.array_equal(v.astype(np.float32).astype(np.float64), v) for v in (rows_x, rows_y)):
        return [exact_sum(row) for row in rows_x * rows_y]
    return [sum((Fraction(a) * Fraction(b) for a, b in zip(xs, ys)), Fraction(0))
            for xs, ys in zip(rows_x.tolist(), rows_y.tolist())]


def block_dots(x: np.ndarray, y: np.ndarray, fmt: BlockFormat,
               accumulators: Sequence[Accumulator]) -> list[list[BlockDot]]:
    """Dot products of the rows of ``x`` and ``y`` (float64, shape (..., K), finite) in the block format ``fmt``,
    accumulated in each of ``accumulators``: one list per accumulator, one :class:`BlockDot` per row.

    The inputs are quantized, and the block values formed, once for all
    accumulators.  ``ValueError`` for NaN or inf inputs, shapes that differ,
    K = 0, or an accumulator that cannot take the block format
    (:func:`check_accumulator`).
    """
    x64, y64 = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x64.shape != y64.shape:
        raise ValueError(f"x has shape {x64.shape} but y has shape {y64.shape}")
    if not (np.isfinite(x64).all() and np.isfinite(y64).all()):
        raise ValueError("a block-scaled dot product takes finite inputs")
    for accumulate in accumulators:
        check_accumulator(fmt, accumulate)
    rows = block_values(quantize(x64, fmt), quantize(y64, fmt))
    exacts = _exact_dots(x64, y64)
    quantized = [sum(values, Fraction(0)) for values in rows]
    out = []
    for accumulate in accumulators:
        dots = []
        for values, exact, q in zip(rows, exacts, quantized):
            if isinstance(accumulate, TruncatedAccumulator):
                result = _accumulate_truncated(values, accumulate, fmt.block)
            else:
                result = _accumulate_rounded(values, accumulate)
            accumulation = _relative(Fraction(result) - q, q) if math.isfinite(result) else math.inf
            dots.append(BlockDot(result, exact, q, _relative(q - exact, exact), accumulation))
        out.append(dots)
    return out


def block_dot(x: np.ndarray, y: np.ndarray, fmt: BlockFormat, accumulate: Accumulator) -> list[BlockDot]:
    """:func:`block_dots` with one accumulator: one :class:`BlockDot` per row (a 1-D input is one row).

    ``ValueError`` for NaN or inf inputs; -0 is a zero like any other.
    """
    return block_dots(x, y, fmt, [accumulate])[0]
