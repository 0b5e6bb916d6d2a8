"""Run the libraries' own normalisation on this CPU (PyTorch, JAX, NumPy) and keep what each returned.

``make libraries-data`` (or this script in ``.venv-libraries``) writes
``data/normalisation_libraries.json``; ``tests/model/test_normalisation_libraries.py``
holds it to the model (issue 41: which of the model's methods, in which
accumulation format, gives each row bit for bit).  The inputs are drawn
here, by functions the site's environment can import:

* :func:`moment_rows`: rows of normal values around offsets from 0 to 2048
  (so the mean is up to about 2,000 standard deviations from zero), rounded
  to FP16 or BF16: ``torch.var_mean``, ``torch.native_layer_norm`` (what
  ``F.layer_norm`` calls: its output, mean and 1 / sqrt(var + eps)),
  ``F.rms_norm``, ``jnp.var``, ``jax.nn.standardize`` and NumPy's ``var``
  (float16 only) run on them;
* :func:`logit_rows`: rows of normal logits times spreads from 0 (equal
  logits) to 16, for ``torch.softmax`` and ``jax.nn.softmax``;
* :func:`issue_51102_rows`: pytorch/pytorch#51102's case, rows of four
  ``randn + 2000`` in float32, for ``F.layer_norm`` in float32.

Statistics are kept as lists of floats; whole outputs as the base64 of their
little-endian bytes in the input's dtype (:func:`packed`).  Every library
runs on one thread.  The libraries are imported by name only inside
:func:`results`, so the site's environment can import this module.
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import importlib.metadata
import json
import os
import platform
from pathlib import Path
from typing import Any

import numpy as np

from fpsum.array_rounding import to_format
from fpsum.formats import BF16, FP16, FP32, Format

try:  # imported as libraries.normalisation (the tests), or run as a file (make libraries-data)
    from libraries.data_file import write_or_check
except ModuleNotFoundError:
    from data_file import write_or_check  # type: ignore[import-not-found,no-redef]

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data" / "normalisation_libraries.json"
DTYPES: dict[str, Format] = {"float16": FP16, "bfloat16": BF16}
"""The libraries' dtype names and the model's formats of the rows."""
SEED = 41
EPS = 1e-5
"""The eps given to every layer norm, RMS norm and standardize (PyTorch's and JAX's default for layer norm)."""
OFFSETS = tuple([0.0] + [2.0**k for k in range(12)])
"""The moment rows' offsets, cycled over the rows: 0 and 1 to 2048, with standard deviation 1."""
MOMENT_SHAPE = (26, 256)
SPREADS = (0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 3.0)
"""The logit rows' standard deviations, one a row (0: every logit equal)."""
LOGIT_N = 1024
ISSUE_ROWS = 1000
"""Rows of pytorch#51102's case (each of four values)."""
PACKAGES = ("torch", "jax", "jaxlib", "numpy", "ml_dtypes")


def moment_rows(fmt: Format, seed: int = SEED) -> np.ndarray:
    """The moment rows, shape :data:`MOMENT_SHAPE`, ``fmt.dtype``: row i is OFFSETS[i mod 13] + a normal draw,
    rounded to ``fmt``.  Finite (no value near FP16's or BF16's largest), no NaN, inf or -0.
    """
    rows, n = MOMENT_SHAPE
    rng = np.random.default_rng([seed, fmt.bits, fmt.precision])
    offsets = np.array([OFFSETS[i % len(OFFSETS)] for i in range(rows)])[:, np.newaxis]
    values = to_format(offsets + rng.standard_normal((rows, n)), fmt)
    return np.asarray(values + 0)  # -0.0 drawn (a tiny negative value rounded) becomes +0.0


def logit_rows(fmt: Format, seed: int = SEED) -> np.ndarray:
    """The logit rows, shape ``(len(SPREADS), LOGIT_N)``, ``fmt.dtype``: a normal draw times each spread, rounded
    to ``fmt`` (the spread-0 row is all zeros: equal logits).  No NaN, inf or -0.
    """
    rng = np.random.default_rng([seed, 1, fmt.bits, fmt.precision])
    spreads = np.array(SPREADS)[:, np.newaxis]
    return np.asarray(to_format(spreads * rng.standard_normal((len(SPREADS), LOGIT_N)), fmt) + 0)


def issue_51102_rows(seed: int = SEED) -> np.ndarray:
    """pytorch#51102's inputs: :data:`ISSUE_ROWS` rows of four ``randn + 2000``, rounded once to float32."""
    rng = np.random.default_rng([seed, 51102])
    return np.asarray(to_format(rng.standard_normal((ISSUE_ROWS, 4)) + 2000.0, FP32))


def packed(values: Any) -> str:
    """The base64 of an array's little-endian bytes, in its own dtype (float16, bfloat16 or float32)."""
    array = np.ascontiguousarray(np.asarray(values))
    return base64.b64encode(array.astype(array.dtype.newbyteorder("<")).tobytes()).decode("ascii")


