"""Block-scaled formats: a vector stored as small elements, each block of them sharing one scale.

**OCP MX** (OCP Microscaling Formats v1.0, 2023; Rouhani et al. 2023,
arXiv:2310.10537): blocks of 32 elements (sec. 5, table 1) in FP8 E4M3 or
E5M2 (MXFP8), FP6 E2M3 or E3M2 (MXFP6) or FP4 E2M1 (MXFP4), and one E8M0
scale per block, a power of two.  The conversion of sec. 6.3, as modelled:

* the shared scale is ``X = 2**(floor(log2(amax)) - emax_elem)``, with
  ``amax`` the block's largest magnitude and ``emax_elem`` the exponent of
  the element format's largest binade, clamped to E8M0's range 2**-127 ..
  2**127 (a block of zeros gets 2**-127);
* each element is ``V_i / X`` rounded to nearest, ties to even, in the
  element format; a quotient beyond the element's largest value is clamped
  to it (saturation), which happens in every block whose ``amax / X`` lies
  above the element's largest value (E2M1: ``amax / X`` is in [4, 8) and
  the largest value is 6);
* a block holding NaN or an infinity has a NaN scale, so all its values are NaN.

The spec gives this algorithm as the conversion to MX and leaves other
choices of scale to implementations (some round ``amax`` before taking the
exponent, so that fewer blocks clamp); how a NaN or infinite input is
encoded, and the precision and order of a dot product's internal sums
(sec. 6.1, modelled in :mod:`fpsum.block_dot`), are implementation-defined.

**NVFP4** (NVIDIA, "Introducing NVFP4 for efficient and accurate
low-precision inference", 2025; and the NVFP4 training recipe, arXiv:2509.25149):
FP4 E2M1 elements in blocks of 16, each block with an FP8 E4M3 scale, and
one FP32 scale for the whole tensor (here, each row of the last axis).  As
modelled: the tensor's decode scale ``t = amax_tensor / (6 * 448)``
rounded to FP32, so that the largest block scale lands near E4M3's largest
value 448; each block's scale ``s = amax_block / (6 t)`` rounded to E4M3
(nearest, ties to even, clamped at 448; a block too small for E4M3's
smallest value gets 0, and all its elements are 0); each element
``V_i / (s t)`` rounded to E2M1 and clamped at +-6.  The value stored is
``e * s * t``.  How the FP32 scale is rounded, and which of the two scales
holds the reciprocal, vary between implementations.

Every quantized value is exact in float64 (an element of at most 4 bits
times a power of two, or times an E4M3 scale and an FP32 scale: at most 2 +
4 + 24 bits), so :attr:`Quantized.values` are the block format's values, not
approximations of them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np

from .array_rounding import to_format
from .exact_rounding import round_exact
from .formats import E2M1, E2M3, E3M2, E4M3, E5M2, FP32, Format
from .rounded_once import round_quotient

ScaleKind = Literal["e8m0", "e4m3"]
E8M0_LOWEST, E8M0_HIGHEST = -127, 127  # the exponents of E8M0's smallest and largest values
NVFP4_TARGET = 6.0 * 448.0  # E2M1's largest value times E4M3's: where the largest block of a tensor lands


@dataclass(frozen=True)
class BlockFormat:
    """A block-scaled format: its element format, how many elements share a scale, and the scale's kind.

    ``scale`` is ``"e8m0"`` for the OCP MX formats (a power of two per
    block) or ``"e4m3"`` for NVFP4 (an FP8 E4M3 value per block, and an FP32
    scale per tensor).
    """

    name: str
    label: str
    element: Format
    block: int
    scale: ScaleKind


BLOCK_FORMATS: dict[str, BlockFormat] = {f.name: f for f in (
    BlockFormat("mxfp8", "MXFP8 (E4M3)", E4M3, 32, "e8m0"),
    BlockFormat("mxfp8-e5m2", "MXFP8 (E5M2)", E5M2, 32, "e8m0"),
    BlockFormat("mxfp6-e2m3", "MXFP6 (E2M3)", E2M3, 32, "e8m0"),
    BlockFormat("mxfp6-e3m2", "MXFP6 (E3M2)", E3M2, 32, "e8m0"),
    BlockFormat("mxfp4", "MXFP4 (E2M1)", E2M1, 32, "e8m0"),
    BlockFormat("nvfp4", "NVFP4 (E2M1, E4M3 scales)", E2M1, 16, "e4m3"),
)}


@dataclass(frozen=True)
class Quantized:
    """A vector (or rows of vectors, along the last axis) in a block format.

    ``values``: what the block format holds, element times scale(s), float64,
    the shape of the input.  ``elements``: the elements, values of
    ``fmt.element`` (float64, same shape).  ``scales``: each block's scale
    (float64, shape ``(..., blocks)``; a power of two for MX, an E4M3 value
    for NVFP4; NaN for an MX block holding NaN or inf).  ``tensor_scales``:
    NVFP4's FP32 decode scale per row (shape ``(...)``), 1.0 for MX.
    """

    fmt: BlockFormat
    values: np.ndarray
    elements: np.ndarray
    scales: np.ndarray
    tensor_scales: np.ndarray


def _by_block(values: np.ndarray, block: int) -> np.ndarray:
    """``values`` (..., K) as (..., blocks, block), the last block padded with zeros (which change no scale)."""
    k = values.shape[-1]
    padded = -(-k // block) * block
    if padded != k:
        values = np.concatenate([values, np.zeros((*values.shape[:-1], padded - k))], axis=-1)
    return values.reshape(*values.shape[:-1], padded // block, block)


# --8<-- [start:mx]
def mx_scale_exponents(amax: np.ndarray, element: Format) -> np.ndarray:
    """floor(log2(amax)) - emax of the element format, clamped to E8M0's
    exponents; -127 where amax is 0.

    `amax` finite and non-negative (float64); -0 counts as 0.  NaN or inf give
    a meaningless exponent: quantize() keeps them out.
    """
    # amax = m * 2**e, m in [0.5, 1): floor(log2) = e - 1
    _, exponent = np.frexp(amax)
    shared = np.where(amax > 0, exponent - 1 - element.emax, E8M0_LOWEST)
    return np.clip(shared, E8M0_LOWEST, E8M0_HIGHEST).astype(np.int64)


def _quantize_mx(
    blocks: np.ndarray, fmt: BlockFormat
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Elements, values and scales of MX blocks (..., blocks, block)."""
    broken = ~np.isfinite(blocks).all(axis=-1)
    safe = np.where(broken[..., np.newaxis], 0.0, blocks)
    amax = np.abs(safe).max(axis=-1)
    scales = np.ldexp(1.0, mx_scale_exponents(amax, fmt.element))
    top = fmt.element.max_finite
    # Exact (a power of two), then clamped: saturation.
    scaled = np.clip(safe / scales[..., np.newaxis], -top, top)
    elements = to_format(scaled, fmt.element)
    elements = elements.astype(np.float64)
    values = elements * scales[..., np.newaxis]
    # A block holding NaN or inf: a NaN scale, NaN values.
    nan = broken[..., np.newaxis]
    return (
        np.where(nan, np.nan, elements),
        np.where(nan, np.nan, values),
        np.where(broken, np.nan, scales),
    )
