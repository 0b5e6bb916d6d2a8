"""The race figures: one animated SVG per format and input kind, its data and its numbers."""

from __future__ import annotations

import csv
import io
from html import escape
from dataclasses import dataclass

import fpsum

from .cache import Built
from .html import figure_html, fragment_path
from .race import race_figure_html, race_svg
from .text import number



@dataclass(frozen=True)
class RaceParams:
    """One race: format, inputs, length and seed."""

    format: str
    kind: str
    n: int = fpsum.RACE_N
    seed: int = 0
    samples: int = 512

    def __post_init__(self) -> None:
        fpsum.get_format(self.format)
        if self.kind not in fpsum.INPUT_KINDS:
            raise ValueError(f"unknown input kind {self.kind!r} (known: {', '.join(fpsum.INPUT_KINDS)})")
        if self.n < 2 or self.samples < 2:
            raise ValueError(f"a race needs n >= 2 and samples >= 2: {self}")

    @property
    def figure_id(self) -> str:
        return f"race-{self.format}-{self.kind}"


def race_csv(race: fpsum.Race) -> bytes:
    """The sampled running totals: one row per sampled count, exact values as float64 reprs."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["inputs_added", "exact", *race.totals])
    for j, step in enumerate(race.steps):
        row = [repr(float(values[j])) for values in race.totals.values()]
        writer.writerow([int(step), repr(float(race.exact[j])), *row])
    return out.getvalue().encode()


def race_numbers(race: fpsum.Race, prefix: str) -> dict[str, str]:
    """What the pages quote about a race: final totals, the exact one, the stall, Kahan's distance."""
    fmt = race.fmt
    nearest = float(fpsum.to_format(race.exact_final, fmt))
    numbers = {f"{prefix}.{m}": number(value) for m, value in race.final.items()}
    stall = race.stalls["naive"]
    kahan_ulps = abs(race.final["kahan"] - race.exact_final) / fmt.ulp(nearest)
    numbers |= {
        f"{prefix}.exact": number(race.exact_final),
        f"{prefix}.exact_nearest": number(nearest),
        f"{prefix}.stall_step": number(stall) if stall is not None else "none",
        f"{prefix}.kahan_ulps": f"{kahan_ulps:.2f}",
        "race.n": number(race.n),
    }
    return numbers


def build(params: RaceParams) -> Built:
    race = fpsum.run_race(fpsum.get_format(params.format), params.kind,  # type: ignore[arg-type]
                          n=params.n, seed=params.seed, samples=params.samples)
    fid = params.figure_id
    stem = f"figures/{fid}"
    caption = (f"{escape(race.fmt.label)}, {number(race.n)} inputs, {escape(fpsum.INPUT_LABELS[race.kind])}: the "
               "running total of each method against the number of inputs added, revealed over about 10 s. ")
    downloads = {"SVG (animated)": f"{stem}.svg", "PNG (1920 px, final frame)": f"{stem}.png",
                 "CSV data": f"{stem}.csv"}
    files = {
        f"{stem}.svg": race_svg(race, fid, standalone=True).encode(),
        f"{stem}.png": race_png(race),
        f"{stem}.csv": race_csv(race),
        fragment_path(fid): figure_html(fid, race_figure_html(race, fid, f"@root@/{stem}.svg"), caption,
                                        downloads).encode(),
    }
    return Built(files=files, numbers=race_numbers(race, f"race.{params.format}.{params.kind}"))


def race_png(race: fpsum.Race) -> bytes:
    """The race's final frame at slide resolution (light palette), for slides and print."""
    import matplotlib.pyplot as plt

    from .mpl import RC, png_bytes, style_axes
    from .style import LIGHT, METHOD_STYLE, method_colour

    with plt.rc_context(RC):
        fig, ax = plt.subplots(figsize=(8.0, 4.5), layout="constrained")
        ax.plot(race.steps, race.exact, color=method_colour("exact", LIGHT), lw=4, alpha=0.3, label="exact")
        for method, values in race.totals.items():
            ax.plot(race.steps, values, color=method_colour(method, LIGHT), ls=METHOD_STYLE[method]["dash"], lw=2,
                    label=f"{fpsum.METHOD_LABELS[method]}: {number(race.final[method])}")
        ax.set_title(f"{race.fmt.label}, {number(race.n)} inputs, {fpsum.INPUT_LABELS[race.kind]}: "
                     f"exact total {number(race.exact_final)}", fontsize=11)
        ax.set_xlabel("inputs added")
        ax.set_ylabel("running total")
        ax.grid(True, color=LIGHT.grid, lw=0.6)
        ax.legend(frameon=False, fontsize=9)
        style_axes(fig, LIGHT)
        data = png_bytes(fig)
        plt.close(fig)
    return data
