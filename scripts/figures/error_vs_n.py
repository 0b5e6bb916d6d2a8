"""Error-versus-n figures: relative error of each method against n, log-log.

One panel per format; for each method the median over the trials and a
10-90 % band; the worst-case bounds dashed and the sqrt(n) u behaviour of
random data dotted; the stall marked.  Exact results (error 0) are drawn on
a strip at the bottom instead of vanishing off the log axis.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

import fpsum
from fpsum.methods import Method

from .contract import FigureFiles, NestedNumbers
from .html import static_fragment
from .looks import LOOKS, Palette
from .mpl import method_line, render
from .record import Built, Record
from .text import number, significant

Y_TOP = 8.0


@dataclass(frozen=True)
class ErrorVsNParams:
    """What a figure is computed from; all of it goes into the cache key."""

    formats: tuple[str, ...] = ("fp16", "bf16")
    methods: tuple[str, ...] = ("naive", "wide", "kahan", "pairwise")
    n_max: int = 2**16
    trials: int = 32
    seed: int = 2024
    per_octave: int = 4

    def __post_init__(self) -> None:
        if self.n_max < 2 or self.trials < 1 or self.per_octave < 1:
            raise ValueError(f"invalid error-versus-n parameters: n_max={self.n_max}, trials={self.trials}, "
                             f"per_octave={self.per_octave}")
        for name in self.formats:
            fpsum.get_format(name)
        unknown = set(self.methods) - set(fpsum.METHODS)
        if unknown:
            raise ValueError(f"unknown methods {sorted(unknown)} (known: {', '.join(fpsum.METHODS)})")


def records() -> list[Record]:
    """FP16 and BF16 with four methods; FP32 naive and pairwise far past FP32's stall point."""
    return [
        Record("error-vs-n", ErrorVsNParams(), build),
        Record("error-vs-n-fp32", ErrorVsNParams(formats=("fp32",), methods=("naive", "pairwise"),
                                                 n_max=48_000_000, trials=3, per_octave=2), build),
    ]


def compute(params: ErrorVsNParams) -> dict[str, fpsum.Sweep]:
    """One sweep per format."""
    methods: tuple[Method, ...] = tuple(params.methods)  # type: ignore[arg-type]
    return {
        name: fpsum.run_sweep(fpsum.get_format(name), methods, params.n_max, params.trials, params.seed,
                              per_octave=params.per_octave)
        for name in params.formats
    }


def floor_for(sweeps: dict[str, fpsum.Sweep]) -> float:
    """Where exact zeros are drawn: a power of ten at least 4x below the smallest nonzero error."""
    nonzero = [e[(e > 0) & np.isfinite(e)] for s in sweeps.values() for e in s.errors.values()]
    smallest = min((float(v.min()) for v in nonzero if v.size), default=1e-8)
    return float(10.0 ** np.floor(np.log10(smallest / 4)))


def bounds(fmt: fpsum.Format, ns: np.ndarray) -> dict[str, np.ndarray]:
    """The first-order bounds as relative errors for non-negative data, and sqrt(n) u."""
    u = fmt.unit_roundoff
    n = ns.astype(np.float64)
    return {
        "(n−1)u naive": (n - 1) * u,
        "⌈log₂n⌉u pairwise": np.ceil(np.log2(n)) * u,
        "2u Kahan": np.full_like(n, 2 * u),
        "√n·u random": np.sqrt(n) * u,
    }


def _panel(ax: Axes, sweep: fpsum.Sweep, floor: float, palette: Palette) -> None:
    fmt = sweep.fmt
    ns = sweep.ns
    for name, values in bounds(fmt, ns).items():
        ax.plot(ns, np.maximum(values, floor), color=palette.muted, lw=1,
                ls=":" if name.startswith("√") else "--", zorder=1)
        # Label each bound at the right edge, or where it leaves the top of the panel.
        inside = np.nonzero(values <= Y_TOP / 3)[0]
        at = int(inside[-1]) if inside.size else 0
        ax.annotate(name, (ns[at], values[at]), xytext=(-2, 3), textcoords="offset points",
                    ha="right", va="bottom", fontsize=8, color=palette.muted)
    for method in sweep.errors:
        errors = np.where(sweep.errors[method] == 0, floor, sweep.errors[method])
        low, mid, high = np.percentile(errors, [10, 50, 90], axis=0)
        ax.fill_between(ns, low, high, color=LOOKS[method].colour(palette), alpha=0.18, lw=0, zorder=2)
        method_line(ax, method, ns, mid, palette, zorder=3)
    stall_n = int(2 * fmt.stall_point)  # uniform inputs average 1/2: the sum reaches 2**p near n = 2**(p+1)
    if stall_n <= ns[-1]:
        ax.axvline(stall_n, color=LOOKS["naive"].colour(palette), lw=1, alpha=0.6, zorder=1)
        ax.annotate(f"naive stalls at {number(fmt.stall_point)}\n(n ≈ {number(stall_n)})", (stall_n, 0.5),
                    xytext=(-4, 0), textcoords="offset points", ha="right", va="top", fontsize=8,
                    color=LOOKS["naive"].colour(palette))
    ax.axhspan(floor / 2, floor * 2, color=palette.grid, alpha=0.6, lw=0, zorder=0)
    ax.text(ns[-1], floor, "exact (error 0) ", ha="right", va="center", fontsize=8, color=palette.muted)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(1, ns[-1])
    ax.set_ylim(floor / 2, Y_TOP)
    ax.set_title(f"{fmt.label} (u = 2$^{{-{fmt.precision}}}$)", fontsize=11)
    ax.set_xlabel("n, number of inputs summed")
    ax.grid(True, which="major", color=palette.grid, lw=0.6)


