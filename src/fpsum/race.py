"""The race: running totals of every method, side by side, on one input vector."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .exact import exact_running
from .formats import Format
from .inputs import InputKind, make_inputs
from .methods import METHODS, Method, running_totals

RACE_N = 8192


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


def stall_step(running: np.ndarray, remaining: np.ndarray, fmt: Format) -> int | None:
    """Count after which ``running`` is frozen although later inputs still matter.

    ``running[i]`` is the total after i + 1 inputs and ``remaining[i]`` the
    exact sum of the inputs after them.  Returns the 1-based count at which the
    final value was first reached for good, if what was still to come exceeds
    one ulp of that value; else ``None`` (no stall, or nothing left to add).
    NaN or inf totals never count as a stall.
    """
    last = running[-1]
    if not np.isfinite(last):
        return None
    changed = np.nonzero(running != last)[0]
    first_final = int(changed[-1]) + 1 if changed.size else 0
    if first_final >= running.size - 1:
        return None
    if abs(remaining[first_final]) <= fmt.ulp(float(last)):
        return None
    return first_final + 1


def run_race(fmt: Format, kind: InputKind, n: int = RACE_N, seed: int = 0, samples: int = 512) -> Race:
    """Race every method on one seeded input vector of ``n`` values.

    ``samples`` is how many evenly spaced counts to keep for drawing (the
    exact totals are kept at those counts only).  ``n`` and ``samples`` must
    be at least 1.
    """
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples}")
    values = make_inputs(kind, n, fmt, seed)
    every = np.arange(1, n + 1)
    exact_all = exact_running(values, every)
    remaining = exact_all[-1] - exact_all  # float64: plenty to compare against an ulp
    runs = {m: running_totals(m, values, fmt).astype(np.float64) for m in METHODS}
    stalls = {m: stall_step(runs[m], remaining, fmt) for m in METHODS}
    picked = set(np.unique(np.linspace(1, n, min(samples, n) + 1).round().astype(int)).tolist())
    picked |= {s for s in stalls.values() if s is not None}
    steps = np.array(sorted(picked))
    return Race(
        fmt=fmt,
        kind=kind,
        n=n,
        seed=seed,
        steps=steps,
        totals={m: runs[m][steps - 1] for m in METHODS},
        exact=exact_all[steps - 1],
        final={m: float(runs[m][-1]) for m in METHODS},
        exact_final=float(exact_all[-1]),
        stalls=stalls,
    )
