"""The textbook summation loops: one scalar operation at a time, each rounded to the format.

Each function here is a method as the literature writes it, a plain loop
over Python floats that are values of the working format.  Every addition
and subtraction is done by :func:`add` or :func:`sub`: the exact result of
the operation on the two values, rounded once to the format (nearest, ties
to even, the format's own overflow), which is what IEEE 754 arithmetic in
that format does.  Nothing is vectorised and nothing is clever, so each loop
can be checked by reading it against the textbook definition.

These loops are what the tests hold the vectorised methods of
:mod:`fpsum.methods` to, bit for bit, and what the pages show first.  They
share nothing with :mod:`fpsum.methods` but :func:`fpsum.exact_rounding.add_exact`,
which the tests hold to NumPy's and ml_dtypes' arithmetic.  They are slow
(one exact integer addition per operation): for reading and checking, not
for sweeps.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from .exact_rounding import add_exact, round_exact
from .formats import FP32, Format


def add(a: float, b: float, fmt: Format) -> float:
    """``a + b`` rounded once to ``fmt``: :func:`fpsum.exact_rounding.add_exact`.

    NaN in, NaN out; inf + -inf is NaN; an infinite operand passes through
    (NaN in E4M3); an exact zero sum is +0.0 unless both operands are -0.0.
    """
    return add_exact(a, b, fmt)


def sub(a: float, b: float, fmt: Format) -> float:
    """``a - b`` rounded once to ``fmt``: IEEE 754 defines it as ``a + (-b)``, and negation is exact.

    NaN, inf and -0 follow from :func:`add`: inf - inf is NaN, and
    ``-0.0 - 0.0`` is -0.0 while ``0.0 - 0.0`` is +0.0.
    """
    return add_exact(a, -b, fmt)


# --8<-- [start:naive]
def naive(xs: Sequence[float], fmt: Format) -> list[float]:
    """Recursive summation, left to right: the running totals, each addition
    rounded to `fmt`.

    Starts from the first input (so a lone -0.0 stays -0.0) and needs at least
    one (`IndexError` otherwise).  NaN and inf propagate as in `add()`.
    """
    s = xs[0]
    totals = [s]
    for x in xs[1:]:
        # s = s + x, rounded: the low-order bits of x that do not fit are lost
        s = add(s, x, fmt)
        totals.append(s)
    return totals
# --8<-- [end:naive]


def stochastic(xs: Sequence[float], draws: Sequence[float], fmt: Format) -> list[float]:
    """Recursive summation with stochastic rounding, from ``s = +0``: the running totals, one draw per input.

    Each exact sum ``s + x`` is rounded by :func:`fpsum.exact_rounding.round_exact`
    in its stochastic mode with that input's draw (in [0, 1)): up, towards
    +inf, when the draw is below the fraction of the gap the sum has covered.
    A sum beyond the largest finite value rounds to nearest instead, so it
    overflows as the format does (inf, or NaN in E4M3) unless it lies within
    half a gap of the largest value.  NaN and inf propagate as in
    :func:`add`; an exact zero sum is +0.0.  ``ValueError`` if ``xs`` and
    ``draws`` differ in length.
    """
    s = 0.0
    totals = []
    for x, draw in zip(xs, draws, strict=True):
        if math.isfinite(s) and math.isfinite(x):
            exact = Fraction(s) + Fraction(x)
            beyond = abs(exact) > Fraction(fmt.max_finite)
            s = round_exact(exact, fmt) if beyond else round_exact(exact, fmt, "stochastic", uniform=draw)
        else:
            s = add(s, x, fmt)  # NaN in, NaN out; inf + -inf is NaN
        totals.append(s)
    return totals


# --8<-- [start:kahan]
def kahan(xs: Sequence[float], fmt: Format) -> list[float]:
    """Kahan's compensated summation (Kahan 1965): the running totals, every
    operation rounded to `fmt`.

    Starts from `s = c = +0` (so a lone -0.0 gives +0.0); no input gives no
    totals.  Non-finite values poison `c` as well as `s`: once an inf enters,
    the result is NaN (inf - inf).
    """
    s = c = 0.0
    totals = []
    for x in xs:
        # y = x - c: the input, less what was lost last time
        y = sub(x, c, fmt)
        # t = s + y: low-order bits of y are lost here ...
        t = add(s, y, fmt)
        # c = (t - s) - y: ... and recovered here (algebraically zero)
        c = sub(sub(t, s, fmt), y, fmt)
        s = t
        totals.append(s)
    return totals
# --8<-- [end:kahan]


# --8<-- [start:neumaier]
def neumaier(xs: Sequence[float], fmt: Format) -> list[float]:
    """Neumaier's compensated summation (Neumaier 1974): entry i is `s + c`
    after i + 1 inputs, rounded.

    Every operation is rounded to `fmt`; starts from `s = c = +0` (a lone -0.0
    gives +0.0); no input gives no totals. Infinities and NaN propagate into
    `c` and give NaN, as with Kahan.
    """
    s = c = 0.0
    totals = []
    for x in xs:
        t = add(s, x, fmt)  # t = s + x, rounded
        if abs(s) >= abs(x):
            # (s - t) + x: what x lost in t
            lost = add(sub(s, t, fmt), x, fmt)
        else:
            # (x - t) + s: what s lost in t
            lost = add(sub(x, t, fmt), s, fmt)
        c = add(c, lost, fmt)  # the losses, apart from s
        s = t
        totals.append(add(s, c, fmt))
    return totals
# --8<-- [end:neumaier]


def largest_power_of_two_below(n: int) -> int:
    """The largest power of two strictly below ``n``, found by counting up: the left part of a pairwise sum.

    A count, not a float: no NaN, inf or -0 cases.  ``ValueError`` for
    ``n`` below 2, which has no such power.
    """
    if n < 2:
        raise ValueError(f"a pairwise split needs at least 2 inputs, got {n}")
    p = 1
    while 2 * p < n:
        p *= 2
    return p


# --8<-- [start:pairwise]
def pairwise(xs: Sequence[float], fmt: Format) -> float:
    """Pairwise sum from the definition: the pairwise sums of the two parts,
    added and rounded once.

    The left part holds the largest power of two of inputs strictly below
    `len(xs)`.  Needs at least one input (`ValueError` otherwise).  NaN and inf
    propagate up the tree as in `add()`; a single input, -0.0 included, is its
    own sum.
    """
    if len(xs) == 1:
        return xs[0]
    left = largest_power_of_two_below(len(xs))
    return add(pairwise(xs[:left], fmt), pairwise(xs[left:], fmt), fmt)
# --8<-- [end:pairwise]


# --- the truncating accumulator of fpsum.hardware, one step at a time ---------


def _binade(value: Fraction) -> int:
    """floor(log2 |value|) of a nonzero rational, exactly.

    With |value| = n / d, 2**(bits(n) - 1) <= n < 2**bits(n) and likewise d,
    so e = bits(n) - bits(d) gives 2**(e - 1) < |value| < 2**(e + 1): the
    answer is e when n >= d * 2**e, else e - 1 (integers, compared exactly).
    """
    n, d = abs(value.numerator), value.denominator
    e = n.bit_length() - d.bit_length()
    at_least = n >= d << e if e >= 0 else n << -e >= d
    return e if at_least else e - 1


def _toward_zero(value: Fraction, quantum: Fraction) -> Fraction:
    """The multiple of ``quantum`` next to ``value`` on the side of zero (``int`` truncates a Fraction)."""
    return int(value / quantum) * quantum


# --8<-- [start:truncating]
def truncating_step(
    s: Fraction, terms: Sequence[Fraction], bits: int
) -> Fraction:
    """One step of the truncating accumulator (`fpsum.hardware`), from its
    definition.

    Align every term to the largest, cut each towards zero to `bits` bits of
    that alignment, add exactly, cut the sum to `bits` significant bits.  Terms
    are exact rationals (products of finite inputs); no NaN, inf or -0: a zero
    sum is `Fraction(0)`.
    """
    everything = [s, *terms]
    nonzero = [t for t in everything if t != 0]
    if not nonzero:
        return Fraction(0)
    e_max = max(_binade(t) for t in nonzero)
    quantum = Fraction(2) ** (e_max - bits + 1)
    cut = (_toward_zero(t, quantum) for t in everything)
    aligned = sum(cut, Fraction(0))
    if aligned == 0:
        return aligned
    sum_q = Fraction(2) ** (_binade(aligned) - bits + 1)
    return _toward_zero(aligned, sum_q)


def truncating_dot(
    xs: Sequence[float],
    ys: Sequence[float],
    bits: int,
    block: int,
    promote_every: int | None,
) -> list[float]:
    """Running results of the truncating accumulator (finite inputs only), one
    Fraction step at a time.

    Entry k uses the steps before k's own, then one step of the products of k's
    step up to k.  With promotion, every `promote_every` products the narrow
    sum is added into an FP32 value (rounded once) and reset, and an entry is
    that FP32 value plus the pending narrow sum, rounded once.  NaN or inf
    inputs have no exact product: `Fraction` refuses them (ValueError,
    OverflowError); a zero result is +0.0, never -0.0.
    """

    def into_fp32(wide: float, narrow: Fraction) -> float:
        if not math.isfinite(wide):
            return wide  # inf + finite is inf
        return round_exact(Fraction(wide) + narrow, FP32)

    terms = [Fraction(x) * Fraction(y) for x, y in zip(xs, ys)]
    s = Fraction(0)
    wide = 0.0
    out = []
    for start in range(0, len(terms), block):
        step = terms[start : start + block]
        for end in range(1, len(step) + 1):
            narrow = truncating_step(s, step[:end], bits)
            if promote_every is None:
                out.append(float(narrow))
            else:
                out.append(into_fp32(wide, narrow))
        s = narrow
        promote = promote_every is not None and (
            (start + block) % promote_every == 0
        )
        if promote:
            wide = into_fp32(wide, s)
            s = Fraction(0)
    return out
# --8<-- [end:truncating]


# --- error-free transformations and cascaded sums (Ogita, Rump and Oishi 2005) ---


# --8<-- [start:two_sum]
def two_sum(a: float, b: float, fmt: Format) -> tuple[float, float]:
    """Knuth's TwoSum: `s = a + b` rounded to `fmt`, and the error `e` with
    `s + e == a + b` exactly.

    Six operations, no branch, no comparison of magnitudes. Exact for finite
    values when nothing overflows, `s - a` included (it can, when `b` is within
    a rounding of the largest value); a NaN or infinite operand, sum or `s - a`
    gives `e` NaN (inf - inf).
    """
    s = add(a, b, fmt)  # the rounded sum
    # the parts of s that came from b, and from a
    b_virtual = sub(s, a, fmt)
    a_virtual = sub(s, b_virtual, fmt)
    # what each lost, added: exact
    e = add(sub(a, a_virtual, fmt), sub(b, b_virtual, fmt), fmt)
    return s, e
# --8<-- [end:two_sum]


# --8<-- [start:vec_sum]
def vec_sum(xs: Sequence[float], fmt: Format) -> list[float]:
    """VecSum: TwoSum along the vector; the naive sum ends up last, each step's
    error where the step began.

    The exact sum of the vector does not change.  An empty or one-value vector
    comes back as it is; NaN and inf as in `two_sum()`.
    """
    p = list(xs)
    for i in range(1, len(p)):
        # the sum moves right, the error stays behind
        p[i], p[i - 1] = two_sum(p[i], p[i - 1], fmt)
    return p
# --8<-- [end:vec_sum]


# --8<-- [start:sum_k]
def sum_k(xs: Sequence[float], fmt: Format, folds: int = 3) -> float:
    """SumK: VecSum `folds - 1` times, then a naive sum, left to right from the
    first entry.

    `folds` is K: 1 is the naive sum, 2 is Sum2.  Needs at least one input
    (`IndexError` otherwise); a single input, -0.0 included, is its own sum.
    NaN and inf propagate into the errors, so the result is NaN once one enters
    (for K >= 2).
    """
    p = list(xs)
    for _ in range(folds - 1):
        # this pass's errors are the next pass's inputs
        p = vec_sum(p, fmt)
    s = p[0]
    for x in p[1:]:
        s = add(s, x, fmt)
    return s
# --8<-- [end:sum_k]


# --8<-- [start:correctly_rounded]
def correctly_rounded(xs: Sequence[float], fmt: Format) -> float:
    """The exact sum of `xs`, as a rational number, rounded once to `fmt`
    (nearest, ties to even).

    IEEE's special cases: NaN in, NaN out; +inf and -inf together give NaN;
    otherwise an infinity gives itself (NaN in E4M3). An exact sum beyond the
    largest value overflows as the format does, even where every partial sum
    would have overflowed first, or none.  An exact zero is -0.0 if every input
    is -0.0, else +0.0.  Needs at least one input.
    """
    if not xs:
        raise ValueError("a sum needs at least one input")
    inf = math.inf
    if any(math.isnan(x) for x in xs):
        return math.nan
    if inf in xs and -inf in xs:
        return math.nan
    if inf in xs or -inf in xs:
        return round_exact(inf if inf in xs else -inf, fmt)
    exact = sum((Fraction(x) for x in xs), Fraction(0))
    if exact == 0:
        signs = [math.copysign(1.0, x) for x in xs]
        return -0.0 if all(v < 0 for v in signs) else 0.0
    return round_exact(exact, fmt)
# --8<-- [end:correctly_rounded]
