"""Numbers the pages quote that belong to no single figure: the bounds, and the libraries' own sums."""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

import fpsum

from .record import Built, Record
from .text import number, significant


@dataclass(frozen=True)
class BoundsParams:
    """The formats whose bounds are quoted and the n they are evaluated at."""

    formats: tuple[str, ...] = ("fp16", "bf16")
    n: int = fpsum.RACE_N

    def __post_init__(self) -> None:
        if self.n < 2:
            raise ValueError(f"bounds need n >= 2, got {self.n}")
        for name in self.formats:
            fpsum.get_format(name)


@dataclass(frozen=True)
class LibraryParams:
    """How many uniform values the libraries sum, and the seed that draws them."""

    n: int = fpsum.RACE_N
    seed: int = 0

    def __post_init__(self) -> None:
        if self.n < 1:
            raise ValueError(f"the library sums need n >= 1, got {self.n}")


def records() -> list[Record]:
    """The error bounds the pages quote, and what numpy and ml_dtypes return."""
    return [
        Record("bounds", BoundsParams(), build_bounds),
        Record("library", LibraryParams(), build_library),
    ]


def build_library(record_id: str, params: LibraryParams) -> Built:
    """What numpy and ml_dtypes themselves return for n uniform values, computed by running them.

    The page quotes these beside the model: they are the libraries' own
    reductions, not the model's methods.
    """
    drawn = np.random.default_rng(params.seed).random(params.n)
    fp16 = drawn.astype(np.float16)
    bf16 = drawn.astype(ml_dtypes.bfloat16)
    return Built(files={}, numbers={
        "n": number(params.n),
        "fp16_sum": number(float(fp16.sum())),
        "fp16_cumsum": number(float(np.cumsum(fp16)[-1])),
        "fp16_exact": number(float(fpsum.exact_sum(fp16))),
        "bf16_sum": number(float(bf16.sum())),
        "bf16_sum_fp32": number(float(bf16.sum(dtype=np.float32))),
        "bf16_exact": number(float(fpsum.exact_sum(bf16))),
    })


def build_bounds(record_id: str, params: BoundsParams) -> Built:
    """``n``, and per format the relative error bounds at ``n``.

    They are ``naive``, ``pairwise``, ``kahan`` (first-order terms) and ``sqrt``, √n·u: the
    probabilistic bound with its constant set to 1, not a typical size.
    """
    n = params.n
    numbers: dict[str, str | dict[str, str]] = {"n": number(n)}
    for name in params.formats:
        bounds = fpsum.first_order_bounds(n, fpsum.get_format(name))
        numbers[name] = {which: significant(value) for which, value in bounds.items()}
    return Built(files={}, numbers=numbers)
