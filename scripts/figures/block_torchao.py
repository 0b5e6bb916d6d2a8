"""torchao's MX and NVFP4 quantizers against the model, from what ``make libraries-data`` recorded.

The snippet ``scripts/snippets/torchao_blocks.py`` ran in ``.venv-libraries`` and printed, per group of
inputs, the FP32 inputs and the bytes torchao stored: per MX scale mode and element format, the E8M0 scale
codes and the element codes; per NVFP4 row (a tensor of its own), its FP32 scale, E4M3 block scales and E2M1
codes. :func:`parse` decodes them to the values they stand for (element times scales, exact in float64);
:func:`mx_floor` and :func:`nvfp4` set them beside :func:`fpsum.blocks.quantize` of the same FP32 inputs,
value by value.

One record, ``block-torchao``. Numbers: ``version`` (torchao's); per MX element format under FLOOR
(``e4m3``, ``e5m2``, ``e2m3``, ``e3m2``, ``e2m1``): ``values``, ``differ`` (values stored otherwise than the
model), ``blocks``, ``blocks_differ``, ``smallest`` (blocks of nonzero values whose scale is E8M0's
smallest, 2**-127: their largest value is below ``2**(emax - 126)``) and ``outside`` (differing blocks that are
not such: 0 where the page says that scale is the only cause); for NVFP4: ``blocks``, ``differ`` and per
cause (``zero``, a tensor of zeros, stored as NaN; ``subnormal``, a tensor whose largest value is below
FP32's smallest normal; ``small_scale``, a block whose scale the model rounds below E4M3's smallest normal
2**-6; ``tie``, another block each of whose differing values is a quotient within ``TIE_DISTANCE`` of a tie
of E2M1) and ``unexplained`` (the differing blocks of none of these causes); per scale mode and element
format ``e4m3``/``e2m1`` on the uniform inputs, ``bias``: how far the sum of the stored values lies below
the sum of the inputs, per cent (``size``, its size, and ``side``, ``low`` or ``high``).
``ValueError`` if the committed output is not the snippet's as it is now.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import ml_dtypes
import numpy as np

from fpsum.blocks import BLOCK_FORMATS, E8M0_LOWEST, quantize

from .contract import NestedNumbers
from .record import Built, Record
from .snippets import SNIPPETS_DIR
from .text import number, significant

DATA = Path(__file__).resolve().parents[2] / "data" / "libraries.json"
"""data/libraries.json, written by scripts/libraries/run.py (one owner of the path: that module's ``DATA``)."""
SNIPPET = "torchao_blocks"
MX_OF = {"e4m3": "mxfp8", "e5m2": "mxfp8-e5m2", "e2m3": "mxfp6-e2m3", "e3m2": "mxfp6-e3m2", "e2m1": "mxfp4"}
"""The element formats torchao's snippet prints, and the model's MX format of each."""
CODES = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2, "e2m3": ml_dtypes.float6_e2m3fn,
         "e3m2": ml_dtypes.float6_e3m2fn, "e2m1": ml_dtypes.float4_e2m1fn}
"""How each element code decodes: ml_dtypes reads the low bits of a byte as torchao writes them."""
TIE_DISTANCE = 2.0**-21
"""How near (relative) a quotient must be to a tie of E2M1 for FP32's rounding of torchao's reciprocal to move it."""


@dataclass(frozen=True)
class TorchaoParams:
    """The snippet and the committed output it is read from (the file's bytes are in the record's inputs)."""

    snippet: str = SNIPPET

    @property
    def inputs(self) -> tuple[Path, ...]:
        """The files the record reads: the snippet (its hash is checked) and the committed output."""
        return (SNIPPETS_DIR / f"{self.snippet}.py", DATA)


def records() -> list[Record]:
    """The one record of torchao's rows."""
    params = TorchaoParams()
    return [Record("block-torchao", params, build, inputs=params.inputs)]


@dataclass(frozen=True)
class Printed:
    """What the snippet printed, decoded: per group its FP32 inputs (float64, rows); per (mode, element, group)
    the MX values torchao stores; per group the NVFP4 values, block scales and tensor scales.
    """

    version: str
    inputs: dict[str, np.ndarray]
    mx: dict[tuple[str, str, str], np.ndarray]
    nvfp4: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]


