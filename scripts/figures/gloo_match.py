"""Which of the model's all-reduce orders reproduces PyTorch's gloo all-reduce, from ``data/gloo_allreduce.json``.

``make libraries-data`` ran gloo's all-reduce on 127.0.0.1 over 2, 3, 4 and 8
processes (:mod:`libraries.gloo_allreduce`) and kept each small run's result
element by element (the large runs as a hash, which
``tests/model/test_gloo_allreduce.py`` checks).  Here every small run is
compared with the model, element by element in gloo's chunk
(:func:`libraries.gloo_allreduce.gloo_chunks`), under four candidates: the
ring going down (chunk c starts at rank c - 1, ``direction=-1``) and going
up (starts at rank c + 1), each with FP32 accumulation; the tree and the
all-to-all with FP32 accumulation.  AVG is the model's ``post``.

Numbers of record ``gloo-match``: ``torch`` (the version that ran),
``ranks`` (the rank counts, in words), ``runs`` and ``elements`` (the small
runs and their elements compared); per candidate (``down``, ``up``,
``tree``, ``alltoall``): ``runs`` (runs matched bit for bit in every
element), ``elements`` (elements matched bit for bit) and ``misses_from``
(the fewest ranks of a run it misses, or ``none``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from fpsum.allreduce import Algorithm, Average, reduce_ranks
from fpsum.formats import FP32, get_format
from libraries import gloo_allreduce as gloo

from .contract import NestedNumbers
from .record import Built, Record
from .text import number

CANDIDATES: dict[str, tuple[Algorithm, int]] = {
    "down": ("ring", -1), "up": ("ring", 1), "tree": ("tree", 1), "alltoall": ("alltoall", 1)}
"""Each candidate: the model's algorithm and, for the ring, its direction."""


@dataclass(frozen=True)
class GlooMatchParams:
    """No parameter: the record reads the committed data file (:data:`libraries.gloo_allreduce.DATA`), whose bytes,
    not its path, are in the cache key (a path would differ in every copy of the repository).
    """


def records() -> list[Record]:
    """The gloo comparison (its data file's bytes are in the cache key)."""
    return [Record("gloo-match", GlooMatchParams(), build, inputs=(gloo.DATA,))]


def small_runs(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The runs whose result was kept element by element."""
    return [row for row in data["runs"] if "result" in row]


def model(row: dict[str, Any], candidate: str) -> np.ndarray:
    """The model's result for a run under ``candidate``, float64, on the run's own seeded values."""
    n, numel = int(row["ranks"]), int(row["numel"])
    fmt = get_format(gloo.DTYPES[str(row["dtype"])])
    values = gloo.rank_values(n, numel, fmt).T  # elements first, the ranks on the last axis
    chunks = gloo.gloo_chunks(numel, n, fmt.bits // 8)
    average: Average = "post" if row["op"] == "AVG" else "none"
    algorithm, direction = CANDIDATES[candidate]
    return reduce_ranks(values, algorithm, fmt, FP32, average, chunks, direction).astype(np.float64)


def _in_words(counts: list[int]) -> str:
    shown = [str(c) for c in counts]
    return ", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else shown[0]


def build(record_id: str, params: GlooMatchParams) -> Built:
    """The numbers only: no figure."""
    data = json.loads(gloo.DATA.read_text(encoding="utf-8"))
    rows = small_runs(data)
    out: dict[str, NestedNumbers | str] = {
        "torch": str(data["versions"]["torch"]),
        "ranks": _in_words(sorted({int(row["ranks"]) for row in rows})),
        "runs": number(len(rows)), "elements": number(sum(int(row["numel"]) for row in rows)),
    }
    for candidate in CANDIDATES:
        runs = elements = 0
        missed: list[int] = []
        for row in rows:
            same = model(row, candidate) == np.array(row["result"], dtype=np.float64)
            runs += bool(same.all())
            elements += int(same.sum())
            missed += [] if same.all() else [int(row["ranks"])]
        out[candidate] = {"runs": number(runs), "elements": number(elements),
                          "misses_from": number(min(missed)) if missed else "none"}
    return Built(files={}, numbers=out)
