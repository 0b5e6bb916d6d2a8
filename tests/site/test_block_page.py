"""The block-formats page's claims, each worked out again by another route than the figure that printed it.

The page quotes the records ``element-values``, ``block-errors-uniform``, ``block-errors-normal`` and
``block-outliers`` (read here from the built site's ``data/numbers.json`` and CSV files).  The checks
below recount the formats' values from ml_dtypes' bit patterns, rerun the FP4 and FP6 sums with
ml_dtypes' arithmetic, derive the OCP scale's clamp from the formats' definitions, redo the exact FP32
accumulation of the uniform MX dot products in Fractions and numpy's float32, and requantize the
outlier blocks with ml_dtypes' casts: none of them calls the code that drew the figure.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import sys
from fractions import Fraction
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from figures.block_errors import BlockErrorsParams
from figures.block_outliers import OutliersParams
from figures.element_values import ValuesParams
from fpsum.block_dot import block_dots
from fpsum.blocks import get_block_format, quantize
from fpsum.cli import main
from fpsum.formats import FP32, get_format
from fpsum.inputs import make_inputs

REPO = Path(__file__).resolve().parents[2]
PAGE = (REPO / "docs" / "block-formats.md").read_text(encoding="utf-8")
DTYPES = {"e2m1": ml_dtypes.float4_e2m1fn, "e2m3": ml_dtypes.float6_e2m3fn, "e3m2": ml_dtypes.float6_e3m2fn,
          "e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}
"""The element formats the page lists, as ml_dtypes' types (the oracle for their values and arithmetic)."""
ELEMENT_OF = {"mxfp8": "e4m3", "mxfp6_e2m3": "e2m3", "mxfp4": "e2m1"}
"""The MX formats of the clamp claim and their element formats."""
E4M3_MAX = float(ml_dtypes.finfo(ml_dtypes.float8_e4m3fn).max)
"""448, the largest E4M3 value, from ml_dtypes: NVFP4 maps a tensor's largest value to 6 times it."""
SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


@pytest.fixture(scope="module")
def numbers(site_dir: Path) -> dict[str, str]:
    result: dict[str, str] = json.loads((site_dir / "data" / "numbers.json").read_text())
    return result


def value(text: str) -> float:
    """A number as the site writes it: 57,344, 0.0000092, or a power of two such as 2⁻⁹."""
    if text.startswith("2") and any(c in text for c in "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"):
        return 2.0 ** int(text[1:].translate(SUPERSCRIPT))
    return float(text.replace(",", "").replace("−", "-"))


def all_values(name: str) -> np.ndarray:
    """Every finite value of the format, from every bit pattern of its width."""
    dtype = DTYPES[name]
    bits = 4 if name == "e2m1" else 6 if name in ("e2m3", "e3m2") else 8
    values = np.arange(2**bits, dtype=np.uint8).view(dtype).astype(np.float64)
    return values[np.isfinite(values)]


# ---------------------------------------------------------------- every value of FP4, FP6 and FP8


@pytest.mark.parametrize("name", list(DTYPES))
def test_each_format_has_the_values_the_page_counts(name: str, numbers: dict[str, str]) -> None:
    positive = np.unique(all_values(name)[all_values(name) > 0])
    assert value(numbers[f"element-values.{name}.count"]) == positive.size
    assert value(numbers[f"element-values.{name}.smallest"]) == positive[0]
    assert value(numbers[f"element-values.{name}.largest"]) == positive[-1]


def test_the_sub_byte_formats_have_no_infinity_or_nan() -> None:
    for name in ("e2m1", "e2m3", "e3m2"):
        values = np.arange(2 ** (4 if name == "e2m1" else 6), dtype=np.uint8).view(DTYPES[name]).astype(np.float64)
        assert np.isfinite(values).all(), name
        assert float(np.array([1e6]).astype(DTYPES[name])[0]) == all_values(name).max()  # clamped, not inf


# ---------------------------------------------------------------- a sum in FP4 and FP6 stalls at once


@pytest.mark.parametrize("name", ["e2m1", "e2m3", "e3m2"])
def test_the_running_sums_stop_where_and_when_the_page_says(name: str, numbers: dict[str, str]) -> None:
    """ml_dtypes' own addition, one input at a time, on the seeded inputs the record names."""
    params = ValuesParams()
    inputs = make_inputs("uniform", params.n, get_format(name), params.seed)
    dtype = DTYPES[name]
    total = np.zeros(1, dtype=dtype)
    totals = []
    for x in inputs.astype(np.float64).tolist():
        total = (total + np.array([x], dtype=dtype)).astype(dtype)
        totals.append(float(total[0]))
    last_change = max(i for i in range(len(totals)) if i == 0 or totals[i] != totals[i - 1])
    assert value(numbers[f"element-values.{name}.stall"]) == totals[-1]
    assert value(numbers[f"element-values.{name}.stalled_after"]) == last_change + 1
    assert value(numbers[f"element-values.{name}.exact"]) == pytest.approx(math.fsum(inputs.astype(np.float64)),
                                                                         abs=0.005)


