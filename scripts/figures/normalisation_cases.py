"""The normalisation page's counterexamples, each with the ``fpsum`` command that reproduces it.

Numbers of record ``normalisation-cases``:

- ``layernorm``: ``rows`` rows of four values randn + 2000 (seed ``seed``)
  rounded to FP32; the textbook variance's ``low`` and ``high`` over them and
  how many are negative (``negative``); two-pass's ``two_pass_low`` and
  ``two_pass_high``; the row with the lowest textbook variance: its textbook
  ``variance``, its ``exact`` variance and the ``command`` (with its four values);
- ``ones``: ``n`` ones in FP16, two-pass's ``mean`` and ``variance``, and the
  ``command``;
- ``softmax``: ``n`` equal logits in FP16, naive order: the ``denominator``,
  the FP16 sum of the probabilities ``summed``, their exact sum ``exact_sum``,
  each ``probability``, and the ``command``; ``overflow_n``, the pairwise
  overflow's row length, with ``overflow_command``;
- ``exercises``: ``bf16`` (equal logits in BF16, naive: ``n``, ``denominator``,
  ``probability``, ``exact_sum``, ``command``) and ``textbook`` (FP16 ones:
  ``n``, the stalled sum ``stalled``, ``mean``, ``variance``, ``command``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fpsum.array_rounding import to_format
from fpsum.formats import BF16, FP16, FP32
from fpsum.moments import mean_variance, moments
from fpsum.softmax import softmax

from .contract import NestedNumbers
from .record import Built, Record
from .text import number


@dataclass(frozen=True)
class NormalisationCasesParams:
    """The LayerNorm rows (count, seed, offset), the row of ones and of equal logits, the pairwise overflow."""

    rows: int = 100_000
    seed: int = 0
    offset: float = 2000.0
    ones: int = 4096
    logits: int = 4096
    overflow_n: int = 65_536

    def __post_init__(self) -> None:
        if self.rows < 1 or self.ones < 1 or self.logits < 1 or self.overflow_n < 1:
            raise ValueError(f"invalid normalisation cases: {self}")


def records() -> list[Record]:
    """The page's counterexamples."""
    return [Record("normalisation-cases", NormalisationCasesParams(), build)]


def layernorm_rows(params: NormalisationCasesParams) -> np.ndarray:
    """pytorch/pytorch#51102's input: rows of four randn + offset, rounded to FP32."""
    z = np.random.default_rng(params.seed).standard_normal((params.rows, 4))
    return np.asarray(to_format(z + params.offset, FP32).astype(np.float32))


def layernorm(params: NormalisationCasesParams) -> dict[str, str]:
    """The textbook and two-pass variances of every row; the worst row and its command."""
    values = layernorm_rows(params)
    _, textbook = mean_variance(values, FP32, "textbook")
    _, two_pass = mean_variance(values, FP32, "two-pass")
    worst = int(np.argmin(textbook))
    row = values[worst].astype(np.float64)
    result = moments(row, FP32, FP32, "textbook")
    shown = " ".join(repr(float(x)) for x in row)
    return {
        "rows": number(params.rows), "seed": str(params.seed), "offset": number(params.offset),
        "low": number(float(textbook.min())), "high": number(float(textbook.max())),
        "negative": number(int((textbook < 0).sum())),
        "two_pass_low": number(float(two_pass.min()), 6), "two_pass_high": number(float(two_pass.max())),
        "variance": number(result.variance), "exact": number(float(result.exact_variance), 4),
        "command": f"echo {shown} | fpsum moments --format fp32 --method textbook",
    }


def ones(params: NormalisationCasesParams) -> dict[str, str]:
    """Two-pass on a row of ones in FP16: the mean and the variance."""
    result = moments(np.ones(params.ones), FP16, FP16, "two-pass")
    return {"n": number(params.ones), "mean": number(result.mean), "variance": number(result.variance),
            "command": f"python3 -c 'print(*[1] * {params.ones})' | fpsum moments --format fp16 --method two-pass"}


def equal_logits(params: NormalisationCasesParams) -> dict[str, str]:
    """The naive FP16 softmax of equal logits, and the row length at which pairwise overflows."""
    result = softmax(np.zeros(params.logits), FP16, FP16, "naive")
    return {
        "n": number(params.logits), "denominator": number(result.denominator),
        "summed": number(result.probability_sum), "exact_sum": number(float(result.exact_probability_sum)),
        "probability": f"1/{number(result.denominator)}",
        "command": f"python3 -c 'print(*[0] * {params.logits})' | fpsum softmax --format fp16 --order naive",
        "overflow_n": number(params.overflow_n),
        "overflow_command": (f"python3 -c 'print(*[0] * {params.overflow_n})' "
                             "| fpsum softmax --format fp16 --order pairwise"),
    }


def exercises(params: NormalisationCasesParams) -> dict[str, dict[str, str]]:
    """The exercises' answers: BF16 equal logits (naive), and the FP16 textbook variance of a row of ones."""
    bf16 = softmax(np.zeros(params.logits), BF16, BF16, "naive")
    textbook = moments(np.ones(params.ones), FP16, FP16, "textbook")
    stalled = float(np.add.accumulate(np.ones(params.ones, dtype=np.float16))[-1])
    return {
        "bf16": {"n": number(params.logits), "denominator": number(bf16.denominator),
                 "probability": f"1/{number(bf16.denominator)}", "exact_sum": number(float(bf16.exact_probability_sum)),
                 "command": f"python3 -c 'print(*[0] * {params.logits})' | fpsum softmax --format bf16 --order naive"},
        "textbook": {"n": number(params.ones), "stalled": number(stalled), "mean": number(textbook.mean),
                     "variance": number(textbook.variance),
                     "command": (f"python3 -c 'print(*[1] * {params.ones})' "
                                 "| fpsum moments --format fp16 --method textbook")},
    }


def build(record_id: str, params: NormalisationCasesParams) -> Built:
    """Numbers only: no figure."""
    numbers: NestedNumbers = {"layernorm": layernorm(params), "ones": ones(params), "softmax": equal_logits(params),
                              "exercises": exercises(params)}
    return Built(files={}, numbers=numbers)
