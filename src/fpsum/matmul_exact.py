"""The exact matrix product, every entry correctly rounded to float64: what the rounded products are measured against.

Where it can, :func:`exact_matmul` cuts both matrices into integer slices
narrow enough that float64 matrix products of them are exact
(``_exact_by_slices``) and adds the levels up with one rounding
(``_correctly_rounded``); else it sums each entry's exact products with
:func:`fpsum.exact.exact_running`.  Apart from the rounded products
(:mod:`fpsum.matmul`) because it shares none of their arithmetic, only the
checks and the exact products of :mod:`fpsum.matmul_operands`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .dot import input_format
from .exact import exact_running
from .matmul_operands import _check, _counts, _exact_dtype, _group_products, _row_groups

MAX_SLICES = 4  # per matrix: slices of 17 bits or more cover the significands of every input format
SPARSE = 1 / 16  # slices nonzero in fewer than this share of entries are multiplied term by term


@dataclass(frozen=True)
class _Slices:
    """A matrix in ``count`` integer slices: ``sum(slice(j) * 2**(shift + (count - 1 - j) * width))``.

    Every slice holds whole numbers below ``2**width`` in magnitude.  The
    first is kept whole (``first``, float64); the others whole too
    (``low``, ``(count - 1, *shape)``), or, where only a few entries can be
    nonzero in them (``where``, their rows and columns), as those entries'
    digits (``digits``, ``(count - 1, entries)``).
    """

    first: np.ndarray
    low: np.ndarray | None
    where: tuple[np.ndarray, np.ndarray] | None
    digits: np.ndarray | None
    count: int
    shift: int

    def whole(self, j: int) -> np.ndarray:
        """Slice j as a float64 matrix (made from the digits where they are kept few)."""
        if j == 0:
            return self.first
        if self.low is not None:
            low: np.ndarray = self.low[j - 1]
            return low
        assert self.where is not None and self.digits is not None
        made = np.zeros(self.first.shape)
        made[self.where] = self.digits[j - 1]
        return made

    def terms(self, j: int, transposed: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Slice j's (rows, columns, values) where it is kept as a few digits, else None (of the transpose if asked)."""
        if j == 0 or self.where is None or self.digits is None:
            return None
        rows, columns = self.where
        return (columns, rows, self.digits[j - 1]) if transposed else (rows, columns, self.digits[j - 1])


