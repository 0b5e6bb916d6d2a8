"""The sums of the conditioning figure and what is measured on them: errors, medians per bin of kappa, bounds.

Sums of ``n`` terms with a chosen condition number (``fpsum.conditioned.conditioned_sums``),
summed by every method of :data:`METHODS` in each format (:func:`compute`),
their relative errors taken exactly (:func:`relative_errors`) and binned by
the kappa they achieved; each method's worst-case bound (:func:`bounds`);
and the seeded search for FP16 sums that SumK with K folds loses and K + 1
folds get exact (:func:`search`).  What is drawn and quoted is read from here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fpsum.bounds import gamma
from fpsum.conditioned import conditioned_sums, kappa_limit, log_targets
from fpsum.exact import exact_running
from fpsum.formats import FP16, Format, get_format
from fpsum.methods import total
from fpsum.names import Method

from .lost import LOST

METHODS: tuple[Method, ...] = ("naive", "pairwise", "kahan", "neumaier", "sumtwo", "sumk", "correct")
ORDER_OF = {"naive": 1, "pairwise": 1, "kahan": 1, "neumaier": 2, "sumtwo": 2, "sumk": 0, "correct": 0}
"""The power of u that a method's error is roughly proportional to times kappa (SumK's is K, set at run time;
the correctly rounded sum's error does not grow)."""


@dataclass(frozen=True)
class ConditioningParams:
    """The formats drawn and also computed, sum length, K, targets per decade, sums per target, the largest target."""

    formats: tuple[str, ...] = ("fp64", "fp16")
    extra: tuple[str, ...] = ("bf16",)
    n: int = 32
    folds: int = 3
    per_decade: int = 2
    trials: int = 16
    kappa_max: float = 1e52
    bins_per_decade: int = 2
    min_count: int = 8
    seed: int = 0
    search_rows: int = 2000
    search_band: tuple[float, float] = (1e11, 1e12)
    search_seed: int = 1

    def __post_init__(self) -> None:
        for name in self.formats + self.extra:
            get_format(name)
        low, high = self.search_band
        if (self.n < 4 or self.folds < 3 or self.trials < 1 or self.kappa_max < 10 or self.min_count < 1
                or self.search_rows < 1 or not 1 <= low < high):
            raise ValueError(f"invalid conditioning parameters: {self}")


@dataclass(frozen=True)
class Panel:
    """One format: every sum's kappa and each method's relative error, and the medians per bin of kappa."""

    fmt: Format
    kappa: np.ndarray                 # (rows,)
    errors: dict[str, np.ndarray]     # method -> (rows,)
    same: int                         # sums where Neumaier and Sum2 differ
    centres: np.ndarray               # median kappa of each bin with enough sums
    counts: np.ndarray
    medians: dict[str, np.ndarray]    # method -> (bins,)


@dataclass(frozen=True)
class Search:
    """FP16 sums whose achieved kappa lies in ``params.search_band``, summed by SumK with K and K + 1 folds.

    ``values`` (rows, n) in FP16, ``exact`` their exact sums (each a whole
    multiple of 2⁻²⁴, so exact in float64), ``kappa``; ``errors`` maps the
    number of folds to each sum's relative error; ``example`` is the first
    sum where K folds return 0 (relative error 1) and K + 1 the exact sum, or
    None if no sum does.
    """

    values: np.ndarray
    exact: np.ndarray
    kappa: np.ndarray
    results: dict[int, np.ndarray]
    errors: dict[int, np.ndarray]
    example: int | None


def search(params: ConditioningParams) -> Search:
    """The seeded search: ``search_rows`` sums drawn at FP16's largest target kappa, kept if in the band."""
    fmt = FP16
    drawn = conditioned_sums(np.full(params.search_rows, kappa_limit(fmt, params.n)), params.n, fmt,
                                   params.search_seed)
    low, high = params.search_band
    keep = (drawn.kappa >= low) & (drawn.kappa <= high)  # inf (an exact 0) is never inside
    values, exact = drawn.values[keep], drawn.exact[keep]
    results = {k: np.asarray(total("sumk", values, fmt, folds=k)).astype(np.float64)
               for k in (params.folds, params.folds + 1)}
    errors = {k: relative_errors(values, r, exact) for k, r in results.items()}
    zero = (results[params.folds] == 0) & (results[params.folds + 1] == exact)
    example = int(np.argmax(zero)) if zero.any() else None
    return Search(values=values, exact=exact, kappa=drawn.kappa[keep], results=results, errors=errors,
                  example=example)


