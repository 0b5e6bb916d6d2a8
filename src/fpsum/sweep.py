"""Error versus n: relative error of each method over many seeded trials."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .exact import exact_running
from .formats import Format
from .inputs import InputKind, input_chunks
from .methods import running_totals
from .naive import naive_at
from .names import Method
from .pairwise import pairwise_at


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
    """Counts from 1 to ``n_max``, about ``per_octave`` per doubling, every power of two included.

    Integers only: no NaN, inf or -0 cases.  ``ValueError`` if ``n_max`` < 1.
    """
    if n_max < 1:
        raise ValueError(f"n_max must be at least 1, got {n_max}")
    octaves = n_max.bit_length() - 1  # exact floor(log2 n_max), where float log2 may round up
    points = np.round(2.0 ** np.linspace(0, np.log2(n_max), octaves * per_octave + 1))
    points = np.minimum(points, n_max)
    powers = 2 ** np.arange(octaves + 1)
    return np.unique(np.concatenate([points, powers, [n_max]]).astype(np.int64))


# --8<-- [start:sweep]
def run_sweep(
    fmt: Format,
    methods: tuple[Method, ...],
    n_max: int,
    trials: int,
    seed: int = 0,
    kind: InputKind = "uniform",
    per_octave: int = 4,
) -> Sweep:
    """Relative error of each method for every n on `log_grid()`, over `trials`
    input vectors.

    One seeded `(trials, n_max)` draw; the first n inputs of a trial are that
    trial's size-n sample, so one pass of running totals gives every n.
    Pairwise sums at every n come from one pyramid of pair sums, since the tree
    of n inputs is a balanced block per binary digit of n. Trials are processed
    in chunks of at most 2**24 inputs, with the same values as one draw.  A NaN
    or inf total gives an infinite error.
    """
    ns = log_grid(n_max, per_octave)
    chunk = max(1, (1 << 24) // n_max)
    parts: dict[Method, list[np.ndarray]] = {m: [] for m in methods}
    chunks = input_chunks(kind, n_max, fmt, seed, trials, chunk)
    for values in chunks:
        exact = exact_running(values, ns)
        with np.errstate(invalid="ignore", divide="ignore"):
            for method in methods:
                totals = _totals_at(method, values, fmt, ns, seed)
                computed = totals.astype(np.float64)
                error = np.abs(computed - exact) / np.abs(exact)
                finite = np.isfinite(error)
                parts[method].append(np.where(finite, error, np.inf))
    errors = {m: np.concatenate(parts[m]) for m in methods}
    return Sweep(
        fmt=fmt, kind=kind, ns=ns, trials=trials, seed=seed, errors=errors
    )
# --8<-- [end:sweep]


def _totals_at(method: Method, values: np.ndarray, fmt: Format, ns: np.ndarray, seed: int) -> np.ndarray:
    """The method's sum of the first n inputs for each n in ``ns``: shape ``(trials, len(ns))``.

    Naive and pairwise sums are computed at the counts only; the other
    methods' running totals are computed in full and picked at ``ns - 1``.
    """
    if method == "pairwise":
        return pairwise_at(values, fmt, ns)
    if method == "naive":
        return naive_at(values, fmt, ns)
    return running_totals(method, values, fmt, seed=seed)[:, ns - 1]
