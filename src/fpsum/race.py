"""The race: running totals of every method, side by side, on one input vector."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .exact import exact_running
from .formats import Format
from .inputs import InputKind, make_inputs
from .methods import running_totals
from .names import Method

RACE_N = 8192
RACE_METHODS: tuple[Method, ...] = ("naive", "wide", "kahan", "pairwise")


@dataclass(frozen=True)
class Race:
    """Running totals of each method after each input, and the exact running total.

    ``steps`` are the sampled input counts (1-based, always including 1 and
    n and, for each method, the step where it stalled); ``totals[m]`` and
    ``exact`` are float64 values at those counts.  ``final`` and
    ``exact_final`` are the totals after all n inputs (``exact_final``
    correctly rounded to float64).  ``stalls[m]`` is the count after which
    method m's total never changed again although the inputs still to come
    were worth more than one ulp of it, or ``None`` if it never stalled.
    """

    fmt: Format
    kind: InputKind
    n: int
    seed: int
    steps: np.ndarray
    totals: dict[Method, np.ndarray]
    exact: np.ndarray
    final: dict[Method, float]
    exact_final: float
    stalls: dict[Method, int | None]


def frozen_from(running: np.ndarray) -> int | None:
    """0-based index from which ``running`` keeps its final value, or None if only the last entry has it.

    NaN and inf totals are never frozen: they are overflow, not a stall.
    """
    last = running[-1]
    if not np.isfinite(last):
        return None
    changed = np.nonzero(running != last)[0]
    first_final = int(changed[-1]) + 1 if changed.size else 0
    return first_final if first_final < running.size - 1 else None


def run_race(
    fmt: Format,
    kind: InputKind,
    n: int = RACE_N,
    seed: int = 0,
    samples: int = 512,
    methods: tuple[Method, ...] = RACE_METHODS,
) -> Race:
    """Race ``methods`` on one seeded input vector of ``n`` values.

    ``samples`` is how many evenly spaced counts to keep for drawing (the
    exact totals are kept at those counts only).  ``n`` and ``samples`` must
    be at least 1.  Stochastic rounding uses ``seed`` for its own stream.
    The generated inputs are finite, so NaN and inf arise only from overflow
    (FP16 or E4M3 sums of large normal inputs); such totals never count as
    a stall.
    """
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples}")
    values = make_inputs(kind, n, fmt, seed)
    runs = {m: running_totals(m, values, fmt, seed=seed).astype(np.float64) for m in methods}
    frozen = {m: frozen_from(runs[m]) for m in methods}
    picked = set(np.unique(np.linspace(1, n, min(samples, n) + 1).round().astype(int)).tolist())
    picked |= {i + 1 for i in frozen.values() if i is not None}
    steps = np.array(sorted(picked))
    exact_at = dict(zip(steps.tolist(), exact_running(values, steps).tolist()))
    exact_final = exact_at[n]
    # A frozen total is a stall if what was still to come is worth more than an ulp of it.
    stalls: dict[Method, int | None] = {}
    for m, index in frozen.items():
        still_to_come = None if index is None else exact_final - exact_at[index + 1]
        worth_it = still_to_come is not None and abs(still_to_come) > fmt.ulp(float(runs[m][-1]))
        stalls[m] = index + 1 if index is not None and worth_it else None
    return Race(
        fmt=fmt,
        kind=kind,
        n=n,
        seed=seed,
        steps=steps,
        totals={m: runs[m][steps - 1] for m in methods},
        exact=np.array([exact_at[s] for s in steps.tolist()]),
        final={m: float(runs[m][-1]) for m in methods},
        exact_final=exact_final,
        stalls=stalls,
    )
