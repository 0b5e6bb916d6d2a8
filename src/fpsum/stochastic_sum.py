"""Naive summation with stochastic rounding, ``s = SR(s + x)``, seeded: the one method that takes random draws.

:func:`stochastic_running` draws from a stream of its own
(:data:`ROUNDING_STREAM`, which the weight updates of
:mod:`fpsum.updates` share) and rounds with
:mod:`fpsum.stochastic_rounding`, a run of inputs at a time where it can.
Apart from the other methods because of the draws and the runs, which
none of them shares.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .formats import Format
from .method_checks import _check
from .stochastic_rounding import stochastic_round, stochastic_run

ROUNDING_STREAM = 0x5352  # keeps stochastic rounding's draws apart from the inputs' stream
RUN_MIN, RUN_LIMIT = 16, 1024  # stochastic rounding's runs: 64 trials of 1024 float64 values fit in a core's cache
DRAW_BLOCK = 512  # steps of stochastic rounding's draws transposed at a time


def stochastic_running(values: np.ndarray, fmt: Format, seed: int = 0) -> np.ndarray:
    """Naive summation with stochastic rounding: ``s = SR(s + x)``, seeded.

    Each exact sum is rounded up with probability equal to the fraction of
    the gap it has covered, so the expected result of every addition is
    exact and small inputs are not all lost: no stall.  One uniform draw per
    addition, from NumPy's PCG64 stream for ``(ROUNDING_STREAM, seed)``: a
    stream of its own, because draws equal to the ones that made the inputs
    (same seed) would be correlated with them and bias every rounding.  See
    :func:`fpsum.stochastic_rounding.stochastic_round` for overflow, NaN and -0.

    The result is :func:`fpsum.stochastic_rounding.stochastic_round` applied once per
    input, bit for bit; up to FP32 it is computed a run of inputs at a time
    (:func:`_stochastic_runs`).
    """
    _check(values, fmt)
    n = values.shape[-1]
    rows = values.reshape(-1, n)
    # RUN_LIMIT more steps' draws at the end are drawn and never used: a run may reach past the last input.
    draws = _draws_by_trial(np.random.default_rng([ROUNDING_STREAM, seed]), n + RUN_LIMIT, rows.shape[0])
    totals = _stochastic_runs(rows, fmt, draws) if fmt.precision <= 24 else _stochastic_steps(rows, fmt, draws)
    return totals.astype(fmt.dtype).reshape(values.shape)


def _draws_by_trial(rng: np.random.Generator, steps: int, trials: int) -> np.ndarray:
    """``rng.random((steps, trials)).T``, the draws for each step, trial after trial, stored by trial.

    Drawn a block of steps at a time and each block transposed while it is in
    cache, which is faster than transposing the whole; NumPy fills an array
    row after row from one stream, so the blocks are the same draws.
    """
    by_trial = np.empty((trials, steps))
    for begin in range(0, steps, DRAW_BLOCK):
        block = rng.random((min(DRAW_BLOCK, steps - begin), trials))
        by_trial[:, begin:begin + len(block)] = block.T
    return by_trial


def _stochastic_steps(rows: np.ndarray, fmt: Format, draws: np.ndarray) -> np.ndarray:
    """Stochastic running totals (float64) along ``rows`` (trials of ``fmt``), a :func:`stochastic_round` per input."""
    totals = np.empty(rows.shape)
    s = np.zeros(rows.shape[0], dtype=fmt.dtype)
    for i in range(rows.shape[1]):
        s = stochastic_round(s.astype(np.float64), rows[:, i].astype(np.float64), fmt, draws[:, i])
        totals[:, i] = s
    return totals


def _stochastic_runs(rows: np.ndarray, fmt: Format, draws: np.ndarray) -> np.ndarray:
    """Stochastic running totals (float32) along ``rows`` (trials of ``fmt``, FP32 or narrower), a run at a time.

    Each trial keeps its own place and total.  :func:`fpsum.stochastic_rounding.stochastic_run`
    rounds the next inputs as if the sums stayed in the binade of the first
    one, all at once, and says how many totals that got right; a trial moves
    on by that many, or by one step of :func:`fpsum.stochastic_rounding.stochastic_round`
    where it got none.  The runs lengthen while trials use them whole and
    shorten when totals wander across binades, between ``RUN_MIN`` and
    ``RUN_LIMIT``.  The same bits as :func:`_stochastic_steps`: the same
    draw for the same step, the same rounding.
    """
    trials, n = rows.shape
    inputs = np.zeros((trials, n + RUN_LIMIT), dtype=rows.dtype)  # padded, so that a run may reach past the end
    inputs[:, :n] = rows
    totals = np.empty(inputs.shape, dtype=np.float32)  # holds every value of FP32 and narrower exactly
    # [trial, step, :k]: the k inputs, draws or totals from that step on (views, no copies).  The inputs'
    # windows are over their bits, as sliding_window_view does not keep ml_dtypes' types.
    input_runs = sliding_window_view(inputs.view(f"u{inputs.itemsize}"), RUN_LIMIT, axis=1)
    draw_runs = sliding_window_view(draws, RUN_LIMIT, axis=1)
    total_runs = sliding_window_view(totals, RUN_LIMIT, axis=1, writeable=True)
    going = np.arange(trials)  # the trials not yet at the end ...
    at = np.zeros(trials, dtype=np.int64)  # ... the step each has reached ...
    s = np.zeros(trials)  # ... and its total so far
    width = RUN_MIN
    while going.size:
        x = input_runs[going, at, :width].view(rows.dtype).astype(np.float64)
        u = draw_runs[going, at, :width]
        run, held = stochastic_run(s, x, u, fmt)
        alone = held == 0  # the first sum overflows, is NaN or inf, or float64 rounds it: the reference step
        if alone.any():
            run[alone, 0] = stochastic_round(s[alone], x[alone, 0], fmt, u[alone, 0])
            held[alone] = 1
        with np.errstate(over="ignore"):  # totals that do not hold may lie beyond float32; later runs write over them
            total_runs[going, at, :width] = run
        s = run[np.arange(going.size), held - 1]
        at += held
        width = min(RUN_LIMIT, max(RUN_MIN, 2 * int(held.mean())))
        left = at < n
        going, at, s = going[left], at[left], s[left]
    return totals[:, :n]