def relative_errors(values: np.ndarray, results: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """|result - s| / |s| for each row, the difference taken exactly (then rounded once to float64).

    The exact sum of the row and minus the result, so an error far below
    float64's own resolution at s (a correctly rounded FP64 sum's) is still
    measured.
    """
    n = values.shape[-1]
    both = np.concatenate([results.astype(np.float64)[:, np.newaxis], -values.astype(np.float64)], axis=-1)
    difference = exact_running(both, np.array([n + 1]))[:, 0]
    relative: np.ndarray = np.abs(difference) / np.abs(exact)
    return relative


def compute_panel(params: ConditioningParams, name: str) -> Panel:
    """Generate the sums for one format, sum them every way, bin the errors by kappa."""
    fmt = get_format(name)
    top = min(kappa_limit(fmt, params.n), params.kappa_max)
    targets = np.repeat(log_targets(1.0, top, params.per_decade), params.trials)
    sums = conditioned_sums(targets, params.n, fmt, params.seed)
    keep = np.isfinite(sums.kappa)  # an exact sum of 0 (rare) has no relative error
    values, exact, kappa = sums.values[keep], sums.exact[keep], sums.kappa[keep]
    results = {m: np.asarray(total(m, values, fmt, folds=params.folds)) for m in METHODS}
    errors: dict[str, np.ndarray] = {m: relative_errors(values, r, exact) for m, r in results.items()}
    same = int(np.count_nonzero(results["neumaier"].astype(np.float64) != results["sumtwo"].astype(np.float64)))
    bins = np.floor(np.log10(kappa) * params.bins_per_decade).astype(np.int64)
    centres: list[float] = []
    counts: list[int] = []
    medians: dict[str, list[float]] = {m: [] for m in METHODS}
    for b in np.unique(bins).tolist():
        inside = bins == b
        if inside.sum() < params.min_count:
            continue
        centres.append(float(np.median(kappa[inside])))
        counts.append(int(inside.sum()))
        for m in METHODS:
            medians[m].append(float(np.median(errors[m][inside])))
    return Panel(fmt=fmt, kappa=kappa, errors=errors, same=same, centres=np.array(centres), counts=np.array(counts),
                 medians={m: np.array(v) for m, v in medians.items()})


def compute(params: ConditioningParams) -> dict[str, Panel]:
    """Every format's panel, drawn and extra, by name."""
    return {name: compute_panel(params, name) for name in params.formats + params.extra}


def bounds(fmt: Format, n: int, folds: int, kappa: np.ndarray) -> dict[str, np.ndarray]:
    """The worst-case relative error bounds against kappa, keyed by the method whose look draws them.

    Naive gamma_{n-1} kappa and pairwise gamma_{ceil(log2 n)} kappa (Higham 2002, ch. 4); Sum2 (and
    Neumaier, which gives its bits) u + gamma_{n-1}^2 kappa and SumK u + 3 gamma_{n-1}^2 + gamma_{2n-2}^K kappa
    (Ogita, Rump and Oishi 2005); the correctly rounded sum u.
    """
    u = fmt.unit_roundoff
    g = gamma(n - 1, u)
    return {
        "naive": g * kappa,
        "pairwise": gamma(math.ceil(math.log2(n)), u) * kappa,
        "sumtwo": u + g**2 * kappa,
        "sumk": u + 3 * g**2 + gamma(2 * n - 2, u) ** folds * kappa,
        "correct": np.full_like(kappa, u),
    }


def lost_at(panel: Panel, method: str) -> float | None:
    """The median kappa of the first bin whose median error reaches :data:`LOST`, or None."""
    reached = np.nonzero(panel.medians[method] >= LOST)[0]
    return float(panel.centres[reached[0]]) if reached.size else None


def exact_from(panel: Panel) -> float | None:
    """The median kappa of the first bin where the correctly rounded sum's median error is 0 (an exact sum), or None."""
    exact = np.nonzero(panel.medians["correct"] == 0)[0]
    return float(panel.centres[exact[0]]) if exact.size else None

