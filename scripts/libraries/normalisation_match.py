"""What the model's normalisation methods give on the rows of :mod:`libraries.normalisation`, in the rows' format.

Each candidate is one of the model's methods (:mod:`fpsum.moments`,
:mod:`fpsum.softmax`, :mod:`fpsum.rms`) with an accumulation format (the
input's, FP32 or FP64), its results rounded to the input format, as a
library that accumulates in a wider format rounds what it returns.  Where a
library returns a normalised output instead of statistics, the model's
statistics are applied to the inputs with one more rounded operation each, in
the accumulation format: ``(x - mean) * rstd`` for a layer norm and
standardize, with ``rstd`` the correctly rounded 1 / sqrt(fl(var + eps))
(:func:`fpsum.rms.rsqrt_rounded`); ``x * scale`` for an RMS norm.
:func:`compare` says which candidates give a library's array bit for bit and,
when none does, how far the nearest is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

import numpy as np

from fpsum.array_rounding import to_format
from fpsum.formats import FP32, FP64, Format, get_format
from fpsum.moments import MOMENT_METHODS, mean_variance
from fpsum.rms import rms_statistics, rsqrt_rounded
from fpsum.softmax import SOFTMAX_ORDERS, denominator, probabilities, softmax_terms

Candidate = tuple[str, str]
"""(method or order, accumulation format's name)."""


def accumulations(fmt: Format) -> tuple[Format, ...]:
    """The accumulation formats tried for inputs of ``fmt``: its own, FP32 and FP64."""
    return (fmt, FP32, FP64)


def _rounded(values: np.ndarray, fmt: Format) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(to_format(np.asarray(values, dtype=np.float64), fmt), dtype=np.float64)


RSTD_RULES = ("rsqrt", "sqrt-divide")
"""How 1 / sqrt(fl(var + eps)) is rounded: once (correctly rounded, :func:`fpsum.rms.rsqrt_rounded`), or as
``1 / sqrt(...)`` with the square root and the division each rounded once (what the dtypes' own operations do)."""


def _rsqrt(var: np.ndarray, eps: float, acc: Format, rule: str = "rsqrt") -> np.ndarray:
    """1 / sqrt(fl(var + eps)) in ``acc`` by ``rule`` (:data:`RSTD_RULES`); NaN for a NaN or negative sum."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        shifted = var + acc.dtype.type(eps)
        if rule == "sqrt-divide":
            return np.asarray(acc.dtype.type(1) / np.sqrt(shifted), dtype=np.float64)
        wide = shifted.astype(np.float64)
    return np.array([rsqrt_rounded(float(v), acc) for v in wide.ravel()], dtype=np.float64).reshape(var.shape)


@cache
def _moments(key: bytes, shape: tuple[int, ...], fmt_name: str, method: str, acc_name: str
             ) -> tuple[np.ndarray, np.ndarray]:
    acc = get_format(acc_name)
    values = np.frombuffer(key, dtype=np.float64).reshape(shape).astype(acc.dtype)
    mean, var = mean_variance(values, acc, method)  # type: ignore[arg-type]
    return np.asarray(mean), np.asarray(var)


def moments(x: np.ndarray, fmt: Format, method: str, acc: Format) -> tuple[np.ndarray, np.ndarray]:
    """The model's (mean, variance) of each row of ``x`` (values of ``fmt``) in ``acc``, kept in ``acc``."""
    wide = np.ascontiguousarray(x, dtype=np.float64)
    return _moments(wide.tobytes(), wide.shape, fmt.name, method, acc.name)


def statistic(x: np.ndarray, fmt: Format, which: str, eps: float, rule: str = "rsqrt") -> dict[Candidate, np.ndarray]:
    """Every candidate's ``mean``, ``variance`` or ``rstd`` (1 / sqrt(var + eps) by ``rule``) of each row, rounded
    to ``fmt``.
    """
    out: dict[Candidate, np.ndarray] = {}
    for acc in accumulations(fmt):
        for method in MOMENT_METHODS:
            mean, var = moments(x, fmt, method, acc)
            value = {"mean": mean, "variance": var}.get(which)
            out[(method, acc.name)] = _rounded(_rsqrt(var, eps, acc, rule) if value is None else value, fmt)
    return out


def normalised(x: np.ndarray, fmt: Format, eps: float, rule: str = "rsqrt") -> dict[Candidate, np.ndarray]:
    """Every candidate's ``fl(fl(x - mean) * rstd)`` in the accumulation format (``rstd`` by ``rule``), rounded to
    ``fmt``.
    """
    out: dict[Candidate, np.ndarray] = {}
    for acc in accumulations(fmt):
        wide = np.asarray(x, dtype=np.float64).astype(acc.dtype)
        for method in MOMENT_METHODS:
            mean, var = moments(x, fmt, method, acc)
            rstd = _rsqrt(var, eps, acc, rule).astype(acc.dtype)
            with np.errstate(over="ignore", invalid="ignore"):
                y = (wide - mean[..., np.newaxis]) * rstd[..., np.newaxis]
            out[(method, acc.name)] = _rounded(y, fmt)
    return out


def rms_normalised(x: np.ndarray, fmt: Format, eps: float) -> dict[Candidate, np.ndarray]:
    """The model's RMS norm, ``fl(x * scale)`` in each accumulation format, rounded to ``fmt`` (one method: "rms")."""
    out: dict[Candidate, np.ndarray] = {}
    for acc in accumulations(fmt):
        wide = np.asarray(x, dtype=np.float64).astype(acc.dtype)
        _, scale = rms_statistics(wide, acc, eps)
        with np.errstate(over="ignore", invalid="ignore"):
            out[("rms", acc.name)] = _rounded(wide * np.asarray(scale)[..., np.newaxis], fmt)
    return out


def softmaxed(x: np.ndarray, fmt: Format) -> dict[Candidate, np.ndarray]:
    """Every order's probabilities (each term / the denominator, rounded once in the accumulation format), rounded
    to ``fmt``.
    """
    out: dict[Candidate, np.ndarray] = {}
    for acc in accumulations(fmt):
        wide = np.asarray(x, dtype=np.float64).astype(acc.dtype)
        terms = softmax_terms(wide, acc)
        for order in SOFTMAX_ORDERS:
            out[(order, acc.name)] = _rounded(probabilities(terms, denominator(wide, acc, order), acc), fmt)
    return out


@dataclass(frozen=True)
class Match:
    """How a library's array compares with the model's candidates.

    ``exact``: the candidates that give it bit for bit (NaN equal to NaN).
    ``nearest``: when none does, the candidate with the fewest differing
    elements, with ``differing`` (how many of ``size``) and ``largest`` (the
    largest |library - model| / |model| over the finite ones; inf where one
    side is inf or NaN and the other is not).
    """

    exact: tuple[Candidate, ...]
    nearest: Candidate
    differing: int
    size: int
    largest: float


def _differences(got: np.ndarray, want: np.ndarray) -> tuple[int, float]:
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    count = int(np.count_nonzero(~same))
    if count == 0:
        return 0, 0.0
    g, w = got[~same], want[~same]
    finite = np.isfinite(g) & np.isfinite(w)
    if not finite.all():
        return count, float("inf")
    with np.errstate(divide="ignore", invalid="ignore"):
        relative = np.abs(g - w) / np.abs(w)
    return count, float(np.nanmax(np.where(w == 0, np.inf, relative)))


def compare(got: Iterable[float] | np.ndarray, candidates: dict[Candidate, np.ndarray]) -> Match:
    """The :class:`Match` of a library's array ``got`` (as float64) against ``candidates`` of the same shape."""
    library = np.asarray(got, dtype=np.float64).ravel()
    scored = {name: _differences(library, np.asarray(want).ravel()) for name, want in candidates.items()}
    exact = tuple(name for name, (count, _) in scored.items() if count == 0)
    nearest = min(scored, key=lambda name: scored[name])
    count, largest = scored[nearest]
    return Match(exact, nearest, count, library.size, largest)


CANDIDATES: dict[str, Callable[..., dict[Candidate, np.ndarray]]] = {
    "statistic": statistic, "normalised": normalised, "rms": rms_normalised, "softmax": softmaxed}
