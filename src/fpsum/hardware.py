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
from .rounded_once import add_rounded

FLOAT64_BITS = 53
SMALLEST_TERM = 2.0**-300  # below every nonzero exact product (FP32 subnormals squared are 2**-298) and sum
EXPONENT_FIELD = np.uint64(0x7FF0_0000_0000_0000)
STALL_CHECK = 256  # steps between two looks for narrow sums that no product to come can change


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


def _step_scale(largest: np.ndarray, s: np.ndarray, bits: int) -> np.ndarray:
    """1 / quantum of a step: 2**(bits - e) for m = max(largest term, |s|) = f 2**e, f in [0.5, 1).

    Made from m's exponent field: a biased exponent E is e = E - 1022, so the
    scale's is ``bits + 2045 - E``.  m is taken at least :data:`SMALLEST_TERM`,
    which keeps that in range for every ``bits`` up to 50 and changes nothing
    else: below it there is only 0, where every term and the sum are 0 and stay 0.
    """
    magnitude = np.maximum(np.maximum(largest, np.abs(s)), SMALLEST_TERM)
    field = np.uint64((bits + 2045) << 52) - (magnitude.view(np.uint64) & EXPONENT_FIELD)
    scale: np.ndarray = field.view(np.float64)
    return scale


def _step(s: np.ndarray, terms: np.ndarray, bits: int) -> np.ndarray:
    """One step of the narrow sum from ``s`` with ``terms`` (``(block, ...)``, finite, zero-padded): the new sum.

    In units of the quantum the truncated terms are whole numbers below
    2**bits, so their sum is exact; a carry may make it longer, and the
    normalisation cuts it back to ``bits`` bits.  :func:`_narrow_run` makes
    the same step in place.
    """
    scale = _step_scale(np.abs(terms).max(axis=0), s, bits)
    aligned = np.trunc(terms * scale).sum(axis=0) + np.trunc(s * scale)
    result: np.ndarray = _truncate_bits(aligned, bits) / scale
    return result


def _stalled(s: np.ndarray, ahead: np.ndarray, bits: int) -> bool:
    """Whether no step from here on can change any narrow sum ``s``, every product to come being below ``ahead``.

    So it is where every ``s`` is nonzero and every product to come is below
    the quantum of ``s`` alone: each step then aligns to ``s``, cuts every
    product to 0 and adds nothing, ``s`` being a whole number of quanta.
    """
    quantum = 1.0 / _step_scale(np.zeros_like(s), s, bits)  # exact: a power of two
    return bool(np.all((s != 0) & (ahead < quantum)))


