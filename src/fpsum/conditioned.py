"""Sums with a chosen condition number, after the idea of Ogita, Rump and Oishi (2005, sec. 6).

The condition number of a sum s = sum(x) is kappa = sum(|x|) / |s|: how
much the relative error of the inputs, or of the method, can be magnified
in the result.  For inputs of one sign it is 1; cancellation makes it as
large as the format's exponent range allows.  A method whose error bound
is ``c * sum(|x|)`` has a relative error of at most ``c * kappa``.

To test that, a generator must hit a prescribed kappa and know the exact
sum.  Here, as in Ogita, Rump and Oishi's generator, the exponents are
spread first and the sum is made to cancel afterwards: the first half of the
terms are random, with exponents spread uniformly over log2(kappa) binades
below the largest; each term of the second half is a random value of
shrinking size minus the exact sum so far, rounded to the format, so the
running sum falls, binade by binade, to about 2**-log2(kappa) of the largest
term.  The terms are then shuffled.  Every value is a value of the format;
the sums and kappa are measured afterwards from exact sums
(:func:`fpsum.exact.exact_running`), since the achieved kappa is near the
target, not equal to it.

How far kappa can go is set by the format's range: a sum of values of the
format is a whole multiple of its smallest subnormal 2**q, so a nonzero sum
is at least 2**q, and the sum of magnitudes must stay below the largest
finite value for no order of additions to overflow.  A sum is first built
low in the range, where n terms cannot overflow whatever their sizes, and
is then rebuilt from the same draws higher up, as far as its own sum of
magnitudes allows, when it must fall deeper than two quanta above 2**q.
In FP16 (q = -24, emax = 15) the moved sums have magnitudes summing to
at most about 2**14, and kappa reaches a few times 10**11; for magnitudes below
2**15 the ceiling is 2**15 / 2**-24 = 2**39.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .array_rounding import to_format
from .exact import exact_running
from .formats import Format

CONDITIONED_STREAM = 0x434E  # keeps the generator's draws apart from the other seeded streams
MAX_LOG2_KAPPA = 1000
"""No target beyond 2**1000: kappa must stay a float64, and FP64's sums would leave its range."""


@dataclass(frozen=True)
class ConditionedSums:
    """Generated sums: the inputs, their exact sums and their condition numbers, one row per target.

    ``values`` has shape ``(rows, n)`` in ``fmt.dtype``; ``exact`` is each
    row's exact sum and ``absolute`` its exact sum of magnitudes, each
    rounded once to float64; ``kappa`` is ``absolute / |exact|`` (within a
    few float64 roundings of the exact ratio; inf where the exact sum is
    0); ``target`` is the kappa each row was drawn for.
    """

    fmt: Format
    values: np.ndarray
    exact: np.ndarray
    absolute: np.ndarray
    kappa: np.ndarray
    target: np.ndarray


