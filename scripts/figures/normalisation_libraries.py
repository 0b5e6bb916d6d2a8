"""PyTorch's, JAX's and NumPy's own normalisation on this CPU, set beside the model, from what ``make libraries-data``
recorded in ``data/normalisation_libraries.json`` (its path is owned by :mod:`libraries.normalisation`).

One record, ``normalisation-libraries``, whose numbers fill the normalisation
page's table of library calls and the paragraphs around it:

- ``versions``: ``torch``, ``jax``, ``numpy`` (the versions that ran);
- ``inputs``: the rows' shape (``rows``, ``n``), the largest ``max_offset``,
  the logit rows' length ``logit_n`` and largest spread ``max_spread``, and the
  ``offset`` of the row the table quotes;
- per table row (:data:`TABLE`, keyed ``torch_var_fp16`` and so on):
  ``returns``, what the library returned on the quoted row (a statistic with
  its exact value, the variance or mean square of an output row, or how far
  softmax rows add up from 1), and ``model``, which of the model's methods and
  accumulation formats give every value it returned bit for bit, in words
  (:func:`in_words`), or ``none of the model's methods`` with the nearest;
- ``standardize``: ``nan_rows`` (how many rows of JAX's float16 outputs are
  NaN: those whose sum passes 65,504), ``wide_low`` and ``wide_high`` (the range of
  offsets every bfloat16 row of which has outputs whose variance passes 1,000);
- ``issue``: pytorch#51102's rows (``rows``), the model's textbook FP32
  variance's ``negative`` and ``zero`` counts, ``textbook_max`` (the largest
  variance of the model's textbook LayerNorm output rows), and ``within``
  (how far PyTorch's output rows' variances lie from 1 at most, rounded up to one
  significant digit).

``ValueError`` if the data file was written by another version of the runner
than :mod:`libraries.normalisation` as it is now (``make libraries-data``).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fpsum.formats import FP32, Format
from fpsum.moments import MOMENT_METHODS, exact_moments, mean_variance
from fpsum.softmax import SOFTMAX_ORDERS
from libraries import normalisation as runner
from libraries import normalisation_match as match

from .contract import NestedNumbers
from .record import Built, Record
from .text import number, significant

DATA = runner.DATA
"""The data file, as the runner (``scripts/libraries/normalisation.py``), which owns its path, writes it."""
WORDS = {"textbook": "textbook", "two-pass": "two-pass", "welford": "Welford", "chan": "Chan",
         "naive": "naive", "pairwise": "pairwise", "online": "online", "rms": "the mean of squares"}
"""How the table names each of the model's methods and softmax orders."""
TABLE: dict[str, tuple[str, str, str, str]] = {
    # key: (row, call, what the library returned, kind)
    "torch_var_fp16": ("torch float16", "var_mean", "variance", "statistic"),
    "torch_var_bf16": ("torch bfloat16", "var_mean", "variance", "statistic"),
    "jax_var_fp16": ("jax float16", "var", "variance", "statistic"),
    "jax_var_bf16": ("jax bfloat16", "var", "variance", "statistic"),
    "numpy_var_fp16": ("numpy float16", "var", "variance", "statistic"),
    "torch_rstd_fp16": ("torch float16", "native_layer_norm", "rstd", "statistic"),
    "torch_rstd_bf16": ("torch bfloat16", "native_layer_norm", "rstd", "statistic"),
    "torch_ln_fp16": ("torch float16", "native_layer_norm", "output", "normalised"),
    "torch_ln_bf16": ("torch bfloat16", "native_layer_norm", "output", "normalised"),
    "jax_standardize_fp16": ("jax float16", "standardize", "output", "normalised"),
    "jax_standardize_bf16": ("jax bfloat16", "standardize", "output", "normalised"),
    "torch_rms_fp16": ("torch float16", "rms_norm", "output", "rms"),
    "torch_rms_bf16": ("torch bfloat16", "rms_norm", "output", "rms"),
    "torch_softmax_fp16": ("torch float16", "softmax", "output", "softmax"),
    "torch_softmax_bf16": ("torch bfloat16", "softmax", "output", "softmax"),
    "jax_softmax_fp16": ("jax float16", "softmax", "output", "softmax"),
    "jax_softmax_bf16": ("jax bfloat16", "softmax", "output", "softmax"),
}
"""The table's rows: which call of which row of the data file, and which of the model's candidates it is set beside."""
SQRT_DIVIDE = "sqrt-divide"
"""A layer norm's outputs are set beside the model's with rstd rounded both ways (:data:`match.RSTD_RULES`)."""


@dataclass(frozen=True)
class NormalisationLibrariesParams:
    """The offset of the row the table quotes (one of the runner's offsets)."""

    offset: float = 1024.0

    def __post_init__(self) -> None:
        if self.offset not in runner.OFFSETS:
            raise ValueError(f"the quoted row's offset must be one of {runner.OFFSETS}, got {self.offset}")


