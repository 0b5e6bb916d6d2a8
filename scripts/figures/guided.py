"""The playground page's guided experiments: each one's link, and the model's results for exactly its settings.

Numbers of record ``guided``, per experiment (``{{ guided.<key>.<name> }}``): ``query``, the
playground's query string for the experiment (with its "?"); ``format``, the format's label;
``largest``, its largest finite value;
``n``, how many inputs; one entry per method, its final total; ``exact``, the exact total
rounded to double; for drawn inputs ``stall_step``, after how many inputs the naive sum stalled
(``none`` if it did not, as the races say it); for the reader's own numbers ``inputs``, the
numbers as stored in the format.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from fractions import Fraction
from urllib.parse import quote

from fpsum.formats import get_format
from fpsum.inputs import InputKind
from fpsum.methods import total
from fpsum.names import Method
from fpsum.race import run_race
from fpsum.reading import read_numbers

from .contract import NestedNumbers
from .playground import playground_query
from .record import Built, Record
from .text import number


@dataclass(frozen=True)
class Guided:
    """One guided experiment: drawn inputs (``kind``, ``n``, ``seed``) or the reader's own numbers (``x``)."""

    key: str
    format: str
    methods: tuple[Method, ...]
    kind: InputKind = "uniform"
    n: int = 8192
    seed: int = 0
    x: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        get_format(self.format)  # a KeyError names an unknown format
        if not self.methods or (not self.x and self.n < 1):
            raise ValueError(f"guided experiment {self.key!r} needs a method and at least one input")

    def query(self) -> str:
        """The playground's query string for this experiment, as its own "Link to this experiment" writes it."""
        if not self.x:
            return playground_query(self.format, self.kind, self.n, self.seed, self.methods)
        pairs = [("format", self.format), ("methods", ",".join(self.methods)), ("x", ",".join(self.x))]
        return "?" + "&".join(f"{key}={quote(value, safe=',')}" for key, value in pairs)


@dataclass(frozen=True)
class GuidedParams:
    """The experiments of the playground page's guided section, in the page's order."""

    experiments: tuple[Guided, ...] = (
        Guided("bf16_stall", "bf16", ("naive", "wide")),
        Guided("fp16_ones", "fp16", ("naive", "kahan"), kind="ones", n=4096),
        Guided("fp16_overflow", "fp16", ("naive", "wide"), x=("60000", "10000", "-30000")),
    )


def records() -> list[Record]:
    """The one record of the guided experiments."""
    return [Record("guided", GuidedParams(), build)]


def results(experiment: Guided) -> NestedNumbers:
    """What the model gives for ``experiment``: each method's total, the exact total, the naive stall."""
    fmt = get_format(experiment.format)
    numbers: dict[str, NestedNumbers | str] = {"query": experiment.query(), "format": fmt.label,
                                               "largest": number(fmt.max_finite)}
    if experiment.x:
        values = read_numbers(io.StringIO("\n".join(experiment.x)), "guided", fmt).astype(fmt.dtype)
        exact = float(sum((Fraction(float(v)) for v in values), Fraction(0)))  # rounded once
        finals = {m: float(total(m, values, fmt)) for m in experiment.methods}
        listed = ", ".join(number(float(v)).replace(",", "") for v in values)  # a list: no thousands commas
        numbers |= {"n": number(values.size), "inputs": listed}
    else:
        race = run_race(fmt, experiment.kind, experiment.n, experiment.seed, methods=experiment.methods)
        exact, finals = race.exact_final, race.final
        stall = race.stalls.get("naive")
        numbers |= {"n": number(experiment.n), "stall_step": number(stall) if stall is not None else "none"}
    return numbers | {"exact": number(exact)} | {m: number(v) for m, v in finals.items()}


def build(record_id: str, params: GuidedParams) -> Built:
    """No files: numbers only, one block per experiment."""
    return Built({}, {e.key: results(e) for e in params.experiments})