def unpacked(text: str, fmt: Format) -> np.ndarray:
    """:func:`packed` read back as float64, the bytes taken as ``fmt.dtype`` (little-endian)."""
    raw = base64.b64decode(text)
    return np.frombuffer(raw, dtype=np.dtype(fmt.dtype).newbyteorder("<")).astype(np.float64)


def _flat(values: Any) -> list[float]:
    return [float(v) for v in np.asarray(values, dtype=np.float64).ravel()]


def _torch_rows(dtype: str, fmt: Format) -> dict[str, object]:
    torch: Any = importlib.import_module("torch")
    functional: Any = importlib.import_module("torch.nn.functional")
    x = torch.from_numpy(moment_rows(fmt).astype(np.float32)).to(getattr(torch, dtype))  # exact
    n = x.shape[-1]
    var, mean = torch.var_mean(x, dim=-1, correction=0)
    out, ln_mean, ln_rstd = torch.native_layer_norm(x, [n], None, None, EPS)
    layer_norm = functional.layer_norm(x, [n], eps=EPS)
    logits = torch.from_numpy(logit_rows(fmt).astype(np.float32)).to(getattr(torch, dtype))
    return {
        "var_mean": {"variance": _flat(var.float()), "mean": _flat(mean.float())},
        "native_layer_norm": {"mean": _flat(ln_mean.float()), "rstd": _flat(ln_rstd.float()),
                              "output": packed(out.float().numpy().astype(fmt.dtype)),
                              "same_as_layer_norm": bool(torch.equal(out, layer_norm))},
        "rms_norm": {"output": packed(functional.rms_norm(x, [n], eps=EPS).float().numpy().astype(fmt.dtype))},
        "softmax": {"output": packed(torch.softmax(logits, dim=-1).float().numpy().astype(fmt.dtype))},
    }


def _jax_rows(dtype: str, fmt: Format) -> dict[str, object]:
    jax: Any = importlib.import_module("jax")
    jnp: Any = importlib.import_module("jax.numpy")
    x = jnp.asarray(moment_rows(fmt).astype(np.float32)).astype(getattr(jnp, dtype))  # exact
    logits = jnp.asarray(logit_rows(fmt).astype(np.float32)).astype(getattr(jnp, dtype))
    return {
        "var": {"variance": _flat(np.asarray(jnp.var(x, axis=-1)).astype(np.float32))},
        "standardize": {"output": packed(np.asarray(jax.nn.standardize(x, axis=-1, epsilon=EPS)))},
        "softmax": {"output": packed(np.asarray(jax.nn.softmax(logits, axis=-1)))},
    }


def _issue_51102() -> dict[str, object]:
    torch: Any = importlib.import_module("torch")
    functional: Any = importlib.import_module("torch.nn.functional")
    x = torch.from_numpy(issue_51102_rows())
    out, mean, rstd = torch.native_layer_norm(x, [4], None, None, EPS)
    return {"output": packed(functional.layer_norm(x, [4], eps=EPS).numpy()),
            "mean": packed(mean.numpy()), "rstd": packed(rstd.numpy()),
            "same_as_layer_norm": bool(torch.equal(out, functional.layer_norm(x, [4], eps=EPS)))}


def results() -> dict[str, object]:
    """Everything ``data/normalisation_libraries.json`` holds, computed afresh (in ``.venv-libraries``)."""
    torch: Any = importlib.import_module("torch")
    torch.set_num_threads(1)
    rows: dict[str, object] = {}
    for dtype, fmt in DTYPES.items():
        rows[f"torch {dtype}"] = _torch_rows(dtype, fmt)
        rows[f"jax {dtype}"] = _jax_rows(dtype, fmt)
    with np.errstate(over="ignore", invalid="ignore"):  # its float16 row sums pass 65,504: inf, as recorded
        rows["numpy float16"] = {"var": {"variance": _flat(np.var(moment_rows(FP16), axis=-1))}}
    return {
        "written_by": "make libraries-data (scripts/libraries/normalisation.py)",
        "source_sha256": hashlib.sha256(Path(__file__).read_bytes()).hexdigest(),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "torch_cpu_capability": str(torch.backends.cpu.get_cpu_capability()),
        "versions": {p: importlib.metadata.version(p) for p in PACKAGES},
        "seed": SEED,
        "eps": EPS,
        "rows": rows,
        "issue_51102": _issue_51102(),
    }


def encoded(data: dict[str, object]) -> str:
    """The file's text: sorted keys, two-space indents, one final newline."""
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the fresh results to ``--out``, or with ``--check`` compare them with it: exit 1 if they differ."""
    os.environ.update({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                       "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"})
    return write_or_check(argv, (__doc__ or "").splitlines()[0], DATA, lambda: encoded(results()))


if __name__ == "__main__":
    raise SystemExit(main())