# --8<-- [end:mx]


def nvfp4_tensor_scale(amax: float) -> float:
    """NVFP4's FP32 decode scale for a tensor whose largest magnitude is ``amax``: amax / (6 * 448) in FP32.

    1.0 for a tensor of zeros; never below FP32's smallest subnormal (a
    tensor so small would round it to 0).  Finite, non-negative ``amax``
    (-0 is a tensor of zeros); ``ValueError`` for NaN or inf.
    """
    if not math.isfinite(amax):
        raise ValueError(f"a tensor's largest magnitude must be finite, not {amax}")
    if amax == 0:
        return 1.0
    return max(round_exact(Fraction(amax) / Fraction(NVFP4_TARGET), FP32), FP32.smallest_subnormal)


def _quantize_nvfp4(blocks: np.ndarray, fmt: BlockFormat) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Elements, values, block scales and tensor scales of NVFP4 blocks (..., blocks, 16)."""
    if not np.isfinite(blocks).all():
        raise ValueError("NVFP4 quantizes finite values only (its FP32 tensor scale would be NaN)")
    amax_block = np.abs(blocks).max(axis=-1)
    amax_tensor = amax_block.max(axis=-1)
    tensors = np.vectorize(nvfp4_tensor_scale, otypes=[np.float64])(amax_tensor)
    scale_format, element = E4M3, fmt.element
    scales = round_quotient(amax_block, element.max_finite * tensors[..., np.newaxis], scale_format)
    dividers = scales * tensors[..., np.newaxis]  # exact: 4 + 24 bits
    usable = dividers > 0
    elements = round_quotient(blocks, np.where(usable, dividers, 1.0)[..., np.newaxis], element)
    elements = np.where(usable[..., np.newaxis], elements, 0.0)
    values = elements * dividers[..., np.newaxis]
    return elements, values, scales, tensors


def quantize(values: np.ndarray, fmt: BlockFormat) -> Quantized:
    """``values`` (float64, shape (..., K), K >= 1) in the block format ``fmt``, block by block along the last axis.

    A last block shorter than ``fmt.block`` is treated as padded with zeros.
    MX: a block with NaN or inf comes out all NaN.  NVFP4: ``ValueError``
    for NaN or inf (its tensor scale would be NaN).  -0.0 comes out +0.0 or
    -0.0 as the element format rounds it.  ``ValueError`` for K = 0.
    """
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 0 or array.shape[-1] < 1:
        raise ValueError("a block-scaled vector needs at least one value")
    k = array.shape[-1]
    blocks = _by_block(array, fmt.block)
    with np.errstate(invalid="ignore", over="ignore"):
        if fmt.scale == "e8m0":
            elements, stored, scales = _quantize_mx(blocks, fmt)
            tensors = np.ones(array.shape[:-1])
        else:
            elements, stored, scales, tensors = _quantize_nvfp4(blocks, fmt)
    flat = (*array.shape[:-1], -1)
    return Quantized(fmt, stored.reshape(flat)[..., :k], elements.reshape(flat)[..., :k], scales, tensors)


def get_block_format(name: str) -> BlockFormat:
    """The block format called ``name`` (case-insensitive); ``KeyError`` naming the known ones otherwise.

    No value is involved, so no NaN, inf or -0 rule applies.
    """
    try:
        return BLOCK_FORMATS[name.lower()]
    except KeyError:
        raise KeyError(f"unknown block format {name!r} (known: {', '.join(BLOCK_FORMATS)})") from None


def element_quantum(fmt: BlockFormat) -> int:
    """The exponent of the element format's smallest subnormal: every element is an integer times 2**this.

    Of finite elements only: a NaN or inf element is no such integer.
    """
    return fmt.element.emin - fmt.element.precision + 1


def describe(fmt: BlockFormat) -> str:
    """One line: the elements, the block size and the scales (no NaN, inf or -0 is involved)."""
    scales = "an E8M0 power of two" if fmt.scale == "e8m0" else "an FP8 E4M3 value, and one FP32 scale per tensor"
    bits = fmt.element.bits + (8 / fmt.block)
    return (f"{fmt.label}: {fmt.element.label} elements in blocks of {fmt.block}, each with {scales} "
            f"({bits:g} bits a value)")
