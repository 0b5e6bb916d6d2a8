"""One rounded step past a format's largest value: where "the step loses at most half a gap" ends.

Rounding to nearest keeps |(s + x) - fl(s + x)| at most half a gap only
while the exact sum rounds to a finite value.  Beyond it each format
follows its own rule (``fpsum.formats.Format.overflow``): FP16 and BF16
give inf, FP8 E4M3 (which has no inf) gives NaN, and the FP4 and FP6
formats of the playground, which have neither, saturate at their largest
value.

Record ``step-limits``: ``saturate`` and ``overflow``, each the sum of a
format's largest value with itself (``format``, the format's label;
``a``; ``exact``; ``result``, the model's naive sum, written ``NaN`` or
``∞`` as it comes) and the ``command`` that prints it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fpsum.formats import get_format
from fpsum.methods import total

from .record import Built, Record
from .text import number


@dataclass(frozen=True)
class StepLimitsParams:
    """The format that saturates and the one that gives NaN; each adds its largest value to itself."""

    saturate: str = "e2m1"
    overflow: str = "e4m3"

    def __post_init__(self) -> None:
        get_format(self.saturate)
        get_format(self.overflow)


def records() -> list[Record]:
    """The two steps past the largest value."""
    return [Record("step-limits", StepLimitsParams(), build)]


def largest_twice(name: str) -> dict[str, str]:
    """The format's largest value added to itself by the model, and the command that does it."""
    fmt = get_format(name)
    a = fmt.max_finite
    with np.errstate(over="ignore", invalid="ignore"):
        result = float(total("naive", np.array([a, a]).astype(fmt.dtype), fmt))
    return {"format": fmt.label, "a": number(a), "exact": number(2 * a), "result": number(result),
            "command": f"printf '{a:g}\\n{a:g}\\n' | fpsum sum --format {name} --method naive"}


def build(record_id: str, params: StepLimitsParams) -> Built:
    """The numbers of both steps."""
    return Built(files={}, numbers={"saturate": largest_twice(params.saturate),
                                    "overflow": largest_twice(params.overflow)})
