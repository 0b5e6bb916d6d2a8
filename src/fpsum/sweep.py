"""Error versus n: relative error of each method over many seeded trials."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .exact import exact_running
from .formats import Format
from .inputs import InputKind, make_inputs
from .methods import Method, running_totals


@dataclass(frozen=True)
class Sweep:
    """Relative errors ``errors[m]`` of shape ``(trials, len(ns))`` at the counts ``ns``.

    An error of exactly 0 means the method returned the exact sum; the
    relative error is taken against the exact sum of the stored inputs,
    which for uniform inputs is never 0.
    """

    fmt: Format
    kind: InputKind
    ns: np.ndarray
    trials: int
    seed: int
    errors: dict[Method, np.ndarray]


def log_grid(n_max: int, per_octave: int = 4) -> np.ndarray:
    """Counts from 1 to ``n_max``, about ``per_octave`` per doubling, every power of two included."""
    if n_max < 1:
        raise ValueError(f"n_max must be at least 1, got {n_max}")
    octaves = np.log2(n_max)
    points = np.round(2.0 ** np.linspace(0, octaves, int(np.ceil(octaves * per_octave)) + 1))
    powers = 2 ** np.arange(int(octaves) + 1)
    return np.unique(np.concatenate([points, powers, [n_max]]).astype(np.int64))


def run_sweep(
    fmt: Format,
    methods: tuple[Method, ...],
    n_max: int,
    trials: int,
    seed: int = 0,
    kind: InputKind = "uniform",
    per_octave: int = 4,
) -> Sweep:
    """Relative error of each method for every n on :func:`log_grid`, over ``trials`` input vectors.

    One ``(trials, n_max)`` draw; the sum of the first n inputs of a trial is
    that trial's size-n sample, so one pass of running totals gives every n.
    A NaN or inf total gives an infinite relative error.
    """
    ns = log_grid(n_max, per_octave)
    values = make_inputs(kind, n_max, fmt, seed, trials=trials)
    exact = exact_running(values, ns)
    errors: dict[Method, np.ndarray] = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for method in methods:
            computed = running_totals(method, values, fmt, seed=seed)[:, ns - 1].astype(np.float64)
            error = np.abs(computed - exact) / np.abs(exact)
            errors[method] = np.where(np.isfinite(error), error, np.inf)
    return Sweep(fmt=fmt, kind=kind, ns=ns, trials=trials, seed=seed, errors=errors)
