"""TF32 inputs to an FP32 dot product: what an "FP32" matrix multiply on tensor cores may compute.

NVIDIA's TF32 keeps FP32's 8 exponent bits and 10 of its 23 fraction bits
(precision p = 11, u = 2**-11).  PyTorch's notes describe its matrix
multiplies as rounding the FP32 inputs to 10 bits of mantissa and
accumulating in FP32.  This module models exactly that and no more: each
input rounded to nearest (ties to even) at 11 significant bits, on FP32's
exponent range, then the dot product of :mod:`fpsum.dot` with an FP32
accumulator.  A product of two TF32 values has at most 22 significant bits,
so it is exact in FP32 unless it leaves FP32's normal range.  How a tensor
core really rounds its inputs and orders and rounds its additions is not
modelled (Fasi et al. 2021 found its additions truncate).
"""

from __future__ import annotations

import numpy as np

from .dot import dot
from .formats import FP32
from .names import Method

TF32_PRECISION = 11
"""Significant bits of TF32, the hidden bit included: 10 stored fraction bits."""
_DROPPED = 24 - TF32_PRECISION  # FP32 fraction bits that TF32 does not keep


# --8<-- [start:to_tf32]
def to_tf32(values: np.ndarray) -> np.ndarray:
    """FP32 values rounded to TF32 (nearest, ties to even), still stored as
    float32.

    Works on the bit patterns: add just under half of the dropped part (one
    more if the kept last bit is odd), then clear the dropped bits; a carry
    moves into the exponent, as rounding up a binade should.  Subnormals round
    on TF32's grid of 2**-136; a value that rounds past the largest TF32 value,
    (2 - 2**-10) * 2**127, becomes +-inf.  NaN stays NaN, +-inf and -0.0 stay.
    """
    if values.dtype != np.float32:
        raise TypeError(f"TF32 rounds FP32 values, not {values.dtype}")
    bits = values.view(np.uint32).astype(np.uint64)
    odd = (bits >> _DROPPED) & 1
    half = (1 << (_DROPPED - 1)) - 1
    mask = ~np.uint64((1 << _DROPPED) - 1)
    rounded = ((bits + half + odd) & mask).astype(np.uint32)
    result = rounded.view(np.float32)
    return np.where(np.isnan(values), values, result)
# --8<-- [end:to_tf32]


def tf32_dot(x: np.ndarray, y: np.ndarray, method: Method = "naive") -> np.ndarray:
    """The dot product of FP32 vectors whose inputs are first rounded to TF32, accumulated in FP32 by ``method``.

    ``x`` and ``y`` are float32 arrays of one shape ``(..., K)``; the result
    has shape ``x.shape[:-1]``, float32.  The products are exact in FP32
    except below its normal range (2**-126), where they are rounded to its
    subnormal grid, and beyond 2**128, where they overflow to +-inf.  NaN,
    inf and -0.0 as in :func:`fpsum.dot.dot`.
    """
    return dot(to_tf32(x), to_tf32(y), FP32, FP32, method)
