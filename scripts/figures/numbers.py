"""Numbers the pages quote that belong to no single figure: the formats and the bounds."""

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
    """The formats described, the n the bounds are evaluated at, and how stall counts are averaged."""

    formats: tuple[str, ...] = ("fp16", "bf16", "fp32", "e4m3", "e5m2")
    bound_formats: tuple[str, ...] = ("fp16", "bf16")
    bound_n: int = fpsum.RACE_N
    stall_seeds: int = 10
    fp32_stall_seeds: int = 2

    def __post_init__(self) -> None:
        if self.bound_n < 2 or self.stall_seeds < 1 or self.fp32_stall_seeds < 1:
            raise ValueError(f"invalid number parameters: {self}")
        for name in self.formats + self.bound_formats:
            fpsum.get_format(name)


def inputs_to_stall(fmt: fpsum.Format, seed: int) -> int:
    """How many uniform [0, 1) inputs the naive running sum takes to reach its stall point.

    The sum reaches 2**p near n = 2**(p+1) inputs; four times that is drawn
    so that it always gets there.  ``RuntimeError`` if it does not.
    """
    n = int(4 * fmt.stall_point)
    values = fpsum.make_inputs("uniform", n, fmt, seed)
    running = fpsum.running_totals("naive", values, fmt)
    reached = np.nonzero(running >= fmt.stall_point)[0]
    if reached.size == 0:
        raise RuntimeError(f"{fmt.label}: the naive sum never reached {fmt.stall_point} in {n} inputs")
    return int(reached[0]) + 1


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
    """The format table, the bounds at ``bound_n`` and the libraries' own sums."""
    numbers: dict[str, str] = {}
    for name in params.formats:
        fmt = fpsum.get_format(name)
        seeds = params.fp32_stall_seeds if fmt.precision > 16 else params.stall_seeds
        mean_steps = float(np.mean([inputs_to_stall(fmt, seed) for seed in range(seeds)]))
        # Round to two significant figures: it is an average, not a constant.
        rounded = float(f"{mean_steps:.2g}")
        numbers |= {
            f"format.{name}.label": fmt.label,
            f"format.{name}.p": str(fmt.precision),
            f"format.{name}.stall": number(fmt.stall_point),
            f"format.{name}.stall_ulp": number(fmt.ulp(fmt.stall_point)),
            f"format.{name}.stall_after": number(rounded),
        }
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
