"""Seeded input vectors, stored in the working format.

Every generator draws float64 values from NumPy's PCG64 stream for the given
seed and rounds them once to the format, so the same (kind, n, seed) gives the
same bits on every machine.  The exact sum of the *stored* values is the
reference each method is measured against.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal, get_args

import numpy as np

from .array_rounding import to_format
from .formats import Format

InputKind = Literal["uniform", "ones", "normal", "squares", "exp", "symmetric"]
INPUT_KINDS: tuple[InputKind, ...] = get_args(InputKind)

DRAW_BLOCK = 1 << 14
"""Values drawn and rounded at a time: a float64 block that stays in cache (a multiple of any SIMD width)."""

INPUT_LABELS: dict[InputKind, str] = {
    "uniform": "uniform [0, 1)",
    "ones": "all ones",
    "normal": "± normal",
    "squares": "squares of uniform [0, 1)",
    "exp": "exp(−3U), U uniform [0, 1)",
    "symmetric": "uniform [−1, 1)",
}


def make_inputs(kind: InputKind, n: int, fmt: Format, seed: int = 0, trials: int | None = None) -> np.ndarray:
    """Draw ``n`` inputs of ``kind`` in ``fmt``; shape ``(n,)``, or ``(trials, n)`` if ``trials`` is given.

    ``uniform`` draws from [0, 1) (a draw just below 1 may round up to 1.0 in
    a narrow format); ``ones`` is all 1.0; ``normal`` is standard normal, both
    signs.  Two skewed kinds of one sign: ``squares``, the square of a uniform
    draw (most inputs small, a few near 1), and ``exp``, exp(-3U) for uniform U
    (the terms of a softmax denominator over logits spread by 3; in (e^-3, 1]).
    ``symmetric`` is uniform on [-1, 1): zero mean, like ``normal``, but bounded.
    No NaN, inf or -0.0 is ever produced (a tiny draw may round to +0.0).
    ``n`` must be at least 1.
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if trials is not None and trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    shape = (n,) if trials is None else (trials, n)
    return _draw(kind, shape, np.random.default_rng(seed), fmt)


def input_chunks(kind: InputKind, n: int, fmt: Format, seed: int, trials: int, chunk: int) -> Iterator[np.ndarray]:
    """The rows of ``make_inputs(kind, n, fmt, seed, trials)``, ``chunk`` trials at a time.

    The same values, since NumPy fills an array row after row from one
    stream; for sweeps too large to hold every trial at once.  Like
    :func:`make_inputs`, never NaN, inf or -0.0.
    """
    if n < 1 or trials < 1 or chunk < 1:
        raise ValueError(f"n, trials and chunk must be at least 1, got {n}, {trials}, {chunk}")
    rng = np.random.default_rng(seed)
    for start in range(0, trials, chunk):
        yield _draw(kind, (min(chunk, trials - start), n), rng, fmt)


def input_blocks(kind: InputKind, n: int, fmt: Format, seed: int, block: int) -> Iterator[np.ndarray]:
    """The values of ``make_inputs(kind, n, fmt, seed)``, ``block`` at a time (the last block may be shorter).

    The stream drawn in consecutive pieces gives the same values, so a
    caller that needs only the first inputs can stop early.  Like
    :func:`make_inputs`, never NaN, inf or -0.0.
    """
    if n < 1 or block < 1:
        raise ValueError(f"n and block must be at least 1, got {n}, {block}")
    rng = np.random.default_rng(seed)
    for start in range(0, n, block):
        yield _draw(kind, (min(block, n - start),), rng, fmt)


def _draw(kind: InputKind, shape: tuple[int, ...], rng: np.random.Generator, fmt: Format) -> np.ndarray:
    """``shape`` values of ``kind`` from ``rng``, in ``fmt``, drawn and rounded a block at a time.

    Drawing the stream in consecutive blocks gives the same values as one
    draw; the float64 draws never exist all at once, only the stored values.
    """
    if kind not in INPUT_KINDS:
        raise ValueError(f"unknown input kind {kind!r} (known: {', '.join(INPUT_KINDS)})")
    out = np.empty(shape, dtype=fmt.dtype)
    flat = out.reshape(-1)
    for start in range(0, flat.size, DRAW_BLOCK):
        stop = min(start + DRAW_BLOCK, flat.size)
        flat[start:stop] = _draw_block(kind, stop - start, rng, fmt)
    return out


def _draw_block(kind: InputKind, count: int, rng: np.random.Generator, fmt: Format) -> np.ndarray:
    """The next ``count`` values of ``kind`` from ``rng``, rounded once to ``fmt``."""
    if kind == "uniform":
        drawn = rng.random(count)
    elif kind == "ones":
        drawn = np.ones(count)
    elif kind == "normal":
        drawn = rng.standard_normal(count)
    elif kind == "squares":
        drawn = rng.random(count) ** 2
    elif kind == "exp":
        drawn = np.exp(-3.0 * rng.random(count))
    else:  # symmetric
        drawn = 2.0 * rng.random(count) - 1.0  # exact in float64: a double of a multiple of 2**-53, minus 1
    rounded = to_format(drawn, fmt)
    # A tiny negative draw rounds to -0.0 in a narrow format; adding +0 makes it +0.0 and changes nothing else.
    return rounded + np.zeros((), dtype=fmt.dtype)
