"""Rounding to a format: exactly (the reference) and fast (the dtype casts).

Two routes to the same answer.  :func:`round_exact` works on exact rationals
and is slow and obviously right; it is the oracle the tests hold NumPy's and
ml_dtypes' arithmetic to.  :func:`to_format` rounds float64 arrays with dtype
casts and is what the model uses at speed; :func:`add_rounded` and
:func:`stochastic_round` add two float64 arrays and round the exact sum once.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Literal

import numpy as np

from .formats import Format

Mode = Literal["nearest", "stochastic"]


def _round_half_even(q: Fraction) -> int:
    """Nearest integer to ``q``; an exact half goes to the even neighbour."""
    floor = q.numerator // q.denominator
    rest = q - floor
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and floor % 2 == 1):
        return floor + 1
    return floor


def _quantum(magnitude: Fraction, fmt: Format) -> Fraction:
    """Spacing of ``fmt`` in the binade of ``magnitude`` (> 0), subnormals included."""
    exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    # bit_length difference is floor(log2) or one more; correct it exactly.
    if Fraction(2) ** exponent > magnitude:
        exponent -= 1
    exponent = max(exponent, fmt.emin)
    return Fraction(2) ** (exponent - fmt.precision + 1)


def _overflowed(fmt: Format, negative: bool) -> float:
    """What a result beyond ``fmt.max_finite`` becomes: +-inf, NaN, or +-max_finite (saturation)."""
    if fmt.overflow == "nan":
        return math.nan
    if fmt.overflow == "saturate":
        return -fmt.max_finite if negative else fmt.max_finite
    return -math.inf if negative else math.inf


def _zero(fmt: Format, negative: bool) -> float:
    """A zero result: -0.0 for a negative one, where the format has -0 (the fnuz formats do not)."""
    return -0.0 if negative and fmt.signed_zero else 0.0


def _no_nan(fmt: Format) -> ValueError:
    return ValueError(f"{fmt.label} has no NaN: NaN cannot be rounded to it")


def round_exact(
    value: Fraction | int | float,
    fmt: Format,
    mode: Mode = "nearest",
    uniform: float | None = None,
) -> float:
    """Round an exact value to ``fmt`` and return it as a Python float.

    ``mode="nearest"`` rounds to nearest with ties to even, then overflows
    as the format does: a result beyond ``fmt.max_finite`` becomes +-inf, or
    NaN for E4M3.  (The IEEE threshold falls out of that: values from
    ``max_finite + ulp/2`` up round to the next power of two, which is beyond
    the format.)  ``mode="stochastic"`` rounds up with probability equal to the
    fraction of the gap that ``value`` has covered from its lower neighbour
    ("up" is towards +inf, for either sign); ``uniform`` is the draw in
    [0, 1) that decides it (required in that mode), so the caller owns the
    random stream.  Values already in the format are returned unchanged.

    A float argument may be +-inf or NaN, which pass through (an infinity
    becomes NaN in E4M3 and the fnuz formats, and +-max_finite in the
    saturating FP4 and FP6 formats, which have no NaN either: rounding NaN
    to them is a ``ValueError``).  A result that rounds to zero keeps the
    sign of ``value``: -0.0 for a negative underflow; ``-0.0`` itself stays
    -0.0; in the fnuz formats, which have no -0, every zero is +0.0.
    """
    if mode == "stochastic" and (uniform is None or not 0.0 <= uniform < 1.0):
        raise ValueError("stochastic rounding needs a uniform draw in [0, 1)")
    if isinstance(value, float):
        if math.isnan(value):
            if fmt.overflow == "saturate":
                raise _no_nan(fmt)
            return math.nan
        if math.isinf(value):
            return _overflowed(fmt, value < 0)
        if value == 0:
            return _zero(fmt, math.copysign(1.0, value) < 0)
    exact = Fraction(value)
    if exact == 0:
        return 0.0
    negative = exact < 0
    magnitude = -exact if negative else exact
    quantum = _quantum(magnitude, fmt)
    steps = magnitude / quantum
    if mode == "nearest":
        count = _round_half_even(steps)
    elif mode == "stochastic":
        assert uniform is not None  # checked on entry
        low = steps.numerator // steps.denominator
        # Up means towards +inf: with probability (v - down) / gap.  For a
        # negative value that is the smaller magnitude.
        towards_plus = (steps - low) if not negative else 1 - (steps - low)
        go_up = Fraction(uniform) < towards_plus
        count = (low + 1 if go_up else low) if not negative else (low if go_up else low + 1)
        if steps == low:
            count = low
    else:
        raise ValueError(f"unknown rounding mode {mode!r}")
    rounded = count * quantum
    if rounded > Fraction(fmt.max_finite):
        return _overflowed(fmt, negative)
    result = float(rounded)
    if result == 0:
        return _zero(fmt, negative)
    return -result if negative else result


def add_exact(a: float, b: float, fmt: Format) -> float:
    """``a + b`` rounded once to ``fmt`` (nearest, ties to even), computed exactly.

    IEEE rules for the special cases: NaN in, NaN out; inf + -inf is NaN;
    an infinite operand passes through (NaN in E4M3); an exact zero sum is
    +0.0 unless both operands are -0.0 (and always +0.0 in the fnuz formats).
    The saturating formats hold neither NaN nor inf, so ``a`` and ``b`` from
    them are finite and so is their rounded sum.
    """
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if math.isinf(a) or math.isinf(b):
        if math.isinf(a) and math.isinf(b) and (a > 0) != (b > 0):
            return math.nan
        return _overflowed(fmt, (a if math.isinf(a) else b) < 0)
    # Exact integer arithmetic: a float is an integer over a power of two.
    num_a, den_a = a.as_integer_ratio()
    num_b, den_b = b.as_integer_ratio()
    den = max(den_a, den_b)
    total = num_a * (den // den_a) + num_b * (den // den_b)
    if total == 0:
        return _zero(fmt, math.copysign(1.0, a) < 0 and math.copysign(1.0, b) < 0)
    return _round_dyadic(total, den.bit_length() - 1, fmt)


# --8<-- [start:round_dyadic]
def _round_dyadic(numerator: int, scale: int,
                  fmt: Format) -> float:
    """numerator / 2**scale (nonzero), rounded to nearest,
    ties to even, in integers only.

    The same rule as round_exact(), without Fractions: the
    fast path for sums of floats, whose denominators are
    powers of two.
    """
    negative = numerator < 0
    magnitude = -numerator if negative else numerator
    # The binade, clamped to the subnormals' own.
    exponent = max(magnitude.bit_length() - 1 - scale,
                   fmt.emin)
    # magnitude / 2**shift counts quanta of that binade.
    shift = scale + exponent - fmt.precision + 1
    if shift > 0:
        count, rest = divmod(magnitude, 1 << shift)
        half = 1 << (shift - 1)
        if rest > half or (rest == half and count % 2 == 1):
            count += 1
    else:
        count = magnitude << -shift
    # Exact: count has at most p + 1 bits.
    result = math.ldexp(count, exponent - fmt.precision + 1)
    if result > fmt.max_finite:
        return _overflowed(fmt, negative)
    if result == 0:
        return _zero(fmt, negative)
    return -result if negative else result
# --8<-- [end:round_dyadic]


def on_midpoint(doubles: np.ndarray, rounded: np.ndarray, fmt: Format) -> np.ndarray:
    """Where each double lies exactly halfway between two neighbours of ``fmt``; ``rounded`` is
    ``to_format(doubles, fmt)`` as float64 (one of the two).

    The test for a double rounding: a value first rounded to the nearest
    double ``d`` and then to ``fmt`` is rounded as if once, unless ``d`` is a
    midpoint of ``fmt`` (every midpoint of a format narrower than a double is
    itself a double, so none can lie strictly between the value and ``d``).
    Finite ``doubles`` below ``fmt.max_finite`` in magnitude; elsewhere the
    answer means nothing (NaN, inf and -0 give False: none of them moved).
    """
    moved: np.ndarray = rounded != doubles
    if not np.any(moved):
        return moved
    in_format = rounded.astype(fmt.dtype)
    toward = np.where(doubles > rounded, fmt.max_finite, -fmt.max_finite).astype(fmt.dtype)
    other = np.nextafter(in_format, toward).astype(np.float64)
    # Exact: two neighbours of a format narrower than a double add up within a double's 53 bits.
    return np.asarray(moved & (rounded + other == 2 * doubles))


def round_quotient(numerators: np.ndarray, denominators: np.ndarray, fmt: Format) -> np.ndarray:
    """Each ``n / d`` rounded once to ``fmt`` (nearest, ties to even), saturating at +-max_finite, as float64.

    Finite operands, ``d`` nonzero.  The float64 quotient is correctly
    rounded, so rounding it to ``fmt`` is the single rounding of the exact
    quotient except where it lands on a midpoint of ``fmt``
    (:func:`on_midpoint`); those few are redone in exact rationals.  A
    quotient at or beyond the largest value gives +-max_finite whatever the
    format does on overflow (the block scalings clamp: :mod:`fpsum.blocks`).
    A zero quotient keeps its sign (-0 where the format has one); an inf
    operand or a zero ``d`` gives +-max_finite, NaN gives NaN (``ValueError``
    for a format without NaN).
    """
    n = np.asarray(numerators, dtype=np.float64)
    d = np.asarray(denominators, dtype=np.float64)
    n, d = np.broadcast_arrays(n, d)
    with np.errstate(over="ignore"):
        quotient = n / d
    top = fmt.max_finite
    rounded = to_format(np.clip(quotient, -top, top), fmt).astype(np.float64)
    inside = np.abs(quotient) < top
    redo = np.flatnonzero(inside & on_midpoint(np.where(inside, quotient, 0.0), rounded, fmt))
    for index in redo.tolist():
        exact = Fraction(float(n.flat[index])) / Fraction(float(d.flat[index]))
        rounded.flat[index] = round_exact(exact, fmt)
    return rounded


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


def _neighbour(values: np.ndarray, fmt: Format, upward: bool) -> np.ndarray:
    """The next value of ``fmt`` from ``values`` (arrays of ``fmt.dtype``), up or down.

    Aims at the largest finite value rather than infinity, which E4M3 lacks
    (its infinity converts to NaN); from the largest value itself it stays put.
    """
    limit = fmt.max_finite if upward else -fmt.max_finite
    toward = np.full(np.shape(values), limit).astype(fmt.dtype)
    return np.asarray(np.nextafter(values, toward))


# --8<-- [start:stochastic]
def _two_sum(
    a: np.ndarray, b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """`hi = fl64(a + b)` and the error `lo`, with
    `hi + lo == a + b` exactly (Knuth's TwoSum).

    Exact for finite float64 operands whose sum does not
    overflow; where `hi` is +-inf or NaN, `lo` is 0.  Call
    inside `np.errstate`.
    """
    hi = a + b
    b_virtual = hi - a
    lo = (a - (hi - b_virtual)) + (b - b_virtual)
    return hi, np.where(np.isfinite(hi), lo, 0.0)


def stochastic_round(
    a: np.ndarray,
    b: np.ndarray,
    fmt: Format,
    draws: np.ndarray,
) -> np.ndarray:
    """`a + b` rounded stochastically to `fmt`, elementwise;
    an array of `fmt.dtype`.

    `a` and `b` are float64 arrays holding values of `fmt`
    (any format up to FP32, whose sums float64 plus one
    error term hold exactly), or of any other format up to
    FP32, such as an FP32 update to a BF16 weight; `draws`
    are uniform in [0, 1).  The exact sum v lies between two
    neighbours d <= v <= u of the format; the result is u
    when `draw < (v - d) / (u - d)` and d otherwise, so its
    mean is v.  A sum that is representable comes back
    unchanged.  Beyond the largest finite value the format
    overflows as with rounding to nearest (inf, or NaN in
    E4M3); NaN in gives NaN; an exact zero sum is +0.0 (-0.0
    if both are -0.0).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        hi, lo = _two_sum(a, b)
        nearest = to_format(hi, fmt)
        near64 = nearest.astype(np.float64)
        # Where does the exact sum hi + lo sit relative to
        # the candidate?
        above = np.where(np.isfinite(near64),
                         (near64 - hi) - lo, 0.0)
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


def add_rounded(a: np.ndarray, b: np.ndarray, fmt: Format) -> np.ndarray:
    """``a + b`` rounded once to ``fmt`` (nearest, ties to even), elementwise; an array of ``fmt.dtype``.

    ``a`` and ``b`` are float64 arrays (or anything that broadcasts) whose
    values need not be in ``fmt``: a BF16 weight plus an FP32 update, say.
    Their exact sum may need more bits than float32, or even float64, holds,
    so rounding either one's sum to ``fmt`` would round twice.  This is
    :func:`add_exact`, vectorised, for any format up to FP32 (precision at
    most 51, else ``ValueError``).
    The special cases are IEEE's, as in :func:`add_exact`: NaN in, NaN out;
    inf + -inf is NaN; an infinity passes through (NaN in E4M3); overflow
    gives +-inf (NaN in E4M3); an exact zero sum is +0.0 unless both operands
    are -0.0; a nonzero sum that underflows keeps its sign (-0.0).
    """
    if fmt.precision > 51:
        raise ValueError(f"add_rounded rounds to formats of at most 51 bits of precision, not {fmt.label}")
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        hi, lo = _two_sum(a, b)
        # Round hi + lo to odd in float64: where lo is not 0 and hi's last bit
        # is even, step one float64 ulp towards lo; the neighbour there is odd.
        # Rounding to odd at 53 bits, then to nearest at p <= 51 bits, is
        # rounding to nearest once (the odd bit breaks every false tie).
        even = (np.asarray(hi).view(np.uint64) & np.uint64(1)) == 0
        toward = np.where(lo > 0, np.inf, -np.inf)
        odd = np.where((lo != 0) & even, np.nextafter(hi, toward), hi)
        return to_format(odd, fmt)
