"""Run PyTorch's gloo all-reduce on this CPU with N = 2, 3, 4 and 8 processes, and keep what every element came to.

``make libraries-data`` (or this script in ``.venv-libraries``) writes
``data/gloo_allreduce.json``; ``tests/model/test_gloo_allreduce.py`` holds it
to the model.  Each run starts N processes on 127.0.0.1 (spawned, on a free
port), each holding its rank's row of :func:`rank_values`, all-reduces the
float32, bfloat16 and float16 tensors with SUM and AVG (gloo has no AVG of its
own: PyTorch sums, then divides by N in the tensor's dtype), and records rank
0's result, whether every rank got the same, and the versions.  A run that
does not end within :data:`TIMEOUT_S` seconds is stopped and is an error.

Two sizes per N: a small tensor of ``64 N - 3`` elements (each chunk of gloo's
ring holds 64 elements but the last, which holds 61) recorded value by value,
and, for N = 2 and 3, one above 2 N MiB, where gloo's ring cuts each rank's
chunk into more than two segments, recorded as a SHA-256 of the result's bytes.

The libraries are imported by name only inside the functions that run them,
so that the site's environment can import this module for its constants and
:func:`rank_values` and :func:`gloo_chunks`.
"""

from __future__ import annotations

import datetime
import hashlib
import importlib
import importlib.metadata
import json
import multiprocessing
import platform
import queue
import socket
from pathlib import Path
from typing import Any

import numpy as np

from fpsum.array_rounding import to_format
from fpsum.formats import Format, get_format

try:  # imported as libraries.run (the tests), or run as a file (make libraries-data)
    from libraries.data_file import write_or_check
except ModuleNotFoundError:
    from data_file import write_or_check  # type: ignore[import-not-found,no-redef]

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data" / "gloo_allreduce.json"
RANKS = (2, 3, 4, 8)
LARGE_RANKS = (2, 3)
"""The rank counts also run on a tensor large enough for several segments per chunk."""
DTYPES = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}
"""PyTorch's dtype names and the model's formats."""
OPS = ("SUM", "AVG")
SEED = 42
TIMEOUT_S = 300
MAX_SEGMENT_BYTES = 1 << 20
"""gloo's ``kMaxSegmentSize`` (gloo/allreduce.h): one send or receive of its ring moves at most this."""
PACKAGES = ("torch", "numpy", "ml_dtypes")


def small_size(n: int) -> int:
    """The small tensor: 64 N - 3 elements, so that each of the N chunks holds elements and the last is short."""
    return 64 * n - 3


def large_size(n: int, fmt: Format) -> int:
    """A tensor of (2 N + 1) MiB, plus 3 elements: gloo then cuts it into 2 N + 1 segments or more."""
    return (2 * n + 1) * MAX_SEGMENT_BYTES // (fmt.bits // 8) + 3


def rank_values(n: int, numel: int, fmt: Format, seed: int = SEED) -> np.ndarray:
    """The seeded values of the N ranks, shape ``(n, numel)`` in ``fmt.dtype``: gradient-like, of mixed signs and
    magnitudes (a normal draw times 2**k, k from -6 to 6), rounded to ``fmt``.  Finite: no NaN, inf or -0 drawn.
    """
    rng = np.random.default_rng([seed, n, numel, fmt.bits, fmt.precision])
    wide = rng.standard_normal((n, numel)) * np.exp2(rng.integers(-6, 7, size=(n, numel)))
    return to_format(wide, fmt)