def records() -> list[Record]:
    """The one record of the libraries' normalisation rows."""
    return [Record("normalisation-libraries", NormalisationLibrariesParams(), build, inputs=(DATA,))]


def committed() -> dict[str, Any]:
    """The data file, read; ``ValueError`` if the runner changed since it was written."""
    data: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    source = Path(runner.__file__).read_bytes()
    if data["source_sha256"] != hashlib.sha256(source).hexdigest():
        raise ValueError(f"{DATA.name} was not written by {Path(runner.__file__).name} as it is now: "
                         "run make libraries-data")
    return data


def fmt_of(row: str) -> Format:
    """The model's format of a data row (``torch float16`` -> FP16)."""
    return runner.DTYPES[row.split()[1]]


def row_offsets() -> np.ndarray:
    """Each moment row's offset."""
    return np.array([runner.OFFSETS[i % len(runner.OFFSETS)] for i in range(runner.MOMENT_SHAPE[0])])


def returned(data: dict[str, Any], row: str, call: str, what: str) -> np.ndarray:
    """What the library returned, as float64: a list of statistics as it is, an output unpacked to the rows' shape."""
    value = data["rows"][row][call][what]
    fmt = fmt_of(row)
    if isinstance(value, list):
        return np.array(value, dtype=np.float64)
    shape = runner.logit_rows(fmt).shape if call == "softmax" else runner.MOMENT_SHAPE
    return runner.unpacked(str(value), fmt).reshape(shape)


def candidates(kind: str, what: str, fmt: Format) -> dict[match.Candidate, np.ndarray]:
    """The model's candidates for a table row (:mod:`libraries.normalisation_match`)."""
    if kind == "softmax":
        return match.softmaxed(runner.logit_rows(fmt), fmt)
    x = runner.moment_rows(fmt)
    if kind == "statistic":
        return match.statistic(x, fmt, what, runner.EPS)
    if kind == "rms":
        return match.rms_normalised(x, fmt, runner.EPS)
    return {**match.normalised(x, fmt, runner.EPS),
            **{(m, f"{a} {SQRT_DIVIDE}"): v for (m, a), v in match.normalised(x, fmt, runner.EPS, SQRT_DIVIDE).items()}}


def _acc(name: str) -> str:
    """An accumulation format in words: "fp32" as FP32, "fp32 sqrt-divide" with how its rstd was rounded."""
    acc, _, rule = name.partition(" ")
    return acc.upper() + (", the square root and the division rounded apart" if rule else "")


