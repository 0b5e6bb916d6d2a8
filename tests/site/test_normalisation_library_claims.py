"""The normalisation page's sentences about the libraries' own normalisation, run here, each checked on the data.

``data/normalisation_libraries.json`` holds what PyTorch, JAX and NumPy
returned (``make libraries-data``); ``figures.normalisation_libraries`` turns it
into the page's table.  Each test takes a sentence of the section "PyTorch, JAX
and NumPy's own normalisation, run here" and checks it on the data, by the
model's candidates (:mod:`libraries.normalisation_match`) or by plain float64
arithmetic on what the libraries returned, never by a number copied from the
build.  Which candidates give each call bit for bit is held by
``tests/model/test_normalisation_libraries.py``; here the table's words are
held to it.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from figures import normalisation_libraries as table
from fpsum.formats import FP32
from fpsum.moments import MOMENT_METHODS, mean_variance
from libraries import normalisation as runner
from libraries import normalisation_match as match

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "normalisation.md"
PARAMS = table.NormalisationLibrariesParams()


@cache
def numbers() -> dict[str, dict[str, str]]:
    built = table.build("normalisation-libraries", PARAMS).numbers
    return {k: dict(v) for k, v in built.items()}  # type: ignore[arg-type]


def got(row: str, call: str, what: str) -> np.ndarray:
    return table.returned(table.committed(), row, call, what)


def test_the_page_shows_every_row_of_the_table_and_its_versions() -> None:
    text = PAGE.read_text(encoding="utf-8")
    for key in table.TABLE:
        for cell in ("returns", "model"):
            assert f"{{{{ normalisation-libraries.{key}.{cell} }}}}" in text, (key, cell)
    for package in ("torch", "jax", "numpy"):
        assert f"{{{{ normalisation-libraries.versions.{package} }}}}" in text
    assert "make libraries" in text


def groups(cell: str) -> dict[str, set[str]]:
    """A ``model`` cell read back: accumulation format -> the methods named for it ("every method" as all)."""
    out: dict[str, set[str]] = {}
    for part in cell.split("; "):
        if part.startswith("∞ on the") or part.startswith("none"):
            continue
        part = part.removeprefix("on the others, ")
        named, _, accs = part.rpartition(" in ")
        methods = set(MOMENT_METHODS) if named == "every method" else {
            {v: k for k, v in table.WORDS.items()}[m] for m in re.split(r", | or ", named)}
        for acc in accs.split(" or "):
            out[acc] = methods
    return out


STATISTICS = [k for k, (_, _, _, kind) in table.TABLE.items() if kind == "statistic"]


@pytest.mark.parametrize("key", STATISTICS)
def test_every_statistic_is_a_method_in_fp32_or_fp64_never_in_the_type_never_textbook_in_fp32(key: str) -> None:
    """"each variance, 1/√(var + ε) ... is the model's method in FP32 or FP64, ... never a method run in that
    type, and never the textbook formula in FP32": the cell names FP32 and FP64 only, and no textbook in FP32.
    The sets themselves are the library test's (``EXACT``): the data, against the model's candidates.
    """
    found = groups(numbers()[key]["model"])
    assert set(found) == {"FP32", "FP64"}, key
    assert "textbook" not in found["FP32"] and found["FP32"] >= {"two-pass", "chan"}, key
    row, call, what, _ = table.TABLE[key]
    fmt = table.fmt_of(row)
    values = got(row, call, what)
    finite = np.isfinite(values)
    options = match.statistic(runner.moment_rows(fmt), fmt, what, runner.EPS)
    for method in MOMENT_METHODS:  # the cell's FP32 methods give every finite value, the others do not
        same = np.array_equal(values[finite], options[(method, "fp32")][finite])
        assert same == (method in found["FP32"]), (key, method)
        assert not np.array_equal(values[finite], options[(method, fmt.name)][finite]), (key, method)


def test_rms_norm_and_pytorch_softmax_are_fp32_or_fp64_too() -> None:
    for key in ("torch_rms_fp16", "torch_rms_bf16", "torch_softmax_fp16", "torch_softmax_bf16"):
        cell = numbers()[key]["model"]
        assert not cell.startswith("none") and "FP16" not in cell and "BF16" not in cell, key
        assert "FP32" in cell, key


def test_in_bfloat16_the_variances_are_two_pass_or_chan_not_welford_in_fp32() -> None:
    x = runner.moment_rows(table.fmt_of("torch bfloat16"))
    fmt = table.fmt_of("torch bfloat16")
    options = match.statistic(x, fmt, "variance", runner.EPS)
    for row, call in (("torch bfloat16", "var_mean"), ("jax bfloat16", "var")):
        values = got(row, call, "variance")
        for method in ("two-pass", "chan"):
            assert np.array_equal(values, options[(method, "fp32")]), (row, method)
        assert not np.array_equal(values, options[("welford", "fp32")])


def test_layer_norm_outputs_are_no_candidates_though_its_statistics_are() -> None:
    for dtype in ("fp16", "bf16"):
        assert numbers()[f"torch_ln_{dtype}"]["model"].startswith("none of the model's methods"), dtype
        assert groups(numbers()[f"torch_rstd_{dtype}"]["model"]), dtype
        name = "torch float16" if dtype == "fp16" else "torch bfloat16"
        fmt = table.fmt_of(name)
        x = runner.moment_rows(fmt)
        output = got(name, "native_layer_norm", "output")
        for rule in match.RSTD_RULES:  # "rounded either way the model tries"
            assert match.compare(output, match.normalised(x, fmt, runner.EPS, rule)).exact == (), (dtype, rule)


def test_numpy_var_and_jax_standardize_give_up_on_the_same_rows_whose_sum_passes_65504() -> None:
    fmt = table.fmt_of("numpy float16")
    x = runner.moment_rows(fmt)
    overflowing = np.abs(x.astype(np.float64).sum(axis=-1)) > 65504
    assert 0 < overflowing.sum() < len(overflowing)
    assert np.array_equal(np.isinf(got("numpy float16", "var", "variance")), overflowing)
    standardized = got("jax float16", "standardize", "output")
    assert np.array_equal(np.isnan(standardized).all(axis=-1), overflowing)
    assert not np.isnan(standardized[~overflowing]).any()
    assert numbers()["standardize"]["nan_rows"] == str(int(overflowing.sum()))
    for method in MOMENT_METHODS:  # "where every FP32 method of the model is finite"
        assert np.isfinite(mean_variance(x.astype(np.float32), FP32, method)[1]).all(), method


def test_jax_bfloat16_standardize_outputs_pass_1000_on_every_row_of_the_quoted_offsets() -> None:
    """"variances above 1,000, instead of about 1, on every row offset by {wide_low} to {wide_high}"."""
    quoted = numbers()["standardize"]
    low, high = (float(quoted[k].replace(",", "")) for k in ("wide_low", "wide_high"))
    assert (low, high) == (64, 1024)  # the library test's range, found there by offset
    output = got("jax bfloat16", "standardize", "output")
    offsets = table.row_offsets()
    spread = output.var(axis=-1)
    assert np.all(spread[(offsets >= low) & (offsets <= high)] > 1000)
    assert np.all(np.abs(spread[offsets <= 4] - 1) < 0.05)


def test_51102_the_textbook_formula_against_pytorchs_fixed_layer_norm() -> None:
    """Negative variances (NaN outputs) and zero ones (outputs of variance var / eps, as large as the 48,426 the
    issue reported) from the model's textbook formula; PyTorch's outputs within the quoted distance of 1.
    """
    x = runner.issue_51102_rows()
    _, textbook = mean_variance(x, FP32, "textbook")
    quoted = numbers()["issue"]
    assert quoted["negative"] == str(int((textbook < 0).sum())) and quoted["zero"] == str(int((textbook == 0).sum()))
    y = match.normalised(x, FP32, runner.EPS)[("textbook", "fp32")].reshape(x.shape)
    assert np.isnan(y[textbook < 0]).all()
    wide = (x.astype(np.float64).var(axis=-1) / runner.EPS)[textbook == 0]  # deviations times 1/sqrt(eps)
    largest = float(quoted["textbook_max"].replace(",", ""))
    assert abs(largest - wide.max()) < 0.01 * wide.max() and 48426 / 2 < largest < 2 * 48426
    output = runner.unpacked(str(table.committed()["issue_51102"]["output"]), FP32).reshape(x.shape)
    assert np.max(np.abs(output.var(axis=-1) - 1)) <= float(quoted["within"]) <= 0.01
