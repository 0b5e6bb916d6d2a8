"""E8M0, the scale of the OCP MX formats: a power of two and nothing else.

Eight bits of exponent, bias 127, no sign and no significand: the codes 0
to 254 are 2**-127 to 2**127 and code 255 is NaN; there is no zero and no
infinity (OCP Microscaling Formats v1.0, 2023: the scale data type).  An MX block's
scale is built as a power of two directly (:mod:`fpsum.blocks`), so the
scale format is never rounded to there.

Rounding an arbitrary value to E8M0 is left to implementations, and they
differ: NVIDIA's CUDA conversion rounds towards +inf and saturates; the
model follows ml_dtypes' ``float8_e8m0fnu`` cast, bit for bit: the nearest
power of two, a tie (1.5 times a power of two) going up; positive values
up to 2**-127 become 2**-127, and those strictly between 2**-127 and
2**-126 become 2**-126 (ml_dtypes goes through float32, where they are
subnormal, and rounds them up); from 1.5 * 2**127 up, and for zero,
negative values, infinities and NaN, the result is NaN.  A format of its own rather
than a :class:`~fpsum.formats.Format`: with no zero and no sign it cannot
hold a sum, so ``fpsum sum`` refuses it.
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class ScaleFormat:
    """A format of powers of two only: ``2**emin`` to ``2**emax``, and NaN."""

    name: str
    label: str
    bits: int
    emin: int
    emax: int
    dtype: np.dtype

    @property
    def values(self) -> np.ndarray:
        """Every finite value, smallest first, as float64."""
        return np.exp2(np.arange(self.emin, self.emax + 1, dtype=np.float64))

    def describe(self) -> dict[str, object]:
        """The format as a row of ``fpsum formats``: what a scale format has of a table row's columns."""
        return {
            "name": self.name, "label": self.label, "bits": self.bits, "precision": 1,
            "emin": self.emin, "emax": self.emax, "unit_roundoff": None,
            "max_finite": 2.0 ** self.emax, "smallest_normal": 2.0 ** self.emin, "smallest_subnormal": None,
            "stall_point": None, "overflow": "a scale: powers of two only, no zero, no sign; NaN beyond",
        }


E8M0 = ScaleFormat("e8m0", "E8M0 (MX scale)", 8, emin=-127, emax=127, dtype=np.dtype(ml_dtypes.float8_e8m0fnu))


def round_e8m0(values: np.ndarray | float) -> np.ndarray:
    """Each value rounded to E8M0 as ml_dtypes' cast rounds it, as float64 (see the module docstring).

    Works on the exact float64 value: ``frexp`` splits it into a significand
    in [0.5, 1) and an exponent, and the significand decides between the two
    powers of two around it (at least 0.75, a tie included, means the upper).
    NaN, inf, 0, -0, negatives and values that round above 2**127 give NaN,
    E8M0's only special value.
    """
    array = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        significand, exponent = np.frexp(array)
        power = np.where(significand >= 0.75, exponent, exponent - 1).astype(np.float64)
        # Below 2**-126 (float32's subnormals): 2**-127 up to it, 2**-126 above it.
        power = np.where(array < 2.0 ** (E8M0.emin + 1), np.where(array > 2.0 ** E8M0.emin, E8M0.emin + 1, E8M0.emin),
                         power)
        result = np.exp2(power)
        bad = ~np.isfinite(array) | (array <= 0) | (power > E8M0.emax)
    return np.where(bad, np.nan, result)
