"""The block-formats page's edge blocks: where the OCP scale's clamp and E8M0's smallest scale bound an element.

One record, ``block-edges``, of numbers only, each the model's quantization (:mod:`fpsum.blocks`) of one
block the page names:

- ``clamp``: the MXFP4 block of ``CLAMPED`` (its largest value) and 31 ones. ``input``, its largest value;
  ``scale``, the block's scale; ``stored``, what the block holds for it; ``error``, the difference; ``quarter``,
  a quarter of the power of two below the largest value (the bound of rounding alone, which the clamp passes);
- per MX format (``mxfp8``, ``mxfp6_e2m3``, ``mxfp4``): ``floor``, the block maximum ``2**(emax - 127)`` below
  which E8M0's smallest scale ``2**-127`` binds (a power of two in superscript);
- ``low``: the MXFP8 block of 32 values ``2**LOW_EXPONENT``: ``maximum`` (as a power of two), ``element``, its
  largest element (``a / X``), and ``top``, the element format's top binade ``2**emax``;
- ``tiny``: the MXFP4 block of 32 values ``TINY``: ``input`` and ``zeros``, how many of its 32 values it
  stores as zero.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fpsum.blocks import E8M0_LOWEST, BlockFormat, get_block_format, quantize

from .contract import NestedNumbers
from .record import Built, Record
from .text import number, scientific, superscript


@dataclass(frozen=True)
class EdgesParams:
    """The blocks: the clamped MXFP4 block's largest value, the MXFP8 block's exponent, the tiny MXFP4 value."""

    clamped: float = 7.9
    low_exponent: int = -125
    tiny: float = 1e-39
    formats: tuple[str, ...] = ("mxfp8", "mxfp6-e2m3", "mxfp4")


def records() -> list[Record]:
    """The one record of the edge blocks."""
    return [Record("block-edges", EdgesParams(), build)]


def clamp_block(params: EdgesParams) -> np.ndarray:
    """The MXFP4 block whose largest value the clamp lowers: ``clamped`` and 31 ones."""
    return np.array([params.clamped] + [1.0] * 31)


def floor_exponent(fmt: BlockFormat) -> int:
    """The exponent of the block maximum below which E8M0's smallest scale binds: emax - 127."""
    return fmt.element.emax + E8M0_LOWEST


def headline(params: EdgesParams) -> NestedNumbers:
    """The numbers the page quotes (see the module docstring)."""
    mxfp4, mxfp8 = get_block_format("mxfp4"), get_block_format("mxfp8")
    clamped = quantize(clamp_block(params), mxfp4)
    stored = float(clamped.values[0])
    low = quantize(np.full(32, 2.0 ** params.low_exponent), mxfp8)
    tiny = quantize(np.full(32, params.tiny), mxfp4)
    numbers: dict[str, NestedNumbers | str] = {
        "clamp": {"input": number(params.clamped), "scale": number(float(clamped.scales[0])),
                  "stored": number(stored), "error": number(params.clamped - stored),
                  "quarter": number(2.0 ** np.floor(np.log2(params.clamped)) / 4)},
        "low": {"maximum": "2" + superscript(params.low_exponent), "element": number(float(low.elements.max())),
                "top": number(2.0 ** mxfp8.element.emax)},
        "tiny": {"input": scientific(params.tiny), "zeros": number(int(np.count_nonzero(tiny.values == 0)))},
    }
    for name in params.formats:
        numbers[name.replace("-", "_")] = {"floor": "2" + superscript(floor_exponent(get_block_format(name)))}
    return numbers


def build(record_id: str, params: EdgesParams) -> Built:
    """Numbers only: no figure."""
    return Built(files={}, numbers=headline(params))
