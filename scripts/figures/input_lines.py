"""Lines for figures that compare kinds of input under one method, in the looks of ``INPUT_LOOKS``."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from fpsum.array_rounding import to_format
from fpsum.formats import Format
from fpsum.inputs import make_inputs

from .looks import INPUT_LOOKS, MARKERS, Palette


def kind_inputs(kind: str, fmt: Format, n: int, seed: int, constant: float,
                trials: int | None = None) -> np.ndarray:
    """Inputs of ``kind`` in ``fmt``: the model's seeded kinds, or ``constant`` repeated (kind ``constant``).

    Shape ``(n,)``, or ``(trials, n)`` if ``trials`` is given, as ``fpsum.inputs.make_inputs``.
    """
    if kind == "constant":
        return to_format(np.full((n,) if trials is None else (trials, n), constant), fmt)
    return make_inputs(kind, n, fmt, seed, trials=trials)  # type: ignore[arg-type]


def input_line(ax: Axes, kind: str, x: Any, y: Any, palette: Palette, **overrides: Any) -> Line2D:
    """Plot the line of input kind ``kind`` (a key of ``INPUT_LOOKS``): colour, dash, width, spread markers.

    ``overrides`` are matplotlib keywords a figure changes on purpose
    (``label``, ``lw``, ``zorder``); the colour and dash stay the table's.
    """
    if {"color", "ls", "linestyle"} & overrides.keys():
        raise ValueError(f"the colour and dash of input kind {kind!r} come from INPUT_LOOKS, not from a figure")
    look = INPUT_LOOKS[kind]
    style: dict[str, Any] = {
        "color": look.colour(palette), "lw": look.width, "label": look.label,
        "ls": (0, look.dash) if look.dash else "-",
        "marker": MARKERS[look.marker].matplotlib, "markevery": 0.1, "ms": 5,
        "markeredgecolor": palette.background, "markeredgewidth": 0.8,
    }
    (line,) = ax.plot(x, y, **(style | overrides))
    return line
