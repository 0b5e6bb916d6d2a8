"""Run the PyTorch, JAX and MLX snippets on this CPU and keep what they print, with the versions that printed it.

``make libraries-data`` runs this in ``.venv-libraries`` and writes
``data/libraries.json``, which the site build reads (``figures.numbers``);
``make libraries`` runs it again and compares (``tests/model/test_libraries.py``).
Each snippet runs as its own process, as a reader would run it, with one
thread, and once more with two threads: ``same_with_two_threads`` records
whether the printed output changed.  ``same_inputs`` records whether each
library summed the very values the model draws: a conversion that rounded
twice would make its rows incomparable with the rest of the table.

The libraries are imported by name only here (``importlib``), so that the
site's environment, which lacks them, can import this module and read its
constants.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from fpsum.formats import get_format
from fpsum.inputs import make_inputs
from fpsum.race import RACE_N

try:  # imported as libraries.run (the tests), or run as a file (make libraries-data)
    from libraries.data_file import write_or_check
except ModuleNotFoundError:
    from data_file import write_or_check  # type: ignore[import-not-found,no-redef]

REPO = Path(__file__).resolve().parents[2]
SNIPPETS_DIR = REPO / "scripts" / "snippets"
DATA = REPO / "data" / "libraries.json"
SUM_SNIPPETS = ("torch_cpu_sums", "jax_cpu_sums", "mlx_cpu_sums")
"""The snippets of the In practice page's library table."""
BLOCK_SNIPPETS = ("torchao_blocks",)
"""The snippets of the block-formats page: torchao's MX and NVFP4 quantizers (read by ``figures.block_torchao``)."""
SNIPPETS = SUM_SNIPPETS + BLOCK_SNIPPETS
"""The snippets run here, by file name without ``.py``."""
PACKAGES = ("torch", "torchao", "jax", "jaxlib", "mlx", "mlx-cpu", "numpy", "ml_dtypes")
"""The packages whose versions are recorded beside the output."""
N = RACE_N
SEED = 0


def threads(count: int) -> dict[str, str]:
    """The environment that holds PyTorch (OpenMP), XLA and MLX to ``count`` threads."""
    return {
        "OMP_NUM_THREADS": str(count),
        "MKL_NUM_THREADS": str(count),
        "XLA_FLAGS": f"--xla_cpu_multi_thread_eigen={'true' if count > 1 else 'false'} "
                     f"intra_op_parallelism_threads={count}",
    }


def run_snippet(path: Path, count: int) -> str:
    """What ``path`` prints, run by this interpreter with ``count`` threads, without the trailing newline.

    ``subprocess.CalledProcessError`` if the snippet fails.
    """
    done = subprocess.run([sys.executable, str(path)], env=os.environ | threads(count), cwd=REPO,
                          capture_output=True, text=True, check=True)
    return done.stdout.rstrip("\n")


def model_inputs() -> dict[str, np.ndarray]:
    """The model's uniform inputs in FP16 and BF16, as float64: what every row must sum."""
    return {name: np.asarray(make_inputs("uniform", N, get_format(name), SEED), dtype=np.float64)
            for name in ("fp16", "bf16")}


def library_inputs() -> dict[str, dict[str, np.ndarray]]:
    """The values each library holds after the conversions its snippet makes, as float64."""
    u = np.random.default_rng(SEED).random(N)
    torch: Any = importlib.import_module("torch")
    jnp: Any = importlib.import_module("jax.numpy")
    mx: Any = importlib.import_module("mlx.core")
    return {
        "torch_cpu_sums": {
            "fp16": torch.from_numpy(u.astype(np.float16)).double().numpy(),
            "bf16": torch.from_numpy(u).to(torch.bfloat16).double().numpy(),
        },
        "jax_cpu_sums": {
            "fp16": np.asarray(jnp.asarray(u, dtype=jnp.float16)).astype(np.float64),
            "bf16": np.asarray(jnp.asarray(u, dtype=jnp.bfloat16)).astype(np.float64),
        },
        "mlx_cpu_sums": {
            "fp16": np.asarray(mx.array(u.astype(np.float16)).astype(mx.float32), dtype=np.float64),
            "bf16": np.asarray(mx.array(u.astype(np.float32)).astype(mx.bfloat16).astype(mx.float32),
                               dtype=np.float64),
        },
    }


def same_inputs() -> dict[str, bool]:
    """Per snippet, whether its FP16 and BF16 values are the model's, bit for bit.

    Also ``e4m3``: whether JAX's float8_e4m3fn values are ml_dtypes'.
    """
    model = model_inputs()
    same = {name: all(np.array_equal(held[f], model[f]) for f in model) for name, held in library_inputs().items()}
    jnp: Any = importlib.import_module("jax.numpy")
    u = np.random.default_rng(SEED).random(N)
    e4m3 = np.asarray(jnp.asarray(u, dtype=jnp.float8_e4m3fn)).astype(np.float64)
    same["jax_e4m3"] = bool(np.array_equal(e4m3, u.astype(ml_dtypes.float8_e4m3fn).astype(np.float64)))
    return same


def results() -> dict[str, object]:
    """Everything ``data/libraries.json`` holds, computed afresh."""
    runs: dict[str, dict[str, object]] = {}
    for name in SNIPPETS:
        path = SNIPPETS_DIR / f"{name}.py"
        printed = run_snippet(path, 1)
        runs[name] = {
            "source_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "printed": printed,
            "same_with_two_threads": run_snippet(path, 2) == printed,
        }
    return {
        "written_by": "make libraries-data (scripts/libraries/run.py)",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "versions": {p: importlib.metadata.version(p) for p in PACKAGES},
        "threads": 1,
        "n": N,
        "seed": SEED,
        "same_inputs": same_inputs(),
        "runs": runs,
    }


def encoded(data: dict[str, object]) -> str:
    """The file's text: sorted keys, two-space indents, one final newline (diffs stay small)."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the fresh results to ``--out``, or with ``--check`` compare them with it: exit 1 if they differ."""
    return write_or_check(argv, __doc__.splitlines()[0], DATA, lambda: encoded(results()))


if __name__ == "__main__":
    raise SystemExit(main())
