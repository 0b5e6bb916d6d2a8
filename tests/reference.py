"""Slow, obviously right references for the tests, and helpers to compare bits.

Every summation reference here works on a list of Python floats (values of
the working format) and does one addition at a time with
:func:`fpsum.exact_rounding.add_exact`: the exact rational sum, rounded once to the
format, ties to even.  Nothing is vectorised and nothing is clever, so each
function can be checked by reading it against the textbook definition.

The loops the pages show (naive, Kahan, Neumaier, pairwise) live in the model
package, :mod:`fpsum.textbook`, and are imported from there: the code on a page
is the code the vectorised model is tested against.  The others (the wider
accumulator, pairwise sums of every prefix) are here.

The only thing these references share with the vectorised model
(:mod:`fpsum.methods`) is ``add_exact``, which is itself held to NumPy's and
ml_dtypes' arithmetic, bit for bit, in ``test_rounding.py``.

The cascaded sums (Sum2, SumK) and the correctly rounded sum have their
references in :data:`CASCADED`: the textbook loops of :mod:`fpsum.textbook`
run on every prefix on its own, and the exact rational sum of every prefix
rounded once with :func:`fpsum.exact_rounding.round_exact`.

The dot product references multiply exactly in Fractions and round with
:func:`fpsum.exact_rounding.round_exact`, one operation at a time; the truncating
accumulator's reference does each step of its definition on Fractions.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction

import numpy as np

from fpsum.array_rounding import to_format
from fpsum.exact_rounding import add_exact, round_exact
from fpsum.formats import E2M1, E2M3, E3M2, E4M3FNUZ, E5M2FNUZ, FP32, FP64, Format, get_format
from fpsum.textbook import correctly_rounded, kahan, largest_power_of_two_below, naive, neumaier, sum_k

Running = Callable[[Sequence[float], Format], list[float]]

NEW_FORMATS: tuple[Format, ...] = (E4M3FNUZ, E5M2FNUZ, E3M2, E2M3, E2M1)
"""The formats of issue 27: the fnuz FP8 formats, FP6 and FP4, held to the same references as the others."""


def wide_accumulator(fmt: Format) -> Format:
    """The ``wide`` method's accumulator: FP32 for formats narrower than 32 bits, FP64 otherwise."""
    return FP32 if fmt.bits < 32 else FP64


def wide(xs: Sequence[float], fmt: Format) -> list[float]:
    """Recursive summation with the running total kept in the wider accumulator.

    Each input of ``fmt`` is exact in the accumulator, so only the additions round.
    """
    acc = wide_accumulator(fmt)
    s = xs[0]
    totals = [s]
    for x in xs[1:]:
        s = add_exact(s, x, acc)
        totals.append(s)
    return totals


def pairwise_prefixes(xs: Sequence[float], fmt: Format, counts: Sequence[int] | None = None) -> list[float]:
    """``[pairwise(xs[:i]) for i in counts]`` (default every i in 1..n), the same recursion memoised.

    The memo on (start, length) only avoids recomputing identical sub-sums;
    every value is still the definition's (left part) + (right part).
    """

    @functools.cache
    def part(start: int, length: int) -> float:
        if length == 1:
            return xs[start]
        left = largest_power_of_two_below(length)
        return add_exact(part(start, left), part(start + left, length - left), fmt)

    wanted = range(1, len(xs) + 1) if counts is None else counts
    return [part(0, i) for i in wanted]


RUNNING: dict[str, Running] = {
    "naive": naive,
    "wide": wide,
    "kahan": kahan,
    "neumaier": neumaier,
    "pairwise": pairwise_prefixes,
}


def sum_k_prefixes(xs: Sequence[float], fmt: Format, folds: int = 3) -> list[float]:
    """SumK of every prefix, each from scratch with the textbook loop (slow: O(n^2 K) additions)."""
    return [sum_k(xs[:i], fmt, folds) for i in range(1, len(xs) + 1)]


def sum2_prefixes(xs: Sequence[float], fmt: Format) -> list[float]:
    """Sum2 of every prefix: SumK with K = 2."""
    return sum_k_prefixes(xs, fmt, 2)


