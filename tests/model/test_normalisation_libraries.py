"""The libraries' own normalisation on this CPU, as ``make libraries-data`` committed it, held to the model (issue 41).

``data/normalisation_libraries.json`` holds what PyTorch, JAX and NumPy
returned on the rows of :mod:`libraries.normalisation`.  Each test below
states, for one library call, which of the model's methods and accumulation
formats give its answer bit for bit (every candidate's result rounded to the
input's dtype, :mod:`libraries.normalisation_match`), or that none does and
how far the nearest is.  Several candidates often agree once rounded to 16
bits: the sets say which the rows cannot tell apart.  The last test runs the
libraries afresh in ``.venv-libraries`` (``LIBRARIES_PYTHON`` set, as ``make
libraries`` does) and is skipped otherwise.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from functools import cache

import numpy as np
import pytest

from fpsum.array_rounding import to_format
from fpsum.formats import FP16, FP32, Format
from fpsum.moments import MOMENT_METHODS, exact_moments, mean_variance
from libraries import normalisation as norm
from libraries import normalisation_match as match
from repocopy import REPO

EPS = norm.EPS


@cache
def committed() -> dict[str, object]:
    data: dict[str, object] = json.loads(norm.DATA.read_text(encoding="utf-8"))
    return data


def row(name: str) -> dict[str, dict[str, object]]:
    rows = committed()["rows"]
    assert isinstance(rows, dict)
    out: dict[str, dict[str, object]] = rows[name]
    return out


def fmt_of(name: str) -> Format:
    return norm.DTYPES[name.split()[1]]


def both(methods: str, accs: str) -> set[match.Candidate]:
    return {(m, a) for m in methods.split() for a in accs.split()}


EVERY = " ".join(MOMENT_METHODS)
STABLE = "two-pass welford chan"

# (row, call, what it returned): the candidates that give it bit for bit, every row and element at once.
EXACT: dict[tuple[str, str, str], set[match.Candidate]] = {
    ("torch float16", "var_mean", "variance"): both(STABLE, "fp32") | both(EVERY, "fp64"),
    ("torch float16", "var_mean", "mean"): both(EVERY, "fp32 fp64"),
    ("torch float16", "native_layer_norm", "mean"): both(EVERY, "fp32 fp64"),
    ("torch float16", "native_layer_norm", "rstd"): both(STABLE, "fp32") | both(EVERY, "fp64"),
    ("jax float16", "var", "variance"): both(STABLE, "fp32") | both(EVERY, "fp64"),
    ("torch bfloat16", "var_mean", "variance"): both("two-pass chan", "fp32") | both("textbook two-pass chan", "fp64"),
    ("torch bfloat16", "var_mean", "mean"): both(EVERY, "fp32 fp64"),
    ("torch bfloat16", "native_layer_norm", "mean"): both(EVERY, "fp32 fp64"),
    ("torch bfloat16", "native_layer_norm", "rstd"): both(STABLE, "fp32") | both(EVERY, "fp64"),
    ("jax bfloat16", "var", "variance"): both("two-pass chan", "fp32") | both("textbook two-pass chan", "fp64"),
}


def candidates(name: str, which: str) -> dict[match.Candidate, np.ndarray]:
    fmt = fmt_of(name)
    return match.statistic(norm.moment_rows(fmt), fmt, which, EPS)


# ---------------------------------------------------------------- the committed file


def test_the_committed_file_is_the_runner_as_it_is_with_the_pinned_versions() -> None:
    data = committed()
    source = (REPO / "scripts" / "libraries" / "normalisation.py").read_bytes()
    assert data["source_sha256"] == hashlib.sha256(source).hexdigest(), "run make libraries-data"
    assert data["eps"] == EPS and data["seed"] == norm.SEED
    versions = data["versions"]
    assert isinstance(versions, dict)
    pinned = dict(line.split("==") for line in (REPO / "requirements-libraries.txt").read_text().splitlines()
                  if "==" in line and not line.startswith("#"))
    assert {p: versions[p] for p in norm.PACKAGES} == {p: pinned[p] for p in norm.PACKAGES}
    assert set(data["rows"]) == {f"{lib} {d}" for lib in ("torch", "jax") for d in norm.DTYPES} | {"numpy float16"}


def test_the_rows_are_values_of_their_format_without_negative_zeros() -> None:
    for fmt in norm.DTYPES.values():
        for values in (norm.moment_rows(fmt), norm.logit_rows(fmt)):
            wide = np.asarray(values, dtype=np.float64)
            assert np.array_equal(np.asarray(to_format(wide, fmt), dtype=np.float64), wide)
            assert not np.any(np.signbit(wide) & (wide == 0)) and np.all(np.isfinite(wide))
    issue = norm.issue_51102_rows()
    assert issue.shape == (norm.ISSUE_ROWS, 4) and issue.dtype == np.float32


def test_packed_arrays_read_back_bit_for_bit() -> None:
    values = norm.moment_rows(FP16)
    assert np.array_equal(norm.unpacked(norm.packed(values), FP16), values.astype(np.float64).ravel())


# ---------------------------------------------------------------- the statistics: which methods give them


@pytest.mark.parametrize("key", sorted(EXACT), ids=" ".join)
def test_the_statistics_are_a_wide_accumulation_rounded_to_the_dtype(key: tuple[str, str, str]) -> None:
    """Means, variances and LayerNorm's 1 / sqrt(var + eps) in float16 and bfloat16: the model's methods in FP32
    or FP64, rounded to the dtype, and never the methods in the dtype itself; textbook in FP32 never gives the
    variance (its cancellation shows in 16 bits on the offset rows).
    """
    name, call, what = key
    got = row(name)[call][what]
    assert isinstance(got, list)
    found = match.compare(got, candidates(name, what))
    assert set(found.exact) == EXACT[key]
    assert not any(acc == fmt_of(name).name for _, acc in found.exact)


def test_torch_rms_norm_is_the_models_rms_in_float32_or_float64_times_the_input() -> None:
    """``F.rms_norm`` of float16 and bfloat16: the model's mean of squares in FP32 (or FP64), its correctly
    rounded scale, x * scale, rounded to the dtype: every element; in the dtype itself it is not.
    """
    for dtype, fmt in norm.DTYPES.items():
        got = norm.unpacked(str(row(f"torch {dtype}")["rms_norm"]["output"]), fmt)
        found = match.compare(got, match.rms_normalised(norm.moment_rows(fmt), fmt, EPS))
        assert set(found.exact) == {("rms", "fp32"), ("rms", "fp64")}, dtype


def test_torch_softmax_is_the_models_in_float32_or_wider() -> None:
    """``torch.softmax`` of float16 rows: the model's pairwise order in FP32 and every order in FP64 give every
    probability; of bfloat16 rows, every order in FP32 and FP64.  No order in the dtype does.
    """
    want = {"float16": {("pairwise", "fp32")} | both("naive pairwise online", "fp64"),
            "bfloat16": both("naive pairwise online", "fp32 fp64")}
    for dtype, fmt in norm.DTYPES.items():
        got = norm.unpacked(str(row(f"torch {dtype}")["softmax"]["output"]), fmt)
        found = match.compare(got, match.softmaxed(norm.logit_rows(fmt), fmt))
        assert set(found.exact) == want[dtype], dtype


# ---------------------------------------------------------------- none of the model's methods


NONE: dict[tuple[str, str], tuple[match.Candidate, int]] = {
    # (row, call): the nearest candidate and how many elements differ from it
    ("torch float16", "native_layer_norm"): (("chan", "fp32"), 475),
    ("torch bfloat16", "native_layer_norm"): (("two-pass", "fp32"), 28),
    ("jax float16", "softmax"): (("pairwise", "fp16"), 1692),
    ("jax bfloat16", "softmax"): (("pairwise", "bf16"), 3145),
}


@pytest.mark.parametrize("key", sorted(NONE), ids=" ".join)
def test_outputs_no_candidate_gives(key: tuple[str, str]) -> None:
    """LayerNorm's float16 and bfloat16 outputs and JAX's softmax: none of the candidates gives them.

    PyTorch's mean and rstd, rounded to the dtype, are candidates' (above), but its output is not
    (x - mean) * rstd from any candidate's statistics, with either rounding of rstd.  JAX's softmax
    (jax/_src/nn/functions.py) takes exp, the sum and the division in the input's dtype.
    """
    name, call = key
    fmt = fmt_of(name)
    got = norm.unpacked(str(row(name)[call]["output"]), fmt)
    if call == "softmax":
        options = match.softmaxed(norm.logit_rows(fmt), fmt)
    else:
        options = {**match.normalised(norm.moment_rows(fmt), fmt, EPS),
                   **{(m, f"{a} sqrt-divide"): v for (m, a), v in
                      match.normalised(norm.moment_rows(fmt), fmt, EPS, "sqrt-divide").items()}}
    found = match.compare(got, options)
    assert found.exact == ()
    assert (found.nearest, found.differing) == NONE[key]


def offsets() -> np.ndarray:
    rows = norm.MOMENT_SHAPE[0]
    return np.array([norm.OFFSETS[i % len(norm.OFFSETS)] for i in range(rows)])


def test_numpy_var_of_float16_overflows_where_the_row_sum_passes_65504() -> None:
    """``np.var`` of float16: on the rows whose sum stays below 65,504 it is the FP32 (or FP64) variance rounded
    to float16; on the rows whose sum passes it (offsets from 256) it is inf, where every FP32 method of the model
    is finite.
    """
    x = norm.moment_rows(FP16)
    got = np.array(row("numpy float16")["var"]["variance"])
    sums = np.abs(np.asarray(x, dtype=np.float64).sum(axis=-1))
    overflowing = sums > 65504
    assert np.array_equal(np.isinf(got), overflowing) and 0 < np.count_nonzero(overflowing) < overflowing.size
    options = candidates("numpy float16", "variance")
    found = match.compare(got[~overflowing], {k: v[~overflowing] for k, v in options.items()})
    assert set(found.exact) == both(STABLE, "fp32") | both(EVERY, "fp64")
    assert all(np.isfinite(options[(m, "fp32")]).all() for m in MOMENT_METHODS)


def test_jax_standardize_uses_the_textbook_formula_and_fails_as_it_does() -> None:
    """``jax.nn.standardize`` (its default "fast" variance, mean(x**2) - mean(x)**2): in float16 the rows whose
    squares pass 65,504 (offsets from 512) come out NaN, and in bfloat16 rows with offsets 64 to 1,024 have
    outputs whose variance passes 1,000 instead of about 1; PyTorch's LayerNorm of the same rows stays within
    0.01 of 1 except on constant rows (all zeros).  No candidate gives JAX's output.
    """
    for dtype, fmt in norm.DTYPES.items():
        x = norm.moment_rows(fmt)
        jax_out = norm.unpacked(str(row(f"jax {dtype}")["standardize"]["output"]), fmt).reshape(x.shape)
        torch_out = norm.unpacked(str(row(f"torch {dtype}")["native_layer_norm"]["output"]), fmt).reshape(x.shape)
        constant = np.all(x == x[:, :1], axis=-1)
        assert np.all(np.abs(torch_out[~constant].var(axis=-1) - 1) < 0.01) and np.all(torch_out[constant] == 0)
        assert match.compare(jax_out, match.normalised(x, fmt, EPS)).exact == ()
        with np.errstate(invalid="ignore"):
            spread = jax_out.var(axis=-1)
        if fmt is FP16:
            assert np.all(np.isnan(jax_out[offsets() >= 512]))
            assert not np.any(np.isnan(jax_out[offsets() <= 128]))
        else:
            middle = (offsets() >= 64) & (offsets() <= 1024)
            assert np.all(spread[middle] > 1000) and np.all(np.abs(spread[offsets() <= 4] - 1) < 0.05)


# ---------------------------------------------------------------- pytorch/pytorch#51102


def issue_output(what: str) -> np.ndarray:
    issue = committed()["issue_51102"]
    assert isinstance(issue, dict)
    return norm.unpacked(str(issue[what]), FP32)


def test_the_textbook_formula_in_fp32_gives_51102s_negative_variances_and_huge_outputs() -> None:
    """Rows of four randn + 2000 in FP32: the model's textbook variance is negative on some rows and 0 on
    others, where every exact variance is positive; the textbook LayerNorm output is NaN on the first and has a
    variance in the tens of thousands on the second (rstd = 1 / sqrt(eps)); the stable methods stay positive.
    """
    x = norm.issue_51102_rows()
    exact = np.array([float(exact_moments(r)[1]) for r in x])
    _, textbook = mean_variance(x, FP32, "textbook")
    assert np.all(exact > 0)
    assert np.count_nonzero(textbook < 0) > 10 and np.count_nonzero(textbook == 0) > 10
    for method in ("two-pass", "welford", "chan"):
        assert np.all(mean_variance(x, FP32, method)[1] > 0), method
    y = match.normalised(x, FP32, EPS)[("textbook", "fp32")].reshape(x.shape)
    assert np.array_equal(np.isnan(y).any(axis=-1), textbook < 0)
    assert np.nanmax(y[textbook == 0].var(axis=-1)) > 10_000


def test_pytorchs_fixed_layer_norm_is_welford_in_fp32_on_51102s_rows() -> None:
    """PyTorch's LayerNorm on the same rows: every output row has a variance within 0.01 of 1; its mean is the
    model's Welford in FP32, and its rstd and outputs are Welford's variance with 1 / sqrt(var + eps) rounded at
    the square root and at the division, bit for bit on all 1,000 rows, and no other method's.
    """
    x = norm.issue_51102_rows()
    out = issue_output("output")
    assert np.all(np.abs(out.reshape(x.shape).var(axis=-1) - 1) < 0.01)
    for what, got in (("mean", issue_output("mean")), ("rstd", issue_output("rstd"))):
        found = match.compare(got, match.statistic(x, FP32, what, EPS, "sqrt-divide"))
        assert found.exact == (("welford", "fp32"),), what
    assert match.compare(out, match.normalised(x, FP32, EPS, "sqrt-divide")).exact == (("welford", "fp32"),)
    assert match.compare(out, match.normalised(x, FP32, EPS)).exact == ()  # not with a correctly rounded rsqrt


# ---------------------------------------------------------------- a fresh run


@pytest.mark.skipif(not os.environ.get("LIBRARIES_PYTHON"), reason="needs .venv-libraries (make libraries)")
def test_a_fresh_run_gives_what_is_committed() -> None:
    done = subprocess.run([os.environ["LIBRARIES_PYTHON"], str(REPO / "scripts/libraries/normalisation.py"),
                           "--check"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
