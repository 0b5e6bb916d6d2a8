"""Summation methods, every operation in the working format.

Each method takes inputs of shape ``(..., n)`` already stored in
``fmt.dtype`` and returns the *running* totals, shape ``(..., n)``: entry
``i`` is what the method gives for the first ``i + 1`` inputs.  The final sum
is the last entry; the error-versus-n sweeps read the running totals at many
n in one pass.  Leading axes are independent trials and are vectorised over,
so no Python loop runs per trial.

``sumtwo``, ``sumk`` (:mod:`fpsum.cascaded`) and ``correct`` (the exact sum
rounded once, :mod:`fpsum.correct`) are the accurate end of the range: error-
free transformations in the format, and the best any method can do.

Arithmetic is the dtype's own: NumPy's float16 and ml_dtypes' types add in
float32 and round once, which is correctly rounded (checked bit for bit
against :func:`fpsum.exact_rounding.add_exact` in the tests).  NaN and overflow
follow the format: an FP16 sum of large values reaches inf and stays there,
an E4M3 one becomes NaN.

The methods live in modules by kind, and each is imported from its own:
:mod:`fpsum.naive` (naive, and wide: a wider total),
:mod:`fpsum.compensated` (Kahan, Neumaier), :mod:`fpsum.pairwise`,
:mod:`fpsum.blocked`, :mod:`fpsum.stochastic_sum` (stochastic rounding),
:mod:`fpsum.cascaded` (Sum2, SumK) and :mod:`fpsum.correct`.  This module
runs one by name (:func:`running_totals`, :func:`total`); their names and
labels (``METHODS``, ``METHOD_LABELS``) are :mod:`fpsum.names`'.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .blocked import DEFAULT_BLOCK, blocked_running, blocked_sum
from .cascaded import DEFAULT_FOLDS, sum_k, sum_k_running
from .compensated import kahan_running, neumaier_running
from .correct import correct_running, correct_sum
from .formats import Format
from .naive import naive_running, wide_running
from .names import METHODS, Method
from .pairwise import pairwise_running, pairwise_sum
from .stochastic_sum import stochastic_running

__all__ = ["RUNNING", "running_totals", "total"]

RUNNING: dict[Method, Callable[[np.ndarray, Format], np.ndarray]] = {
    "naive": naive_running,
    "wide": wide_running,
    "kahan": kahan_running,
    "neumaier": neumaier_running,
    "pairwise": pairwise_running,
    "correct": correct_running,
}


def running_totals(
    method: Method, values: np.ndarray, fmt: Format, *, block: int = DEFAULT_BLOCK, seed: int = 0,
    folds: int = DEFAULT_FOLDS,
) -> np.ndarray:
    """Running totals of ``method`` (see the module docstring).

    ``block`` is used by ``blocked`` only, ``seed`` by ``stochastic`` only,
    ``folds`` (K) by ``sumk`` only (``sumtwo`` is SumK with K = 2).
    ``ValueError`` for an unknown method, a block size below 1 or K below 1.
    NaN, inf and -0.0 are handled by each method as its docstring says.
    """
    if method == "blocked":
        return blocked_running(values, fmt, block)
    if method == "stochastic":
        return stochastic_running(values, fmt, seed)
    if method in ("sumtwo", "sumk"):
        return sum_k_running(values, fmt, 2 if method == "sumtwo" else folds)
    try:
        run = RUNNING[method]
    except KeyError:
        raise ValueError(f"unknown method {method!r} (known: {', '.join(METHODS)})") from None
    return run(values, fmt)


DirectTotal = Callable[[np.ndarray, Format, int, int], np.ndarray]
"""A method's total from (values, format, block, folds), without its running totals."""
DIRECT_TOTALS: dict[str, DirectTotal] = {
    "pairwise": lambda values, fmt, block, folds: pairwise_sum(values, fmt),
    "blocked": lambda values, fmt, block, folds: blocked_sum(values, fmt, block),
    "sumtwo": lambda values, fmt, block, folds: sum_k(values, fmt, 2),
    "sumk": lambda values, fmt, block, folds: sum_k(values, fmt, folds),
    "correct": lambda values, fmt, block, folds: correct_sum(values, fmt),
}
"""The methods whose :func:`total` is computed directly, cheaper than every prefix; every other method's is
its last running total."""


def total(method: Method, values: np.ndarray, fmt: Format, *, block: int = DEFAULT_BLOCK, seed: int = 0,
          folds: int = DEFAULT_FOLDS) -> np.ndarray:
    """The final sum of ``method`` over the last axis (shape ``values.shape[:-1]``).

    The same value as the last running total; the methods of
    :data:`DIRECT_TOTALS` compute it directly.  NaN, inf and -0.0 as in the
    running version of the method.
    """
    direct = DIRECT_TOTALS.get(method)
    if direct is not None:
        return direct(values, fmt, block, folds)
    return running_totals(method, values, fmt, block=block, seed=seed, folds=folds)[..., -1]