def _ceil(a: int, b: int) -> int:
    """a / b rounded up, for positive whole numbers."""
    return -(-a // b)


def gloo_chunks(numel: int, n: int, element_bytes: int, max_segment_bytes: int = MAX_SEGMENT_BYTES) -> np.ndarray:
    """The chunk of each element in gloo's ring all-reduce (gloo/allreduce.cc): the rank that ends up holding it.

    gloo cuts the buffer into ``numSegments`` segments: the number of
    ``max_segment_bytes`` pieces it needs, at least 2 N, rounded up to a
    multiple of N; each segment holds ``ceil(bytes / numSegments)`` bytes,
    rounded up to whole elements, and rank r holds the reduced segments
    ``r * numSegments / N`` to ``(r + 1) * numSegments / N - 1``.  Integers
    only: no NaN, inf or -0.
    """
    total = numel * element_bytes
    largest = element_bytes * max(1, max_segment_bytes // element_bytes)
    segments = _ceil(max(_ceil(total, largest), 2 * n), n) * n
    per_segment = _ceil(_ceil(total, segments), element_bytes)  # elements in a segment
    chunk: np.ndarray = (np.arange(numel) // per_segment) // (segments // n)
    return chunk


def _worker(rank: int, n: int, port: int, jobs: list[tuple[str, str, int]], results: Any) -> None:
    """One rank: join the gloo group, all-reduce every job's tensor, put ``(rank, {key: output})`` on ``results``."""
    torch: Any = importlib.import_module("torch")
    dist: Any = importlib.import_module("torch.distributed")
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=n,
                            timeout=datetime.timedelta(seconds=TIMEOUT_S))
    out: dict[str, bytes] = {}
    try:
        for dtype, op, numel in jobs:
            fmt = get_format(DTYPES[dtype])
            mine = rank_values(n, numel, fmt)[rank].astype(np.float32)  # exact: float32 holds every value
            tensor = torch.from_numpy(mine).to(getattr(torch, dtype))  # exact: the values are of the dtype
            dist.all_reduce(tensor, op=getattr(dist.ReduceOp, op))
            out[f"{dtype} {op} {numel}"] = tensor.to(torch.float32).numpy().astype(np.float64).tobytes()
    finally:
        dist.destroy_process_group()
    results.put((rank, out))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def run_group(n: int, jobs: list[tuple[str, str, int]]) -> dict[str, np.ndarray]:
    """Rank 0's result of every job, run by N spawned processes; ``RuntimeError`` if the ranks disagree, a
    process fails, or the run outlasts :data:`TIMEOUT_S` (every process still alive is then stopped).
    """
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    port = _free_port()
    processes = [context.Process(target=_worker, args=(rank, n, port, jobs, results), daemon=True)
                 for rank in range(n)]
    for process in processes:
        process.start()
    got: dict[int, dict[str, bytes]] = {}
    try:
        while len(got) < n:
            rank, out = results.get(timeout=TIMEOUT_S)
            got[rank] = out
    except queue.Empty:
        raise RuntimeError(f"gloo all-reduce over {n} ranks: no result within {TIMEOUT_S} s") from None
    finally:
        for process in processes:
            process.join(timeout=120)  # a loaded machine takes a while to tear torch down
            if process.is_alive():
                process.terminate()
    if any(process.exitcode != 0 for process in processes):
        codes = [process.exitcode for process in processes]
        raise RuntimeError(f"gloo all-reduce over {n} ranks: a process failed (exit codes {codes})")
    if any(got[rank] != got[0] for rank in range(n)):
        raise RuntimeError(f"gloo all-reduce over {n} ranks: the ranks' results differ")
    return {key: np.frombuffer(raw, dtype=np.float64) for key, raw in got[0].items()}


def digest(values: np.ndarray) -> str:
    """SHA-256 of the values as float64 bytes (little-endian): how a large result is recorded."""
    return hashlib.sha256(np.asarray(values, dtype="<f8").tobytes()).hexdigest()


def results() -> dict[str, object]:
    """Everything ``data/gloo_allreduce.json`` holds, computed afresh."""
    runs: list[dict[str, object]] = []
    for n in RANKS:
        sizes = {dtype: [small_size(n)] + ([large_size(n, get_format(f))] if n in LARGE_RANKS else [])
                 for dtype, f in DTYPES.items()}
        jobs = [(dtype, op, numel) for dtype in DTYPES for numel in sizes[dtype] for op in OPS]
        outputs = run_group(n, jobs)
        for dtype, op, numel in jobs:
            result = outputs[f"{dtype} {op} {numel}"]
            row: dict[str, object] = {"ranks": n, "dtype": dtype, "op": op, "numel": numel}
            if numel == small_size(n):
                row["result"] = result.tolist()
            else:
                row["sha256"] = digest(result)
            runs.append(row)
    return {
        "written_by": "make libraries-data (scripts/libraries/gloo_allreduce.py)",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "versions": {p: importlib.metadata.version(p) for p in PACKAGES},
        "seed": SEED,
        "runs": runs,
    }


def encoded(data: dict[str, object]) -> str:
    """The file's text: sorted keys, one run a line (diffs stay small), one final newline."""
    head = {k: v for k, v in data.items() if k != "runs"}
    runs = data["runs"]
    assert isinstance(runs, list)
    lines = ",\n".join("    " + json.dumps(run, sort_keys=True) for run in runs)
    body = json.dumps(head, indent=2, sort_keys=True)[:-2]
    return f'{body},\n  "runs": [\n{lines}\n  ]\n}}\n'


def main(argv: list[str] | None = None) -> int:
    """Write the fresh results to ``--out``, or with ``--check`` compare them with it: exit 1 if they differ."""
    return write_or_check(argv, (__doc__ or "").splitlines()[0], DATA, lambda: encoded(results()))


if __name__ == "__main__":
    raise SystemExit(main())
