"""Blocked summation: naive sums within consecutive blocks of inputs, then a naive sum of the block sums.

:func:`blocked_running` gives every prefix (the page shows it),
:func:`blocked_sum` the final sum from the block sums alone.
:data:`DEFAULT_BLOCK` is the block size wherever none is given: the
command line, the dot products, the figures.
"""

from __future__ import annotations

import numpy as np

from .formats import Format
from .method_checks import _check

DEFAULT_BLOCK = 128


def blocked_sum(values: np.ndarray, fmt: Format, block: int = DEFAULT_BLOCK) -> np.ndarray:
    """The last entry of :func:`blocked_running`, from the block sums alone (shape ``values.shape[:-1]``).

    The naive sum of each block (the last one may be shorter), then the
    naive sum of those: the same additions as the running version's last
    total, without a running total per input.  ``block`` must be at least 1.
    NaN, inf and -0.0 as in :func:`blocked_running`.
    """
    _check(values, fmt)
    if block < 1:
        raise ValueError(f"block size must be at least 1, got {block}")
    n = values.shape[-1]
    whole = n - n % block  # the inputs in complete blocks
    lead = values.shape[:-1]
    with np.errstate(over="ignore", invalid="ignore"):
        sums = np.add.accumulate(values[..., :whole].reshape(lead + (whole // block, block)), axis=-1)[..., -1]
        if whole < n:
            sums = np.concatenate([sums, np.add.accumulate(values[..., whole:], axis=-1)[..., -1:]], axis=-1)
        final: np.ndarray = np.add.accumulate(sums, axis=-1)[..., -1]
    return final


# --8<-- [start:blocked]
def blocked_running(
    values: np.ndarray, fmt: Format, block: int = DEFAULT_BLOCK
) -> np.ndarray:
    """Naive sums within consecutive blocks of `block` inputs, then a naive sum
    of the block sums.

    Entry i is the blocked sum of the first i + 1 inputs: the running sum of
    the complete blocks before it plus the partial sum of its own block.
    `block` must be at least 1 (1 and >= n are both plain naive sums). NaN, inf
    and -0.0 behave as in naive summation (the last block is padded with -0.0,
    which adds nothing, not even a sign).
    """
    _check(values, fmt)
    if block < 1:
        raise ValueError(f"block size must be at least 1, got {block}")
    n = values.shape[-1]
    blocks = -(-n // block)
    rows = values.shape[:-1]
    # x + -0 == x, always
    padded = np.full(rows + (blocks * block,), -0.0, dtype=values.dtype)
    padded[..., :n] = values
    with np.errstate(over="ignore", invalid="ignore"):
        by_block = padded.reshape(rows + (blocks, block))
        within = np.add.accumulate(by_block, axis=-1)
        # sums of complete blocks, naive
        before = np.add.accumulate(within[..., -1], axis=-1)
        totals = within.copy()
        totals[..., 1:, :] = before[..., :-1, np.newaxis] + within[..., 1:, :]
    return totals.reshape(padded.shape)[..., :n]
# --8<-- [end:blocked]
