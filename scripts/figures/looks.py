"""One look per method: the single table every figure, legend and style sheet reads.

Each method of the model, and the exact total, has a label (the model's
own, ``fpsum.names.METHOD_LABELS``), a colour for the light and for the dark
palette, a dash pattern, a line width and a marker.  The animated race
(SVG), its PNG, every matplotlib figure and the generated style sheet
``assets/stylesheets/looks.css`` take them from here, so a method looks the
same on the page, in the download and on a slide.

Dash patterns are written in multiples of the line width, the convention of
matplotlib's ``lines.scale_dashes``: on a 2-unit line ``(4, 2)`` is 8 on, 4
off.  Every colour passes WCAG's 3:1 for graphics on its palette's
background (tested), and the dash patterns and markers tell the lines apart
without colour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from fpsum.names import METHOD_LABELS, UPDATE_LABELS, UpdateMethod


@dataclass(frozen=True)
class Look:
    """How one method's line is drawn, in both palettes."""

    label: str
    light: str
    dark: str
    dash: tuple[float, ...]
    """On, off, on, off ... in line widths; empty for a solid line."""
    width: float
    """Line width: points in matplotlib figures, user units in the race."""
    marker: str
    """A key of :data:`MARKERS`, or ``""`` for none."""

    def colour(self, palette: Palette) -> str:
        """The colour in ``palette``."""
        return self.light if palette.name == "light" else self.dark

    def dasharray(self, width: float | None = None) -> str:
        """The SVG ``stroke-dasharray`` for a line ``width`` wide (this look's width by default); ``none`` if solid."""
        scale = self.width if width is None else width
        return " ".join(f"{d * scale:.4g}" for d in self.dash) if self.dash else "none"


def _look(method: str, light: str, dark: str, dash: tuple[float, ...], width: float, marker: str) -> Look:
    return Look(METHOD_LABELS[method], light, dark, dash, width, marker)


LOOKS: dict[str, Look] = {
    "exact": _look("exact", "#212121", "#e6e6e6", (), 1.5, ""),
    "naive": _look("naive", "#c0392b", "#ff8a65", (), 2.2, "circle"),
    "wide": _look("wide", "#8e3a8e", "#e39be0", (4.0, 1.8), 2.2, "square"),
    "kahan": _look("kahan", "#0b63b5", "#6ab7ff", (0.6, 1.35), 2.6, "triangle"),
    "pairwise": _look("pairwise", "#00796b", "#4fd1b8", (5.5, 1.6, 1.4, 1.6), 2.2, "diamond"),
    "neumaier": _look("neumaier", "#a35200", "#ffb74d", (2.5, 1.2, 0.6, 1.2, 0.6, 1.2), 2.2, "triangle_down"),
    "blocked": _look("blocked", "#2e7d32", "#81c784", (1.6, 1.2), 2.2, "pentagon"),
    "stochastic": _look("stochastic", "#6d4c41", "#d7b19d", (3.0, 1.0, 3.0, 3.0), 2.2, "hexagon"),
    # The accurate end (fpsum.cascaded, fpsum.correct). Sum2 gives Neumaier's bits, so its line lies on
    # Neumaier's: sparse dashes let that one show through.
    "sumtwo": _look("sumtwo", "#6a3d9a", "#c5a3f0", (4.5, 3.0), 2.2, "square"),
    "sumk": _look("sumk", "#4e7a00", "#b5d96b", (7.0, 1.5, 1.5, 1.5, 1.5, 1.5), 2.2, "pentagon"),
    "correct": _look("correct", "#b0008e", "#ff7fd9", (10.0, 2.0), 2.2, "hexagon"),
    # The hardware accumulator model of fpsum.hardware, without and with promotion into FP32.
    "truncated": Look("truncating accumulator", "#3949ab", "#9fa8da", (3.0, 1.2), 2.2, "triangle_down"),
    "promoted": Look("truncating, promoted to FP32", "#00838f", "#4dd0e1", (1.0, 1.0), 2.4, "diamond"),
    # Block-scaled dot products (fpsum.block_dot): the error of the inputs' quantization, and a BF16
    # accumulator (a method's look, so not BF16's colours of FORMAT_COLOURS; a key of letters alone,
    # as every key is: it names a CSS custom property, --look-<key>).
    "quantization": Look("quantization (inputs)", "#5d4037", "#bcaaa4", (), 2.6, ""),
    "bfloat": Look("BF16 accumulator", "#0277bd", "#4fc3f7", (6.0, 1.5, 1.0, 1.5), 2.2, "hexagon"),
}
"""Every method of the model, the exact total and the hardware accumulators; ``LOOKS[m].label`` is what legends say."""


def _update_look(method: UpdateMethod, light: str, dark: str, dash: tuple[float, ...], width: float,
                 marker: str) -> Look:
    return Look(UPDATE_LABELS[method], light, dark, dash, width, marker)


