"""Stochastic rounding of a sum to a format: with ideal draws, with a few random bits, and a run of sums at once.

:func:`stochastic_round` rounds ``a + b`` up with probability equal to the
fraction of the gap the exact sum has covered, so that its mean is exact;
:func:`stochastic_round_bits` is the rule of hardware that decides with a
few random bits, biased towards zero; :func:`stochastic_run` rounds a run
of running sums that stay in one binade all at once, for
:mod:`fpsum.stochastic_sum`.  Apart from the rounding to nearest because
everything here takes random draws (the caller owns the stream).

``_two_sum``, the exact float64 sum each stochastic step starts from, is
here with the step that the Beyond Kahan page shows it in; the sum rounded
once to nearest (:func:`fpsum.rounded_once.add_rounded`) and the correctly
rounded sum (:mod:`fpsum.correct`) split their sums with it too.
"""

from __future__ import annotations

import numpy as np

from .array_rounding import to_format
from .formats import Format


def _neighbour(values: np.ndarray, fmt: Format, upward: bool) -> np.ndarray:
    """The next value of ``fmt`` from ``values`` (arrays of ``fmt.dtype``), up or down.

    Aims at the largest finite value rather than infinity, which E4M3 lacks
    (its infinity converts to NaN); from the largest value itself it stays put.
    """
    limit = fmt.max_finite if upward else -fmt.max_finite
    toward = np.full(np.shape(values), limit).astype(fmt.dtype)
    return np.asarray(np.nextafter(values, toward))


