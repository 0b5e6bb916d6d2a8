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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .exact import exact_running
from .formats import Format
from .rounding import to_format

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
    n = values.shape[-1]
    at = np.array([n])
    exact = exact_running(values, at)[..., 0]
    absolute = exact_running(np.abs(values.astype(np.float64)), at)[..., 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(exact != 0, absolute / np.abs(exact), np.inf)
    return exact, absolute, kappa


def top_exponent(fmt: Format, n: int) -> int:
    """The binade of the largest terms: low enough that n of them, of any signs, never overflow ``fmt``.

    Terms stay below ``2**(top + 1)``, so every partial sum, and every sum
    of magnitudes, stays below ``2**emax``: no inf (or NaN in E4M3) can
    arise.  An exponent, not a float: ``ValueError`` for n below 2.
    """
    if n < 2:
        raise ValueError(f"a conditioned sum needs at least 2 terms, got {n}")
    return fmt.emax - (n - 1).bit_length() - 1


def kappa_limit(fmt: Format, n: int) -> float:
    """The largest target kappa :func:`conditioned_sums` accepts for ``n`` terms of ``fmt``.

    The sum must fall from ``2**top_exponent`` to a few quanta of the
    smallest subnormal, 2 binades clear of it, and log2(kappa) may not pass
    :data:`MAX_LOG2_KAPPA`.  A power of two, so no NaN or inf.
    """
    floor = fmt.emin - fmt.precision + 1  # the smallest subnormal's binade
    return 2.0 ** min(top_exponent(fmt, n) - floor - 2, MAX_LOG2_KAPPA)


def _steps(rng: np.random.Generator, rows: int, count: int) -> np.ndarray:
    """Uniform draws in [-1, 1), ``(rows, count)``: the significands of new terms, random in sign."""
    return 2.0 * rng.random((rows, count)) - 1.0


# --8<-- [start:generator]
def conditioned_sums(
    kappa: float | np.ndarray, n: int, fmt: Format,
    seed: int = 0,
) -> ConditionedSums:
    """One sum of `n` values of `fmt` per target condition
    number in `kappa` (a number or a 1-D array).

    With b = log2(kappa) and the largest terms in binade E
    (at most `top_exponent()`, at most b rounded up): the
    first n // 2 terms are r * 2**e, r uniform in [-1, 1), e
    uniform over the integers E - b .. E (the first at E,
    the last at E - b, rounded); term j of the other
    m = n - n // 2 is `round(r_j * 2**(E - b * j / m) - S)`,
    S the exact sum so far, so the sum falls to about
    `2**(E - b)`.  Each row is then shuffled. The achieved
    kappa (measured exactly, `ConditionedSums.kappa`) is
    near the target, typically a few times above it.
    Vectorised over rows; one loop over the second half's
    terms.  Seeded (PCG64 on its own stream), so the same
    arguments give the same bits. `ValueError` for n below 2
    or a target below 1 or above `kappa_limit()`.  The
    values are finite; a tiny term may round to +0.0
    (never -0.0).
    """
    kappas = np.asarray(kappa, dtype=np.float64)
    targets = np.atleast_1d(kappas)
    limit = kappa_limit(fmt, n)
    inside = (targets >= 1) & (targets <= limit)
    if targets.ndim != 1 or not np.all(inside):
        raise ValueError(
            "targets must be a number or 1-D array in "
            f"[1, {limit:g}] for {n} terms of {fmt.label}")
    rng = np.random.default_rng([CONDITIONED_STREAM, seed])
    rows, half = targets.size, n // 2
    # b, binades from top to bottom
    spread = np.log2(targets)[:, np.newaxis]
    # E, the binade of the largest terms
    top = np.minimum(np.ceil(spread),
                     top_exponent(fmt, n))
    # b binades, and p more below
    depth = spread + fmt.precision
    # uniform over E - b - p .. E
    uniform = rng.random((rows, half))
    exponents = top - np.floor(uniform * (depth + 1))
    exponents[:, 0] = top[:, 0]
    if half > 1:
        last = top[:, 0] - spread[:, 0]
        exponents[:, -1] = np.round(last)
    values = np.empty((rows, n), dtype=fmt.dtype)
    steps = _steps(rng, rows, half)
    first = steps * 2.0**exponents
    values[:, :half] = to_format(first, fmt)
    rest = n - half
    # E - b j / rest, down to E - b
    falling = top - spread * np.arange(1, rest + 1) / rest
    draws = _steps(rng, rows, rest) * 2.0**falling
    for j in range(rest):
        done = half + j
        # S, rounded once to float64
        so_far = exact_running(values[:, :done],
                               np.array([done]))[:, 0]
        term = draws[:, j] - so_far
        values[:, done] = to_format(term, fmt)
    # a -0.0 from a tiny term becomes +0.0
    values = values + np.zeros((), dtype=fmt.dtype)
    values = rng.permuted(values, axis=-1)
    exact, absolute, achieved = condition_number(values)
    return ConditionedSums(
        fmt=fmt, values=values, exact=exact,
        absolute=absolute, kappa=achieved, target=targets)
# --8<-- [end:generator]


def log_targets(low: float, high: float, per_decade: int) -> np.ndarray:
    """Target condition numbers from ``low`` to ``high`` (both >= 1), ``per_decade`` to a factor of ten, log-spaced.

    Always includes both ends.  No NaN or inf: ``ValueError`` unless
    ``1 <= low <= high`` and ``per_decade >= 1``.
    """
    if not 1 <= low <= high or per_decade < 1:
        raise ValueError(f"need 1 <= low <= high and per_decade >= 1, got {low}, {high}, {per_decade}")
    count = max(int(math.ceil(math.log10(high / low) * per_decade)), 1) + 1
    return np.geomspace(low, high, count)