# The four ways to store a weight of fpsum.updates, under "weight" + the model's name (a weight's
# "kahan" is not a sum's): colours of their own, markers echoing the sum each is the analogue of.
LOOKS |= {
    "weightnearest": _update_look("nearest", "#9e2a2b", "#ff8f8f", (), 2.2, "circle"),
    "weightkahan": _update_look("kahan", "#4527a0", "#b39ddb", (4.0, 1.5), 2.2, "triangle"),
    "weightstochastic": _update_look("stochastic", "#7a5c00", "#e0c050", (1.2, 1.2), 2.2, "hexagon"),
    "weightmaster": _update_look("master", "#006494", "#7fd3ff", (6.0, 1.5, 1.0, 1.5), 2.2, "square"),
}

# Normalisation (fpsum.moments, fpsum.softmax, fpsum.rms): the four variance methods, the online softmax
# normaliser (its naive and pairwise orders are the sums' own looks) and RMSNorm's power-of-two prescale.
# Keys of letters alone: "twopass" is the model's "two-pass".
LOOKS |= {
    "textbook": Look("textbook E[x²] − E[x]²", "#e65100", "#ffa270", (), 2.2, "circle"),
    "twopass": Look("two-pass", "#558b2f", "#aed581", (4.0, 1.5), 2.2, "square"),
    "welford": Look("Welford", "#1a237e", "#8c9eff", (1.2, 1.2), 2.4, "triangle"),
    "chan": Look("Chan (pairwise merges)", "#004d40", "#64ffda", (6.0, 1.5, 1.0, 1.5), 2.2, "diamond"),
    "online": Look("online (running max)", "#880e4f", "#ff80ab", (2.0, 1.5), 2.4, "triangle_down"),
    "prescaled": Look("prescaled by a power of two", "#4a148c", "#ea80fc", (5.0, 2.0), 2.2, "hexagon"),
}
MOMENT_LOOKS: dict[str, str] = {"textbook": "textbook", "two-pass": "twopass", "welford": "welford", "chan": "chan"}
"""Each variance method of :mod:`fpsum.moments` and the key of its look in :data:`LOOKS`."""

# Training (fpsum.allreduce, fpsum.training_sums): the four all-reduce algorithms, the ring with FP32 on
# the wire, and the running loss restarted at each log (its BF16 and FP32 running sums are the naive and
# wide sums' own looks). Keys of letters alone.
LOOKS |= {
    "ring": Look("ring", "#b3261e", "#ff9e80", (), 2.2, "circle"),
    "tree": Look("tree", "#0d47a1", "#90caf9", (4.0, 1.5), 2.2, "square"),
    "alltoall": Look("all-to-all, FP32 sum", "#33691e", "#c5e1a5", (1.2, 1.2), 2.4, "triangle"),
    "switch": Look("switch (rounded once)", "#795548", "#d7ccc8", (6.0, 1.5, 1.0, 1.5), 2.2, "diamond"),
    "ringwide": Look("ring, FP32 on the wire", "#5e35b1", "#b388ff", (2.0, 1.5), 2.4, "triangle_down"),
    "logged": Look("reset at each log", "#006978", "#80deea", (5.0, 2.0), 2.2, "hexagon"),
}
ALLREDUCE_LOOKS: dict[str, str] = {"ring": "ring", "tree": "tree", "alltoall": "alltoall", "switch": "switch"}
"""Each algorithm of :mod:`fpsum.allreduce` and the key of its look in :data:`LOOKS`."""

INPUT_LOOKS: dict[str, Look] = {
    "uniform": Look("uniform [0, 1)", "#37474f", "#cfd8dc", (), 2.0, "circle"),
    "squares": Look("squares of uniform", "#c2185b", "#f48fb1", (3.0, 1.5), 2.0, "square"),
    "exp": Look("exp(−3U)", "#bf360c", "#ffab91", (1.0, 1.5), 2.2, "triangle"),
    "constant": Look("one constant", "#827717", "#e6ee9c", (6.0, 2.0, 1.0, 2.0), 2.0, "diamond"),
}
"""Where a figure compares kinds of input under one method, one look per kind (never a method's colour)."""

FORMAT_COLOURS: dict[str, tuple[str, str]] = {
    "fp16": ("#ad1457", "#f48fb1"),
    "bf16": ("#1565c0", "#82b1ff"),
    "fp32": ("#37474f", "#cfd8dc"),
    "e4m3": ("#6a1b9a", "#ce93d8"),
    "e5m2": ("#bf4500", "#ffcc80"),
    "e3m2": ("#00695c", "#80cbc4"),
    "e2m3": ("#9e7c00", "#ffe082"),
    "e2m1": ("#b71c1c", "#ef9a9a"),
}
"""Where a figure compares formats, each one's colour (light, dark): never a method's.  FP32 has the
uniform input's colours; no figure compares formats and kinds of input at once."""