def _narrow_run(terms: np.ndarray, bits: int) -> np.ndarray:
    """The narrow sum over steps from 0, in place in ``terms``: where it stands before each step, and at the end.

    ``terms`` is ``(steps + 1, 1 + block, N)``: row 0 of each step is for the
    running sum (zeros on entry), the others hold the step's finite products,
    zero-padded (zeros change neither a step's largest term nor its sum),
    and the last step is all zeros.  Returns the view ``terms[:, 0]``,
    ``(steps + 1, N)``.  The steps are :func:`_step`'s, operation for
    operation, in place: a loop over thousands of steps spends its time in
    calls.  The running sum is an extra first term of every step, so that
    one product, truncation and sum take it with the others, and its exponent
    field stands in for its magnitude.  Every :data:`STALL_CHECK` steps, the
    run stops where every sum has stalled (:func:`_stalled`): they stay as they are.
    """
    steps, n = terms.shape[0] - 1, terms.shape[2]
    products = terms[:-1, 1:]
    magnitudes = np.maximum(products.max(axis=1), -products.min(axis=1))  # (steps, N)
    largest = np.maximum(magnitudes, SMALLEST_TERM).view(np.uint64) & EXPONENT_FIELD
    blocks = np.maximum.reduceat(magnitudes, np.arange(0, steps, STALL_CHECK), axis=0)
    ahead = np.maximum.accumulate(blocks[::-1], axis=0)[::-1]  # the largest product from step j * STALL_CHECK on
    top = np.uint64((bits + 2045) << 52)
    keep = np.uint64(~((1 << (FLOAT64_BITS - bits)) - 1) & 0xFFFF_FFFF_FFFF_FFFF)
    scale, aligned, cut = np.empty(n), np.empty(n), np.empty(terms.shape[1:])
    field, sum_bits = scale.view(np.uint64), aligned.view(np.uint64)
    for t in range(steps):
        if t % STALL_CHECK == 0 and t and _stalled(terms[t, 0], ahead[t // STALL_CHECK], bits):
            terms[t + 1:, 0] = terms[t, 0]
            break
        np.bitwise_and(terms[t, 0].view(np.uint64), EXPONENT_FIELD, out=field)  # |s|'s exponent: its sign left out
        np.maximum(field, largest[t], out=field)
        np.subtract(top, field, out=field)
        np.multiply(terms[t], scale, out=cut)
        np.trunc(cut, out=cut)
        np.add.reduce(cut, axis=0, out=aligned)
        np.bitwise_and(sum_bits, keep, out=sum_bits)
        np.divide(aligned, scale, out=terms[t + 1, 0])
    sums: np.ndarray = terms[:, 0]
    return sums


def _into_fp32(narrow: np.ndarray) -> np.ndarray:
    """The FP32 accumulator before and after each promotion: ``w[g + 1] = RN_fp32(w[g] + narrow[g])``, ``w[0] = 0``.

    ``narrow`` is ``(G, N)``, the result ``(G + 1, N)``.

    Narrow sums that FP32 holds exactly make this FP32 addition, one running
    sum; others go through :func:`fpsum.rounded_once.add_rounded`, one at a time.
    An overflow is +-inf and stays (a finite narrow sum cannot undo it).
    """
    out = np.zeros((narrow.shape[0] + 1,) + narrow.shape[1:])
    with np.errstate(over="ignore"):
        single = narrow.astype(np.float32)
        if np.array_equal(single.astype(np.float64), narrow):
            out[1:] = np.add.accumulate(single, axis=0)  # each FP32 addition rounds the exact sum once
            return out
    for g, pending in enumerate(narrow):
        out[g + 1] = add_rounded(out[g], pending, FP32).astype(np.float64)
    return out


def truncated_sums(products: np.ndarray, model: TruncatedAccumulator, at: np.ndarray) -> np.ndarray:
    """The truncating accumulator over exact ``products`` (float64, ``(..., K)``), read after the first ``at[j]``.

    The products are those of two values of the input formats, as
    :func:`fpsum.dot.exact_products` forms them (so none is nonzero below
    2**-298).  Shape ``(..., len(at))``, float64; ``at`` holds counts from 1
    to K, in any order.  The result for a count is the model's, as
    :func:`truncated_dot_running` describes: the steps before the count's
    own, then a step of the products of its step up to it; with promotion,
    the FP32 accumulator plus that pending narrow sum, rounded once.  The
    narrow sum restarts from 0 after every promotion, so each stretch of
    ``promote_every`` products is summed on its own, all stretches at once;
    the FP32 accumulator then adds up the stretches' sums.  Non-finite
    products pass by the narrow sum as in :func:`truncated_dot_running`
    (NaN after a NaN product, an infinity after one, NaN after both signs
    of it); a zero result is +0.0.  ``ValueError`` for counts outside 1..K.
    """
    k = products.shape[-1]
    counts = np.asarray(at, dtype=np.int64)
    if counts.ndim != 1 or counts.size == 0 or counts.min() < 1 or counts.max() > k:
        raise ValueError(f"counts must lie between 1 and K = {k}")
    flat = products.reshape(-1, k)
    n, block = flat.shape[0], model.block
    finite = np.isfinite(flat)
    steps = -(-k // block)
    per_stretch = steps if model.promote_every is None else model.promote_every // block
    stretches = -(-steps // per_stretch)
    # Product i of step u of stretch g, column c goes to terms[u, 1 + i, g, c]: the run's step u
    # over the columns of every stretch; row 0 of each step is for the running sum, and zeros pad.
    terms = np.zeros((per_stretch + 1, block + 1, stretches, n))
    source = flat if finite.all() else np.where(finite, flat, 0.0)
    if k < stretches * per_stretch * block:
        source = np.concatenate([source, np.zeros((n, stretches * per_stretch * block - k))], axis=1)
    terms[:-1, 1:] = source.reshape(n, stretches, per_stretch, block).transpose(2, 3, 1, 0)
    step, length = (counts - 1) // block, (counts - 1) % block + 1
    stretch, within = step // per_stretch, step % per_stretch
    sums = _narrow_run(terms.reshape(per_stretch + 1, block + 1, -1), model.bits).reshape(per_stretch + 1, stretches, n)
    # Each count's own step, from where the run stood: its products up to the count, zeros after.
    terms = np.where(np.arange(block)[:, np.newaxis, np.newaxis] < length[:, np.newaxis],
                     np.moveaxis(terms[within, 1:, stretch], 1, 0), 0.0)  # (block, counts, N)
    narrow = _step(sums[within, stretch], terms, model.bits)
    if model.promote_every is None:
        out = narrow
    else:
        wide = _into_fp32(sums[-1])
        out = add_rounded(wide[stretch], narrow, FP32).astype(np.float64)
    if not finite.all():
        with np.errstate(invalid="ignore"):
            special = np.add.accumulate(np.where(finite, 0.0, flat), axis=-1)[:, counts - 1].T  # inf + -inf is NaN
        out = np.where(np.isfinite(special), out, special)
    return np.ascontiguousarray(out.T).reshape(products.shape[:-1] + (counts.size,))


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
    dtypes, mismatched shapes or no pairs.  (:func:`truncated_sums` at every count.)
    """
    check_pair(x, y)
    return truncated_sums(exact_products(x, y), model, np.arange(1, x.shape[-1] + 1))


def truncated_dot(x: np.ndarray, y: np.ndarray, model: TruncatedAccumulator) -> np.ndarray:
    """The final value of :func:`truncated_dot_running`, shape ``x.shape[:-1]`` (float64), bit for bit.

    Computed for the last count only (:func:`truncated_sums`).  The same
    rules for NaN, inf and -0.0 (a zero result is +0.0) and the same errors.
    """
    check_pair(x, y)
    return truncated_sums(exact_products(x, y), model, np.array([x.shape[-1]]))[..., 0]
