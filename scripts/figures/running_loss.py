"""The running-loss figure: a loss of 10 a step summed in BF16 stops at 4,096; in FP32, or reset at each log, not.

huggingface/transformers PR #8561: the trainer's running sum of the loss,
held in BF16, read 904, 1,704 and 2,960 after 100, 200 and 300 steps of a
loss of 10 and then 4,096 for good.  Three lines over ``steps`` steps: the
running sum in BF16 and in FP32 (:func:`fpsum.training_sums.running_loss`),
and the PR's fix, the BF16 sum restarted after each log every ``every``
steps, each logged part added in float64
(:func:`fpsum.training_sums.logged_loss`).

Numbers of record ``running-loss``: ``loss``, ``steps``, ``every``;
``bf16``: ``at100``, ``at200``, ``at300`` (the running sum after those
steps, each step count also under ``first.n``, ``second.n`` and
``third.n``), ``stuck`` (its last value) and ``stuck_step`` (the first step
at which it reaches it); ``fp32.last`` (the FP32 sum after the last step);
``logged``: ``last`` (the reset sum's total at the last log) and ``part``
(one part's BF16 sum); ``long``: ``every`` and ``part`` (a log every 100
steps: one part's BF16 sum, which already rounds), with ``command`` for it.
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from fpsum.formats import BF16, FP32
from fpsum.training_sums import logged_loss, running_loss

from .contract import FigureFiles, NestedNumbers
from .csvfile import csv_file
from .html import static_fragment
from .looks import Palette
from .mpl_lines import method_line
from .mpl_render import render
from .record import Built, Record
from .text import number
from .variants import Layout, Sizes

SIZES = Sizes(wide=(7.0, 4.4), narrow=(4.5, 5.8))
"""Inches; the legend sits below the plot."""
LONG_EVERY = 100
"""A log every 100 steps: too long a part for BF16 (quoted, not drawn)."""


@dataclass(frozen=True)
class RunningLossParams:
    """The loss of each step, the number of steps, and the steps between two logs of the fix."""

    loss: float = 10.0
    steps: int = 1000
    every: int = 50

    def __post_init__(self) -> None:
        if not self.loss > 0 or self.steps < 300 or not 1 <= self.every <= self.steps:
            raise ValueError(f"invalid running-loss parameters: {self}")


def records() -> list[Record]:
    """The one running-loss figure."""
    return [Record("running-loss", RunningLossParams(), build)]


@dataclass(frozen=True)
class Runs:
    """The running sums after each step (BF16, FP32) and the reset sum's total at each log, all float64."""

    bf16: np.ndarray
    fp32: np.ndarray
    logged: np.ndarray


def compute(params: RunningLossParams) -> Runs:
    """The three runs over a constant loss."""
    losses = np.full(params.steps, params.loss)
    return Runs(running_loss(losses, BF16).astype(np.float64), running_loss(losses, FP32).astype(np.float64),
                logged_loss(losses, BF16, params.every))


def draw(runs: Runs, params: RunningLossParams, palette: Palette, layout: Layout) -> Figure:
    """The figure in one palette and layout; the caller saves and closes it."""
    steps = np.arange(1, params.steps + 1)
    logs = np.arange(1, len(runs.logged) + 1) * params.every
    fig, ax = plt.subplots(figsize=layout.size, layout="constrained")
    method_line(ax, "wide", steps, runs.fp32, palette, zorder=2, label="running sum in FP32", markevery=0.1)
    method_line(ax, "logged", logs, runs.logged, palette, zorder=3,
                label=f"BF16, reset at each log (every {params.every} steps)")
    method_line(ax, "naive", steps, runs.bf16, palette, zorder=4, label="running sum in BF16")
    ax.set_xlim(0, params.steps)
    ax.set_ylim(0, float(runs.fp32[-1]) * 1.05)
    ax.grid(True, which="major", color=palette.grid, lw=0.6)
    ax.xaxis.set_major_locator(MaxNLocator(4 if layout.narrow else 6))
    ax.yaxis.set_major_locator(MaxNLocator(5))
    ax.yaxis.set_major_formatter(lambda v, _: number(v))
    ax.set_xlabel("step")
    ax.set_ylabel(f"running sum of a loss of {number(params.loss)}")
    fig.legend(*ax.get_legend_handles_labels(), frameon=False, loc="outside lower center", ncols=1)
    return fig


def numbers(runs: Runs, params: RunningLossParams) -> NestedNumbers:
    """What the page quotes (see the module docstring)."""
    stall = float(runs.bf16[-1])
    long_part = float(running_loss(np.full(LONG_EVERY, params.loss), BF16)[-1])
    return {
        "loss": number(params.loss), "steps": number(params.steps), "every": number(params.every),
        "bf16": {"at100": number(float(runs.bf16[99])), "at200": number(float(runs.bf16[199])),
                 "at300": number(float(runs.bf16[299])), "stuck": number(stall),
                 "stuck_step": number(int(np.argmax(runs.bf16 == stall)) + 1)},
        "first": {"n": "100"}, "second": {"n": "200"}, "third": {"n": "300"},
        "fp32": {"last": number(float(runs.fp32[-1]))},
        "logged": {"last": number(float(runs.logged[-1])),
                   "part": number(float(running_loss(np.full(params.every, params.loss), BF16)[-1]))},
        "long": {"every": number(LONG_EVERY), "part": number(long_part),
                 "command": (f"python3 -c 'print(*[{params.loss:g}] * {LONG_EVERY})' "
                             "| fpsum sum --format bf16 --method naive")},
    }


def build(figure_id: str, params: RunningLossParams) -> Built:
    """The figure, its CSV and fragment, and the quoted numbers."""
    runs = compute(params)
    files = render(lambda palette, layout: draw(runs, params, palette, layout), figure_id, SIZES)
    logged = dict(zip((np.arange(1, len(runs.logged) + 1) * params.every).tolist(), runs.logged.tolist()))
    files[FigureFiles.of(figure_id).csv] = csv_file(
        ["step", "loss", "running_bf16", "running_fp32", "reset_every", "reset_total"],
        [[s, params.loss, repr(b), repr(f), params.every, repr(logged[s]) if s in logged else ""]
         for s, b, f in zip(range(1, params.steps + 1), runs.bf16.tolist(), runs.fp32.tolist())])
    alt = (f"Plot of the running sum of a loss of {number(params.loss)} a step against the step, up to "
           f"{number(params.steps)} steps. The FP32 sum climbs in a straight line; the BF16 sum climbs below it "
           f"in steps and stops at {number(float(runs.bf16[-1]))}; the BF16 sum reset at each log lies on the "
           "FP32 line.")
    caption = (f"The running sum of a loss of {number(params.loss)} at every step, held in BF16, in FP32, and in "
               f"BF16 restarted at each log every {params.every} steps with the logged parts added in float64 "
               "(the fix of huggingface/transformers PR #8561).")
    more = "Each addition is rounded to the format the sum is held in, ties to even."
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=numbers(runs, params))