def figsize(panels: int) -> tuple[float, float]:
    """Inches: 5.2 per panel side by side, a single panel 7 wide; 4.4 high."""
    return (5.2 * panels if panels > 1 else 7.0, 4.4)


def draw(sweeps: dict[str, fpsum.Sweep], palette: Palette) -> Figure:
    """The figure in one palette; the caller saves and closes it."""
    fig, axes = plt.subplots(1, len(sweeps), figsize=figsize(len(sweeps)), sharey=True, layout="constrained")
    axes_list = list(np.atleast_1d(axes))
    floor = floor_for(sweeps)
    for ax, sweep in zip(axes_list, sweeps.values()):
        _panel(ax, sweep, floor, palette)
    axes_list[0].set_ylabel("relative error |ŝ − s| / |s|")
    handles, labels = axes_list[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(handles), frameon=False)
    return fig


def csv_bytes(sweeps: dict[str, fpsum.Sweep]) -> bytes:
    """The plotted data: per format, method and n, the 10th, 50th and 90th percentile and the share of exact results."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["format", "method", "n", "trials", "p10", "median", "p90", "exact_fraction"])
    for name, sweep in sweeps.items():
        for method, errors in sweep.errors.items():
            low, mid, high = np.percentile(errors, [10, 50, 90], axis=0)
            exact_share = (errors == 0).mean(axis=0)
            for j, n in enumerate(sweep.ns):
                writer.writerow([name, method, int(n), sweep.trials, repr(float(low[j])), repr(float(mid[j])),
                                 repr(float(high[j])), repr(float(exact_share[j]))])
    return out.getvalue().encode()


def alt_text(sweeps: dict[str, fpsum.Sweep], params: ErrorVsNParams) -> str:
    """What the plot shows, in words, from the data it plots."""
    parts = []
    for sweep in sweeps.values():
        said = ", ".join(f"{fpsum.METHOD_LABELS[m]} {significant(float(np.median(e[:, -1])))}"
                         for m, e in sweep.errors.items())
        parts.append(f"{sweep.fmt.label}: at n = {number(params.n_max)} the median relative errors are {said}; "
                     f"the naive error climbs towards 1 once the sum stalls at {number(sweep.fmt.stall_point)}")
    return ("Log-log plot of relative error against n, the number of uniform inputs summed, "
            f"median and 10-90 % band over {params.trials} trials, with the worst-case bounds dashed "
            "and the square-root-of-n behaviour of random data dotted. " + ". ".join(parts) + ".")


def caption(sweeps: dict[str, fpsum.Sweep], params: ErrorVsNParams) -> str:
    """The figure's caption (HTML)."""
    labels = " and ".join(s.fmt.label for s in sweeps.values())
    return (f"Relative error against n in {labels}, for uniform inputs in [0, 1): the median over "
            f"{params.trials} seeded trials (line) and the 10-90 % band (shade). Dashed: the worst-case "
            "bounds (n−1)u, ⌈log₂ n⌉u and 2u; dotted: √n·u, the typical size for random data. "
            "Exact results sit on the grey strip at the bottom. ")


def headline(sweeps: dict[str, fpsum.Sweep], params: ErrorVsNParams) -> NestedNumbers:
    """Numbers the pages quote: ``trials``, ``n_max``, and ``<format>.<method>.median``, the median
    relative error at ``n_max``.
    """
    numbers: dict[str, NestedNumbers | str] = {"trials": number(params.trials), "n_max": number(params.n_max)}
    for name, sweep in sweeps.items():
        numbers[name] = {method: {"median": significant(float(np.median(errors[:, -1])))}
                         for method, errors in sweep.errors.items()}
    return numbers


def build(figure_id: str, params: ErrorVsNParams) -> Built:
    """All files of the figure (an SVG per palette, a slide PNG, the CSV, the page fragment) and its numbers."""
    sweeps = compute(params)
    files = render(lambda palette: draw(sweeps, palette), figure_id)
    files[FigureFiles.of(figure_id).csv] = csv_bytes(sweeps)
    files |= static_fragment(figure_id, figsize(len(sweeps)), alt_text(sweeps, params), caption(sweeps, params))
    return Built(files=files, numbers=headline(sweeps, params))
