"""The floating-point formats of the model, each described once.

A :class:`Format` is plain data: the numbers that define it (bits, precision,
exponent range, how it overflows) and the NumPy dtype whose arithmetic the
model uses.  Everything else (unit roundoff, largest value, stall point) is
derived from those numbers, so a format cannot disagree with itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import ml_dtypes
import numpy as np

Overflow = Literal["inf", "nan", "saturate"]


@dataclass(frozen=True)
class Format:
    """A binary floating-point format.

    Attributes:
        name: short identifier used on the command line and in file names
            (``"fp16"``).
        label: how the site writes it (``"FP16"``).
        bits: storage width in bits.
        precision: significand precision *p*, counting the hidden bit.
        emin: exponent of the smallest normal number, ``2**emin``.
        emax: exponent of the largest binade.
        max_finite: largest finite value.  Given explicitly because E4M3
            ("fn") spends its top code on NaN, so it is not the IEEE formula.
        overflow: what a result beyond ``max_finite`` becomes after rounding:
            ``"inf"`` (IEEE formats), ``"nan"`` (the FP8 formats without an
            infinity), or ``"saturate"``: +-max_finite (FP4 and FP6, which have
            neither infinity nor NaN; see :data:`E2M1`).
        dtype: the NumPy dtype whose arithmetic is this format's arithmetic.
        signed_zero: whether -0 exists.  The "fnuz" FP8 formats spend the code
            of -0 on their one NaN, so a zero result is always +0 there.
    """

    name: str
    label: str
    bits: int
    precision: int
    emin: int
    emax: int
    max_finite: float
    overflow: Overflow
    dtype: np.dtype
    signed_zero: bool = True

    @property
    def unit_roundoff(self) -> float:
        """u = 2**-p: half the gap between 1 and the next value up."""
        return 2.0 ** -self.precision

    @property
    def smallest_normal(self) -> float:
        """The smallest positive normal value, 2**emin."""
        return 2.0 ** self.emin

    @property
    def smallest_subnormal(self) -> float:
        """The smallest positive value, 2**(emin - p + 1)."""
        return 2.0 ** (self.emin - self.precision + 1)

    @property
    def stall_point(self) -> float:
        """Where a running sum of inputs in [0, 1) stops growing: 2**p, or the largest value if smaller.

        From 2**p on the gap between neighbours is 2, so every input below
        1 is less than half a gap and ``S + x`` rounds back to ``S``; an
        input of exactly 1 is a tie, which goes to the even neighbour, S.
        FP6 E2M3 (p = 4) ends at 7.5 instead: it saturates before 2**4.
        """
        return min(2.0 ** self.precision, self.max_finite)

    @property
    def overflow_rule(self) -> str:
        """How a result beyond the largest finite value comes out, in words."""
        zero = "" if self.signed_zero else "; one zero (no -0)"
        if self.overflow == "nan":
            return f"NaN (no infinity): anything that rounds above {self.max_finite:g}{zero}"
        if self.overflow == "saturate":
            return f"saturates at ±{self.max_finite:g} (no infinity, no NaN)"
        return "±inf, from max + ulp/2 up (round to nearest)"

    def describe(self) -> dict[str, object]:
        """The format as a table row: every defining and derived number, keyed by column name."""
        return {
            "name": self.name,
            "label": self.label,
            "bits": self.bits,
            "precision": self.precision,
            "emin": self.emin,
            "emax": self.emax,
            "unit_roundoff": self.unit_roundoff,
            "max_finite": self.max_finite,
            "smallest_normal": self.smallest_normal,
            "smallest_subnormal": self.smallest_subnormal,
            "stall_point": self.stall_point,
            "overflow": self.overflow_rule,
        }

    def ulp(self, value: float) -> float:
        """Gap between ``value`` and the next representable value away from 0.

        For 0 and subnormals it is the smallest subnormal.  Infinities and NaN
        have no ulp: they raise ``ValueError``.
        """
        if not np.isfinite(value):
            raise ValueError(f"ulp of a non-finite value ({value}) is undefined")
        if value == 0:
            return self.smallest_subnormal
        _, exponent = math.frexp(abs(value))  # |value| = m * 2**exponent, m in [0.5, 1)
        return 2.0 ** (max(exponent - 1, self.emin) - self.precision + 1)

    def ulps(self, values: np.ndarray) -> np.ndarray:
        """:meth:`ulp` of every element, as float64 of the same shape (0 and -0 give the smallest subnormal).

        ``ValueError`` if any element is infinite or NaN.
        """
        values = np.asarray(values, dtype=np.float64)
        if not np.isfinite(values).all():
            raise ValueError("ulp of a non-finite value is undefined")
        _, exponent = np.frexp(np.abs(values))  # |value| = m * 2**exponent, m in [0.5, 1)
        binade = np.where(values == 0, self.emin, np.maximum(exponent - 1, self.emin))
        gaps: np.ndarray = np.exp2(binade - self.precision + 1).astype(np.float64)
        return gaps


def _ieee(name: str, label: str, bits: int, precision: int, emax: int, dtype: type) -> Format:
    """An IEEE-style format: infinities, emin = 1 - emax, all-ones significand finite."""
    return Format(
        name=name,
        label=label,
        bits=bits,
        precision=precision,
        emin=1 - emax,
        emax=emax,
        max_finite=(2.0 - 2.0 ** (1 - precision)) * 2.0 ** emax,
        overflow="inf",
        dtype=np.dtype(dtype),
    )


# --8<-- [start:formats]
FP16 = _ieee("fp16", "FP16", 16, 11, 15, np.float16)
BF16 = _ieee("bf16", "BF16", 16, 8, 127, ml_dtypes.bfloat16)
FP32 = _ieee("fp32", "FP32", 32, 24, 127, np.float32)
FP64 = _ieee("fp64", "FP64", 64, 53, 1023, np.float64)
E5M2 = _ieee("e5m2", "FP8 E5M2", 8, 3, 15, ml_dtypes.float8_e5m2)
# OCP E4M3 ("fn": finite and NaN only): exponent bias 7, so emin = -6 and the
# top binade 2**8 is usable, but its all-ones significand is NaN: the largest
# value is 1.75 * 2**8 = 448 and overflow has nowhere to go but NaN.
E4M3 = Format(
    name="e4m3",
    label="FP8 E4M3",
    bits=8,
    precision=4,
    emin=-6,
    emax=8,
    max_finite=448.0,
    overflow="nan",
    dtype=np.dtype(ml_dtypes.float8_e4m3fn),
)

# OCP MX v1.0 (sec. 5.3.2, 5.3.3): FP6 and FP4 elements have no code for
# infinity or NaN; a conversion that overflows saturates to the largest value,
# as ml_dtypes' casts do.
E2M1 = Format(
    "e2m1",
    "FP4 E2M1",
    4,
    precision=2,
    emin=0,
    emax=2,
    max_finite=6.0,
    overflow="saturate",
    dtype=np.dtype(ml_dtypes.float4_e2m1fn),
)
E2M3 = Format(
    "e2m3",
    "FP6 E2M3",
    6,
    precision=4,
    emin=0,
    emax=2,
    max_finite=7.5,
    overflow="saturate",
    dtype=np.dtype(ml_dtypes.float6_e2m3fn),
)
E3M2 = Format(
    "e3m2",
    "FP6 E3M2",
    6,
    precision=3,
    emin=-2,
    emax=4,
    max_finite=28.0,
    overflow="saturate",
    dtype=np.dtype(ml_dtypes.float6_e3m2fn),
)
# The "fnuz" FP8 formats (AMD MI300): bias one more than OCP's, no infinity,
# one NaN where -0 would be.
E4M3FNUZ = Format(
    "e4m3fnuz",
    "FP8 E4M3FNUZ",
    8,
    precision=4,
    emin=-7,
    emax=7,
    max_finite=240.0,
    overflow="nan",
    signed_zero=False,
    dtype=np.dtype(ml_dtypes.float8_e4m3fnuz),
)
E5M2FNUZ = Format(
    "e5m2fnuz",
    "FP8 E5M2FNUZ",
    8,
    precision=3,
    emin=-15,
    emax=15,
    max_finite=57344.0,
    overflow="nan",
    signed_zero=False,
    dtype=np.dtype(ml_dtypes.float8_e5m2fnuz),
)

FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        FP16,
        BF16,
        FP32,
        FP64,
        E4M3,
        E5M2,
        E4M3FNUZ,
        E5M2FNUZ,
        E3M2,
        E2M3,
        E2M1,
    )
}
# --8<-- [end:formats]


def get_format(name: str) -> Format:
    """Look a format up by its short name (``fp16``, ``bf16``, ``fp32``, ``fp64``, ``e4m3``, ``e5m2``, ...).

    Raises ``KeyError`` with the list of known names for anything else
    (names are case-insensitive; there are no numbers here, so no NaN, inf or -0 cases).
    """
    try:
        return FORMATS[name.lower()]
    except KeyError:
        known = ", ".join(FORMATS)
        raise KeyError(f"unknown format {name!r} (known: {known})") from None


def accumulator_for(fmt: Format) -> Format:
    """The wider accumulator of the ``wide`` method: FP32 below FP32, else FP64.

    Every value of ``fmt``, NaN, +-inf and -0.0 included, converts to it exactly.
    """
    return FP32 if fmt.bits < 32 else FP64