def test_the_stall_points_are_two_to_the_p_or_the_largest_value(numbers: dict[str, str]) -> None:
    for name, p in (("e2m1", 2), ("e2m3", 4), ("e3m2", 3)):
        expected = min(2.0**p, all_values(name).max())
        assert value(numbers[f"element-values.{name}.stall"]) == expected, name


def test_exercise_one_ones_in_fp4(monkeypatch: pytest.MonkeyPatch) -> None:
    """The answer's command, as the page prints it, and ml_dtypes' loop: 4 + 1 ties back to 4."""
    command = re.search(r"`yes 1 \| head -n (\d+) \| fpsum sum --format e2m1 --method naive`", PAGE)
    assert command, "the answer's command"
    count = int(command.group(1))
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * count))
    out = io.StringIO()
    assert main(["sum", "--format", "e2m1", "--method", "naive", "--json"], out) == 0
    total = np.zeros(1, dtype=ml_dtypes.float4_e2m1fn)
    for _ in range(count):
        total = total + np.ones(1, dtype=ml_dtypes.float4_e2m1fn)
    assert json.loads(out.getvalue())["result"] == float(total[0]) == 4.0


# ---------------------------------------------------------------- the OCP scale's clamp


def clamp_bias(name: str) -> float:
    """1 - (2c - c^2)^2 in per cent, c = M / 2^(emax + 1) from ml_dtypes' description of the element format."""
    info = ml_dtypes.finfo(DTYPES[name])
    largest = float(info.max)
    emax = math.floor(math.log2(largest))
    c = largest / 2.0 ** (emax + 1)
    return 100 * (1 - (2 * c - c * c) ** 2)


@pytest.mark.parametrize("block, quoted", [("mxfp8", "3.1"), ("mxfp6_e2m3", "0.78"), ("mxfp4", "12")])
def test_the_clamp_predicts_the_uniform_quantization_error(block: str, quoted: str,
                                                           numbers: dict[str, str]) -> None:
    """The Maths section's formula, its three values as the page states them, and the model's medians."""
    bias = clamp_bias(ELEMENT_OF[block])
    assert f"{bias:.2g}" == quoted and f"about {quoted} %" in PAGE
    assert value(numbers[f"block-errors-uniform.{block}.quantization"]) == pytest.approx(bias, rel=0.08)


def test_mxfp8_loses_more_than_mxfp6_with_the_same_precision(numbers: dict[str, str]) -> None:
    assert ml_dtypes.finfo(ml_dtypes.float8_e4m3fn).nmant == ml_dtypes.finfo(ml_dtypes.float6_e2m3fn).nmant == 3
    assert (value(numbers["block-errors-uniform.mxfp8.quantization"])
            > 2 * value(numbers["block-errors-uniform.mxfp6_e2m3.quantization"]))


# ---------------------------------------------------------------- quantization against accumulation


