"""The other long sums of training: gradients accumulated over micro-batches, and the running loss.

A gradient accumulated over k micro-batches is a naive sum in the
accumulation format on each rank before the ranks reduce it
(:func:`microbatch_allreduce`).  The running loss a trainer logs is a naive
sum of the per-step losses in one format (:func:`running_loss`); in BF16 a
loss of 10 a step reads 904, 1,704 and 2,960 after 100, 200 and 300 steps
and then stays at 4,096 (huggingface/transformers PR #8561, whose fix,
restarting the sum at each log, is :func:`logged_loss`).
"""

from __future__ import annotations

import numpy as np

from .allreduce import Algorithm, Average, check_accumulator, reduce_ranks
from .array_rounding import to_format
from .formats import Format
from .naive import naive_running


def accumulate_microbatches(grads: np.ndarray, accumulate: Format) -> np.ndarray:
    """Each rank's gradient: the micro-batch gradients on the last axis (in ``accumulate.dtype``) summed left to right.

    Every addition is rounded to ``accumulate``; returns ``grads.shape[:-1]``.
    ``TypeError`` for another dtype, ``ValueError`` for no micro-batches.  NaN
    and inf propagate (inf + -inf is NaN); a sum of -0.0 stays -0.0.
    """
    running = naive_running(grads, accumulate)
    total: np.ndarray = running[..., -1]
    return total


def microbatch_allreduce(grads: np.ndarray, algorithm: Algorithm, wire: Format, accumulate: Format,
                         average: Average = "none", chunk: np.ndarray | int = 0) -> np.ndarray:
    """Gradients ``(..., N, k)`` accumulated over the k micro-batches in ``accumulate``, then reduced over the N ranks.

    Each rank's accumulated gradient is rounded to ``wire`` (the buffer the
    collective sends) and reduced by :func:`fpsum.allreduce.reduce_ranks`
    with the same accumulation format.  Returns ``grads.shape[:-2]`` in
    ``wire.dtype``; the errors of :func:`accumulate_microbatches` and
    :func:`fpsum.allreduce.reduce_ranks`.  NaN and inf propagate; -0.0 sums
    stay -0.0.
    """
    check_accumulator(wire, accumulate)
    per_rank = accumulate_microbatches(grads, accumulate)
    with np.errstate(over="ignore"):
        held = to_format(per_rank.astype(np.float64), wire)
    return reduce_ranks(held, algorithm, wire, accumulate, average, chunk)


def running_loss(losses: np.ndarray, fmt: Format) -> np.ndarray:
    """The running sum after every step, each loss rounded to ``fmt`` and each addition rounded to ``fmt``.

    ``losses`` (float64, steps on the last axis) are the per-step losses;
    returns the same shape in ``fmt.dtype``, entry i being the logged total
    after step i + 1.  NaN and inf propagate (one NaN loss spoils every later
    total); a run of -0.0 losses keeps the total at -0.0.
    """
    with np.errstate(over="ignore"):
        rounded = to_format(np.asarray(losses, dtype=np.float64), fmt)
    return naive_running(rounded, fmt)


def logged_loss(losses: np.ndarray, fmt: Format, every: int) -> np.ndarray:
    """PR #8561's fix: the sum in ``fmt`` restarts at zero after each log, and each logged part is added in float64.

    Returns the float64 total at each log, after steps ``every``, ``2 * every``,
    ... (the steps after the last whole log are left out).  ``ValueError``
    unless ``every`` is at least 1.  NaN and inf propagate into the total;
    -0.0 parts add nothing.
    """
    if every < 1:
        raise ValueError("a log comes every 1 or more steps")
    wide = np.asarray(losses, dtype=np.float64)
    logs = wide.shape[-1] // every
    parts = wide[..., :logs * every].reshape(wide.shape[:-1] + (logs, every))
    part_sums = running_loss(parts, fmt)[..., -1].astype(np.float64)
    totals: np.ndarray = np.add.accumulate(part_sums, axis=-1)
    return totals
