"""Pairwise summation: the inputs split at the largest power of two below n, each part summed the same way.

:func:`pairwise_sum` is the tree, every addition rounded to the format (the
page shows it); :func:`pairwise_running` gives the tree's sum of every
prefix in about half a pass per binary digit of n, and :func:`pairwise_at`
the sums of chosen prefixes from one pyramid of pair sums, for the sweeps
over n.  Together because all three add the same tree, bit for bit.
"""

from __future__ import annotations

import numpy as np

from .formats import Format
from .method_checks import _check, _prefix_counts

PAIRWISE_CHUNK = 1 << 14
"""Inputs per aligned chunk whose pair sums :func:`pairwise_at` takes in cache (a power of two)."""


# --8<-- [start:pairwise]
def pairwise_split(n: int) -> int:
    """Size of the left part of a pairwise sum of `n >= 2` inputs.

    The largest power of two strictly below `n`: a power-of-two `n` splits in
    half all the way down, a perfectly balanced tree.  A count, not a float: no
    NaN, inf or -0 cases; `n` below 2 is meaningless.
    """
    return 1 << ((n - 1).bit_length() - 1)


def pairwise_sum(values: np.ndarray, fmt: Format) -> np.ndarray:
    """Pairwise sum along the last axis: (left part) + (right part), each
    rounded to `fmt`.

    A power-of-two part is a balanced tree, added one level at a time (pairs,
    then pairs of pairs); any other `n` splits at `pairwise_split()`. The
    running version below gives the same bits for every prefix at once. NaN and
    inf propagate up the tree (inf + -inf is NaN); -0.0 + -0.0 stays -0.0.
    """
    _check(values, fmt)
    n = values.shape[-1]
    with np.errstate(over="ignore", invalid="ignore"):
        if n & (n - 1) == 0:
            level = values
            while level.shape[-1] > 1:
                level = level[..., 0::2] + level[..., 1::2]
            return level[..., 0]
        left = pairwise_split(n)
        result: np.ndarray = pairwise_sum(
            values[..., :left], fmt
        ) + pairwise_sum(values[..., left:], fmt)
    return result
# --8<-- [end:pairwise]


def pairwise_running(values: np.ndarray, fmt: Format) -> np.ndarray:
    """The pairwise sum of the first i inputs, for every i, as :func:`pairwise_sum` computes it.

    Within every aligned block of 2**(L+1) inputs, the pairwise sum of a
    prefix that reaches into the right half is (balanced sum of the left
    half) + (pairwise sum of the part of the prefix within the right half):
    the tree adds the larger block to the smaller ones, the smallest first.
    So, level by level, every right half gets its left half's balanced sum
    added in place: about half a pass per binary digit of n, and the same
    bits as the tree for every prefix.  The padding up to a power of two never
    reaches a prefix that is kept.  NaN, inf and -0.0 behave as in
    :func:`pairwise_sum`, prefix by prefix.
    """
    _check(values, fmt)
    n = values.shape[-1]
    size = 1 << (n - 1).bit_length()
    lead = values.shape[:-1]
    running = np.zeros(lead + (size,), dtype=values.dtype)
    running[..., :n] = values
    level = running.copy()  # balanced sums of the aligned blocks of the current size
    half = 1
    with np.errstate(over="ignore", invalid="ignore"):
        while half < size:
            blocks = running.reshape(lead + (size // (2 * half), 2, half))
            blocks[..., 1, :] += level[..., 0::2, np.newaxis]
            level = level[..., 0::2] + level[..., 1::2]
            half *= 2
    return running[..., :n]


def pairwise_at(values: np.ndarray, fmt: Format, counts: np.ndarray) -> np.ndarray:
    """``pairwise_sum(values[..., :c])`` for each c in ``counts``: shape ``values.shape[:-1] + (len(counts),)``.

    The tree of a prefix of c inputs is one aligned balanced block per binary
    digit of c, largest first, added from the smallest up (each block is the
    left part of what follows it).  A balanced block is an entry of the
    pyramid of pair sums (level a holds the sums of the aligned blocks of
    2**a inputs), so one pyramid up to ``max(counts)`` gives every prefix: about
    ``max(counts)`` additions in all, however many counts, and the same bits as
    the tree.  The pyramid's lower levels are taken a few aligned chunks of
    :data:`PAIRWISE_CHUNK` inputs at a time, in cache: the digits of c below the
    chunk come from the chunk that c ends in, those above from the pyramid of
    the chunks' balanced sums.  Counts in any order, repeats allowed;
    ``ValueError`` outside 1..n.  NaN, inf and -0.0 as in :func:`pairwise_sum`.
    """
    _check(values, fmt)
    wanted = _prefix_counts(counts, values.shape[-1])
    shift = PAIRWISE_CHUNK.bit_length() - 1
    chunks, rest = wanted >> shift, wanted & (PAIRWISE_CHUNK - 1)  # c = chunks * PAIRWISE_CHUNK + rest
    sums = np.zeros(values.shape[:-1] + wanted.shape, dtype=values.dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        for chunk in np.unique(chunks[rest > 0]).tolist():  # the low digits: a prefix of the chunk c ends in
            mine = (chunks == chunk) & (rest > 0)
            inside = values[..., chunk << shift:(chunk + 1) << shift]
            sums[..., mine] = _fold_digits(inside, rest[mine], sums[..., mine], started=np.zeros(mine.sum(), bool))
        tops = _chunk_sums(values[..., :int(chunks.max(initial=0)) << shift], shift)
        return _fold_digits(tops, chunks, sums, rest > 0)


def _fold_digits(level: np.ndarray, counts: np.ndarray, sums: np.ndarray, started: np.ndarray) -> np.ndarray:
    """Add to ``sums`` (where ``started``, else set) the balanced blocks of ``level`` that make up each count.

    For each binary digit of a count, from the lowest up, the aligned block
    of that many entries of ``level`` that ends at the digit is added on the
    left: ``block + sums``.  ``sums`` is changed in place and returned.
    """
    longest = int(counts.max(initial=0))
    level = level[..., :longest]
    started = started.copy()
    for a in range(longest.bit_length()):
        if a:
            pairs = level.shape[-1] // 2
            level = level[..., 0:2 * pairs:2] + level[..., 1:2 * pairs:2]
        digit = (counts >> a) & 1 == 1
        block = level[..., (counts[digit] >> a) - 1]  # the aligned block of 2**a entries that ends at the digit
        sums[..., digit] = np.where(started[digit], block + sums[..., digit], block)
        started |= digit
    return sums


def _chunk_sums(values: np.ndarray, shift: int) -> np.ndarray:
    """The balanced sum of each aligned chunk of 2**shift inputs (the length is a multiple of it), a few at a time."""
    chunks = values.shape[-1] >> shift
    tops = np.empty(values.shape[:-1] + (chunks,), dtype=values.dtype)
    group = max(1, PAIRWISE_CHUNK * 4 >> shift)  # chunks whose pyramid is taken at once
    for first in range(0, chunks, group):
        level = values[..., first << shift:min(first + group, chunks) << shift]
        for _ in range(shift):
            level = level[..., 0::2] + level[..., 1::2]
        tops[..., first:first + level.shape[-1]] = level
    return tops