def errors_csv(site_dir: Path, kind: str) -> list[dict[str, str]]:
    with open(site_dir / "figures" / f"block-errors-{kind}.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def test_fp32_accumulation_is_far_below_quantization_at_every_length(site_dir: Path) -> None:
    for kind in ("uniform", "normal"):
        for row in errors_csv(site_dir, kind):
            quantization = float(row["median_quantization_rel_error"])
            assert float(row["median_accumulation_rel_error_fp32"]) < quantization / 1000, row


def test_the_crossovers_the_page_quotes(numbers: dict[str, str], site_dir: Path) -> None:
    """Each quoted crossover is the first K of the figure's data where that accumulator's median error
    passes the quantization error; BF16 passes NVFP4 first, then MXFP6, and the 14-bit truncating
    accumulator passes NVFP4 too; nothing passes FP32, nor the normal inputs' quantization error.
    """
    for kind in ("uniform", "normal"):
        rows = errors_csv(site_dir, kind)
        for block in ("mxfp8", "mxfp6-e2m3", "mxfp4", "nvfp4"):
            for acc in ("fp32", "truncated", "bf16"):
                above = [int(r["k"]) for r in rows if r["block_format"] == block and
                         float(r[f"median_accumulation_rel_error_{acc}"]) > float(r["median_quantization_rel_error"])]
                quoted = numbers[f"block-errors-{kind}.{block.replace('-', '_')}.{acc}.crossover"]
                assert quoted == ("none" if not above else f"{min(above):,}"), (kind, block, acc)
                if kind == "normal" or acc == "fp32":
                    assert quoted == "none", (kind, block, acc)
    uniform = "block-errors-uniform"
    assert value(numbers[f"{uniform}.nvfp4.bf16.crossover"]) < value(numbers[f"{uniform}.mxfp6_e2m3.bf16.crossover"])
    assert numbers[f"{uniform}.nvfp4.truncated.crossover"] != "none"


@pytest.mark.parametrize("block", ["mxfp4", "mxfp6-e2m3"])
def test_fp32_accumulates_the_uniform_mx_dot_products_exactly(block: str, numbers: dict[str, str]) -> None:
    """One scale for every block, integer sums within 24 bits: numpy's float32 additions of the
    block values, formed in Fractions, are exact for every trial, so the median is 0.
    """
    params = BlockErrorsParams(kind="uniform")
    k = params.quote_k
    x, y = (make_inputs("uniform", k, FP32, params.seed + i, trials=params.trials).astype(np.float64)
            for i in (0, 1))
    fmt = get_block_format(block)
    xq, yq = quantize(x, fmt), quantize(y, fmt)
    assert np.unique(xq.scales).size == 1 and np.unique(yq.scales).size == 1
    for row_x, row_y in zip(xq.values.tolist(), yq.values.tolist()):
        blocks = [sum((Fraction(a) * Fraction(b) for a, b in zip(row_x[i:i + 32], row_y[i:i + 32])), Fraction(0))
                  for i in range(0, k, 32)]
        total = np.float32(0)
        for part in blocks:
            assert Fraction(float(np.float32(part))) == part  # each block value is an FP32 number
            total = np.float32(total + np.float32(part))
        assert Fraction(float(total)) == sum(blocks, Fraction(0))
    assert numbers[f"block-errors-uniform.{block.replace('-', '_')}.fp32.at_k"] == "0"


# ---------------------------------------------------------------- one outlier flushes its block


def outlier_trials() -> tuple[OutliersParams, np.ndarray]:
    params = OutliersParams()
    others = np.random.default_rng(params.seed).standard_normal((params.trials, params.size))
    return params, others


def mx_share(others: np.ndarray, r: float, element: str) -> float:
    """MX by the spec's words, with ml_dtypes' rounding: scale 2^(floor(log2 r) - emax), elements cast."""
    info = ml_dtypes.finfo(DTYPES[element])
    emax = math.floor(math.log2(float(info.max)))
    values = others.copy()
    values[:, 0] = r
    amax = np.abs(values).max(axis=1, keepdims=True)
    scale = np.exp2(np.floor(np.log2(amax)) - emax)
    elements = np.clip(values / scale, -float(info.max), float(info.max)).astype(DTYPES[element]).astype(np.float64)
    return float(np.median(np.mean(elements[:, 1:] == 0, axis=1)))


def nvfp4_share(others: np.ndarray, r: float) -> float:
    """NVFP4 by NVIDIA's description, with ml_dtypes' rounding: FP32 tensor scale, E4M3 block scales of 16."""
    values = others.copy()
    values[:, 0] = r
    stored = np.zeros_like(values)
    for row in range(values.shape[0]):
        t = float(np.float32(np.abs(values[row]).max() / (6 * E4M3_MAX)))
        for start in (0, 16):
            block = values[row, start:start + 16]
            s = float(np.array([np.abs(block).max() / (6 * t)]).astype(ml_dtypes.float8_e4m3fn)[0])
            if s == 0:
                continue
            stored[row, start:start + 16] = np.clip(block / (s * t), -6, 6).astype(ml_dtypes.float4_e2m1fn)
    return float(np.median(np.mean(stored[:, 1:] == 0, axis=1)))


@pytest.mark.parametrize("r", [64, 1 << 22])
def test_an_outlier_flushes_its_neighbours_as_the_page_says(r: int, numbers: dict[str, str]) -> None:
    _, others = outlier_trials()
    for block, element in (("mxfp8", "e4m3"), ("mxfp6_e2m3", "e2m3"), ("mxfp4", "e2m1")):
        assert value(numbers[f"block-outliers.{block}.r{r}"]) == pytest.approx(100 * mx_share(others, r, element),
                                                                             abs=0.5), block
    assert value(numbers[f"block-outliers.nvfp4.r{r}"]) == pytest.approx(100 * nvfp4_share(others, r), abs=0.5)


def test_exercise_three_half_of_the_nvfp4_values_survive(numbers: dict[str, str]) -> None:
    """MXFP4 at R = 64: scale 16, so every value below 4 in size is 0; NVFP4 keeps the other block."""
    _, others = outlier_trials()
    assert math.floor(math.log2(64)) - 2 == 4  # the answer's 2^(6 - 2)
    assert np.median(np.mean(np.abs(others[:, 1:]) <= 4, axis=1)) == 1.0
    assert value(numbers["block-outliers.mxfp4.r64"]) == 100
    nvfp4 = value(numbers["block-outliers.nvfp4.r64"])
    assert 100 * 15 / 31 <= nvfp4 < 60


# ---------------------------------------------------------------- the edges of the scale


def test_the_edge_blocks_the_page_names(numbers: dict[str, str]) -> None:
    """The clamp and the floor of E8M0 by ml_dtypes' casts: the scale 2**(floor(log2 a) - emax), at least 2**-127;
    7.9 / 1 clamped to 6; 2**-125 / 2**-127 = 4 in E4M3; 1e-39 / 2**-127 rounds to 0 in E2M1.
    """
    edges = "block-edges"
    x = 2.0 ** max(math.floor(math.log2(7.9)) - 2, -127)
    stored = float(np.clip(np.float64(7.9) / x, -6, 6).astype(ml_dtypes.float4_e2m1fn)) * x
    assert value(numbers[f"{edges}.clamp.stored"]) == stored == 6 and value(numbers[f"{edges}.clamp.scale"]) == x
    assert value(numbers[f"{edges}.clamp.error"]) == pytest.approx(7.9 - stored) and 7.9 - stored > 1
    assert value(numbers[f"{edges}.clamp.quarter"]) == 1 and numbers[f"{edges}.clamp.input"] == "7.9"
    assert '(echo "7.9 1"; yes "1 0" | head -n 31) | fpsum dot' in PAGE
    for block, element in ELEMENT_OF.items():
        emax = math.floor(math.log2(float(ml_dtypes.finfo(DTYPES[element]).max)))
        assert value(numbers[f"{edges}.{block}.floor"]) == 2.0 ** (emax - 127)
    assert value(numbers[f"{edges}.low.maximum"]) == 2.0**-125
    low = float(np.float64(2.0**-125 / 2.0 ** max(-125 - 8, -127)).astype(ml_dtypes.float8_e4m3fn))
    assert value(numbers[f"{edges}.low.element"]) == low == 4 < value(numbers[f"{edges}.low.top"]) == 2.0**8
    tiny = np.float64(1e-39 / 2.0**-127).astype(ml_dtypes.float4_e2m1fn)
    assert numbers[f"{edges}.tiny.input"] == "10⁻³⁹" and float(tiny) == 0 and numbers[f"{edges}.tiny.zeros"] == "32"
    assert 'yes "1e-39 1" | head -n 32 | fpsum dot' in PAGE


def test_the_page_bounds_each_element_where_the_bound_holds() -> None:
    """The sentences the review found false are gone: the top binade holds only above E8M0's floor, and the
    quarter-binade bound only for rounding, not for the clamp.
    """
    assert "each block sits near the top of the element format, whatever the" not in PAGE
    assert "one, so an element is rounded by up to a quarter of its binade's leading power of two, and" not in PAGE
    flat = " ".join(PAGE.split())
    assert "Unless that floor holds it ($a$ below $2^{e_{\\max} - 127}$), the largest element" in flat
    assert "{{ block-edges.low.element }}" in flat and "{{ block-edges.clamp.stored }}" in flat


# ---------------------------------------------------------------- the crossovers' spread


def independent_crossover(block: str, acc: str, seed: int) -> int | None:
    """The first K of the figure's lengths where the median accumulation error passes the median quantization
    error, over 24 trials seeded apart from the record's sets (x ``seed``, y ``seed + 1``).
    """
    params = BlockErrorsParams(kind="uniform")
    fmt, model = get_block_format(block), params.accumulator(acc)
    for k in params.ks:
        x, y = (make_inputs("uniform", k, FP32, seed + i, trials=params.trials).astype(np.float64)
                for i in (0, 1))
        dots = block_dots(x, y, fmt, [model])[0]
        if np.median([d.accumulation_rel_error for d in dots]) > np.median([d.quantization_rel_error for d in dots]):
            return k
    return None


@pytest.mark.parametrize("block, acc", [("nvfp4", "bf16"), ("nvfp4", "truncated"), ("mxfp6-e2m3", "bf16")])
def test_the_crossovers_spread_as_the_page_says(block: str, acc: str, numbers: dict[str, str]) -> None:
    """The page states each crossover as a range over independent sets of trials; the figure's own crossover and
    those of two more sets, drawn with seeds the record does not use, lie in it, and the range is not one point.
    """
    key = f"block-crossovers.{block.replace('-', '_')}.{acc}"
    lowest, highest = value(numbers[f"{key}.lowest"]), value(numbers[f"{key}.highest"])
    assert lowest < highest
    assert lowest <= value(numbers[f"block-errors-uniform.{block.replace('-', '_')}.{acc}.crossover"]) <= highest
    for seed in (1001, 2003):
        found = independent_crossover(block, acc, seed)
        assert found is not None and lowest <= found <= highest, (seed, found)
