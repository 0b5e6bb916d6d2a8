"""Where an accumulator's error overtakes quantization, with its spread over independent sets of trials.

One record, ``block-crossovers``: for each quoted pair of block format and accumulator, the crossover of
:mod:`figures.block_errors` (the first K drawn at which the median accumulation error exceeds the median
quantization error) in each of ``sets`` independent sets of ``trials`` uniform trials. Set ``j`` draws x
with seed ``seed + 2 j`` and y with ``seed + 2 j + 1``, so set 0 is the figure's own trials. A median over
24 trials moves from one set to the next, and so does the first K where one median passes the other: the
page states the range, not one set's value.

Only the lengths of each pair's ``window`` are drawn (the sets cost the time of the figure's lengths
otherwise); ``ValueError`` if a set crosses at the window's first length (its crossover might lie lower).
A set that never crosses within the window counts as beyond it (``none`` in ``highest``).

Numbers, per pair (``nvfp4.bf16``, ``nvfp4.truncated``, ``mxfp6_e2m3.bf16``): ``lowest`` and ``highest``
crossover over the sets, ``at_lowest`` (how many sets cross at ``lowest``); and ``sets``, ``trials``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fpsum.block_dot import block_dots
from fpsum.blocks import get_block_format
from fpsum.formats import FP32
from fpsum.inputs import make_inputs

from .block_errors import BlockErrorsParams
from .contract import NestedNumbers
from .record import Built, Record
from .text import number


@dataclass(frozen=True)
class CrossoverParams:
    """Per block format, its accumulators and the lengths drawn; the sets; the figure's parameters (trials, seed)."""

    windows: tuple[tuple[str, tuple[str, ...], tuple[int, ...]], ...] = (
        ("nvfp4", ("bf16", "truncated"), (256, 512, 1024, 2048, 4096)),
        ("mxfp6-e2m3", ("bf16",), (2048, 4096, 8192, 16384)),
    )
    sets: int = 4
    figure: BlockErrorsParams = BlockErrorsParams(kind="uniform")


def records() -> list[Record]:
    """The one record of the crossovers' spread."""
    return [Record("block-crossovers", CrossoverParams(), build)]


def set_crossovers(name: str, accumulators: tuple[str, ...], ks: tuple[int, ...], seed: int,
                   figure: BlockErrorsParams) -> dict[str, int | None]:
    """For one set of trials (x seeded ``seed``, y ``seed + 1``): per accumulator, the first K of ``ks`` where the
    median accumulation error exceeds the median quantization error, or None.
    """
    fmt = get_block_format(name)
    models = [figure.accumulator(a) for a in accumulators]
    first: dict[str, int | None] = dict.fromkeys(accumulators)
    for k in ks:
        x, y = (make_inputs("uniform", k, FP32, seed + i, trials=figure.trials).astype(np.float64) for i in (0, 1))
        dots = block_dots(x, y, fmt, models)
        quantization = np.median([d.quantization_rel_error for d in dots[0]])
        for acc, per in zip(accumulators, dots):
            if first[acc] is None and np.median([d.accumulation_rel_error for d in per]) > quantization:
                first[acc] = k
        if all(v is not None for v in first.values()):
            break  # the later lengths change no first crossing
    for acc, found in first.items():
        if found == ks[0]:
            raise ValueError(f"{name}, {acc}, seed {seed}: crosses at the window's first K {found}; widen the window")
    return first


def headline(params: CrossoverParams) -> NestedNumbers:
    """The numbers the page quotes (see the module docstring)."""
    numbers: dict[str, NestedNumbers | str] = {"sets": number(params.sets), "trials": number(params.figure.trials)}
    for name, accumulators, ks in params.windows:
        runs = [set_crossovers(name, accumulators, ks, params.figure.seed + 2 * j, params.figure)
                for j in range(params.sets)]
        per: dict[str, NestedNumbers | str] = {}
        for acc in accumulators:
            found = [run[acc] for run in runs]
            crossed = [k for k in found if k is not None]
            if not crossed:
                raise ValueError(f"{name}, {acc}: no set crosses within {ks}")
            lowest = min(crossed)
            per[acc] = {"lowest": number(lowest),
                        "highest": number(max(crossed)) if len(crossed) == len(found) else "none",
                        "at_lowest": number(found.count(lowest))}
        numbers[name.replace("-", "_")] = per
    return numbers


def build(record_id: str, params: CrossoverParams) -> Built:
    """Numbers only: no figure."""
    return Built(files={}, numbers=headline(params))
