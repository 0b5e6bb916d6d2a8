"""Rounding float64 arrays to a format to nearest at speed, with dtype casts.

:func:`to_format` is correct for every format, including the ml_dtypes ones
whose own float64 cast rounds twice (through float32, which it rounds to
odd first); it is what the model uses at speed, held to
:func:`fpsum.exact_rounding.round_exact` in the tests.  Apart from the
exact rounding because it is the other route, and from the arithmetic built
on it (:mod:`fpsum.rounded_once`, :mod:`fpsum.stochastic_rounding`)
because every rounding of an array ends in it.
"""

from __future__ import annotations

import numpy as np

from .exact_rounding import _no_nan
from .formats import Format


def _float32_round_to_odd(values: np.ndarray) -> np.ndarray:
    """float64 -> float32, rounding any inexact result to the neighbour with an odd last bit.

    Rounding to odd and then to nearest in a format at least two bits
    narrower is the same as rounding to nearest once, which is why ml_dtypes'
    own float64 path (nearest to float32, then nearest again) is not used.
    """
    nearest = values.astype(np.float32)
    inexact = np.isfinite(nearest) & (nearest.astype(np.float64) != values)
    bits = nearest.view(np.uint32)
    even = (bits & 1) == 0
    fix = inexact & even
    if np.any(fix):
        # Step towards the exact value: the neighbour on the other side is odd.
        toward = np.where(values > nearest.astype(np.float64), np.inf, -np.inf).astype(np.float32)
        nearest = np.where(fix, np.nextafter(nearest, toward), nearest)
    return nearest


def to_format(values: np.ndarray | float, fmt: Format) -> np.ndarray:
    """Round float64 values to ``fmt``, nearest with ties to even, as an array of ``fmt.dtype``.

    Correctly rounded for every format, including the ml_dtypes ones whose
    own float64 cast rounds twice (through float32).  NaN stays NaN, +-inf and
    overflow become +-inf (NaN in E4M3 and the fnuz formats, +-max_finite in
    the saturating FP4 and FP6 formats, where NaN is a ``ValueError``: they
    have none, and ml_dtypes would store it as -0), -0.0 stays -0.0 (+0.0 in
    the fnuz formats).
    """
    array = np.asarray(values, dtype=np.float64)
    if fmt.overflow == "saturate" and np.isnan(array).any():
        raise _no_nan(fmt)
    if fmt.dtype in (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)):
        return array.astype(fmt.dtype)
    # The round-to-odd trick needs float32 finite where float64 is: beyond
    # float32's range every such format has overflowed anyway.
    with np.errstate(over="ignore"):
        return _float32_round_to_odd(array).astype(fmt.dtype)
