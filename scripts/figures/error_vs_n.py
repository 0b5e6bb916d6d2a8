"""The error-versus-n figure: relative error of each method against n, log-log.

One panel per format; for each method the median over the trials and a
10-90 % band; the worst-case bounds dashed and the sqrt(n) u behaviour of
random data dotted; the stall marked.  Exact results (error 0) are drawn on
a floor strip at the bottom instead of vanishing off the log axis.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import fpsum  # noqa: E402
from fpsum.methods import Method  # noqa: E402

from .cache import Built
from .html import static_figure_html
from .text import significant
from .style import METHOD_STYLE, PALETTES, Palette, method_colour  # noqa: E402

METHODS: tuple[Method, ...] = ("naive", "wide", "kahan", "pairwise")


@dataclass(frozen=True)
class ErrorVsNParams:
    """What the figure is computed from; all of it goes into the cache key."""

    formats: tuple[str, ...] = ("fp16", "bf16")
    n_max: int = 2**16
    trials: int = 32
    seed: int = 2024
    per_octave: int = 4

    def __post_init__(self) -> None:
        if self.n_max < 2 or self.trials < 1 or self.per_octave < 1:
            raise ValueError(f"invalid error-versus-n parameters: {self}")
        for name in self.formats:
            fpsum.get_format(name)


def compute(params: ErrorVsNParams) -> dict[str, fpsum.Sweep]:
    """One sweep per format."""
    return {
        name: fpsum.run_sweep(fpsum.get_format(name), METHODS, params.n_max, params.trials, params.seed,
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
        "(n-1)u naive": (n - 1) * u,
        "⌈log₂n⌉u pairwise": np.ceil(np.log2(n)) * u,
        "2u Kahan": np.full_like(n, 2 * u),
        "√n·u random": np.sqrt(n) * u,
    }


Y_TOP = 8.0


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
    for method in METHODS:
        errors = np.where(sweep.errors[method] == 0, floor, sweep.errors[method])
        low, mid, high = np.percentile(errors, [10, 50, 90], axis=0)
        colour = method_colour(method, palette)
        style = METHOD_STYLE[method]["dash"]
        ax.fill_between(ns, low, high, color=colour, alpha=0.18, lw=0, zorder=2)
        ax.plot(ns, mid, color=colour, ls=style, lw=2, label=fpsum.METHOD_LABELS[method], zorder=3)
    stall_n = int(2 * fmt.stall_point)  # uniform inputs average 1/2: the sum reaches 2**p near n = 2**(p+1)
    ax.axvline(stall_n, color=method_colour("naive", palette), lw=1, alpha=0.6, zorder=1)
    ax.annotate(f"naive stalls at {fmt.stall_point:,.0f}\n(n ≈ {stall_n:,})", (stall_n, 0.5),
                xytext=(-4, 0), textcoords="offset points", ha="right", va="top", fontsize=8,
                color=method_colour("naive", palette))
    ax.axhspan(floor / 2, floor * 2, color=palette.grid, alpha=0.6, lw=0, zorder=0)
    ax.text(ns[-1], floor, "exact (error 0) ", ha="right", va="center", fontsize=8, color=palette.muted)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(1, ns[-1])
    ax.set_ylim(floor / 2, Y_TOP)
    ax.set_title(f"{fmt.label} (u = 2$^{{-{fmt.precision}}}$)", color=palette.text, fontsize=11)
    ax.set_xlabel("n, number of inputs summed", color=palette.text)
    ax.grid(True, which="major", color=palette.grid, lw=0.6)
    ax.tick_params(colors=palette.text, which="both")
    for spine in ax.spines.values():
        spine.set_color(palette.muted)


def draw(sweeps: dict[str, fpsum.Sweep], palette: Palette) -> Figure:
    """The figure in one palette; the caller saves and closes it."""
    with plt.rc_context({"font.family": "DejaVu Sans", "svg.fonttype": "none", "svg.hashsalt": "fpsum"}):
        fig, axes = plt.subplots(1, len(sweeps), figsize=(10, 4.4), sharey=True, layout="constrained")
        axes_list = list(np.atleast_1d(axes))
        floor = floor_for(sweeps)
        for ax, sweep in zip(axes_list, sweeps.values()):
            _panel(ax, sweep, floor, palette)
        axes_list[0].set_ylabel("relative error |ŝ − s| / |s|", color=palette.text)
        handles, labels = axes_list[0].get_legend_handles_labels()
        legend = fig.legend(handles, labels, loc="outside lower center", ncols=len(METHODS), frameon=False)
        for text in legend.get_texts():
            text.set_color(palette.text)
        fig.patch.set_alpha(0)
        for ax in axes_list:
            ax.set_facecolor("none")
    return fig


def svg_bytes(fig: Figure) -> bytes:
    """Reproducible SVG: fixed hash salt, no date."""
    buffer = io.BytesIO()
    with plt.rc_context({"svg.hashsalt": "fpsum", "svg.fonttype": "none"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def png_bytes(fig: Figure, width_px: int = 1920) -> bytes:
    """PNG at slide resolution (``width_px`` wide), without the software tag."""
    buffer = io.BytesIO()
    dpi = width_px / fig.get_figwidth()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()


def csv_bytes(sweeps: dict[str, fpsum.Sweep]) -> bytes:
    """The plotted data: per format, method and n, the 10th, 50th and 90th percentile."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["format", "method", "n", "trials", "p10", "median", "p90", "exact_fraction"])
    for name, sweep in sweeps.items():
        for method in METHODS:
            errors = sweep.errors[method]
            low, mid, high = np.percentile(errors, [10, 50, 90], axis=0)
            exact_share = (errors == 0).mean(axis=0)
            for j, n in enumerate(sweep.ns):
                writer.writerow([name, method, int(n), sweep.trials, repr(float(low[j])), repr(float(mid[j])),
                                 repr(float(high[j])), repr(float(exact_share[j]))])
    return out.getvalue().encode()