def correct_prefixes(xs: Sequence[float], fmt: Format) -> list[float]:
    """The exact sum of every prefix, as a Fraction, rounded once to ``fmt`` (IEEE's special cases)."""
    return [correctly_rounded(xs[:i], fmt) for i in range(1, len(xs) + 1)]


CASCADED: dict[str, Running] = {
    "sumtwo": sum2_prefixes,
    "sumk": sum_k_prefixes,
    "correct": correct_prefixes,
}
"""References of the methods of test_cascaded.py (``sumk`` with its default K = 3)."""


def blocked(xs: Sequence[float], fmt: Format, block: int) -> list[float]:
    """Naive sums within blocks of ``block``, then a naive sum of the block sums, recomputed for every prefix."""
    totals = []
    for count in range(1, len(xs) + 1):
        prefix = xs[:count]
        sums = [naive(prefix[i:i + block], fmt)[-1] for i in range(0, count, block)]
        totals.append(naive(sums, fmt)[-1])
    return totals


# --- dot products -------------------------------------------------------------


def product(x: float, y: float, acc: Format) -> float:
    """``x * y`` rounded once to ``acc``: the exact rational product and :func:`round_exact`, IEEE's special cases.

    NaN in, or inf * 0, gives NaN; inf times a nonzero value is an infinity
    of the product's sign; a zero factor gives a zero whose sign is the
    exclusive or of the signs.
    """
    negative = (math.copysign(1.0, x) < 0) != (math.copysign(1.0, y) < 0)
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if math.isinf(x) or math.isinf(y):
        if x == 0 or y == 0:
            return math.nan
        return round_exact(-math.inf if negative else math.inf, acc)
    if x == 0 or y == 0:
        return -0.0 if negative else 0.0
    return round_exact(Fraction(x) * Fraction(y), acc)


def dot_unfused(xs: Sequence[float], ys: Sequence[float], acc: Format, method: str, block: int = 128) -> list[float]:
    """Running dot products: every product rounded once to ``acc``, then summed by the method's reference."""
    return summed([product(x, y, acc) for x, y in zip(xs, ys)], acc, method, block)


def summed(rounded: Sequence[float], acc: Format, method: str, block: int = 128) -> list[float]:
    """The running sums of products already rounded to ``acc``, by the method's reference: :func:`dot_unfused`'s sum."""
    if method == "blocked":
        return blocked(rounded, acc, block)
    return RUNNING[method](rounded, acc)


def dot_fused(xs: Sequence[float], ys: Sequence[float], acc: Format) -> list[float]:
    """``s = round(s + x * y)`` from ``s = -0.0``, the exact value as a Fraction, rounded once per step.

    Inputs must be finite; once ``s`` is an infinity or NaN it is combined
    with the (finite, exact in float64) product by IEEE float addition.
    An exact zero is +0.0 unless ``s`` and the product are both -0.0.
    """
    s = -0.0
    totals = []
    for x, y in zip(xs, ys):
        p = Fraction(x) * Fraction(y)
        if not math.isfinite(s):
            s = round_exact(s + float(p), acc)
        elif Fraction(s) + p == 0:
            both_negative = math.copysign(1.0, s) < 0 and math.copysign(1.0, x * y) < 0
            s = -0.0 if both_negative else 0.0
        else:
            s = round_exact(Fraction(s) + p, acc)
        totals.append(s)
    return totals