def _or(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def in_words(found: match.Match, everything: tuple[str, ...], noun: str) -> str:
    """Which candidates give a library's array, grouped by the method sets they share: "two-pass, Welford or Chan
    in FP32; every method in FP64".  ``everything`` lists the methods (or orders) tried, ``noun`` names them.
    Without an exact candidate: the nearest, how many values differ and by how much, at most (relative).
    """
    if not found.exact:
        method, acc = found.nearest
        by = ", some of them NaN or ∞ on one side only" if math.isinf(found.largest) else \
            f", by up to {significant(100 * found.largest, 2)} %"
        return (f"none of the model's methods: the nearest, {WORDS[method]} in {_acc(acc)}, differs in "
                f"{number(found.differing)} of {number(found.size)} values{by}")
    by_acc: dict[str, list[str]] = {}
    for method, acc in found.exact:
        by_acc.setdefault(acc, []).append(method)
    groups: dict[tuple[str, ...], list[str]] = {}
    for acc, methods in by_acc.items():
        groups.setdefault(tuple(m for m in everything if m in methods), []).append(_acc(acc))
    parts = []
    for shared, accs in groups.items():
        named = f"every {noun}" if len(shared) == len(everything) > 1 else _or([WORDS[m] for m in shared])
        parts.append(f"{named} in {_or(accs)}")
    return "; ".join(parts)


def _statistic_text(got: np.ndarray, what: str, fmt: Format, index: int) -> str:
    exact_var = float(exact_moments(runner.moment_rows(fmt)[index].astype(np.float64))[1])
    exact = exact_var if what == "variance" else 1 / math.sqrt(exact_var + runner.EPS)
    return f"{number(float(got[index]), 4)} (exact {number(exact, 4)})"


def returns(kind: str, what: str, got: np.ndarray, fmt: Format, index: int) -> str:
    """What the table quotes of a library's answer: on row ``index``, a statistic with its exact value, or the
    variance (mean square, for RMS) of the output row; for softmax, how far the rows' sums lie from 1 at most.
    """
    if kind == "statistic":
        return _statistic_text(got, what, fmt, index)
    if kind == "softmax":
        return f"rows adding up to 1 within {significant(float(np.max(np.abs(got.sum(axis=-1) - 1))), 2)}"
    row = got[index]
    with np.errstate(invalid="ignore", over="ignore"):
        spread = float(np.mean(row**2)) if kind == "rms" else float(np.var(row))
    shown = number(spread, 4) if abs(spread) < 10 else number(spread, 0)
    return f"output {'mean square' if kind == 'rms' else 'variance'} {shown}"


def table(data: dict[str, Any], params: NormalisationLibrariesParams) -> dict[str, dict[str, str]]:
    """Every table row's ``returns`` and ``model`` cells."""
    index = int(np.flatnonzero(row_offsets() == params.offset)[0])
    out: dict[str, dict[str, str]] = {}
    for key, (row, call, what, kind) in TABLE.items():
        fmt = fmt_of(row)
        got = returned(data, row, call, what)
        options = candidates(kind, what, fmt)
        everything = SOFTMAX_ORDERS if kind == "softmax" else ("rms",) if kind == "rms" else MOMENT_METHODS
        noun = "order" if kind == "softmax" else "method"
        finite = np.isfinite(got) if kind == "statistic" else np.ones(got.shape, dtype=bool)
        found = match.compare(got[finite], {k: v[finite] for k, v in options.items()})
        model = in_words(found, tuple(everything), noun)
        if not finite.all():
            model = f"∞ on the {number(overflowing(~finite, fmt))} rows whose sum passes " \
                    f"{number(fmt.max_finite)}; on the others, {model}"
        out[key] = {"returns": returns(kind, what, got, fmt, index), "model": model}
    return out


def overflowing(rows: np.ndarray, fmt: Format) -> int:
    """How many rows are marked; ``ValueError`` unless they are the moment rows whose exact sum passes ``fmt``'s
    largest value.
    """
    sums = np.abs(runner.moment_rows(fmt).astype(np.float64).sum(axis=-1))
    if not np.array_equal(rows, sums > fmt.max_finite):
        raise ValueError("the rows marked are not those whose sum passes the format's largest value")
    return int(rows.sum())


def standardize(data: dict[str, Any]) -> dict[str, str]:
    """JAX's standardize: how many float16 output rows are NaN (``ValueError`` unless they are the rows whose sum
    passes 65,504), the range of bfloat16 offsets all of
    whose output rows have a variance above 1,000.
    """
    fp16 = returned(data, "jax float16", "standardize", "output")
    bf16 = returned(data, "jax bfloat16", "standardize", "output")
    with np.errstate(invalid="ignore", over="ignore"):
        wide = bf16.var(axis=-1) > 1000
    offsets = row_offsets()
    every = [o for o in runner.OFFSETS if wide[offsets == o].all()]  # the offsets all of whose rows are wide
    low, high = min(every), max(every)
    if not all(o in every for o in runner.OFFSETS if low <= o <= high):
        raise ValueError("JAX's bfloat16 standardize: the offsets whose rows are all wide are not one range")
    nan = np.isnan(fp16)
    if not np.array_equal(nan.any(axis=-1), nan.all(axis=-1)):
        raise ValueError("JAX's float16 standardize has rows only partly NaN")
    return {"nan_rows": number(overflowing(nan.all(axis=-1), fmt_of("jax float16"))),
            "wide_low": number(low), "wide_high": number(high)}


def issue(data: dict[str, Any]) -> dict[str, str]:
    """pytorch#51102's rows: the model's textbook formula on them, and PyTorch's fixed LayerNorm."""
    x = runner.issue_51102_rows()
    _, textbook = mean_variance(x, FP32, "textbook")
    y = match.normalised(x, FP32, runner.EPS)[("textbook", "fp32")].reshape(x.shape)
    with np.errstate(invalid="ignore"):
        textbook_max = float(np.nanmax(y[textbook == 0].var(axis=-1)))
    output = runner.unpacked(str(data["issue_51102"]["output"]), FP32)
    within = float(np.max(np.abs(output.reshape(x.shape).var(axis=-1) - 1)))
    return {"rows": number(len(x)), "negative": number(int((textbook < 0).sum())),
            "zero": number(int((textbook == 0).sum())), "textbook_max": number(textbook_max, 0),
            "within": significant(above(within), 1)}


def above(value: float) -> float:
    """A positive bound rounded up to one significant digit (0.00953 -> 0.01), so "within" it stays true."""
    step = 10.0 ** math.floor(math.log10(value))
    return math.ceil(value / step) * step


def build(record_id: str, params: NormalisationLibrariesParams) -> Built:
    """Numbers only: no figure."""
    data = committed()
    offsets = np.array(runner.OFFSETS)
    numbers: NestedNumbers = {
        "versions": {p: str(data["versions"][p]) for p in ("torch", "jax", "numpy")},
        "inputs": {"rows": number(runner.MOMENT_SHAPE[0]), "n": number(runner.MOMENT_SHAPE[1]),
                   "max_offset": number(float(offsets.max())), "logit_n": number(runner.LOGIT_N),
                   "max_spread": number(max(runner.SPREADS)), "offset": number(params.offset),
                   "issue_rows": number(runner.ISSUE_ROWS)},
        **table(data, params),
        "standardize": standardize(data),
        "issue": issue(data),
    }
    return Built(files={}, numbers=numbers)