FIGURE_ID = "error-vs-n"


def build(params: ErrorVsNParams, stem: str = f"figures/{FIGURE_ID}") -> Built:
    """All files of the figure (an SVG per palette, a slide PNG, the CSV) and the numbers it yields."""
    sweeps = compute(params)
    outputs: dict[str, bytes] = {}
    for palette in PALETTES:
        fig = draw(sweeps, palette)
        outputs[f"{stem}-{palette.name}.svg"] = svg_bytes(fig)
        if palette.name == "light":
            fig.patch.set_alpha(1)
            fig.patch.set_facecolor("white")
            outputs[f"{stem}.png"] = png_bytes(fig)
        plt.close(fig)
    outputs[f"{stem}.csv"] = csv_bytes(sweeps)
    outputs[f"_fragments/{FIGURE_ID}.html"] = fragment(sweeps, params, stem).encode()
    return Built(files=outputs, numbers=headline(sweeps, params))


def alt_text(sweeps: dict[str, fpsum.Sweep], params: ErrorVsNParams) -> str:
    """What the plot shows, in words, from the data it plots."""
    parts = []
    for sweep in sweeps.values():
        medians = {m: float(np.median(sweep.errors[m][:, -1])) for m in METHODS}
        said = ", ".join(f"{fpsum.METHOD_LABELS[m]} {significant(medians[m])}" for m in METHODS)
        parts.append(f"{sweep.fmt.label}: at n = {params.n_max:,} the median relative errors are {said}; "
                     f"the naive error climbs towards 1 once the sum stalls at {sweep.fmt.stall_point:,.0f}")
    return ("Log-log plot of relative error against n, the number of uniform inputs summed, "
            f"median and 10-90 % band over {params.trials} trials, with the worst-case bounds dashed "
            "and the square-root-of-n behaviour of random data dotted. " + ". ".join(parts) + ".")


def fragment(sweeps: dict[str, fpsum.Sweep], params: ErrorVsNParams, stem: str) -> str:
    """The figure as the page shows it."""
    caption = (f"Relative error of each method against n, for uniform inputs in [0, 1): the median over "
               f"{params.trials} seeded trials (line) and the 10-90 % band (shade). Dashed: the worst-case "
               "bounds (n−1)u, ⌈log₂ n⌉u and 2u; dotted: √n·u, the typical size for random data. "
               "Exact results sit on the grey strip at the bottom.")
    return static_figure_html(FIGURE_ID, stem, alt_text(sweeps, params), caption, {
        "SVG": f"{stem}-light.svg", "SVG (dark)": f"{stem}-dark.svg", "PNG 1920 px": f"{stem}.png",
        "CSV data": f"{stem}.csv"})


def headline(sweeps: dict[str, fpsum.Sweep], params: ErrorVsNParams) -> dict[str, str]:
    """Numbers the pages quote: the median relative error of each method at the largest n."""
    numbers = {"sweep.trials": f"{params.trials:,}", "sweep.n_max": f"{params.n_max:,}"}
    for name, sweep in sweeps.items():
        for method in METHODS:
            median = float(np.median(sweep.errors[method][:, -1]))
            numbers[f"sweep.{name}.{method}.median"] = significant(median)
    return numbers
