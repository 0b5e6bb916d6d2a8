"""A narrow, truncating accumulator: a model of what matrix units were measured to do.

This is a *model of a reported behaviour*, not an emulation of any chip: it
keeps the features that the measurements below agree on and leaves out
everything else (the width of each internal stage, the order in which a
unit walks its tiles, what happens near the ends of the exponent range).

Fasi, Higham, Mikaitis and Pranesh, "Numerical behavior of NVIDIA tensor
cores", PeerJ Comput. Sci. 7:e330 (2021), doi:10.7717/peerj-cs.330, probed
the units with hand-made inputs; their test programs are public
(github.com/north-numerical-computing/tensor-cores-numerical-behavior).
Checked in those programs (``tc_test_numerics-V100.cu``,
``tc_test_numerics-T4-A100-binary16.cu``, ``tc_test_numerics-A100-bf16.cu``,
``tc_test_numerics-A100-tf32.cu``):

* products of the inputs are exact (e.g. ``(1 - 2**-11)**2`` comes out as
  ``1 - 2**-10 + 2**-22`` in FP32);
* the terms of one step (the FP32 accumulator ``c`` and up to four
  products, which is how many nonzero products each test feeds) are aligned
  to the one of largest magnitude: ``c = 2**-24`` plus a product 1 plus
  three products ``2**-24`` gives exactly 1, whatever the order;
* the bits shifted out are dropped, so positive results are rounded down
  and negative ones up, i.e. towards zero (``2 + 1.5 * 2**-23`` gives 2);
* alignment keeps no bit below FP32's 24 on V100 (``1 - (1 - 2**-24)`` is
  expected as ``2**-23``) and one more on T4 and A100 (``2**-24``);
* the sum is normalised after the step, again by truncation
  (``1 + 2**-22 + 2**-23`` plus four products 1 gives 5; ``-5`` for the
  negatives), and carries of up to three bits above the leading one are
  kept (``1.875 + 1 + 1.5 + 1.75 + 1.875`` gives exactly 8).

The DeepSeek-V3 technical report (DeepSeek-AI, arXiv:2412.19437, section
3.3) reports that the FP8 matrix multiplies of NVIDIA H800 GPUs keep about
14 bits in their accumulation, which gave relative errors of up to about 2
% for inner dimensions of 4096, and that copying the partial sums into FP32
registers every ``N_c = 128`` elements fixes it.  The defaults below (14
bits, four products per step) and :attr:`TruncatedAccumulator.promote_every`
follow those reports.

The model, per step: take the running narrow sum ``s`` and the next
``block`` exact products; find the largest exponent ``e_max`` among the
nonzero ones; truncate every term towards zero to a multiple of
``2**(e_max - bits + 1)``; add the truncated terms exactly; truncate the
result towards zero to ``bits`` significant bits.  One width serves for the
alignment and for the result, a simplification (on T4 and A100 the two
differ by the extra alignment bit above).  Every carry is kept.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .dot import check_pair, exact_products
from .formats import FP32
from .rounding import add_rounded

FLOAT64_BITS = 53


@dataclass(frozen=True)
class TruncatedAccumulator:
    """The parameters of the truncating accumulator (module docstring).

    Attributes:
        bits: significant bits kept in the aligned sum, counting the leading
            bit (14 for the FP8 units of the DeepSeek-V3 report; 24 models
            V100's FP32 mode).
        block: products added together with the running sum in one step.
        promote_every: every ``promote_every`` products (``N_c``), the narrow
            sum is added into an FP32 accumulator with round to nearest and
            reset to 0; ``None`` never promotes.  A multiple of ``block``.

    ``ValueError`` on construction for ``bits`` below 2, ``block`` or
    ``promote_every`` below 1, ``promote_every`` not a multiple of
    ``block``, or ``bits`` too wide for float64 to hold a step exactly:
    ``block + 1`` terms of ``bits`` bits need ``bits + block.bit_length()``
    bits (the bit length of ``block`` is ceil(log2(block + 1)), the carries),
    at most 53.  Parameters, not numbers: no NaN, inf or -0 cases.
    """

    bits: int = 14
    block: int = 4
    promote_every: int | None = None

    def __post_init__(self) -> None:
        if self.bits < 2:
            raise ValueError(f"the accumulator keeps at least 2 bits, not {self.bits}")
        if self.block < 1:
            raise ValueError(f"a step adds at least 1 product, not {self.block}")
        if self.bits + self.block.bit_length() > FLOAT64_BITS:
            widest = FLOAT64_BITS - self.block.bit_length()
            raise ValueError(f"{self.bits} bits with {self.block} products per step do not fit the model's "
                             f"exact float64 steps (at most {widest} bits for that block)")
        if self.promote_every is not None:
            if self.promote_every < 1 or self.promote_every % self.block:
                raise ValueError(f"promote_every must be a positive multiple of the block ({self.block}), "
                                 f"not {self.promote_every}")


def _truncate_bits(values: np.ndarray, bits: int) -> np.ndarray:
    """Every value (normal float64) cut towards zero to ``bits`` significant bits, by clearing the low bits."""
    mask = np.uint64(~((1 << (FLOAT64_BITS - bits)) - 1) & 0xFFFF_FFFF_FFFF_FFFF)
    cut: np.ndarray = (values.view(np.uint64) & mask).view(np.float64)
    return cut


def _products_in_steps(x: np.ndarray, y: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exact products ``(N, K)``, which of them are finite, and the finite ones in steps ``(steps, block, N)``.

    The last step is padded with zeros, which change neither a step's largest
    term nor its sum; non-finite products are zeros here (the callers put
    them back as IEEE addition would).  ``TypeError`` / ``ValueError`` from
    :func:`fpsum.dot.check_pair`.
    """
    check_pair(x, y)
    exact = exact_products(x, y)
    k = exact.shape[-1]
    flat = exact.reshape(-1, k)
    finite = np.isfinite(flat)
    steps = -(-k // block)
    padded = np.zeros((steps * block, flat.shape[0]))
    padded[:k] = np.where(finite, flat, 0.0).T  # the loop walks k; trials are contiguous
    return flat, finite, padded.reshape(steps, block, -1)


def _step_scale(largest: np.ndarray, s: np.ndarray, bits: int) -> np.ndarray:
    """1 / quantum of a step: 2**-(e_max - bits + 1), for the largest of its terms and the running sum ``s``.

    With |v| = m 2**e, m in [0.5, 1), frexp gives e = e_max + 1.  Zero terms
    do not count; where every term and the sum are 0 the scale is 2**bits, and 0 stays 0.
    """
    _, exponent = np.frexp(np.maximum(largest, np.abs(s)))
    scale: np.ndarray = np.ldexp(1.0, bits - exponent)
    return scale


def _narrow_steps(p: np.ndarray, model: TruncatedAccumulator) -> tuple[np.ndarray, np.ndarray]:
    """The narrow sum after each prefix of each step, and the FP32 accumulator each step starts from.

    ``p`` is ``(steps, block, N)``: finite exact products, zero-padded.
    Returns ``(steps, block, N)`` narrow sums (entry ``[t, j]`` after the
    first ``j + 1`` products of step t) and ``(steps, N)`` accumulators.
    """
    steps, block, n = p.shape
    bits = model.bits
    # Largest magnitude among the first j + 1 products of each step, all steps at once.
    largest = np.abs(p)
    for j in range(1, block):  # a running maximum over the short axis; faster than maximum.accumulate there
        np.maximum(largest[:, j], largest[:, j - 1], out=largest[:, j])
    upto = np.tril(np.ones((block, block)))[:, :, np.newaxis]  # upto[j, i] = 1 if product i is in prefix j
    narrow = np.empty_like(p)
    promoted = np.zeros((steps, n))
    s = np.zeros(n)
    wide = np.zeros(n)  # float64 holding FP32 values
    steps_per_promotion = None if model.promote_every is None else model.promote_every // block
    for t in range(steps):
        promoted[t] = wide
        scale = _step_scale(largest[t], s, bits)
        # In units of the quantum: truncated terms are integers below 2**bits, so every sum is exact.
        units = np.trunc(p[t][np.newaxis] * scale[:, np.newaxis]) * upto
        aligned = units.sum(axis=1) + np.trunc(s * scale)
        result = _truncate_bits(aligned, bits) / scale  # normalise: a carry may have made it longer
        narrow[t] = result
        s = result[-1]
        if steps_per_promotion is not None and (t + 1) % steps_per_promotion == 0:
            wide = add_rounded(wide, s, FP32).astype(np.float64)
            s = np.zeros(n)
    return narrow, promoted


def truncated_dot_running(x: np.ndarray, y: np.ndarray, model: TruncatedAccumulator) -> np.ndarray:
    """Running dot products through the truncating accumulator, float64 of shape ``(..., K)``.

    ``x`` and ``y`` hold values of one input format (up to FP32), one shape.
    Entry k is the result for the first k + 1 pairs: steps of ``block``
    products each, and a last, partial step of the products left over.
    Without promotion that is the narrow sum itself (exact in float64, with
    no exponent limit); with promotion it is the FP32 accumulator plus the
    pending narrow sum, added with one rounding to nearest in FP32.  The
    narrow sum starts from +0, so a zero result is +0.0 (-0.0 never comes
    out).  Non-finite products pass by the narrow sum, as IEEE addition
    would combine them: after a NaN product (NaN input, or inf * 0) the
    result is NaN, after an infinity it is that infinity, after both
    infinities NaN.  ``TypeError`` / ``ValueError`` for inputs of other
    dtypes, mismatched shapes or no pairs.
    """
    flat, finite, steps = _products_in_steps(x, y, model.block)
    k = flat.shape[-1]
    narrow, promoted = _narrow_steps(steps, model)
    if model.promote_every is not None:
        result = add_rounded(promoted[:, np.newaxis, :], narrow, FP32).astype(np.float64)
    else:
        result = narrow
    out = result.reshape(-1, flat.shape[0])[:k].T
    if not finite.all():
        with np.errstate(invalid="ignore"):
            special = np.add.accumulate(np.where(finite, 0.0, flat), axis=-1)  # inf + -inf is NaN; NaN stays
        out = np.where(np.isfinite(special), out, special)
    return np.ascontiguousarray(out).reshape(x.shape[:-1] + (k,))


def _final_steps(p: np.ndarray, model: TruncatedAccumulator) -> tuple[np.ndarray, np.ndarray]:
    """The narrow sum after the last step, and the FP32 accumulator it is added to: ``(N,)`` each.

    :func:`_narrow_steps` without the prefixes inside a step, which only the
    running results need: zero padding changes neither the largest term of
    a step nor its sum, so the last step's full sum is the last product's result.
    """
    steps, _, n = p.shape
    largest = np.abs(p).max(axis=1)  # (steps, N): every step's largest product, at once
    s = np.zeros(n)
    wide = np.zeros(n)
    steps_per_promotion = None if model.promote_every is None else model.promote_every // model.block
    for t in range(steps):
        scale = _step_scale(largest[t], s, model.bits)
        aligned = np.trunc(p[t] * scale).sum(axis=0) + np.trunc(s * scale)
        s = _truncate_bits(aligned, model.bits) / scale
        if steps_per_promotion is not None and (t + 1) % steps_per_promotion == 0 and t + 1 < steps:
            wide = add_rounded(wide, s, FP32).astype(np.float64)
            s = np.zeros(n)
    return s, wide


def truncated_dot(x: np.ndarray, y: np.ndarray, model: TruncatedAccumulator) -> np.ndarray:
    """The final value of :func:`truncated_dot_running`, shape ``x.shape[:-1]`` (float64), bit for bit.

    Computed without the results inside each step, about ``block`` times less
    work.  The same rules for NaN, inf and -0.0 (a zero result is +0.0) and
    the same errors.
    """
    flat, finite, steps = _products_in_steps(x, y, model.block)
    narrow, wide = _final_steps(steps, model)
    out = add_rounded(wide, narrow, FP32).astype(np.float64) if model.promote_every is not None else narrow
    if not finite.all():
        with np.errstate(invalid="ignore"):
            special = np.add.reduce(np.where(finite, 0.0, flat), axis=-1)  # inf + -inf is NaN; NaN stays
        out = np.where(np.isfinite(special), out, special)
    return np.asarray(out).reshape(x.shape[:-1])