# --8<-- [start:stochastic]
def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`hi = fl64(a + b)` and the error `lo`, with `hi + lo == a + b` exactly
    (Knuth's TwoSum).

    Exact for finite float64 operands whose sum does not overflow; where `hi`
    is +-inf or NaN, `lo` is 0.  Call inside `np.errstate`.
    """
    hi = a + b
    b_virtual = hi - a
    lo = (a - (hi - b_virtual)) + (b - b_virtual)
    return hi, np.where(np.isfinite(hi), lo, 0.0)


def stochastic_round(
    a: np.ndarray, b: np.ndarray, fmt: Format, draws: np.ndarray
) -> np.ndarray:
    """`a + b` rounded stochastically to `fmt`, elementwise; an array of
    `fmt.dtype`.

    `a` and `b` are float64 arrays holding values of `fmt` (any format up to
    FP32, whose sums float64 plus one error term hold exactly), or of any other
    format up to FP32, such as an FP32 update to a BF16 weight; `draws` are
    uniform in [0, 1).  The exact sum v lies between two neighbours d <= v <= u
    of the format; the result is u when `draw < (v - d) / (u - d)` and d
    otherwise, so its mean is v.  A sum that is representable comes back
    unchanged.  Beyond the largest finite value the format overflows as with
    rounding to nearest (inf, or NaN in E4M3); NaN in gives NaN; an exact zero
    sum is +0.0 (-0.0 if both are -0.0).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        hi, lo = _two_sum(a, b)
        nearest = to_format(hi, fmt)
        near64 = nearest.astype(np.float64)
        # Where does the exact sum hi + lo sit relative to the candidate?
        above = np.where(np.isfinite(near64), (near64 - hi) - lo, 0.0)
        below = _neighbour(nearest, fmt, upward=False)
        down = np.where(above > 0, below, nearest)
        over = _neighbour(nearest, fmt, upward=True)
        up = np.where(above < 0, over, nearest)
        down64 = down.astype(np.float64)
        gap = up.astype(np.float64) - down64
        # the fraction of the gap the sum has covered
        safe_gap = np.where(gap > 0, gap, 1.0)
        part = ((hi - down64) + lo) / safe_gap
        covered = np.where(gap > 0, part, 0.0)
        result = np.where(draws < covered, up, down)
        # Overflow follows the format, whatever the draw.
        overflowed = np.abs(hi) > fmt.max_finite
        if np.any(overflowed):
            result = np.where(overflowed, nearest, result)
    return np.asarray(result, dtype=fmt.dtype)
# --8<-- [end:stochastic]


def stochastic_round_bits(
    a: np.ndarray,
    b: np.ndarray,
    fmt: Format,
    bits: int,
    draws: np.ndarray,
) -> np.ndarray:
    """``a + b`` rounded stochastically to ``fmt`` with ``bits`` random bits, elementwise; an array of ``fmt.dtype``.

    The rule of hardware that adds ``bits`` random bits to the first
    ``bits`` discarded bits of the magnitude and truncates: the exact sum's
    magnitude lies in ``[z, z + g)``, between its neighbour towards zero z
    and the next value away, g apart; with ``t = floor(2**bits * (|v| - z) / g)``,
    the fraction covered cut to ``bits`` bits, the result is ``+-(z + g)``
    when ``t + draw >= 2**bits`` and ``+-z`` otherwise.  ``draws`` are whole
    numbers uniform in ``[0, 2**bits)``.  So the magnitude moves away from
    zero with probability ``t / 2**bits``, not the fraction itself: the rule
    is biased towards zero, and a sum that covers less than ``2**-bits`` of
    its gap is rounded back to z whatever the draw, which
    :func:`stochastic_round` (ideal draws) never does.

    ``a`` and ``b`` are float64 arrays of values of any format up to FP32, as
    for :func:`stochastic_round`.  A representable sum comes back unchanged;
    beyond the largest finite value the sum rounds to nearest and overflows
    as the format does (inf, or NaN in E4M3); NaN in gives NaN; an exact
    zero sum is +0.0 (-0.0 if both are -0.0), and a negative sum that
    rounds to zero is -0.0.  ``ValueError`` unless ``1 <= bits`` and
    ``bits + fmt.precision <= 52``, which keeps the cut exact in float64.
    """
    if not 1 <= bits <= 52 - fmt.precision:
        raise ValueError(f"{bits} random bits: {fmt.label} takes 1 to {52 - fmt.precision}")
    with np.errstate(over="ignore", invalid="ignore"):
        hi, lo = _two_sum(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
        nearest = to_format(hi, fmt)
        # Magnitudes: |v| = size + towards, exactly (lo carries hi's sign flipped or not).
        size = np.abs(hi)
        towards = np.where(np.signbit(hi), -lo, lo)
        candidate = to_format(size, fmt)
        cand64 = candidate.astype(np.float64)
        beyond = (cand64 > size) | ((cand64 == size) & (towards < 0))
        zero = np.zeros_like(candidate)
        z = np.where(beyond, np.nextafter(candidate, zero), candidate)
        z64 = z.astype(np.float64)
        gap = _neighbour(z, fmt, upward=True).astype(np.float64) - z64
        safe_gap = np.where(gap > 0, gap, 1.0)
        # Exact: |hi| - z by Sterbenz (z <= |hi| <= 2z, or z = 0), then a power of two.
        scaled = (size - z64) / safe_gap * 2.0**bits
        cut = np.floor(scaled)
        # lo is below half a float64 ulp of hi, finer than the cut's grid when
        # bits + p <= 52: it matters only where the scaled distance is whole.
        cut -= (cut == scaled) & (towards < 0)
        away = (cut + draws) >= 2.0**bits
        magnitude = np.where(away & (gap > 0), z64 + gap, z64)
        result = np.where(np.signbit(hi), -magnitude, magnitude).astype(fmt.dtype)
        special = ~np.isfinite(hi) | (size > fmt.max_finite)
        if np.any(special):
            result = np.where(special, nearest, result)
    return np.asarray(result, dtype=fmt.dtype)


def _sums_exact_in_float64(fmt: Format) -> bool:
    """Whether float64 holds the sum of any two finite values of ``fmt`` exactly.

    They are multiples of the smallest subnormal below ``2**(emax + 2)`` in
    magnitude, which takes ``emax - emin + p + 1`` bits: 41 for FP16, fewer
    for the FP8 formats, but 262 for BF16 and FP32's range.
    """
    return fmt.emax - fmt.emin + fmt.precision + 1 <= 53


def stochastic_run(start: np.ndarray, x: np.ndarray, draws: np.ndarray, fmt: Format) -> tuple[np.ndarray, np.ndarray]:
    """Running totals of ``s = SR(s + x)`` along each row of ``x``, from ``start``; and how many of them hold.

    Row i starts from ``start[i]`` and adds ``x[i, 0]``, ``x[i, 1]``, ...
    (float64 arrays holding values of ``fmt``, FP32 or narrower), each sum
    rounded as :func:`stochastic_round` rounds it with the matching entry of
    ``draws``.  Returns the totals (float64, shape of ``x``) and, per row, how
    many leading totals are the ones :func:`stochastic_round` gives, step
    after step; the totals after those are meaningless.

    In one binade the values of a format are the multiples of one gap q.
    While the exact sums stay in the binade of the first, every total is a
    multiple of q, so a step adds ``x`` rounded to that grid: ``floor(x/q)``
    gaps, plus one when the draw is below ``x/q - floor(x/q)``, which is the
    fraction of the gap the sum covered.  That needs no total, so the totals
    are a running sum of whole gaps.  A row stops holding at its first sum
    outside that binade; for BF16 and FP32 also at a sum float64 rounds,
    where :func:`stochastic_round`'s own arithmetic is no longer exact.

    NaN, inf and -0: a ``start`` of +-inf or NaN gives IEEE running sums
    (inf + -inf is NaN), all holding.  A total at +-``max_finite`` stays there
    while each input points outward by less than half the top gap: such a
    sum overflows and rounds to nearest, back to the largest value.  A first
    sum that overflows otherwise, is NaN or inf, is -0.0 + -0.0, or is
    rounded by float64 holds nothing (0): do that step with
    :func:`stochastic_round`.  No total here is -0.0.
    """
    rows, width = x.shape
    with np.errstate(over="ignore", invalid="ignore"):
        first = start + x[:, 0]
        # first's binade, 2**(e-1) <= |first| < 2**e; the subnormals share the lowest normal one's gap.
        _, e = np.frexp(np.maximum(np.abs(first), fmt.smallest_normal))
        gap = np.ldexp(1.0, e - fmt.precision)
        in_gaps = x * np.ldexp(1.0, fmt.precision - e)[:, np.newaxis]  # exact: a power of two
        in_gaps[:, 0] = first / gap  # the first step rounds the whole sum: start need not be on the grid
        whole = np.floor(in_gaps)
        covered = np.subtract(in_gaps, whole, out=in_gaps)  # the fraction of a gap past the grid point below
        whole += draws < covered  # up with probability the fraction covered
        totals = np.cumsum(whole, axis=1)
        totals *= gap[:, np.newaxis]
        # The sums after the first, from the totals before them; exact while the row holds.
        sums = totals[:, :-1] + x[:, 1:]
        size = np.abs(sums)
        low = np.where(e - 1 > fmt.emin, np.ldexp(0.5, e), 0.0)[:, np.newaxis]
        high = np.minimum(np.ldexp(1.0, e), np.nextafter(fmt.max_finite, np.inf))[:, np.newaxis]
        fits = (size >= low) & (size < high)  # in the binade, and not beyond the largest value
        first_fits = np.abs(first) <= fmt.max_finite
        first_fits &= (first != 0) | ~np.signbit(first)  # -0.0 + -0.0 is -0.0, not the grid's +0
        if not _sums_exact_in_float64(fmt):
            # (a + b) - a == b shows a float64 sum exact where |a| >= |b| (Dekker); where |b| > |a|,
            # a sum that fits needs fewer than 2p bits, which float64 holds.
            fits &= sums - totals[:, :-1] == x[:, 1:]
            first_fits &= (first - start == x[:, 0]) & (first - x[:, 0] == start)
        # The first step holds if its sum fits; the others up to the first sum that does not.
        misfits = np.concatenate([~fits, np.ones((rows, 1), dtype=bool)], axis=1)
        held = np.where(first_fits, 1 + np.argmax(misfits, axis=1), 0)
        pinned = np.abs(start) == fmt.max_finite
        if pinned.any():
            outward = x[pinned] * np.sign(start[pinned])[:, np.newaxis]
            stays = (outward >= 0) & (outward < fmt.ulp(fmt.max_finite) / 2)
            # Only where the first sum stays: otherwise it comes back into range (or overflows).
            staying = np.flatnonzero(pinned)[stays[:, 0]]
            stays = stays[stays[:, 0]]
            totals[staying] = start[staying, np.newaxis]
            held[staying] = np.where(stays.all(axis=1), width, np.argmin(stays, axis=1))
        lost = ~np.isfinite(start)
        if lost.any():
            ieee = np.add.accumulate(np.concatenate([start[lost, np.newaxis], x[lost]], axis=1), axis=1)
            totals[lost] = ieee[:, 1:]
            held[lost] = width
    return totals, held
