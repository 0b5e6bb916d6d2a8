"""Where the conditioning page's promises end, with kappa = 1: long FP16 sums, and a sum that overflows.

The page's powers of u (Neumaier and Sum2 to about u**-2, SumK to about
u**-K) need n * u well below 1.  The errors that Neumaier's method and
VecSum pass on are added by a naive sum, and a long naive sum stalls
whatever kappa is: in FP16, inputs below 1 stop moving a total at 2048.
And the correctly rounded sum is within u of the exact one only if that
rounds to a finite value.

Record ``conditioning-limits``: ``uniform``, the seeded uniform inputs of
``fpsum race`` (``n``, ``seed``, ``exact``, the exact sum rounded once to
float64 for prose, and the final sums of ``naive``, ``kahan``, ``neumaier``,
``sumtwo``, ``correct``, with the race ``command`` that prints them); and
``copies``, ``n`` copies of one ``value`` (``exact``, ``kahan``,
``neumaier``, SumK with ``folds`` and ``folds_next`` folds as ``sumk`` and
``sumk_next``, and a ``command`` for each of those three methods); and
``overflow``, two FP16 values ``a`` and ``b`` of one sign whose exact sum
``exact`` rounds to ``correct`` (inf, written ``∞``), with its ``command``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fpsum.exact import exact_running
from fpsum.formats import get_format
from fpsum.inputs import make_inputs
from fpsum.methods import total

from .conditioning_sums import ConditioningParams
from .contract import NestedNumbers
from .record import Built, Record
from .text import number


@dataclass(frozen=True)
class LimitsParams:
    """The format; the uniform race's length and seed; the copies' value and count; SumK's first K (the
    page's); the pair that overflows.
    """

    format: str = "fp16"
    uniform_n: int = 16384
    uniform_seed: int = 1
    value: float = 0.75
    copies: int = 65536
    folds: int = ConditioningParams().folds
    overflow: tuple[float, float] = (65504.0, 16.0)

    def __post_init__(self) -> None:
        fmt = get_format(self.format)
        if self.uniform_n < 1 or self.copies < 1 or self.folds < 2:
            raise ValueError(f"invalid long-sum parameters: {self}")
        if float(np.array(self.value).astype(fmt.dtype)) != self.value or self.value <= 0:
            raise ValueError(f"{self.value} is not a positive value of {fmt.label}")
        if any(float(np.array(v).astype(fmt.dtype)) != v or v <= 0 for v in self.overflow):
            raise ValueError(f"{self.overflow} are not positive values of {fmt.label}")


def records() -> list[Record]:
    """The numbers of the long sums and of the sum that overflows."""
    return [Record("conditioning-limits", LimitsParams(), build)]


def exact_of(values: np.ndarray) -> float:
    """The exact sum, rounded once to float64."""
    return float(exact_running(values, np.array([values.size]))[0])


def build(record_id: str, params: LimitsParams) -> Built:
    """The final sums of both long inputs and of the overflowing pair, and the commands that print them."""
    fmt = get_format(params.format)
    drawn = make_inputs("uniform", params.uniform_n, fmt, params.uniform_seed)
    uniform: dict[str, str] = {
        "n": number(params.uniform_n), "seed": number(params.uniform_seed),
        "exact": number(exact_of(drawn), 0),
        **{m: number(float(total(m, drawn, fmt))) for m in ("naive", "kahan", "neumaier", "sumtwo", "correct")},
        "command": (f"fpsum race --format {params.format} --inputs uniform --n {params.uniform_n} "
                    f"--seed {params.uniform_seed}"),
    }
    same = np.full(params.copies, params.value, dtype=fmt.dtype)
    head = f"yes {params.value!r} | head -n {params.copies} | fpsum sum --format {params.format}"
    copies: dict[str, str] = {
        "n": number(params.copies), "value": number(params.value), "exact": number(exact_of(same)),
        "kahan": number(float(total("kahan", same, fmt))),
        "neumaier": number(float(total("neumaier", same, fmt))),
        "folds": number(params.folds), "folds_next": number(params.folds + 1),
        "sumk": number(float(total("sumk", same, fmt, folds=params.folds))),
        "sumk_next": number(float(total("sumk", same, fmt, folds=params.folds + 1))),
        "command_kahan": f"{head} --method kahan",
        "command_neumaier": f"{head} --method neumaier",
        "command_sumk": f"{head} --method sumk --folds {params.folds + 1}",
    }
    pair = np.array(params.overflow, dtype=fmt.dtype)
    a, b = params.overflow
    overflow: dict[str, str] = {
        "a": number(a), "b": number(b), "exact": number(exact_of(pair)),
        "correct": number(float(total("correct", pair, fmt))),
        "command": f"printf '{a:g}\\n{b:g}\\n' | fpsum sum --format {params.format} --method correct",
    }
    numbers: NestedNumbers = {"uniform": uniform, "copies": copies, "overflow": overflow}
    return Built(files={}, numbers=numbers)