def committed(params: TorchaoParams) -> tuple[str, str]:
    """torchao's version and the snippet's printed output; ``ValueError`` if the snippet changed since."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    run = data["runs"].get(params.snippet)
    source = (SNIPPETS_DIR / f"{params.snippet}.py").read_bytes()
    if run is None or run["source_sha256"] != hashlib.sha256(source).hexdigest():
        raise ValueError(f"{DATA.name} holds no output of {params.snippet}.py as it is now: run make libraries-data")
    return str(data["versions"]["torchao"]), str(run["printed"])


def _bytes(text: str) -> np.ndarray:
    return np.frombuffer(bytes.fromhex(text), dtype=np.uint8)


def _e8m0(codes: np.ndarray) -> np.ndarray:
    return np.where(codes == 255, np.nan, np.exp2(codes.astype(np.float64) + E8M0_LOWEST))


def parse(version: str, printed: str) -> Printed:
    """The snippet's lines decoded (its format: see the snippet)."""
    inputs: dict[str, np.ndarray] = {}
    mx: dict[tuple[str, str, str], np.ndarray] = {}
    rows: dict[str, list[tuple[float, np.ndarray, np.ndarray]]] = {}
    for line in printed.splitlines():
        words = line.split()
        if words[0] == "inputs":
            _, group, width, values = words
            inputs[group] = np.frombuffer(bytes.fromhex(values), dtype="<f4").astype(np.float64).reshape(-1, int(width))
        elif words[0] == "mx":
            _, mode, element, group, scales, codes = words
            shape = inputs[group].shape
            elements = _bytes(codes).view(CODES[element]).astype(np.float64).reshape(shape[0], -1, 32)
            mx[mode, element, group] = (elements * _e8m0(_bytes(scales)).reshape(shape[0], -1, 1)).reshape(shape)
        else:
            _, group, tensor, scales, codes = words
            t = float(np.frombuffer(bytes.fromhex(tensor), dtype="<f4")[0])
            s = _bytes(scales).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
            e = _bytes(codes).view(ml_dtypes.float4_e2m1fn).astype(np.float64)
            rows.setdefault(group, []).append((t, s, e))
    nvfp4 = {group: (np.array([(e.reshape(-1, 16) * s[:, None] * t).ravel() for t, s, e in found]),
                     np.array([s for _, s, _ in found]), np.array([t for t, _, _ in found]))
             for group, found in rows.items()}
    return Printed(version, inputs, mx, nvfp4)


def same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Value by value: equal (+0 and -0 alike), or both NaN."""
    agree: np.ndarray = (a == b) | (np.isnan(a) & np.isnan(b))
    return agree


def mx_floor(printed: Printed, element: str) -> dict[str, int]:
    """The FLOOR mode against the model's OCP rule, over every group (see the module docstring)."""
    fmt = BLOCK_FORMATS[MX_OF[element]]
    counts = dict.fromkeys(("values", "differ", "blocks", "blocks_differ", "smallest", "outside"), 0)
    for group, x in printed.inputs.items():
        model = quantize(x, fmt)
        agree = same(printed.mx["floor", element, group], model.values).reshape(-1, 32)
        low = (model.scales.ravel() == 2.0**E8M0_LOWEST) & (np.abs(x).reshape(-1, 32).max(axis=1) > 0)
        bad = ~agree.all(axis=1)
        counts["values"] += agree.size
        counts["differ"] += int((~agree).sum())
        counts["blocks"] += agree.shape[0]
        counts["blocks_differ"] += int(bad.sum())
        counts["smallest"] += int(low.sum())
        counts["outside"] += int((bad & ~low).sum())
    return counts


def near_tie(quotient: float) -> bool:
    """Whether ``quotient`` (an element before rounding, exact) lies within TIE_DISTANCE of a tie of E2M1."""
    values = sorted({abs(float(v)) for v in np.arange(16, dtype=np.uint8).view(ml_dtypes.float4_e2m1fn)})
    ties = [(a + b) / 2 for a, b in zip(values, values[1:])]
    return any(abs(abs(quotient) - t) <= TIE_DISTANCE * t for t in ties)


def nvfp4(printed: Printed) -> dict[str, int]:
    """NVFP4 against the model, block by block, each differing block given its cause (module docstring)."""
    fmt = BLOCK_FORMATS["nvfp4"]
    counts = dict.fromkeys(("blocks", "differ", "zero", "subnormal", "small_scale", "tie", "unexplained"), 0)
    smallest_normal = 2.0**-126
    for group, x in printed.inputs.items():
        model = quantize(x, fmt)
        values = printed.nvfp4[group][0]
        for row in range(x.shape[0]):
            amax = float(np.abs(x[row]).max())
            for b in range(x.shape[1] // 16):
                span = slice(16 * b, 16 * b + 16)
                counts["blocks"] += 1
                agree = same(values[row, span], model.values[row, span])
                if agree.all():
                    continue
                counts["differ"] += 1
                scale = float(model.scales[row, b])
                if amax == 0:
                    counts["zero"] += 1
                elif amax < smallest_normal:
                    counts["subnormal"] += 1
                elif 0 < scale < 2.0**-6 or scale == 0:
                    counts["small_scale"] += 1
                elif all(near_tie(float(Fraction(v) / (Fraction(scale) * Fraction(float(model.tensor_scales[row])))))
                         for v in x[row, span][~agree]):
                    counts["tie"] += 1
                else:
                    counts["unexplained"] += 1
    return counts


def bias(printed: Printed, mode: str, element: str) -> float:
    """Per cent: the sum of torchao's stored uniform values against the sum of the inputs."""
    x = printed.inputs["uniform"]
    return 100 * (float(printed.mx[mode, element, "uniform"].sum()) / float(x.sum()) - 1)


def headline(printed: Printed) -> NestedNumbers:
    """The numbers the page quotes (see the module docstring)."""
    numbers: dict[str, NestedNumbers | str] = {"version": printed.version}
    for element in MX_OF:
        numbers[element] = {k: number(v) for k, v in mx_floor(printed, element).items()}
    numbers["nvfp4"] = {k: number(v) for k, v in nvfp4(printed).items()}
    modes = sorted({mode for mode, element, _ in printed.mx if element == "e2m1"})
    numbers["bias"] = {mode: {element: {"size": significant(abs(bias(printed, mode, element))),
                                        "side": "low" if bias(printed, mode, element) < 0 else "high"}
                              for element in ("e4m3", "e2m1")} for mode in modes}
    return numbers


def build(record_id: str, params: TorchaoParams) -> Built:
    """Numbers only: no figure."""
    return Built(files={}, numbers=headline(parse(*committed(params))))
