"""PyTorch's gloo all-reduce on this CPU, as ``make libraries-data`` committed it, held to the model's ring.

gloo's ring (gloo/allreduce.cc, the algorithm PyTorch's ``ProcessGroupGloo``
leaves unspecified, so ring) receives from rank + 1 and sends to rank - 1, and
rank c ends up holding chunk c: the partial sum of an element in chunk c starts
at rank (c - 1) mod N and goes *down* the ring, each hop adding in float32
(c10's BFloat16 and Half add as floats) and rounding to the tensor's dtype.
That is the model's ring with ``direction=-1``, FP32 accumulation and the
element's chunk from :func:`libraries.gloo_allreduce.gloo_chunks`; AVG is
PyTorch's SUM followed by one division by N in the dtype: the model's ``post``.
The last test runs gloo afresh in ``.venv-libraries`` (``LIBRARIES_PYTHON``
set, as ``make libraries`` does) and is skipped otherwise.
"""

from __future__ import annotations

import json
import os
import subprocess
from functools import cache

import numpy as np
import pytest

from fpsum.allreduce import reduce_ranks
from fpsum.formats import FP32, Format, get_format
from libraries import gloo_allreduce as gloo
from repocopy import REPO


@cache
def committed() -> dict[str, object]:
    data: dict[str, object] = json.loads(gloo.DATA.read_text(encoding="utf-8"))
    return data


def runs() -> list[dict[str, object]]:
    rows = committed()["runs"]
    assert isinstance(rows, list)
    return rows


def model_ring(row: dict[str, object], direction: int) -> np.ndarray:
    """The model's ring over the run's ranks, each element in gloo's chunk, as float64."""
    n, numel = int(str(row["ranks"])), int(str(row["numel"]))
    fmt: Format = get_format(gloo.DTYPES[str(row["dtype"])])
    values = gloo.rank_values(n, numel, fmt).T  # elements first, the ranks on the last axis
    chunks = gloo.gloo_chunks(numel, n, fmt.bits // 8)
    average = "post" if row["op"] == "AVG" else "none"
    return reduce_ranks(values, "ring", fmt, FP32, average, chunks, direction).astype(np.float64)  # type: ignore[arg-type]


def test_the_committed_runs_cover_every_rank_count_dtype_and_op() -> None:
    keys = {(row["ranks"], row["dtype"], row["op"]) for row in runs()}
    assert keys == {(n, d, op) for n in gloo.RANKS for d in gloo.DTYPES for op in gloo.OPS}
    large = {(row["ranks"], row["dtype"]) for row in runs() if "sha256" in row}
    assert large == {(n, d) for n in gloo.LARGE_RANKS for d in gloo.DTYPES}
    versions = committed()["versions"]
    assert isinstance(versions, dict) and versions["torch"].startswith("2.")


def test_every_chunk_occurs_and_large_tensors_have_several_segments_a_chunk() -> None:
    for n in gloo.RANKS:
        chunks = gloo.gloo_chunks(gloo.small_size(n), n, 2)
        assert set(chunks.tolist()) == set(range(n))
    # 64 N - 3 elements: 2 N segments of 32, two a rank, so 64 elements a chunk and 61 in the last
    assert np.bincount(gloo.gloo_chunks(gloo.small_size(4), 4, 4)).tolist() == [64, 64, 64, 61]
    # above 2 N MiB, more than two segments a chunk: (2N + 1) MiB of float32 over 2 ranks is 6 segments
    numel = gloo.large_size(2, get_format("fp32"))
    assert np.bincount(gloo.gloo_chunks(numel, 2, 4)).tolist() == [3 * (numel // 6 + 1), numel - 3 * (numel // 6 + 1)]


@pytest.mark.parametrize("index", range(len(runs())))
def test_gloo_is_the_models_ring_going_down_bit_for_bit(index: int) -> None:
    row = runs()[index]
    got = model_ring(row, direction=-1)
    if "result" in row:
        assert np.array_equal(got, np.array(row["result"], dtype=np.float64))
    else:
        assert gloo.digest(got) == row["sha256"]


def test_no_other_order_of_the_model_gives_gloo_s_results_from_three_ranks_on() -> None:
    """The ring going up (the issue's rule) is gloo's for 2 and 3 ranks, where both directions add the same pair
    first, and differs from 4 on; the tree, the all-to-all and the switch differ from 3 ranks on.
    """
    for row in runs():
        if "result" not in row or row["op"] != "SUM":
            continue
        n = int(str(row["ranks"]))
        fmt = get_format(gloo.DTYPES[str(row["dtype"])])
        result = np.array(row["result"], dtype=np.float64)
        assert np.array_equal(model_ring(row, direction=1), result) == (n < 4), n
        values = gloo.rank_values(n, int(str(row["numel"])), fmt).T
        for algorithm in ("tree", "alltoall", "switch"):
            other = reduce_ranks(values, algorithm, fmt, FP32).astype(np.float64)  # type: ignore[arg-type]
            assert np.array_equal(other, result) == (n < 3), (algorithm, n)


@pytest.mark.skipif(not os.environ.get("LIBRARIES_PYTHON"), reason="needs .venv-libraries (make libraries)")
def test_a_fresh_run_gives_what_is_committed() -> None:
    done = subprocess.run([os.environ["LIBRARIES_PYTHON"], str(REPO / "scripts/libraries/gloo_allreduce.py"),
                           "--check"], cwd=REPO, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stdout + done.stderr
