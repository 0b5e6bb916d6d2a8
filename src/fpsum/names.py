"""The names of the model's methods and the labels a legend gives them, apart from their arithmetic.

What a figure's legend, the race's labels or a command line's choices need,
without importing every summation method: the figures that only name a
method are then not rebuilt when a method's arithmetic changes.
:mod:`fpsum.methods` runs a method by its name.
"""

from __future__ import annotations

from typing import Literal, get_args

Method = Literal["naive", "wide", "kahan", "neumaier", "pairwise", "blocked", "stochastic", "sumtwo", "sumk", "correct"]
METHODS: tuple[Method, ...] = get_args(Method)

METHOD_LABELS: dict[str, str] = {
    "naive": "naive",
    "wide": "FP32 accumulator",
    "kahan": "Kahan",
    "neumaier": "Neumaier",
    "pairwise": "pairwise",
    "blocked": "blocked",
    "stochastic": "stochastic rounding",
    "sumtwo": "Sum2",
    "sumk": "SumK",
    "correct": "correctly rounded",
    "exact": "exact",
}
"""Each method's name in a legend, and the exact total's."""

UpdateMethod = Literal["nearest", "kahan", "stochastic", "master"]
"""How a weight takes an update (:mod:`fpsum.updates`)."""
UPDATE_METHODS: tuple[UpdateMethod, ...] = get_args(UpdateMethod)

UPDATE_LABELS: dict[UpdateMethod, str] = {
    "nearest": "round to nearest",
    "kahan": "Kahan-compensated",
    "stochastic": "stochastic rounding",
    "master": "FP32 master weights",
}
