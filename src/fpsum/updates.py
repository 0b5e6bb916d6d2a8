"""Weight updates that vanish: ``w <- w + u`` over many steps, with the weight stored in a narrow format.

A training step adds an update ``u = -eta * g`` (an FP32 value) to every
weight.  When the weight is stored in BF16 or FP16 and the update is below
half the gap between the weight and its neighbour, the rounded sum is the
weight again: the update is lost, step after step, the way a long sum
stagnates.  Four ways to store the weight, each modelled bit for bit:

* ``nearest``: the weight alone, ``w <- RN(w + u)``;
* ``kahan``: the weight and a compensation of the same format that carries
  what the last additions lost (Zamirai et al. 2020, arXiv:2010.06192);
* ``stochastic``: the weight alone, ``w <- SR(w + u)``, seeded;
* ``master``: an FP32 master copy ``m <- RN_fp32(m + u)``, stored weight
  ``RN(m)`` (Micikevicius et al. 2018, mixed-precision training).

The updates come as float32 arrays of shape ``(steps, ...)``; the loop runs
over steps and is vectorised over the weights.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .array_rounding import to_format
from .exact import exact_running
from .formats import FP32, Format
from .names import UPDATE_METHODS, UpdateMethod
from .rounded_once import add_rounded
from .stochastic_rounding import stochastic_round, stochastic_round_bits
from .stochastic_sum import ROUNDING_STREAM


def bytes_per_weight(method: UpdateMethod, fmt: Format) -> int:
    """Memory per weight for ``method`` with the weight stored in ``fmt``, in bytes.

    ``nearest`` and ``stochastic`` keep the weight only (the random bits are
    drawn, not stored); ``kahan`` adds a compensation of the same format;
    ``master`` keeps an FP32 copy beside the stored weight.  For a 16-bit
    format: 2, 4, 2 and 6.  Sizes, not values: no NaN, inf or -0 cases;
    ``ValueError`` for an unknown method.
    """
    weight = fmt.bits // 8
    sizes: dict[UpdateMethod, int] = {
        "nearest": weight,
        "kahan": 2 * weight,
        "stochastic": weight,
        "master": weight + FP32.bits // 8,
    }
    try:
        return sizes[method]
    except KeyError:
        raise ValueError(f"unknown update method {method!r} (known: {', '.join(UPDATE_METHODS)})") from None


def _check(updates: np.ndarray, fmt: Format) -> None:
    if updates.dtype != np.float32:
        raise TypeError(f"updates are {updates.dtype}, expected float32")
    if updates.ndim < 1 or updates.shape[0] < 1:
        raise ValueError("updates need a leading axis of at least one step")
    if fmt.bits > FP32.bits:
        raise ValueError(f"the weight's format must be at most 32 bits wide, not {fmt.label}")


MOST_STEPS_TRIED = 4096  # steps tried at once by _until_moved: a few hundred kB per weight


def _add_rounded32(a: np.ndarray, b: np.ndarray, fmt: Format) -> np.ndarray:
    """Float32 ``a + b`` rounded once to ``fmt`` (up to FP32), as :func:`fpsum.rounded_once.add_rounded` rounds it.

    In float32 arithmetic, a few operations where the float64 route takes
    thirty: Knuth's TwoSum gives ``hi + lo == a + b`` exactly wherever hi is
    finite; hi rounded to odd (one step towards lo where lo is not 0 and
    hi's last bit is even) and then to nearest in a format at least two bits
    narrower is one rounding to nearest.  For FP32 itself hi is the answer.
    NaN, inf, overflow (+-inf, NaN in E4M3) and signed zeros as
    :func:`fpsum.rounded_once.add_rounded`: an infinite or NaN hi, whose lo is
    NaN, is left as it is, and a float32 overflow overflows every narrower format.
    """
    hi: np.ndarray = a + b
    if fmt.precision >= 24:
        exact: np.ndarray = hi.astype(fmt.dtype)
        return exact
    virtual = hi - a
    lo = (a - (hi - virtual)) + (b - virtual)
    fix = (np.abs(lo) > 0) & ((hi.view(np.uint32) & np.uint32(1)) == 0)  # NaN > 0 is False
    if fix.any():
        toward = np.where(lo > 0, np.inf, -np.inf).astype(np.float32)
        hi = np.where(fix, np.nextafter(hi, toward), hi)
    rounded: np.ndarray = hi.astype(fmt.dtype)
    return rounded


def _until_moved(w: np.ndarray, count: int, step: Callable[[np.ndarray, slice], np.ndarray]) -> np.ndarray:
    """The weights after each of ``count`` steps of a rule ``w <- step(w, t)``, float64 ``(count, ...)``.

    ``step(w, rows)`` gives the weights after each step of the slice ``rows``
    (``(len, ...)``, ``w``'s dtype), every one from the same ``w`` (float64):
    the rule sees the weights and the step's own data, nothing else.  A step
    that leaves every weight as it was, bit for bit, gives the next step the
    same weights; so a block of steps is tried from one ``w`` and kept up to
    the first step that moves a weight, the block doubling while none does
    (up to :data:`MOST_STEPS_TRIED`).  Weights that stall, as the figure's
    do, go by in a few calls; weights that move at every step cost about
    one call a step, as a loop would.
    """
    out = np.empty((count,) + w.shape)
    bits = np.dtype(f"u{w.dtype.itemsize}")
    done, size = 0, 1
    while done < count:
        tried = step(w.astype(np.float64), slice(done, min(done + size, count)))
        moved = (tried.view(bits) != w.view(bits)).reshape(tried.shape[0], -1).any(axis=1)
        kept = int(np.argmax(moved)) + 1 if moved.any() else tried.shape[0]
        out[done:done + kept] = tried[:kept]  # the steps before the first move are w itself
        w = tried[kept - 1]
        done += kept
        size = min(2 * kept, MOST_STEPS_TRIED)
    return out


def update_trajectory(
    w0: np.ndarray | float, updates: np.ndarray, fmt: Format, method: UpdateMethod, *, seed: int = 0,
    sr_bits: int | None = None,
) -> np.ndarray:
    """The weight as stored in ``fmt`` after each step, as float64; shape ``updates.shape``.

    ``updates`` is float32 of shape ``(steps, ...)``: row t holds the update
    of step t for every weight.  ``w0`` (broadcast to ``updates.shape[1:]``)
    is rounded to ``fmt`` first; the ``master`` copy starts from ``w0``
    rounded to FP32.  Every operation rounds once, to nearest with ties to
    even, except where ``stochastic`` says otherwise:

    * ``nearest``: ``w = RN(w + u)``, one rounding of the exact sum
      (:func:`fpsum.rounded_once.add_rounded`: the FP32 update is not a value of ``fmt``);
    * ``kahan``, in this order, with ``c = +0`` at the start::

          y = RN(u - c)        # the update, less what the last steps lost
          t = RN(w + y)        # the new weight: y's low-order bits are lost here ...
          c = RN(RN(t - w) - y)  # ... and kept here, negated (algebraically zero)
          w = t

      ``c`` is stored in ``fmt``, so a weight costs two of its words.  Only
      the first operation sees an FP32 operand;
    * ``stochastic``: ``w = SR(w + u)`` (:func:`fpsum.stochastic_rounding.stochastic_round`),
      one uniform draw per weight and step from NumPy's PCG64 stream for
      ``(ROUNDING_STREAM, seed)``, drawn step by step (the same numbers as
      one draw of shape ``updates.shape``).  ``seed`` is used by this method only;
      so is ``sr_bits``: given r, the rounding uses r random bits instead
      (:func:`fpsum.stochastic_rounding.stochastic_round_bits`, whole draws in
      ``[0, 2**r)`` from the same stream), and an update below ``2**-r`` of
      the gap never moves the weight;
    * ``master``: ``m = RN_fp32(m + u)``, and the stored weight ``RN(m)``.

    Non-finite values propagate as IEEE says: a NaN update makes the weight
    NaN; an update that overflows the format gives +-inf (NaN in E4M3).
    Under ``kahan`` an infinite weight turns ``c`` into NaN (inf - inf), so
    the weight becomes NaN one step later, as it would on hardware.  An
    exact zero sum is +0.0 unless both operands are -0.0, for every method;
    so a ``w0`` of -0.0 stays -0.0 under updates of -0.0 only.
    ``TypeError`` unless ``updates`` is float32; ``ValueError`` for no
    steps, a format wider than FP32, an unknown method, ``sr_bits`` with
    another method, or more bits than the format allows.
    """
    _check(updates, fmt)
    if method not in UPDATE_METHODS:
        raise ValueError(f"unknown update method {method!r} (known: {', '.join(UPDATE_METHODS)})")
    if sr_bits is not None and method != "stochastic":
        raise ValueError(f"sr_bits is for stochastic rounding, not {method!r}")
    start = np.broadcast_to(np.asarray(w0, dtype=np.float64), updates.shape[1:])
    # --8<-- [start:update-loop]
    # exact: every FP32 value is a float64
    steps = updates.astype(np.float64)
    w = to_format(start, fmt)
    with np.errstate(over="ignore", invalid="ignore"):
        if method == "nearest":
            out = _until_moved(
                w, len(steps), lambda w, r: add_rounded(w, steps[r], fmt)
            )
        elif method == "kahan":
            out = np.empty(updates.shape, dtype=np.float64)
            c = np.zeros_like(w)
            for i, u in enumerate(updates):
                minus_c = -c.astype(np.float32)
                y = _add_rounded32(u, minus_c, fmt)
                # w, y and c are all values of fmt: the dtype's own arithmetic
                # rounds once, correctly (float32 holds enough extra bits).
                t = w + y
                c = (t - w) - y
                w = t
                out[i] = w
        elif method == "stochastic":
            rng = np.random.default_rng([ROUNDING_STREAM, seed])
            # step after step
            if sr_bits is None:
                draws = rng.random(updates.shape)
                out = _until_moved(
                    w,
                    len(steps),
                    lambda w, r: stochastic_round(w, steps[r], fmt, draws[r]),
                )
            else:
                cuts = rng.integers(0, 2**sr_bits, updates.shape)
                out = _until_moved(
                    w,
                    len(steps),
                    lambda w, r: stochastic_round_bits(
                        w, steps[r], fmt, sr_bits, cuts[r]
                    ),
                )
        else:  # master
            # float64 -> float32 is NumPy's correctly rounded cast
            m = start.astype(np.float32)[np.newaxis]
            # float32 arithmetic: RN_fp32, step by step
            m = np.concatenate([m, updates])
            m = np.add.accumulate(m, axis=0)[1:]
            out = to_format(m.astype(np.float64), fmt)
            out = out.astype(np.float64)
    return out
    # --8<-- [end:update-loop]


def exact_trajectory(w0: np.ndarray | float, updates: np.ndarray) -> np.ndarray:
    """``w0 + u_0 + ... + u_t`` for every step t, exact and rounded once to float64; shape ``updates.shape``.

    ``w0`` is taken as given (a float64, not rounded to any format) and
    broadcast to ``updates.shape[1:]``; ``updates`` has shape ``(steps, ...)``
    (any float dtype).  What the weight would be with no rounding at all:
    the reference for :func:`update_trajectory`.  ``ValueError`` for NaN or
    inf anywhere (no exact value); -0.0 counts as zero, and an exact zero is +0.0.
    """
    updates = np.asarray(updates)
    if updates.ndim < 1 or updates.shape[0] < 1:
        raise ValueError("updates need a leading axis of at least one step")
    start = np.broadcast_to(np.asarray(w0, dtype=np.float64), updates.shape[1:])
    terms = np.concatenate([start[np.newaxis], updates.astype(np.float64)], axis=0)
    steps = updates.shape[0]
    sums = exact_running(np.moveaxis(terms, 0, -1), np.arange(2, steps + 2))
    return np.moveaxis(sums, -1, 0)


def lost_below(w: np.ndarray | float, fmt: Format, direction: np.ndarray | float | None = None) -> np.ndarray:
    """Half the gap from ``w`` (rounded to ``fmt``) to its neighbour: smaller updates are lost by ``nearest``.

    ``direction`` is the sign of the update: > 0 upwards (half the gap to the
    next value up), < 0 downwards.  An update u in that direction with
    ``|u|`` strictly below the result leaves ``RN(w + u) == w``; one strictly
    above it changes w; one of exactly this size is a tie, lost if and only
    if w's last significand bit is even (the neighbour's is odd).
    ``None`` or 0 gives the smaller of the two, under which an update of
    either sign is lost (above it, only updates towards the smaller gap are
    sure to move w).  The two gaps differ only at a power of two (beyond the
    smallest normal), where the gap towards zero is half as wide: for a BF16
    weight of 1.0, updates up to 2**-8 are lost upwards, up to 2**-9 downwards.
    At the largest value the gap up reaches the next power of two, so a
    larger update overflows (inf, or NaN in E4M3).  At +-0 the gap is the
    smallest subnormal either way (a tiny negative update leaves -0.0).
    Float64, shape of ``w`` and ``direction`` broadcast; ``ValueError`` for
    NaN or +-inf weights (no neighbours).
    """
    # --8<-- [start:lost-below]
    rounded = to_format(w, fmt).astype(np.float64)
    if not np.isfinite(rounded).all():
        raise ValueError("a NaN or infinite weight has no neighbours")
    away = fmt.ulps(rounded)  # the gap away from zero
    magnitude = np.abs(rounded)
    significand, _ = np.frexp(magnitude)
    # at a power of two the gap towards zero is half as wide
    at_power = (significand == 0.5) & (magnitude > fmt.smallest_normal)
    toward = np.where(at_power, away / 2, away)
    if direction is None:
        half: np.ndarray = toward / 2
        return half
    sign = np.sign(np.asarray(direction, dtype=np.float64))
    up = np.where(np.signbit(rounded), toward, away)
    down = np.where(np.signbit(rounded), away, toward)
    gap = np.where(sign > 0, up, np.where(sign < 0, down, toward))
    chosen: np.ndarray = gap / 2
    return chosen
    # --8<-- [end:lost-below]


def constant_updates(steps: int, size: float, weights: int = 1) -> np.ndarray:
    """The same update ``size`` (rounded once to FP32) for every step and weight; float32 ``(steps, weights)``.

    For figures of one weight and a fixed learning rate times gradient.
    NaN, +-inf and -0.0 pass through the rounding unchanged; a size beyond
    FP32's range becomes +-inf.  ``ValueError`` unless ``steps`` and ``weights``
    are at least 1.
    """
    if steps < 1 or weights < 1:
        raise ValueError(f"steps and weights must be at least 1, got {steps} and {weights}")
    with np.errstate(over="ignore"):
        return np.full((steps, weights), size, dtype=np.float64).astype(np.float32)


def noisy_updates(steps: int, mean: float, spread: float, weights: int, seed: int) -> np.ndarray:
    """``mean + spread * z`` with z standard normal, rounded once to FP32; float32 ``(steps, weights)``.

    Drawn from NumPy's PCG64 stream for ``seed`` (row after row, so a longer
    run starts with the same steps), a stream apart from stochastic
    rounding's.  Both signs occur once ``spread`` is comparable to ``mean``.
    NaN or +-inf in ``mean`` or ``spread`` give NaN or +-inf updates; a
    zero draw is +0.0.  ``ValueError`` unless ``steps`` and ``weights`` are at least 1.
    """
    if steps < 1 or weights < 1:
        raise ValueError(f"steps and weights must be at least 1, got {steps} and {weights}")
    drawn = np.random.default_rng(seed).standard_normal((steps, weights))
    with np.errstate(over="ignore", invalid="ignore"):
        return (mean + spread * drawn).astype(np.float32)
