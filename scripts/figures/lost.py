"""Where an error curve stops meaning anything: a median relative error of 100 %, and a curve drawn up to it."""

from __future__ import annotations

import numpy as np

LOST = 1.0
"""A median relative error of 100 %: not one correct digit."""


def drawn_until_lost(medians: np.ndarray) -> np.ndarray:
    """The medians as drawn: up to the first that reaches :data:`LOST` (drawn at 100 %), NaN after; 0 stays 0.

    A copy; NaN medians stay NaN, and a curve that never reaches 100 % is
    returned unchanged.
    """
    out = medians.copy()
    lost = np.nonzero(out >= LOST)[0]
    if lost.size:
        out[lost[0]] = LOST
        out[lost[0] + 1:] = np.nan
    return out
