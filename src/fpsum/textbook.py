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
share nothing with :mod:`fpsum.methods` but :func:`fpsum.rounding.add_exact`,
which the tests hold to NumPy's and ml_dtypes' arithmetic.  They are slow
(one exact integer addition per operation): for reading and checking, not
for sweeps.
"""

from __future__ import annotations

from collections.abc import Sequence

from .formats import Format
from .rounding import add_exact


def add(a: float, b: float, fmt: Format) -> float:
    """``a + b`` rounded once to ``fmt``: :func:`fpsum.rounding.add_exact`.

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
    """Recursive summation, left to right: the running totals, each addition rounded to ``fmt``.

    Starts from the first input (so a lone -0.0 stays -0.0) and needs at
    least one (``IndexError`` otherwise).  NaN and inf propagate as in
    :func:`add`.
    """
    s = xs[0]
    totals = [s]
    for x in xs[1:]:
        s = add(s, x, fmt)  # s = s + x, rounded: the low-order bits of x that do not fit are lost
        totals.append(s)
    return totals
# --8<-- [end:naive]


# --8<-- [start:kahan]
def kahan(xs: Sequence[float], fmt: Format) -> list[float]:
    """Kahan's compensated summation (Kahan 1965): the running totals, every operation rounded to ``fmt``.

    Starts from ``s = c = +0`` (so a lone -0.0 gives +0.0); no input gives
    no totals.  Non-finite values poison ``c`` as well as ``s``: once an inf
    enters, the result is NaN (inf - inf).
    """
    s = c = 0.0
    totals = []
    for x in xs:
        y = sub(x, c, fmt)               # y = x - c: the input, corrected by what was lost last time
        t = add(s, y, fmt)               # t = s + y: the low-order bits of y are lost here ...
        c = sub(sub(t, s, fmt), y, fmt)  # c = (t - s) - y: ... and recovered here (algebraically zero)
        s = t
        totals.append(s)
    return totals
# --8<-- [end:kahan]


# --8<-- [start:neumaier]
def neumaier(xs: Sequence[float], fmt: Format) -> list[float]:
    """Neumaier's compensated summation (Neumaier 1974): entry i is ``s + c`` after i + 1 inputs, rounded.

    Every operation is rounded to ``fmt``; starts from ``s = c = +0`` (a
    lone -0.0 gives +0.0); no input gives no totals.  Infinities and NaN
    propagate into ``c`` and give NaN, as with Kahan.
    """
    s = c = 0.0
    totals = []
    for x in xs:
        t = add(s, x, fmt)                     # t = s + x, rounded
        if abs(s) >= abs(x):
            lost = add(sub(s, t, fmt), x, fmt)  # (s - t) + x: what x lost in t
        else:
            lost = add(sub(x, t, fmt), s, fmt)  # (x - t) + s: what s lost in t
        c = add(c, lost, fmt)                   # c collects the losses, apart from s
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
    """Pairwise sum from the definition: the pairwise sums of the two parts, added and rounded once.

    The left part holds the largest power of two of inputs strictly below
    ``len(xs)``.  Needs at least one input (``ValueError`` otherwise).  NaN and inf propagate up the
    tree as in :func:`add`; a single input, -0.0 included, is its own sum.
    """
    if len(xs) == 1:
        return xs[0]
    left = largest_power_of_two_below(len(xs))
    return add(pairwise(xs[:left], fmt), pairwise(xs[left:], fmt), fmt)
# --8<-- [end:pairwise]
