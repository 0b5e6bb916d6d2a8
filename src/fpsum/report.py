"""What ``fpsum sum`` and ``fpsum dot`` print: the result, the exact value of the rounded inputs, the errors.

JSON has no NaN or infinity: those are written as the strings ``"nan"``,
``"inf"`` and ``"-inf"``; finite floats as their shortest round-trip text.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any, TextIO

import numpy as np

from .exact import exact_sum


def json_value(value: float) -> float | str:
    """JSON has no inf or NaN: those become strings; finite floats print as round-trip reprs."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def exact_and_errors(rounded: np.ndarray, result: float) -> tuple[float, float, float]:
    """The exact sum of the rounded inputs (a float64 array), to float64, and the absolute and relative
    error of ``result``.
    """
    if np.isnan(rounded).any():
        return math.nan, math.nan, math.nan
    infinities = set(rounded[np.isinf(rounded)].tolist())
    if infinities:
        infinite = math.nan if len(infinities) == 2 else infinities.pop()
        same = result == infinite
        return infinite, (0.0 if same else math.nan), (0.0 if same else math.nan)
    exact = exact_sum(rounded)
    if math.isnan(result):
        return float(exact), math.nan, math.nan
    if math.isinf(result):
        return float(exact), math.inf, math.inf
    error = abs(Fraction(result) - exact)
    if exact == 0:
        return 0.0, float(error), 0.0 if error == 0 else math.inf
    return float(exact), float(error), float(error / abs(exact))


def write_report(report: dict[str, Any], lines: list[tuple[str, str]], as_json: bool, out: TextIO) -> None:
    """The JSON object (non-finite floats as strings), or the text lines followed by the result and errors."""
    if as_json:
        out.write(json.dumps({k: json_value(v) if isinstance(v, float) else v for k, v in report.items()}) + "\n")
        return
    for name, text in lines:
        out.write(f"{name:10s} {text}\n")
    for key in ("result", "exact", "abs_error", "rel_error"):
        out.write(f"{key.replace('_', ' '):10s} {report[key]!r}\n")
