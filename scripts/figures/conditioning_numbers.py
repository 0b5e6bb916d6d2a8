"""The numbers the conditioning page quotes, from the sums of :mod:`figures.conditioning_sums`.

:func:`headline` gathers them (the keys are listed in the docstring of
:mod:`figures.conditioning`, which declares the record): per format and per
method, from the panels; FP16's span in bits against SumK's folds
(:func:`span_numbers`); the seeded search (:func:`search_numbers`); and two
small sums with the ``fpsum`` commands that repeat them
(:func:`example_numbers`, :func:`twice_numbers`).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from fpsum.array_rounding import to_format
from fpsum.conditioned import condition_number
from fpsum.formats import FP16, FP32, FP64, Format
from fpsum.methods import total

from .conditioning_sums import METHODS, ConditioningParams, Panel, Search, exact_from, lost_at
from .contract import NestedNumbers
from .lost import LOST
from .text import number, scientific, significant, superscript

EXAMPLE = (1.0, 1e100, 1.0, -1e100)
TWICE = (2.0**24, 1.0, 2.0**-40)
"""FP32 values whose exact sum, rounded to float64 first, lands on a tie of FP32."""


def quanta(value: float, quantum_exponent: int) -> str:
    """An exact multiple of ``2**quantum_exponent`` for prose: ``0``, ``−2⁻²⁴``, ``2⁻²³``, ``3 × 2⁻²⁴``."""
    count = Fraction(value) / Fraction(2) ** quantum_exponent
    if count.denominator != 1:
        raise ValueError(f"{value!r} is not a multiple of 2**{quantum_exponent}")
    whole = abs(count.numerator)
    if whole == 0:
        return "0"
    sign = "−" if count < 0 else ""
    if whole & (whole - 1) == 0:  # a power of two
        return sign + "2" + superscript(quantum_exponent + whole.bit_length() - 1)
    return f"{sign}{whole} × 2{superscript(quantum_exponent)}"


def command_lines(values: np.ndarray, tail: str, width: int = 60) -> str:
    """A printf of each value on its own line, piped into ``tail``, wrapped by hand to ``width`` columns.

    Lines end in the shell's line continuation, and the last pipes into ``tail``.

    Each value is the shortest decimal that reads back as it (``repr``), and
    ``fpsum sum`` rounds it exactly to the format, so it arrives as itself.
    """
    lines: list[str] = []
    line = "printf '%s\\n'"
    for word in (repr(float(v)) for v in values):
        if len(line) + 1 + len(word) + 2 > width:
            lines.append(line + " \\")
            line = "   "
        line += " " + word
    lines.append(line + " \\")
    lines.append("  | " + tail)
    return "\n".join(lines)


def search_numbers(found: Search, params: ConditioningParams) -> NestedNumbers:
    """The search's numbers: sums in the band, the share K folds lose, how many K + 1 folds get exact, the example."""
    k = params.folds
    fmt = FP16
    q = fmt.emin - fmt.precision + 1
    lost = found.errors[k] >= LOST
    numbers: dict[str, NestedNumbers | str] = {
        "rows": number(params.search_rows), "sums": number(found.exact.size),
        "low": scientific(params.search_band[0]), "high": scientific(params.search_band[1]),
        "lost": number(100 * float(lost.mean()), 0) + " %",
        "next": number(k + 1),
        "next_exact": number(int(np.count_nonzero(found.errors[k + 1] == 0))),
        "zero": number(100 * float(np.mean((found.results[k] == 0) & (found.exact != 0))), 0) + " %",
    }
    if found.example is not None:
        i = found.example
        tail = f"fpsum sum --format fp16 --method sumk --folds {k}"
        numbers["example"] = {
            "kappa": scientific(float(found.kappa[i])),
            "exact": quanta(float(found.exact[i]), q),
            "result": quanta(float(found.results[k][i]), q),
            "error": number(float(found.errors[k][i])),
            "next_result": quanta(float(found.results[k + 1][i]), q),
            "terms": number(params.n),
            "zeros": number(int(np.count_nonzero(found.values[i] == 0))),
            "command": command_lines(found.values[i], tail),
        }
    return numbers