def condition_number(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact sum, exact sum of magnitudes (each rounded once to float64) and kappa of each row.

    ``values`` has shape ``(..., n)``, any float dtype, finite (``ValueError``
    otherwise, as :func:`fpsum.exact.exact_running`); -0.0 counts as 0.  A
    row whose exact sum is 0 has kappa inf (0/0 for an all-zero row is
    reported as inf too: no relative error is defined there).
    """
    exact = exact_running(values, np.array([values.shape[-1]]))[..., 0]
    absolute = magnitudes(values)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(exact != 0, absolute / np.abs(exact), np.inf)
    return exact, absolute, kappa


def top_exponent(fmt: Format, n: int) -> int:
    """A binade for the largest terms low enough that n of them, of any signs, never overflow ``fmt``.

    Terms of the first draw stay below ``2**(top + 1)``, so every partial
    sum, and every sum of magnitudes, stays below ``2**emax``.  The
    generator starts there and then moves each sum up (see
    :func:`conditioned_sums`).  An exponent, not a float: ``ValueError``
    for n below 2, and where that binade lies below the normal range (FP4
    and FP6 have room for a few terms only: E2M1 for 2).
    """
    if n < 2:
        raise ValueError(f"a conditioned sum needs at least 2 terms, got {n}")
    top = fmt.emax - (n - 1).bit_length() - 1
    if top < fmt.emin:
        raise ValueError(f"{fmt.label} has too little range for a conditioned sum of {n} terms")
    return top


def quantum_exponent(fmt: Format) -> int:
    """The binade of the smallest subnormal: every sum of values of ``fmt`` is a whole multiple of ``2**this``."""
    return fmt.emin - fmt.precision + 1


def kappa_limit(fmt: Format, n: int) -> float:
    """The largest target kappa :func:`conditioned_sums` accepts for ``n`` terms of ``fmt``.

    A sum of magnitudes below ``2**(emax - 1)``, where the generator
    puts it, over a sum of one quantum above the smallest subnormal
    (``2**(quantum_exponent + 1)``), capped at ``2**MAX_LOG2_KAPPA``.  The
    same for every n from 2 (``ValueError`` below); short sums fall short of
    it, since their few terms cannot cancel that far.  A power of two, so no
    NaN or inf.
    """
    top_exponent(fmt, n)  # checks n
    return 2.0 ** min(fmt.emax - quantum_exponent(fmt) - 2, MAX_LOG2_KAPPA)


def _steps(rng: np.random.Generator, rows: int, count: int) -> np.ndarray:
    """Uniform draws in [-1, 1), ``(rows, count)``: the significands of new terms, random in sign."""
    return 2.0 * rng.random((rows, count)) - 1.0


@dataclass(frozen=True)
class _Draws:
    """The random part of each row, scale-free: built at any top binade, the same draws give the same shape."""

    uniform: np.ndarray   # (rows, half): where in the spread each first-half exponent falls
    first: np.ndarray     # (rows, half): the first half's significands
    later: np.ndarray     # (rows, n - half): the second half's significands


# --8<-- [start:generator]
def _rows(
    draws: _Draws, top: np.ndarray, spread: np.ndarray, fmt: Format
) -> np.ndarray:
    """The rows for largest-term binades `top` and depths `spread` (both shape
    `(rows, 1)`), in `fmt.dtype`.

    With E = top and b = spread: first-half term i is r * 2**e, e drawn over
    E - b - p .. E (the first at E, the last at E - b, rounded); term j of the
    other m is `round(r_j * 2**max(E - b * j / m, q + 1) - S)`, S the exact sum
    so far and 2**q the smallest subnormal, so the sum falls to about
    2**(E - b); its last steps are never smaller than two quanta, though a sum
    may still come out at one quantum, or 0.
    """
    rows, half = draws.first.shape
    rest = draws.later.shape[1]
    # uniform over E - b - p .. E
    depth = spread + fmt.precision
    exponents = top - np.floor(draws.uniform * (depth + 1))
    exponents[:, 0] = top[:, 0]
    if half > 1:
        last = top[:, 0] - spread[:, 0]
        exponents[:, -1] = np.round(last)
    values = np.empty((rows, half + rest), dtype=fmt.dtype)
    # ldexp: exact, and finite where 2**E is not
    first = np.ldexp(draws.first, exponents.astype(int))
    values[:, :half] = to_format(first, fmt)
    # E - b j / m, down to E - b but not below 2q
    steps = np.arange(1, rest + 1) / rest
    below = np.maximum(-spread * steps, quantum_exponent(fmt) + 1 - top)
    targets = np.ldexp(draws.later * 2.0**below, top.astype(int))
    for j in range(rest):
        done = half + j
        # S, rounded once to float64
        so_far = exact_running(values[:, :done], np.array([done]))[:, 0]
        term = targets[:, j] - so_far
        values[:, done] = to_format(term, fmt)
    return values


def conditioned_sums(
    kappa: float | np.ndarray, n: int, fmt: Format, seed: int = 0
) -> ConditionedSums:
    """One sum of `n` values of `fmt` per target condition number in `kappa` (a
    number or a 1-D array).

    Each row is built twice from the same draws: first with its largest terms
    in binade E = min(ceil(b), top_exponent()), b = log2(kappa), where no sum
    can overflow; then at E + t, t >= 0 the shift that lets the sum fall to
    2**(E + t - b) no lower than two quanta, 2**(q + 1), but no more than keeps
    the first row's sum of magnitudes times 2**t below 2**(emax - 1).  Rows
    that need no room (t = 0) are the first build, bit for bit; the others are
    what lets kappa near the end of the range.  (If a moved row's magnitudes
    ever reached 2**emax, the first would be kept.)  Each row is then shuffled.
    The achieved kappa (measured exactly, `ConditionedSums.kappa`) is near the
    target, typically a few times above it. Seeded (PCG64 on its own stream):
    the same arguments give the same bits. `ValueError` for n below 2 or a
    target below 1 or above `kappa_limit()`.  The values are finite; a tiny
    term may round to +0.0 (never -0.0).
    """
    kappas = np.asarray(kappa, dtype=np.float64)
    targets = np.atleast_1d(kappas)
    limit = kappa_limit(fmt, n)
    inside = (targets >= 1) & (targets <= limit)
    if targets.ndim != 1 or not np.all(inside):
        raise ValueError(
            "targets must be a number or 1-D array in "
            f"[1, {limit:g}] for {n} terms of {fmt.label}"
        )
    rng = np.random.default_rng([CONDITIONED_STREAM, seed])
    rows, half = targets.size, n // 2
    draws = _Draws(
        uniform=rng.random((rows, half)),
        first=_steps(rng, rows, half),
        later=_steps(rng, rows, n - half),
    )
    spread = np.log2(targets)[:, np.newaxis]
    low = np.minimum(np.ceil(spread), top_exponent(fmt, n))
    safe = _rows(draws, low, spread, fmt)
    # t: enough to keep E + t - b at q + 1 or above ...
    need = np.ceil(quantum_exponent(fmt) + 1 - low + spread)
    # ... while 2**t times the magnitudes < 2**(emax - 1)
    size = magnitudes(safe)[:, np.newaxis]
    room = fmt.emax - 2 - np.floor(np.log2(np.where(size > 0, size, 1.0)))
    shift = np.clip(np.minimum(need, room), 0, None)
    moved = _rows(draws, low + shift, spread, fmt)
    fits = magnitudes(moved) < 2.0**fmt.emax
    values = np.where(fits[:, np.newaxis], moved, safe)
    # a -0.0 from a tiny term becomes +0.0
    values = values + np.zeros((), dtype=fmt.dtype)
    values = rng.permuted(values, axis=-1)
    exact, absolute, achieved = condition_number(values)
    return ConditionedSums(
        fmt=fmt,
        values=values,
        exact=exact,
        absolute=absolute,
        kappa=achieved,
        target=targets,
    )
# --8<-- [end:generator]


def magnitudes(values: np.ndarray) -> np.ndarray:
    """The exact sum of magnitudes of each row of ``values`` (``(..., n)``, finite), rounded once to float64."""
    n = values.shape[-1]
    return exact_running(np.abs(values.astype(np.float64)), np.array([n]))[..., 0]


def log_targets(low: float, high: float, per_decade: int) -> np.ndarray:
    """Target condition numbers from ``low`` to ``high`` (both >= 1), ``per_decade`` to a factor of ten, log-spaced.

    Always includes both ends.  No NaN or inf: ``ValueError`` unless
    ``1 <= low <= high`` and ``per_decade >= 1``.
    """
    if not 1 <= low <= high or per_decade < 1:
        raise ValueError(f"need 1 <= low <= high and per_decade >= 1, got {low}, {high}, {per_decade}")
    count = max(int(math.ceil(math.log10(high / low) * per_decade)), 1) + 1
    return np.geomspace(low, high, count)
