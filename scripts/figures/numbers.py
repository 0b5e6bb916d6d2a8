"""Numbers the pages quote that belong to no single figure: the bounds, and the libraries' own sums."""

from __future__ import annotations

import math
from dataclasses import dataclass

import ml_dtypes
import numpy as np

import fpsum

from .cache import Built
from .text import number, significant


@dataclass(frozen=True)
class NumbersParams:
    """The formats whose bounds are quoted and the n they are evaluated at."""

    bound_formats: tuple[str, ...] = ("fp16", "bf16")
    bound_n: int = fpsum.RACE_N

    def __post_init__(self) -> None:
        if self.bound_n < 2:
            raise ValueError(f"bounds need n >= 2, got {self.bound_n}")
        for name in self.bound_formats:
            fpsum.get_format(name)


def library_numbers(n: int, seed: int) -> dict[str, str]:
    """What numpy and ml_dtypes themselves return for n uniform values, computed by running them.

    The page quotes these beside the model: they are the libraries' own
    reductions, not the model's methods.
    """
    drawn = np.random.default_rng(seed).random(n)
    fp16 = drawn.astype(np.float16)
    bf16 = drawn.astype(ml_dtypes.bfloat16)
    return {
        "library.fp16_sum": number(float(fp16.sum())),
        "library.fp16_cumsum": number(float(np.cumsum(fp16)[-1])),
        "library.fp16_exact": number(float(fpsum.exact_sum(fp16))),
        "library.bf16_sum": number(float(bf16.sum())),
        "library.bf16_sum_fp32": number(float(bf16.sum(dtype=np.float32))),
        "library.bf16_exact": number(float(fpsum.exact_sum(bf16))),
    }


def build(params: NumbersParams) -> Built:
    """The bounds at ``bound_n`` and the libraries' own sums."""
    numbers: dict[str, str] = {}
    n = params.bound_n
    for name in params.bound_formats:
        u = fpsum.get_format(name).unit_roundoff
        numbers |= {
            f"bound.{name}.naive": significant((n - 1) * u),
            f"bound.{name}.pairwise": significant(math.ceil(math.log2(n)) * u),
            f"bound.{name}.kahan": significant(2 * u),
            f"bound.{name}.sqrt": significant(math.sqrt(n) * u),
        }
    numbers |= library_numbers(params.bound_n, seed=0)
    return Built(files={}, numbers=numbers)
