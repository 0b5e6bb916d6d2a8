"""The softmax denominator, sum of exp(x - max), in an accumulation format by three orders; the probabilities.

The inputs are values of the input format converted exactly to the
accumulation format ``acc`` (:func:`~fpsum.moments.check_formats`).  Each
difference ``x - m`` is rounded once to ``acc``, and its exponential is the
correctly rounded exp of that difference (:func:`exp_rounded`).  The
denominator adds the terms in ``acc``:

* ``naive``: in order, ``d = fl(d + e)``;
* ``pairwise``: the pairwise sum's tree (:func:`fpsum.pairwise.pairwise_sum`);
* ``online``: Milakov and Gimelshein's one pass (arXiv:1805.02867), with a
  running max m and sum d: m' = max(m, x), d = fl(fl(d * exp(fl(m - m'))) +
  exp(fl(x - m'))), starting from m = x0, d = 1.  While the max stays put
  the first factor is exp(0) = 1 and this is the naive sum.

Each probability is ``exp(fl(x - max)) / d`` rounded once.  Leading axes are
independent rows, vectorised over.  The inputs must be finite: a logit of
-inf (a mask) is not modelled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Context, Decimal
from fractions import Fraction
from typing import Literal, get_args

import numpy as np

from .array_rounding import to_format
from .exact import exact_sum
from .exact_rounding import round_exact
from .formats import Format
from .moments import check_formats, relative_error
from .pairwise import pairwise_sum
from .rounded_once import round_quotient

SoftmaxOrder = Literal["naive", "pairwise", "online"]
SOFTMAX_ORDERS: tuple[SoftmaxOrder, ...] = get_args(SoftmaxOrder)

_EXPS: dict[tuple[str, float], float] = {}
"""Every exponential rounded so far, by format name and argument: each is worked out once a process."""
_EXPS_HELD = 1 << 20
"""When the cache would hold more (about 100 MB, reached only by FP32 and FP64 arguments), it starts again."""


def _exp_shortcut(y: float, fmt: Format) -> float | None:
    """exp(y) rounded to ``fmt`` where no arithmetic is needed to know it (0, 1, overflow, non-finite), else None."""
    if math.isnan(y):
        return math.nan
    if y == 0 or abs(y) < 2.0 ** -(fmt.precision + 2):
        # exp(y) lies strictly between 1 + y and 1 + 2y, inside 1's half-gaps (2**-(p+1) below, 2**-p above).
        return 1.0
    if y < (fmt.emin - fmt.precision - 1) * math.log(2) - 1:
        return 0.0  # below a quarter of the smallest subnormal (and -inf)
    if y > (fmt.emax + 2) * math.log(2) + 1:
        return round_exact(math.inf, fmt)  # beyond twice the largest value (and inf)
    return None


def _unit(value: Decimal, digits: int) -> Decimal:
    """One unit in the last of ``digits`` places of ``value``: the bound on its error from ``Context.exp``."""
    return Decimal((0, (1,), value.adjusted() - digits + 1))


def _exp_exact(y: float, fmt: Format) -> float:
    """exp(y) rounded once to ``fmt``, by decimal arithmetic with a guaranteed error, made finer until it decides.

    ``Context.exp`` is correctly rounded to its precision, so the true value
    lies within one unit of the last digit either side of the result; when
    both ends of that interval round to the same value of ``fmt``, so does
    exp(y).  exp of a nonzero rational is irrational, never on a midpoint, so
    a finer precision always decides in the end.
    """
    digits = 2 * fmt.precision + 10
    while True:
        value = Context(prec=digits).exp(Decimal(y))
        unit = _unit(value, digits)
        low = round_exact(Fraction(value - unit), fmt)
        if low == round_exact(Fraction(value + unit), fmt):
            return low
        digits += 20


def _exp_many(ys: list[float], fmt: Format) -> list[float]:
    """exp of each (finite, past the shortcuts) argument rounded once to ``fmt``, deciding most in floats.

    Each exp is taken to a few digits more than the format holds; its nearest
    value of ``fmt`` is a guess, right when the decimal's error interval lies
    strictly between the midpoints around the guess (exact comparisons of
    decimals; the midpoints of a format of at most 52 bits are doubles).
    The few that are not decided so, and FP64's, go to :func:`_exp_exact`.
    """
    if fmt.precision > 52:
        return [_exp_exact(y, fmt) for y in ys]
    digits = (fmt.precision * 3 + 9) // 10 + 8
    context = Context(prec=digits)
    values = [context.exp(Decimal(y)) for y in ys]
    with np.errstate(over="ignore", invalid="ignore"):
        guess = to_format(np.array([float(v) for v in values], dtype=np.float64), fmt)
        top = np.full(guess.shape, fmt.max_finite).astype(fmt.dtype)
        up, down = np.nextafter(guess, top), np.nextafter(guess, -top)
        centre = guess.astype(np.float64)
        # Exact: two neighbours of a format narrower than a double add up within its 53 bits.
        above, below = (centre + up.astype(np.float64)) / 2, (centre + down.astype(np.float64)) / 2
    results = []
    for y, value, g, high, low in zip(ys, values, centre.tolist(), above.tolist(), below.tolist()):
        unit = _unit(value, digits)
        inside = math.isfinite(g) and Decimal(low) < value - unit and value + unit < Decimal(high)
        results.append(g if inside else _exp_exact(y, fmt))
    return results


def exp_rounded(values: np.ndarray, fmt: Format) -> np.ndarray:
    """exp of each value (an array of ``fmt.dtype``), correctly rounded to ``fmt``: an array of ``fmt.dtype``.

    Each distinct argument is worked out once a process (:func:`_exp_many`).
    exp(0) = exp(-0.0) = 1; exp(-inf) = +0; exp(inf) and results beyond the
    largest value overflow as the format does (inf, NaN in E4M3); NaN gives
    NaN; a result below half the smallest subnormal is +0.
    """
    wide = np.asarray(values, dtype=np.float64)
    unique, where = np.unique(wide, return_inverse=True)
    results: list[float] = []
    missing: list[float] = []
    for y in unique.tolist():
        known = _exp_shortcut(y, fmt)
        if known is None:
            known = _EXPS.get((fmt.name, y))
            if known is None:
                missing.append(y)
        results.append(math.nan if known is None else known)
    if missing:
        if len(_EXPS) + len(missing) > _EXPS_HELD:
            _EXPS.clear()
        _EXPS.update(((fmt.name, y), e) for y, e in zip(missing, _exp_many(missing, fmt)))
        results = [_EXPS.get((fmt.name, y), r) for y, r in zip(unique.tolist(), results)]
    with np.errstate(invalid="ignore"):
        return to_format(np.array(results, dtype=np.float64)[where].reshape(wide.shape), fmt)


def _check(values: np.ndarray, acc: Format) -> None:
    if values.dtype != acc.dtype:
        raise TypeError(f"inputs are {values.dtype}, expected {acc.dtype} for {acc.label}")
    if values.shape[-1] < 1:
        raise ValueError("a softmax needs at least one input")


def softmax_terms(values: np.ndarray, acc: Format) -> np.ndarray:
    """exp(fl(x - max)) of every input, correctly rounded to ``acc``; the row's max gives exactly 1.

    ``values`` of ``acc.dtype``, shape ``(..., n)``.  Finite inputs give terms
    in [0, 1]; an inf or NaN input gives NaN terms (inf - inf), as it would in
    a kernel.  -0.0 and +0.0 are equal: their difference is 0 and the term 1.
    """
    _check(values, acc)
    with np.errstate(over="ignore", invalid="ignore"):
        differences = values - values.max(axis=-1, keepdims=True)
    return exp_rounded(differences, acc)


# --8<-- [start:online]
def online_denominator(values: np.ndarray, acc: Format) -> np.ndarray:
    """Milakov and Gimelshein's online normaliser: a running max and sum.

    The sum is rescaled each time the max grows.

    Every operation rounded once to `acc`: m' = max(m, x) (exact),
    d = fl(fl(d * exp(fl(m - m'))) + exp(fl(x - m'))), from m = x0 and d = 1.
    The exponentials are those of `exp_rounded()`, all taken before the
    loop (the running max is known in advance).  NaN or inf inputs give NaN;
    -0.0 and +0.0 count as one max.
    """
    _check(values, acc)
    running_max = np.maximum.accumulate(values, axis=-1)
    with np.errstate(over="ignore", invalid="ignore"):
        rescale = exp_rounded(
            np.concatenate(
                [running_max[..., :1], running_max[..., :-1]], axis=-1
            )
            - running_max,
            acc,
        )
        terms = exp_rounded(values - running_max, acc)
        d = np.ones(values.shape[:-1], dtype=values.dtype)
        for scale, term in zip(
            np.moveaxis(rescale, -1, 0)[1:], np.moveaxis(terms, -1, 0)[1:]
        ):
            d = d * scale + term
    return d
# --8<-- [end:online]


def denominator(values: np.ndarray, acc: Format, order: SoftmaxOrder) -> np.ndarray:
    """Sum of exp(x - max) over the last axis in ``acc`` by ``order`` (see the module docstring).

    ``ValueError`` for an unknown order.  Finite inputs give at least 1 (the
    max's own term).  The naive and online sums of terms of at most 1 stall
    before they could overflow; the pairwise sum does not stall, so it can
    overflow: 65,536 equal logits give inf in FP16 (32,768 + 32,768), 512
    give NaN in E4M3.  NaN or inf inputs give NaN.
    """
    if order == "online":
        return online_denominator(values, acc)
    terms = softmax_terms(values, acc)
    with np.errstate(over="ignore", invalid="ignore"):
        if order == "naive":
            return np.asarray(np.add.accumulate(terms, axis=-1)[..., -1])
        if order == "pairwise":
            return pairwise_sum(terms, acc)
    raise ValueError(f"unknown order {order!r} (known: {', '.join(SOFTMAX_ORDERS)})")


def probabilities(terms: np.ndarray, denominators: np.ndarray, acc: Format) -> np.ndarray:
    """Each term / its row's denominator, rounded once to ``acc`` (an array of ``acc.dtype``).

    Finite terms; IEEE's rules where the denominator is not finite: a term
    over inf is +0 (a pairwise sum that overflowed), over NaN it is NaN; a
    NaN term gives NaN.  A -0.0 term gives -0.0 (+0.0 in the fnuz formats).
    """
    wide = terms.astype(np.float64)
    below = np.broadcast_to(np.asarray(denominators, dtype=np.float64)[..., np.newaxis], wide.shape)
    finite = np.isfinite(below)
    rounded = round_quotient(wide, np.where(finite, below, 1.0), acc)
    if finite.all():
        return rounded.astype(acc.dtype)
    with np.errstate(invalid="ignore"):
        ieee = to_format(wide / below, acc).astype(np.float64)
        return np.where(finite, rounded, ieee).astype(acc.dtype)


@dataclass(frozen=True)
class Softmax:
    """One row's softmax in the accumulation format, and the exact values of what it added.

    ``denominator`` is the sum of the rounded terms in ``order`` (inf or NaN
    where a pairwise sum overflowed); ``exact_denominator`` their exact sum.
    ``probability_sum`` adds the rounded probabilities in the same format and
    order (naive for ``online``); ``exact_probability_sum`` is their exact
    sum, which is 1 only if the denominator was right (NaN if a probability is).
    """

    order: SoftmaxOrder
    fmt: Format
    acc: Format
    n: int
    denominator: float
    exact_denominator: Fraction
    denominator_rel_error: float
    probability_sum: float
    exact_probability_sum: Fraction | float


def softmax(values: np.ndarray, fmt: Format, acc: Format, order: SoftmaxOrder) -> Softmax:
    """The :class:`Softmax` of one row of values of ``fmt`` accumulated in ``acc``.

    ``ValueError`` for formats :func:`~fpsum.moments.check_formats` refuses,
    an empty row, an unknown order, or NaN or inf among the inputs (a masked
    logit, -inf, is not modelled).  -0.0 counts as 0; n = 1 gives a
    denominator of 1 and a probability of 1.
    """
    check_formats(fmt, acc)
    row = np.asarray(values, dtype=np.float64).ravel()
    if row.size == 0:
        raise ValueError("a softmax needs at least one input")
    if not np.all(np.isfinite(row)):
        raise ValueError("a softmax here needs finite inputs")
    if order not in SOFTMAX_ORDERS:
        raise ValueError(f"unknown order {order!r} (known: {', '.join(SOFTMAX_ORDERS)})")
    inputs = row.astype(acc.dtype)  # exact: acc holds fmt
    total = denominator(inputs, acc, order)
    terms = softmax_terms(inputs, acc)
    probs = probabilities(terms, total, acc)
    with np.errstate(over="ignore"):
        summed = pairwise_sum(probs, acc) if order == "pairwise" else np.add.accumulate(probs)[-1]
    exact = exact_sum(terms)
    probability_total = exact_sum(probs) if np.isfinite(probs.astype(np.float64)).all() else math.nan
    return Softmax(order, fmt, acc, int(row.size), float(total), exact, relative_error(float(total), exact),
                   float(summed), probability_total)