BLOCK_LOOKS: dict[str, Look] = {
    "mxfp8": Look("MXFP8 (E4M3)", *FORMAT_COLOURS["e4m3"], (), 2.2, "square"),
    "mxfp6-e2m3": Look("MXFP6 (E2M3)", *FORMAT_COLOURS["e2m3"], (4.0, 1.5), 2.2, "diamond"),
    "mxfp4": Look("MXFP4", *FORMAT_COLOURS["e2m1"], (1.2, 1.2), 2.4, "circle"),
    "nvfp4": Look("NVFP4", "#2e5e1e", "#b9e08f", (6.0, 1.5, 1.0, 1.5), 2.2, "triangle"),
}
"""Where a figure compares block-scaled formats, one look each: an MX format in its element format's
colours (:data:`FORMAT_COLOURS`), NVFP4 in its own, so it differs from MXFP4 in colour, dash and marker."""


def format_colour(name: str, palette: Palette) -> str:
    """A format's colour in ``palette`` (:data:`FORMAT_COLOURS`): a format looks the same in every figure."""
    light, dark = FORMAT_COLOURS[name]
    return light if palette.name == "light" else dark


@dataclass(frozen=True)
class Palette:
    """The colours of everything that is not a method, in one of the site's two palettes."""

    name: str
    text: str
    muted: str
    axis: str
    grid: str
    background: str


LIGHT = Palette(name="light", text="#212121", muted="#5c5c5c", axis="#6e6e6e", grid="#e0e0e0", background="#ffffff")
DARK = Palette(name="dark", text="#e6e6e6", muted="#b3b6bd", axis="#979ba5", grid="#343844", background="#1e2129")
PALETTES = (LIGHT, DARK)
"""Text colours pass WCAG AA (4.5:1) on their background; ``background`` is mkdocs-material's slate in dark."""


def dark_colours() -> dict[str, str]:
    """Each colour a figure draws in the light palette, and the one it has in the dark palette.

    The pairs of every table above: the methods', the inputs', the formats'
    and the palettes' own inks.  A dark figure is its light one recoloured
    (``figures.mpl_dark.dark_svg``), so a light colour must become one dark colour:
    ``ValueError`` naming it if two tables disagree.  Colours are lower-case
    ``#rrggbb``, as matplotlib writes them.
    """
    pairs = [(look.light, look.dark) for look in (*LOOKS.values(), *INPUT_LOOKS.values(), *BLOCK_LOOKS.values())]
    pairs += list(FORMAT_COLOURS.values())
    pairs += [(getattr(LIGHT, ink), getattr(DARK, ink)) for ink in ("text", "muted", "axis", "grid", "background")]
    dark: dict[str, str] = {}
    for light, shade in pairs:
        light, shade = light.lower(), shade.lower()
        if dark.setdefault(light, shade) != shade:
            raise ValueError(f"the light colour {light} is {dark[light]} in one dark table and {shade} in another")
    return dark


@dataclass(frozen=True)
class Marker:
    """A marker shape: matplotlib's code for it, and its outline as SVG points around (0, 0) in user units."""

    matplotlib: str
    points: tuple[tuple[float, float], ...]
    """Polygon corners; empty for a circle."""


def _polygon(corners: int, radius: float, turn: float = 0.0) -> tuple[tuple[float, float], ...]:
    """A regular polygon with a corner straight up (SVG's y grows downwards), turned by ``turn`` radians."""
    return tuple((round(radius * math.sin(turn + 2 * math.pi * k / corners), 2),
                  round(-radius * math.cos(turn + 2 * math.pi * k / corners), 2)) for k in range(corners))


MARKERS: dict[str, Marker] = {
    "circle": Marker("o", ()),
    "square": Marker("s", ((-3.7, -3.7), (3.7, -3.7), (3.7, 3.7), (-3.7, 3.7))),
    "triangle": Marker("^", _polygon(3, 5.6)),
    "triangle_down": Marker("v", _polygon(3, 5.6, math.pi)),
    "diamond": Marker("D", _polygon(4, 5.4)),
    "pentagon": Marker("p", _polygon(5, 5.0)),
    "hexagon": Marker("h", _polygon(6, 4.8)),
}
CIRCLE_RADIUS = 4.3
"""The SVG circle marker's radius, user units."""


def css_properties(palette: Palette) -> dict[str, str]:
    """Custom-property names (without ``--look-``) and colours of ``palette``: every method, then the inks."""
    colours = {method: look.colour(palette) for method, look in LOOKS.items()}
    colours |= {"text": palette.text, "muted": palette.muted, "axis": palette.axis, "grid": palette.grid,
                "bg": palette.background}
    return colours


def css_variable(name: str) -> str:
    """A colour for SVG style attributes: ``var(--look-kahan,#0b63b5)``, the light colour as the fallback."""
    return f"var(--look-{name},{css_properties(LIGHT)[name]})"