def span_numbers(fmt: Format, n: int, folds: int) -> NestedNumbers:
    """The bits an exact sum of ``fmt`` can span, from its largest finite value down to the quantum, and K p.

    ``span``: from 2**(emax + 1) (just above the largest value) down to the
    quantum 2**q; ``ceiling``: 2**emax / 2**q, the largest kappa of sums whose
    magnitudes stay below 2**emax; ``overflowing``: n times the largest value
    over the quantum, which n terms reach only if some order of adding them
    overflows; ``error`` and ``error_next``: u**K and u**(K + 1) times 2**emax,
    the error left after K and K + 1 folds at the largest magnitudes, against
    ``half_quantum``; ``needs``: the sum of magnitudes beyond which a sum of two
    quanta spans more than K p bits.
    """
    q = fmt.emin - fmt.precision + 1
    return {
        "overflowing": scientific(n * fmt.max_finite / 2.0**q, 2),
        "span": number(fmt.emax + 1 - q),
        "top": "2" + superscript(fmt.emax + 1),
        "held": "2" + superscript(fmt.emax),
        "ceiling": scientific(2.0 ** (fmt.emax - q)),
        "ceiling_bits": number(fmt.emax - q),
        "bits": number(fmt.precision),
        "carried": number(folds * fmt.precision),
        "carried_next": number((folds + 1) * fmt.precision),
        "u_invk_next": scientific(fmt.unit_roundoff ** -(folds + 1)),
        "span_power": "2" + superscript(fmt.emax + 1 - q),
        "error": "2" + superscript(fmt.emax - folds * fmt.precision),
        "error_next": "2" + superscript(fmt.emax - (folds + 1) * fmt.precision),
        "half_quantum": "2" + superscript(q - 1),
        "needs": "2" + superscript(folds * fmt.precision + q + 1),
    }



def median_ratio(panel: Panel, top: float) -> float:
    """The median over bins below ``top`` of naive's median error over Kahan's."""
    below = (panel.centres < top) & (panel.medians["kahan"] > 0)
    return float(np.median(panel.medians["naive"][below] / panel.medians["kahan"][below]))


def example_numbers() -> NestedNumbers:
    """The four-term FP64 sum 1 + 1e100 + 1 - 1e100 (``sum``, as prose writes it), its kappa, each method's
    result and the command.
    """
    values = np.array(EXAMPLE)
    _, _, kappa = condition_number(values[np.newaxis])
    numbers: dict[str, NestedNumbers | str] = {
        "sum": "1 + 10¹⁰⁰ + 1 − 10¹⁰⁰",
        "kappa": scientific(float(kappa[0])),
        "command": "printf '1\\n1e100\\n1\\n-1e100\\n' | fpsum sum --format fp64 --method kahan",
    }
    for method in ("naive", "kahan", "neumaier", "sumtwo", "correct"):
        numbers[method] = number(float(total(method, values, FP64)))
    return numbers


def twice_numbers() -> NestedNumbers:
    """Rounding twice: the exact sum of :data:`TWICE` through float64 (``math.fsum``) to FP32, against once."""
    values = np.array(TWICE, dtype=np.float32)
    via = float(to_format(np.array(math.fsum(TWICE)), FP32))
    lines = "\\n".join(repr(v) for v in TWICE)
    return {
        "fsum": number(math.fsum(TWICE)),
        "twice": number(via),
        "once": number(float(total("correct", values, FP32))),
        "command": f"printf '{lines}\\n' | fpsum sum --format fp32 --method correct",
    }


def headline(panels: dict[str, Panel], params: ConditioningParams, found: Search | None = None) -> NestedNumbers:
    """The numbers the page quotes (listed in the docstring of :mod:`figures.conditioning`); ``search`` only
    when ``found`` is given.
    """
    numbers: dict[str, NestedNumbers | str] = {
        "n": number(params.n), "folds": number(params.folds), "trials": number(params.trials),
        "kappa_max": scientific(params.kappa_max),
        "example": example_numbers(), "twice": twice_numbers(),
        "span": span_numbers(FP16, params.n, params.folds),
    }
    if found is not None:
        numbers["search"] = search_numbers(found, params)
    for name, panel in panels.items():
        u = panel.fmt.unit_roundoff
        per: dict[str, NestedNumbers | str] = {
            "rows": number(panel.kappa.size),
            "u_inv": scientific(1 / u), "u_inv2": scientific(u**-2), "u_invk": scientific(u**-params.folds),
            "reached": scientific(float(panel.kappa.max())),
            "same": number(panel.same),
            "kahan_gain": significant(median_ratio(panel, 1 / u), 1),
            "correct_max": significant(float(panel.errors["correct"].max()) / u, 2),
            "exact_from": "never" if (exact := exact_from(panel)) is None else scientific(exact),
            "quantum": "2" + superscript(panel.fmt.emin - panel.fmt.precision + 1),
            "exact_below": "2" + superscript(panel.fmt.emin + 1),
        }
        for method in METHODS:
            lost = lost_at(panel, method)
            per[method] = {"lost": "never" if lost is None else scientific(lost),
                           "floor": significant(float(panel.medians[method][0]) / u, 2)}
        numbers[name] = per
    return numbers
