"""torchao's MX and NVFP4 quantizers against the model: where they agree and where they differ, as the page says.

The committed ``data/libraries.json`` holds what ``scripts/snippets/torchao_blocks.py`` printed
(``make libraries-data``). The checks here decode it and set it beside ``fpsum.blocks.quantize`` and
beside oracles that owe nothing to either: the E8M0 floor worked out from the inputs, ml_dtypes' casts,
and torchao's NVFP4 arithmetic redone step by step in numpy's float32.
"""

from __future__ import annotations

import math
from functools import cache

import ml_dtypes
import numpy as np
import pytest

from figures import block_torchao
from figures.block_edges import EdgesParams, clamp_block
from figures.block_errors import BlockErrorsParams
from figures.block_outliers import OutliersParams
from fpsum.blocks import BLOCK_FORMATS, quantize
from fpsum.formats import FP32
from fpsum.inputs import make_inputs

PAGE = (block_torchao.DATA.parents[1] / "docs" / "block-formats.md").read_text(encoding="utf-8")
FLAT = " ".join(PAGE.split())
SMALLEST_NORMAL = 2.0**-126
"""FP32's smallest normal: torchao's least E8M0 scale in the division, and NVFP4's edge of a subnormal tensor."""


@cache
def printed() -> block_torchao.Printed:
    return block_torchao.parse(*block_torchao.committed(block_torchao.TorchaoParams()))


@cache
def headline() -> dict[str, object]:
    numbers = block_torchao.headline(printed())
    assert isinstance(numbers, dict)
    return numbers


def numbers(*keys: str) -> str:
    found: object = headline()
    for key in keys:
        assert isinstance(found, dict)
        found = found[key]
    assert isinstance(found, str)
    return found


def count(text: str) -> int:
    return int(text.replace(",", ""))


def f32(values: np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=np.float32).astype(np.float64)


def test_the_snippet_quantizes_the_pages_inputs() -> None:
    """The figures' uniform and normal FP32 inputs (their seed), the outlier figure's blocks, the edge blocks."""
    inputs = printed().inputs
    seed = BlockErrorsParams().seed
    for kind in ("uniform", "normal"):
        assert np.array_equal(inputs[kind], make_inputs(kind, 64, FP32, seed, trials=8).astype(float))
    others = np.random.default_rng(OutliersParams().seed).standard_normal((8, 32))
    for r in (64, 2**22):
        expected = others.copy()
        expected[:, 0] = r
        assert np.array_equal(inputs[f"outlier{r}"], f32(expected))
    edges = {tuple(row) for row in inputs["edges"].tolist()}
    params = EdgesParams()
    for block in (clamp_block(params), np.full(32, 2.0**params.low_exponent), np.full(32, params.tiny)):
        assert tuple(f32(block).tolist()) in edges


@pytest.mark.parametrize("element", list(block_torchao.MX_OF))
def test_floor_agrees_with_the_model_except_where_the_scale_is_two_to_the_minus_127(element: str) -> None:
    """FLOOR is the OCP rule: torchao stores what the model stores in every block but those of nonzero values
    below 2**(emax - 126), whose E8M0 scale is 2**-127; there torchao keeps that scale but divides by 2**-126,
    so it stores fl(clamp(v / 2**-126)) * 2**-127, about half of each value (ml_dtypes' cast as the oracle), and
    differs unless both round every value to 0.
    """
    fmt = BLOCK_FORMATS[block_torchao.MX_OF[element]]
    top = float(ml_dtypes.finfo(block_torchao.CODES[element]).max)
    emax = math.floor(math.log2(top))
    differ = blocks = values = smallest = 0
    for group, x in printed().inputs.items():
        theirs = printed().mx["floor", element, group].reshape(-1, 32)
        ours = quantize(x, fmt).values.reshape(-1, 32)
        for v, t, m in zip(x.reshape(-1, 32), theirs, ours):
            amax = float(np.abs(v).max())
            blocks += 1
            if 0 < amax < 2.0 ** (emax - 126):
                smallest += 1
                oracle = np.clip(v / SMALLEST_NORMAL, -top, top).astype(block_torchao.CODES[element]) * 2.0**-127
                assert np.array_equal(t, oracle.astype(np.float64)), (group, amax)
                differ += int(not np.array_equal(t, m))  # unless both round every value to 0
                values += int(np.sum(t != m))
            else:
                assert np.array_equal(t, m), (group, amax)
    assert count(numbers(element, "blocks")) == blocks and count(numbers(element, "blocks_differ")) == differ
    assert count(numbers(element, "differ")) == values and count(numbers(element, "smallest")) == smallest
    assert numbers(element, "outside") == "0" and differ > 0
    assert count(numbers(element, "values")) == 32 * blocks