def _slices(matrix: np.ndarray, width: int) -> _Slices | None:
    """``matrix`` (finite values of an input format) cut into integer slices of ``width`` bits, or None.

    The top ``width`` bits below the largest binade first; as many slices as
    the binades from the largest value down to the last bit of the smallest
    one need, worked out from those two.  None if that is more than
    :data:`MAX_SLICES` (values spread over too many binades) or would leave
    float64's exponent range; an all-zero matrix is no slices at all.  The
    cutting is exact: power-of-two scalings, dropping fractions, and
    subtracting them, in float32 where every scaling stays in its range.
    Only values below ``2**(top - width + precision - 1)`` have bits below
    the first slice's; where they are fewer than :data:`SPARSE` of all,
    only their digits are kept for the other slices.
    """
    precision = input_format(matrix.dtype).precision
    work: np.ndarray = matrix.astype(np.float32)  # exact: input formats are at most FP32
    largest = max(float(work.max()), -float(work.min()))
    if largest == 0:
        return _Slices(first=np.zeros(matrix.shape), low=None, where=None, digits=None, count=0, shift=0)
    magnitudes = np.abs(work)
    smallest = float(magnitudes.min(initial=np.inf, where=work != 0))
    top = math.frexp(largest)[1]  # every |value| < 2**top
    lowest = math.frexp(smallest)[1] - precision  # every value is a whole multiple of 2**lowest
    count = -(-(top - lowest) // width)
    shift = top - count * width  # the last slice's scale
    if count > MAX_SLICES or shift < -1000:
        return None
    small = magnitudes < 2.0 ** (top - width + precision - 1)  # the rest are whole multiples of 2**(top - width)
    few = count > 1 and np.count_nonzero(small) < SPARSE * small.size
    where = np.nonzero(small) if few else None
    if not 0 <= width - top <= 127:
        work = work.astype(np.float64)  # a scaling down could underflow float32, one by over 2**127 is not in it
    rest: np.ndarray = (work[where] if where is not None else work) * 2.0 ** (width - top)  # exact; below 2**width
    first = np.trunc(work * 2.0 ** (width - top)).astype(np.float64) if where is not None else None
    cut = np.empty((count,) + rest.shape)
    for j in range(count):
        whole = np.trunc(rest)
        cut[j] = whole
        if j + 1 < count:
            rest -= whole  # exact: the fraction, below 1 in magnitude
            rest *= 2.0**width  # exact: the next width bits move above the point
    if where is None:
        return _Slices(first=cut[0], low=cut[1:], where=None, digits=None, count=count, shift=shift)
    assert first is not None
    return _Slices(first=first, low=None, where=(where[0], where[1]), digits=cut[1:], count=count, shift=shift)


def _correctly_rounded(levels: list[np.ndarray], width: int, shift: int) -> np.ndarray:
    """``sum(levels[l] * 2**((L - l) * width)) * 2**shift`` correctly rounded to float64, ``L = len(levels) - 1``.

    Each level holds whole numbers below 2**52 in magnitude.  Carries go up
    from the last level so that every level below the first keeps a digit
    in [0, 2**width): each step is exact, and the first level stays below
    2**53.  Digits that fit in 53 bits together make one float64, so the
    first level plus that is one rounding of the exact sum; more digits than
    that go to :func:`fpsum.exact.exact_running`.  An exact zero is +0.0.
    """
    digits = [level.copy() for level in levels]
    for low in range(len(digits) - 1, 0, -1):
        carry = np.floor(digits[low] * 2.0**-width)  # exact: a power-of-two scaling, then whole numbers
        digits[low] -= carry * 2.0**width  # exact: the digit left, 0 <= digit < 2**width
        digits[low - 1] += carry  # exact: |carry| < 2**(52 - width), the sum stays below 2**53
    last = len(digits) - 1
    if last * width <= 53:
        below = np.zeros_like(digits[0])
        for place, digit in enumerate(digits[1:], 1):
            below += digit * 2.0 ** ((last - place) * width)  # exact: digits that do not overlap, below 2**53
        rounded: np.ndarray = np.ldexp(digits[0] * 2.0 ** (last * width) + below + 0.0, shift)  # one rounding
        return rounded
    terms = np.stack([np.ldexp(digit, shift + (last - place) * width) for place, digit in enumerate(digits)], axis=-1)
    return exact_running(terms.reshape(-1, len(digits)), np.array([len(digits)])).reshape(terms.shape[:-1])


def _exact_by_slices(a: np.ndarray, b: np.ndarray, counts: np.ndarray) -> np.ndarray | None:
    """The exact product at every count in ``counts``, correctly rounded to float64; None if not to be had this way.

    Cut ``a`` and ``b`` into integer slices (:func:`_slices`) narrow enough
    that every product of two slice entries, and every sum of 4K of them, is
    an integer below 2**52: then a float64 matrix product, summed in any
    order, is exact for every pair of slices, block by block of K between
    the counts, and so is adding up the pairs of one scale.  A pair with a
    slice of few nonzeros goes term by term (:func:`_term_by_term`), the
    others through einsum's own loop, not the BLAS: its threads, on a busy
    machine, can take longer to meet than to multiply.  The exact entry is
    the sum of those scaled levels, correctly rounded by
    :func:`_correctly_rounded`.  A fraction of a second where the
    product-by-product route takes seconds; finite inputs only.
    """
    (m, k), n = a.shape, b.shape[1]
    width = (50 - max(k, 1).bit_length()) // 2  # 4 * K * 2**(2 * width) <= 2**52
    if width < 12:
        return None
    left, right = _slices(a, width), _slices(b, width)
    if left is None or right is None:
        return None
    if left.count == 0 or right.count == 0:
        return np.zeros((counts.size, m, n))
    if left.shift + right.shift < -1000:
        return None
    edges = np.concatenate([[0], counts])
    levels = [np.zeros((counts.size, m, n)) for _ in range(left.count + right.count - 1)]
    for p in range(left.count):
        for q in range(right.count):
            left_terms, right_terms = left.terms(p), right.terms(q, transposed=True)
            if left_terms is not None:
                blocks = _term_by_term(left_terms, m, right.whole(q), edges)
            elif right_terms is not None:
                blocks = np.swapaxes(_term_by_term(right_terms, n, left.whole(p).T, edges), 1, 2)
            else:
                bounds = edges.tolist()
                blocks = np.stack([np.einsum("ik,kj->ij", left.whole(p)[:, lo:hi], right.whole(q)[lo:hi])
                                   for lo, hi in zip(bounds[:-1], bounds[1:])])
            levels[p + q] += np.cumsum(blocks, axis=0)  # exact: whole numbers below 2**52
    return _correctly_rounded(levels, width, left.shift + right.shift)


def _term_by_term(terms: tuple[np.ndarray, np.ndarray, np.ndarray], m: int, right: np.ndarray,
                  edges: np.ndarray) -> np.ndarray:
    """``left[:, lo:hi] @ right[lo:hi]`` for each block of K between ``edges``, from ``left``'s nonzero ``terms``.

    ``left`` has ``m`` rows; the result is ``(blocks, m, right's columns)``.

    Each term ``left[i, k]`` times row k of ``right`` is added to row i of its
    block: whole numbers, so in any order the sums are exact, as the BLAS's are.
    """
    rows, ks, values = terms
    blocks = np.searchsorted(edges, ks, side="right") - 1  # the block of K each term falls in
    out = np.zeros((edges.size - 1, m, right.shape[1]))
    np.add.at(out, (blocks, rows), values[:, np.newaxis] * right[ks])
    return out


def exact_matmul(a: np.ndarray, b: np.ndarray, *, at: np.ndarray | None = None) -> np.ndarray:
    """The exact ``a @ b``, every entry correctly rounded to float64; ``(..., m, n)``, or ``(len(at), ..., m, n)``.

    ``a`` and ``b`` hold values of one input format (up to FP32, so the
    float64 products are exact), shapes ``(..., m, K)`` and ``(..., K, n)``
    with leading axes that broadcast, as in :func:`matmul`.  Exact float64
    matrix products of integer slices where they can be had
    (:func:`_exact_by_slices`), else :func:`fpsum.exact.exact_running` of each
    entry's exact products, a group of rows at a time.  ``ValueError`` for
    NaN or inf values (no exact value), mismatched shapes or a bad ``at``;
    -0.0 counts as zero and an exact zero is +0.0.
    """
    lead = _check(a, b, None)
    input_format(a.dtype)  # TypeError for a dtype that is not an input format's
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("an exact matrix product needs finite inputs")
    (m, k), n = a.shape[-2:], b.shape[-1]
    counts = _counts(at, k)
    a, b = np.broadcast_to(a, lead + (m, k)), np.broadcast_to(b, lead + (k, n))
    out = np.empty((counts.size,) + lead + (m, n))
    for index in np.ndindex(*lead):
        out[(slice(None),) + index] = _exact_one(a[index], b[index], counts)
    return out[0] if at is None else out


def _exact_one(a: np.ndarray, b: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """:func:`exact_matmul` of one pair of matrices (finite, checked), ``(counts, m, n)``."""
    sliced = _exact_by_slices(a, b, counts)
    if sliced is not None:
        return sliced
    (m, k), n = a.shape, b.shape[1]
    out = np.empty((counts.size, m, n))
    b_columns: np.ndarray = np.ascontiguousarray(b.T).astype(_exact_dtype(a, b))  # float32 if exact: fewer digits
    for rows in _row_groups(m, n, k):
        group = _group_products(a, b_columns, rows)
        sums = exact_running(group.reshape(-1, k), counts).reshape(group.shape[:2] + (counts.size,))
        out[:, rows] = np.moveaxis(sums, -1, 0)
    return out