def exact_total(xs: Iterable[float]) -> Fraction:
    """The exact sum of finite floats, as a Fraction: each is an integer over a power of two, so the sum is
    the integers brought to the largest denominator, added, over it (no Fraction sum to reduce at every step).
    """
    ratios = [x.as_integer_ratio() for x in xs]
    denominator = max((d for _, d in ratios), default=1)
    return Fraction(sum(n * (denominator // d) for n, d in ratios), denominator)


def exact_prefix_sums(xs: Sequence[float]) -> list[Fraction]:
    """Exact running sums, as Fractions."""
    total = Fraction(0)
    out = []
    for x in xs:
        total += Fraction(x)
        out.append(total)
    return out


# --- inputs ---------------------------------------------------------------------

KINDS = ("uniform", "mixed", "cancel", "wide_range", "codes", "specials")
"""The kinds of summation inputs :func:`make_values` draws."""
TRIALS = 3
"""Rows of :func:`cached_values`: independent trials, summed at once."""


def make_values(fmt: Format, kind: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Summation test inputs in ``fmt`` (float64 draws rounded once by ``to_format``, or raw codes), FP64 included.

    * ``uniform``: [0, 1), the site's main case;
    * ``mixed``: normal values times 2**-8 .. 2**8, both signs;
    * ``cancel``: every second value is minus the one before, exactly or give
      or take 2**-30, 2**-6 or 2**-3 of it, so running sums cancel;
    * ``wide_range``: magnitudes log-uniform from below the smallest normal
      to half the largest binade, both signs (tiny and huge together; big
      sums overflow to inf, or NaN in E4M3, and Kahan turns inf into NaN);
    * ``codes``: random finite bit patterns: -0.0, subnormals, the largest values;
    * ``specials``: ``mixed`` with NaN, +-inf and -0.0 sprinkled in (none a
      format cannot hold: no inf where overflow saturates or is NaN, no NaN in FP4 and FP6).
    """
    rng = np.random.default_rng([seed, fmt.bits, fmt.precision, KINDS.index(kind), *shape])
    if kind == "uniform":
        drawn = rng.random(shape)
    elif kind in ("mixed", "specials"):
        drawn = rng.standard_normal(shape) * np.ldexp(1.0, rng.integers(-8, 9, shape))
        if kind == "specials":
            pick = rng.random(shape)
            sprinkled = [-0.0] + ([] if fmt.overflow == "saturate" else [math.nan]) + (
                [] if fmt.overflow == "nan" else [math.inf, -math.inf])
            for k, value in enumerate(sprinkled):
                drawn = np.where((pick >= 0.05 * k) & (pick < 0.05 * (k + 1)), value, drawn)
    elif kind == "cancel":
        drawn = rng.standard_normal(shape) * np.ldexp(1.0, rng.integers(-4, 5, shape))
        wobble = 1 + rng.choice([0.0, 0.0, 2.0**-6, -(2.0**-6), 2.0**-3, 2.0**-30], drawn[..., 1::2].shape)
        drawn[..., 1::2] = -drawn[..., 0:2 * (shape[-1] // 2):2] * wobble
    elif kind == "wide_range":
        exponent = rng.uniform(fmt.emin - fmt.precision, fmt.emax / 2, shape)
        drawn = np.where(rng.integers(0, 2, shape) == 1, -1.0, 1.0) * 2.0**exponent
    elif kind == "codes":
        codes = rng.integers(0, 2**fmt.bits, shape, dtype=np.uint64).astype(_UINT[fmt.dtype.itemsize])
        codes = codes.view(fmt.dtype)  # FP4 and FP6 sit in the low bits of a byte
        with np.errstate(invalid="ignore"):  # NaN codes of ml_dtypes' types warn on the cast
            finite = np.isfinite(codes.astype(np.float64))
        # The NaN and inf codes become zeros of random sign.
        zeros = from_floats([0.0, -0.0 if fmt.signed_zero else 0.0], fmt)[rng.integers(0, 2, shape)]
        return np.where(finite, codes, zeros)
    else:
        raise AssertionError(kind)
    with np.errstate(over="ignore", invalid="ignore"):
        return to_format(drawn, fmt)


@functools.cache
def cached_values(fmt_name: str, kind: str, n: int) -> np.ndarray:
    """:func:`make_values` of ``TRIALS`` rows of ``n`` (seed 1), made once and read-only (no method may write
    to its inputs).
    """
    values = make_values(get_format(fmt_name), kind, (TRIALS, n), seed=1)
    values.setflags(write=False)
    return values


_UINT_BY_BITS = {8: np.uint8, 16: np.uint16, 32: np.uint32}


def random_values(fmt: Format, shape: tuple[int, ...], seed: int, kind: str) -> np.ndarray:
    """Seeded finite values of ``fmt`` (up to FP32) for the dot product tests.

    * ``uniform``: [0, 1), the pages' case;
    * ``mixed``: normal values times 2**-6 .. 2**6, both signs, within half the largest value;
    * ``codes``: random finite bit patterns: -0.0, subnormals, the largest values, both signs.
    """
    rng = np.random.default_rng([seed, fmt.bits, fmt.precision, len(kind), *shape])
    if kind == "codes":
        storage = _UINT_BY_BITS[fmt.dtype.itemsize * 8]  # FP4 and FP6 sit in the low bits of a byte
        codes = rng.integers(0, 2**fmt.bits, shape).astype(storage).view(fmt.dtype)
        with np.errstate(invalid="ignore"):  # NaN codes of ml_dtypes' types warn on the cast
            finite = np.isfinite(codes.astype(np.float64))
        return np.where(finite, codes, np.zeros_like(codes))
    if kind == "uniform":
        drawn = rng.random(shape)
    elif kind == "mixed":
        drawn = rng.standard_normal(shape) * np.ldexp(1.0, rng.integers(-6, 7, shape))
        drawn = np.clip(drawn, -fmt.max_finite / 2, fmt.max_finite / 2)
    else:
        raise AssertionError(kind)
    return to_format(drawn, fmt)


# --- comparing bit patterns -------------------------------------------------

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def as_bits(values: np.ndarray) -> np.ndarray:
    """The raw bit patterns of a float array (any float dtype, ml_dtypes' included)."""
    array = np.ascontiguousarray(values)
    return array.view(_UINT[array.dtype.itemsize])


def mismatches(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Boolean mask of positions where ``got`` and ``want`` differ bit for bit, all NaNs equal.

    Both arrays must have the same dtype and shape; -0.0 and +0.0 differ.
    """
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    both_nan = np.isnan(got.astype(np.float64)) & np.isnan(want.astype(np.float64))
    differ: np.ndarray = (as_bits(got) != as_bits(want)) & ~both_nan
    return differ


def assert_same_bits(got: np.ndarray, want: np.ndarray, *inputs: np.ndarray, show: int = 8) -> None:
    """Assert bit-for-bit equality (all NaNs equal); on failure list the first few cases with their inputs."""
    bad = mismatches(got, want)
    if bad.any():
        where = np.argwhere(bad)[:show]
        lines = []
        for index in map(tuple, where):
            ins = ", ".join(f"{float(x[index])!r}" for x in inputs)
            lines.append(
                f"  at {index}: inputs ({ins}) got {float(got[index])!r} "
                f"[{int(as_bits(got)[index]):#x}], want {float(want[index])!r} [{int(as_bits(want)[index]):#x}]"
            )
        raise AssertionError(f"{int(bad.sum())} of {bad.size} differ:\n" + "\n".join(lines))


def from_floats(values: Sequence[float] | Sequence[Sequence[float]] | np.ndarray, fmt: Format) -> np.ndarray:
    """Python floats that are already values of ``fmt`` (or +-inf, NaN) as an array of ``fmt.dtype``.

    The cast is exact for such values, so any route gives the same bits;
    an assertion checks that nothing was rounded on the way.
    """
    wide = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        narrow: np.ndarray = wide.astype(fmt.dtype)
    back = narrow.astype(np.float64)
    assert np.all((back == wide) | (np.isnan(back) & np.isnan(wide))), "value not in the format"
    # The sign of zero must survive too.
    numbers = ~np.isnan(wide)
    assert np.all(np.signbit(back[numbers]) == np.signbit(wide[numbers]))
    return narrow


def assert_every_case(check: Callable[..., None], *axes: Iterable[object]) -> None:
    """``check(*case)`` for every combination of the axes' values; on failure list every case that failed.

    For many cheap cases in one test (a test per case costs pytest more than
    the check): every case is still run, and each failing one is named with
    its own message.
    """
    failed = []
    for case in itertools.product(*axes):
        try:
            check(*case)
        except AssertionError as error:
            failed.append(f"{case}: {error}")
    assert not failed, f"{len(failed)} case(s) failed:\n" + "\n".join(failed)