def torchao_nvfp4(row: np.ndarray) -> np.ndarray:
    """torchao 0.18's nvfp4_quantize with its tensor scale, step by step in numpy's float32: the tensor scale
    amax / 2688, each block's scale (amax / 6) / t clamped to [2**-6, 448] and cast to E4M3, the reciprocal
    (1 / t) / s, each value times it, clamped to 6 and cast to E2M1; the values stored, e * s * t.
    """
    x = row.astype(np.float32)
    with np.errstate(all="ignore"):
        t = np.float32(np.abs(x).max()) / np.float32(2688.0)
        blocks = x.reshape(-1, 16)
        scale = (np.abs(blocks).max(axis=1) / np.float32(6.0)) / t
        s = np.clip(scale, np.float32(2.0**-6), np.float32(448.0)).astype(ml_dtypes.float8_e4m3fn).astype(np.float32)
        reciprocal = (np.float32(1.0) / t) / s
        e = np.clip(blocks * reciprocal[:, None], -6, 6).astype(ml_dtypes.float4_e2m1fn).astype(np.float64)
        return (e * s.astype(np.float64)[:, None] * float(t)).ravel()


def test_nvfp4_differs_from_the_model_exactly_where_the_page_says() -> None:
    """Every NVFP4 value torchao stored is its arithmetic redone in float32 (NaN for a tensor of zeros); a block
    differs from the model only in a tensor of zeros, a tensor below FP32's smallest normal, a block whose scale
    the model rounds below 2**-6 (torchao clamps it to 2**-6), or where FP32's reciprocal moves a quotient onto
    a tie of E2M1; each cause occurs, and the page's counts are these.
    """
    causes = dict.fromkeys(("zero", "subnormal", "small_scale", "tie"), 0)
    blocks = 0
    for group, x in printed().inputs.items():
        model = quantize(x, BLOCK_FORMATS["nvfp4"])
        values = printed().nvfp4[group][0]
        for r, row in enumerate(x):
            amax = float(np.abs(row).max())
            if amax == 0:
                assert np.isnan(values[r]).all()
            else:
                assert np.array_equal(values[r], torchao_nvfp4(row)), (group, r)
            for b in range(row.size // 16):
                blocks += 1
                theirs, ours = values[r, 16 * b:16 * b + 16], model.values[r, 16 * b:16 * b + 16]
                if np.array_equal(theirs, ours):
                    continue
                scale = float(model.scales[r, b])
                cause = ("zero" if amax == 0 else "subnormal" if amax < SMALLEST_NORMAL
                         else "small_scale" if scale < 2.0**-6 else "tie")
                if cause == "tie":
                    quotients = row[16 * b:16 * b + 16][theirs != ours] / (scale * float(model.tensor_scales[r]))
                    assert all(block_torchao.near_tie(float(q)) for q in quotients), (group, r, quotients)
                causes[cause] += 1
    assert count(numbers("nvfp4", "blocks")) == blocks and numbers("nvfp4", "unexplained") == "0"
    assert {k: count(numbers("nvfp4", k)) for k in causes} == causes and all(causes.values())
    assert count(numbers("nvfp4", "differ")) == sum(causes.values())


def test_rounding_the_scale_up_removes_the_clamps_bias() -> None:
    """On the uniform inputs, FLOOR's stored values sum low by about (1 - c)**2, the clamp's bias (c = M / 2**(emax
    + 1)); CEIL and RCEIL, which round the scale up, sum within a third of that.
    """
    x = printed().inputs["uniform"]
    for element in ("e4m3", "e2m1"):
        top = float(ml_dtypes.finfo(block_torchao.CODES[element]).max)
        c = top / 2.0 ** (math.floor(math.log2(top)) + 1)
        low = {mode: 1 - printed().mx[mode, element, "uniform"].sum() / x.sum() for mode in ("floor", "ceil", "rceil")}
        assert low["floor"] == pytest.approx((1 - c) ** 2, rel=0.2), element
        assert abs(low["ceil"]) < low["floor"] / 3 and abs(low["rceil"]) < low["floor"] / 3, element
        assert numbers("bias", "floor", element, "size") == f"{100 * low['floor']:.2g}"
        assert numbers("bias", "floor", element, "side") == "low"
        for mode in ("ceil", "rceil"):  # the page gives one row for both
            assert numbers("bias", mode, element, "size") == f"{100 * abs(low[mode]):.2g}"
            assert numbers("bias", mode, element, "side") == ("low" if low[mode] > 0 else "high")


def test_the_page_shows_torchaos_rows() -> None:
    """The measured rows quote the record, with torchao's version."""
    assert numbers("version") == "0.18.0" and "{{ block-torchao.version }}" in FLAT
    for key in ("e4m3.blocks_differ", "e2m1.blocks_differ", "nvfp4.differ", "nvfp4.zero", "nvfp4.subnormal",
                "nvfp4.small_scale", "nvfp4.tie", "bias.floor.e2m1.size", "bias.ceil.e2m1.size"):
        assert f"{{{{ block-torchao.{key} }}}}" in FLAT, key
