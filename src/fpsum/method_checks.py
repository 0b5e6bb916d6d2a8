"""The checks every summation method makes of its arguments, shared by the modules of the methods.

Private to them (each imports the two by name): what a method does with a
bad argument is in its own docstring.
"""

from __future__ import annotations

import numpy as np

from .formats import Format


def _check(values: np.ndarray, fmt: Format) -> None:
    if values.dtype != fmt.dtype:
        raise TypeError(f"inputs are {values.dtype}, expected {fmt.dtype} for {fmt.label}")
    if values.shape[-1] < 1:
        raise ValueError("a sum needs at least one input")


def _prefix_counts(counts: np.ndarray, n: int) -> np.ndarray:
    """``counts`` as int64, checked to lie between 1 and ``n`` (``ValueError`` otherwise)."""
    wanted = np.asarray(counts, dtype=np.int64)
    if wanted.size and (wanted.min() < 1 or wanted.max() > n):
        raise ValueError("prefix lengths must lie between 1 and n")
    return wanted
