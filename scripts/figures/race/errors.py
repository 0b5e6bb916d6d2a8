"""The race's second panel: how far each method's running total is from the exact one, in ulps, on a log scale.

The error of a method after k inputs is ``|total_k - exact_k|``, counted in
ulps of the race's format at the largest ``|exact_j|`` for j up to k (at the
sampled counts).  The lines show, at each sampled count, the largest error
at the sampled counts of the last ``n /`` :data:`WINDOW_PARTS` inputs: the
errors of Kahan's and the pairwise sum jump between 0 and an ulp from one
count to the next, and drawn as they are they fill a band in which
neither line can be followed (and on a log scale every exact hit is a
spike down to 0).  For inputs of one sign that is the ulp at the exact
running total itself; for inputs of both signs the running total wanders
through 0, where the format's ulp is tiny, and an ulp of the current total
would turn a small error near 0 into a huge one.  The exact total has no
error: it is the panel's zero line.

The scale is logarithmic above ``lo`` (a power of ten) and linear from 0 to
``lo``, where the linear part takes the height of one decade: matplotlib's
``symlog`` scale with ``linthresh=lo`` and ``linscale=`` :data:`LINSCALE`, so
the slide PNG draws the same picture.  ``lo`` is the decade at or below the
smallest of the methods' median non-zero errors, so every method's usual
error is on the log part; ``hi`` is a little above the largest error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fpsum.race import Race

FloatArray = npt.NDArray[np.float64]

WINDOW_PARTS = 64
"""The lines' window is this part of the inputs (128 of 8,192): about five user units, six pixels wide."""
LINEAR_DECADES = 1.0
"""Height of the linear part [0, lo] of the scale, in decades of the log part."""
LINSCALE = LINEAR_DECADES * (1 - 1 / 10)
"""matplotlib's ``linscale`` for the same scale (it counts the linear part in ``1 - 1/base`` decades)."""
HEADROOM = 1.6
"""The top of the scale over the largest error (a fifth of a decade)."""
MAX_LABELS = 5
"""At most this many decades get a label; with more, every other one (always 1 ulp)."""
SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def peak_ulps(race: Race) -> FloatArray:
    """The ulp of the race's format at the largest ``|exact total|`` so far, at each of ``race.steps``."""
    peak = np.maximum.accumulate(np.abs(np.asarray(race.exact, dtype=np.float64)))
    return np.asarray(race.fmt.ulps(peak), dtype=np.float64)


def running_errors(race: Race) -> dict[str, FloatArray]:
    """Each series' ``|total - exact|`` in ulps (see the module) at ``race.steps``; ``exact`` is all zeros.

    A total that overflowed (inf or NaN) has a NaN error: its line breaks there.
    """
    unit = peak_ulps(race)
    exact = np.asarray(race.exact, dtype=np.float64)
    out: dict[str, FloatArray] = {"exact": np.zeros_like(exact)}
    with np.errstate(invalid="ignore"):
        for method, totals in race.totals.items():
            error = np.abs(np.asarray(totals, dtype=np.float64) - exact) / unit
            out[method] = np.where(np.isfinite(error), error, np.nan)
    return out


def window(race: Race) -> int:
    """How many of the latest inputs a point of the lower plot covers."""
    return max(1, race.n // WINDOW_PARTS)


def shown_errors(race: Race) -> dict[str, FloatArray]:
    """What the lower plot draws: at each sampled count c, the largest error at the sampled counts in (c - window, c].

    NaN (an overflowed total) anywhere in the window gives NaN: the line breaks.
    """
    steps = np.asarray(race.steps)
    first = np.searchsorted(steps, steps - window(race), side="right")
    return {s: np.array([values[a:i + 1].max() for i, a in enumerate(first.tolist())])
            for s, values in running_errors(race).items()}


def final_errors(race: Race) -> dict[str, float]:
    """Each method's error after all the inputs, in ulps of the format at the largest exact total."""
    return {s: float(values[-1]) for s, values in running_errors(race).items() if s != "exact"}


@dataclass(frozen=True)
class LogScale:
    """Errors [0, hi] to user units [start, end]: linear up to ``lo``, logarithmic above (see the module)."""

    lo: float
    hi: float
    start: float
    end: float

    @property
    def decades(self) -> float:
        """The scale's height in decades, the linear part included."""
        return LINEAR_DECADES + math.log10(self.hi / self.lo)

    def __call__(self, value: float) -> float:
        """The user-unit position of ``value`` (NaN stays NaN; negative values count as 0)."""
        if math.isnan(value):
            return math.nan
        value = max(value, 0.0)
        depth = LINEAR_DECADES * value / self.lo if value <= self.lo else LINEAR_DECADES + math.log10(value / self.lo)
        return self.start + depth / self.decades * (self.end - self.start)

    def decade_ticks(self) -> list[int]:
        """The exponents of the labelled decades: every one from ``lo`` up, or every other one (0 among them)."""
        first, last = round(math.log10(self.lo)), math.floor(math.log10(self.hi) + 1e-9)
        exponents = list(range(first, last + 1))
        if len(exponents) <= MAX_LABELS:
            return exponents
        return [e for e in exponents if e % 2 == 0]


def error_domain(errors: dict[str, FloatArray]) -> tuple[float, float]:
    """``lo`` and ``hi`` of the scale for these errors (see the module); 1 and 10 ulps if nothing errs."""
    medians, largest = [], 0.0
    for values in errors.values():
        finite = values[np.isfinite(values)]
        wrong = finite[finite > 0]
        if wrong.size:
            medians.append(float(np.median(wrong)))
            largest = max(largest, float(wrong.max()))
    if not medians:
        return 1.0, 10.0
    lo = 10.0 ** math.floor(math.log10(min(medians)))
    return lo, max(largest * HEADROOM, 10 * lo)


def power_of_ten(exponent: int) -> str:
    """A decade written for a tick: ``1``, ``10``, else ``10`` with a superscript exponent (``10⁻⁴``)."""
    if exponent in (0, 1):
        return "1" if exponent == 0 else "10"
    return "10" + str(exponent).translate(SUPERSCRIPT)
