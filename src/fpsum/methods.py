"""Summation methods, every operation in the working format.

Each method takes inputs of shape ``(..., n)`` already stored in
``fmt.dtype`` and returns the *running* totals, shape ``(..., n)``: entry
``i`` is what the method gives for the first ``i + 1`` inputs.  The final sum
is the last entry; the error-versus-n sweeps read the running totals at many
n in one pass.  Leading axes are independent trials and are vectorised over,
so no Python loop runs per trial.

``sumtwo``, ``sumk`` (:mod:`fpsum.cascaded`) and ``correct`` (the exact sum
rounded once, :mod:`fpsum.correct`) are the accurate end of the range: error-
free transformations in the format, and the best any method can do.

Arithmetic is the dtype's own: NumPy's float16 and ml_dtypes' types add in
float32 and round once, which is correctly rounded (checked bit for bit
against :func:`fpsum.rounding.add_exact` in the tests).  NaN and overflow
follow the format: an FP16 sum of large values reaches inf and stays there,
an E4M3 one becomes NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, get_args

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .cascaded import DEFAULT_FOLDS, sum_k, sum_k_running
from .correct import correct_running, correct_sum
from .formats import Format, accumulator_for
from .rounding import stochastic_round, stochastic_run

Method = Literal["naive", "wide", "kahan", "neumaier", "pairwise", "blocked", "stochastic", "sumtwo", "sumk", "correct"]
METHODS: tuple[Method, ...] = get_args(Method)
DEFAULT_BLOCK = 128
NAIVE_BLOCK = 1 << 14
"""Running totals held at a time by :func:`naive_at`: a block that stays in cache."""
PAIRWISE_CHUNK = 1 << 14
"""Inputs per aligned chunk whose pair sums :func:`pairwise_at` takes in cache (a power of two)."""
ROUNDING_STREAM = 0x5352  # keeps stochastic rounding's draws apart from the inputs' stream
RUN_MIN, RUN_LIMIT = 16, 1024  # stochastic rounding's runs: 64 trials of 1024 float64 values fit in a core's cache
DRAW_BLOCK = 512  # steps of stochastic rounding's draws transposed at a time

METHOD_LABELS: dict[str, str] = {
    "naive": "naive",
    "wide": "FP32 accumulator",
    "kahan": "Kahan",
    "neumaier": "Neumaier",
    "pairwise": "pairwise",
    "blocked": "blocked",
    "stochastic": "stochastic rounding",
    "sumtwo": "Sum2",
    "sumk": "SumK",
    "correct": "correctly rounded",
    "exact": "exact",
}


def _check(values: np.ndarray, fmt: Format) -> None:
    if values.dtype != fmt.dtype:
        raise TypeError(f"inputs are {values.dtype}, expected {fmt.dtype} for {fmt.label}")
    if values.shape[-1] < 1:
        raise ValueError("a sum needs at least one input")


def naive_running(values: np.ndarray, fmt: Format) -> np.ndarray:
    """Left to right, ``s = fl(s + x)`` (recursive summation).

    ``np.add.accumulate`` rounds to the dtype after every addition, so it is
    exactly this loop, at native speed.  Starts from the first input, so a
    lone -0.0 stays -0.0; NaN and inf propagate as IEEE says (inf + -inf is NaN).
    """
    _check(values, fmt)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.add.accumulate(values, axis=-1)


def _prefix_counts(counts: np.ndarray, n: int) -> np.ndarray:
    """``counts`` as int64, checked to lie between 1 and ``n`` (``ValueError`` otherwise)."""
    wanted = np.asarray(counts, dtype=np.int64)
    if wanted.size and (wanted.min() < 1 or wanted.max() > n):
        raise ValueError("prefix lengths must lie between 1 and n")
    return wanted


def naive_at(values: np.ndarray, fmt: Format, counts: np.ndarray) -> np.ndarray:
    """``naive_running(values, fmt)[..., counts - 1]``, a block of inputs at a time.

    The running totals are carried from block to block, each block's first
    addition being ``fl(total + x)`` as in one pass, so the same bits come
    out and only a block of running totals is ever held.  A stalled sum is
    not added up: after a block that left every total where it was, a block
    whose inputs all lie within :func:`_stall_limits` is skipped, since each
    of its additions rounds back to the total.  Counts in any order, repeats
    allowed; ``ValueError`` outside 1..n.  NaN, inf and -0.0 as in
    :func:`naive_running`.
    """
    _check(values, fmt)
    n = values.shape[-1]
    wanted, position = np.unique(_prefix_counts(counts, n), return_inverse=True)
    rows = values.reshape(-1, n)
    picked = np.empty((rows.shape[0], wanted.size), dtype=values.dtype)
    width = max(1, NAIVE_BLOCK // rows.shape[0])
    carried = rows[:, :0]  # the running total so far: none before the first input
    limits = None  # while every total stays put: the inputs that leave it there lie strictly inside these
    compared = np.float64 if fmt.precision > 24 else np.float32  # holds every value of the format
    with np.errstate(over="ignore", invalid="ignore"):
        for begin in range(0, int(wanted.max(initial=0)), width):
            inputs = rows[:, begin:begin + width]
            if limits is not None and _within(inputs.astype(compared, copy=False), limits):
                running = np.broadcast_to(carried, inputs.shape)
            else:
                block = np.concatenate([carried, inputs], axis=-1)  # fl(total + x) comes first
                running = np.add.accumulate(block, axis=-1)[:, carried.shape[-1]:]
                unmoved = carried.size and np.all(running[:, -1:] == carried)
                limits = _stall_limits(running[:, -1], fmt) if unmoved else None
            first, last = np.searchsorted(wanted, (begin + 1, begin + width + 1))  # the counts in this block
            picked[:, first:last] = running[:, wanted[first:last] - begin - 1]
            carried = running[:, -1:]
    return picked[:, position].reshape(values.shape[:-1] + position.shape)


def _within(inputs: np.ndarray, limits: tuple[np.ndarray, np.ndarray]) -> bool:
    """Whether every row of ``inputs`` lies strictly between its ``limits``; never if it holds a NaN."""
    return bool(np.all((inputs.min(axis=-1) > limits[0]) & (inputs.max(axis=-1) < limits[1])))


def _stall_limits(totals: np.ndarray, fmt: Format) -> tuple[np.ndarray, np.ndarray] | None:
    """Per total, the bounds strictly between which every input x gives ``fl(total + x) == total``.

    Half the gap to the neighbour below and above: the exact sum is then
    nearer the total than any other value, ties aside.  The gap toward zero
    from a normal power of two is half the gap away from zero.  None if a
    total is zero (-0.0 + 0.0 is +0.0), infinite or NaN.
    """
    total = totals.astype(np.float64)
    if not np.all(np.isfinite(total) & (total != 0)):
        return None
    away = fmt.ulps(total)  # the gap to the neighbour away from zero
    power = (np.frexp(np.abs(total))[0] == 0.5) & (np.abs(total) > fmt.smallest_normal)
    toward = np.where(power, away / 2, away)
    below, above = np.where(total > 0, toward, away), np.where(total > 0, away, toward)
    return -below / 2, above / 2


def wide_running(values: np.ndarray, fmt: Format) -> np.ndarray:
    """Inputs in ``fmt``, running total in a wider format (FP32, or FP64 from FP32 up).

    Returned in the accumulator's dtype: the point is that it is not rounded
    back to ``fmt``.  NaN, inf and -0.0 convert exactly and propagate as in
    :func:`naive_running`; an E4M3 input NaN stays NaN.
    """
    _check(values, fmt)
    wide = values.astype(accumulator_for(fmt).dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.add.accumulate(wide, axis=-1)


# --8<-- [start:kahan]
def kahan_running(
    values: np.ndarray, fmt: Format
) -> np.ndarray:
    """Kahan's compensated summation (Kahan 1965), every
    operation rounded to `fmt`.

    The compensation `c` holds the low-order part lost by
    the last addition, and is subtracted from the next input
    before it is added. Non-finite values poison `c` as well
    as `s`: once an inf enters, the result is NaN
    (inf - inf), as it would be on hardware.
    """
    _check(values, fmt)
    # loop over inputs, vectorised over trials
    columns = np.moveaxis(values, -1, 0)
    columns = np.ascontiguousarray(columns)
    totals = np.empty_like(columns)
    s = np.zeros_like(columns[0])
    c = np.zeros_like(columns[0])
    with np.errstate(over="ignore", invalid="ignore"):
        for i, x in enumerate(columns):
            # the input, less what was lost last time
            y = x - c
            # low-order bits of y are lost here ...
            t = s + y
            # ... and recovered here (algebraically zero)
            c = (t - s) - y
            s = t
            totals[i] = s
    return np.moveaxis(totals, 0, -1)
# --8<-- [end:kahan]


# --8<-- [start:pairwise]
def pairwise_split(n: int) -> int:
    """Size of the left part of a pairwise sum of `n >= 2`
    inputs.

    The largest power of two strictly below `n`: a
    power-of-two `n` splits in half all the way down, a
    perfectly balanced tree.  A count, not a float: no NaN,
    inf or -0 cases; `n` below 2 is meaningless.
    """
    return 1 << ((n - 1).bit_length() - 1)


def pairwise_sum(
    values: np.ndarray, fmt: Format
) -> np.ndarray:
    """Pairwise sum along the last axis:
    (left part) + (right part), each rounded to `fmt`.

    A power-of-two part is a balanced tree, added one level
    at a time (pairs, then pairs of pairs); any other `n`
    splits at `pairwise_split()`. The running version below
    gives the same bits for every prefix at once. NaN and
    inf propagate up the tree (inf + -inf is NaN);
    -0.0 + -0.0 stays -0.0.
    """
    _check(values, fmt)
    n = values.shape[-1]
    with np.errstate(over="ignore", invalid="ignore"):
        if n & (n - 1) == 0:
            level = values
            while level.shape[-1] > 1:
                level = level[..., 0::2] + level[..., 1::2]
            return level[..., 0]
        left = pairwise_split(n)
        result: np.ndarray = (
            pairwise_sum(values[..., :left], fmt)
            + pairwise_sum(values[..., left:], fmt)
        )
    return result
# --8<-- [end:pairwise]


def pairwise_running(values: np.ndarray, fmt: Format) -> np.ndarray:
    """The pairwise sum of the first i inputs, for every i, as :func:`pairwise_sum` computes it.

    Within every aligned block of 2**(L+1) inputs, the pairwise sum of a
    prefix that reaches into the right half is (balanced sum of the left
    half) + (pairwise sum of the part of the prefix within the right half):
    the tree adds the larger block to the smaller ones, the smallest first.
    So, level by level, every right half gets its left half's balanced sum
    added in place: about half a pass per binary digit of n, and the same
    bits as the tree for every prefix.  The padding up to a power of two never
    reaches a prefix that is kept.  NaN, inf and -0.0 behave as in
    :func:`pairwise_sum`, prefix by prefix.
    """
    _check(values, fmt)
    n = values.shape[-1]
    size = 1 << (n - 1).bit_length()
    lead = values.shape[:-1]
    running = np.zeros(lead + (size,), dtype=values.dtype)
    running[..., :n] = values
    level = running.copy()  # balanced sums of the aligned blocks of the current size
    half = 1
    with np.errstate(over="ignore", invalid="ignore"):
        while half < size:
            blocks = running.reshape(lead + (size // (2 * half), 2, half))
            blocks[..., 1, :] += level[..., 0::2, np.newaxis]
            level = level[..., 0::2] + level[..., 1::2]
            half *= 2
    return running[..., :n]


def pairwise_at(values: np.ndarray, fmt: Format, counts: np.ndarray) -> np.ndarray:
    """``pairwise_sum(values[..., :c])`` for each c in ``counts``: shape ``values.shape[:-1] + (len(counts),)``.

    The tree of a prefix of c inputs is one aligned balanced block per binary
    digit of c, largest first, added from the smallest up (each block is the
    left part of what follows it).  A balanced block is an entry of the
    pyramid of pair sums (level a holds the sums of the aligned blocks of
    2**a inputs), so one pyramid up to ``max(counts)`` gives every prefix: about
    ``max(counts)`` additions in all, however many counts, and the same bits as
    the tree.  The pyramid's lower levels are taken a few aligned chunks of
    :data:`PAIRWISE_CHUNK` inputs at a time, in cache: the digits of c below the
    chunk come from the chunk that c ends in, those above from the pyramid of
    the chunks' balanced sums.  Counts in any order, repeats allowed;
    ``ValueError`` outside 1..n.  NaN, inf and -0.0 as in :func:`pairwise_sum`.
    """
    _check(values, fmt)
    wanted = _prefix_counts(counts, values.shape[-1])
    shift = PAIRWISE_CHUNK.bit_length() - 1
    chunks, rest = wanted >> shift, wanted & (PAIRWISE_CHUNK - 1)  # c = chunks * PAIRWISE_CHUNK + rest
    sums = np.zeros(values.shape[:-1] + wanted.shape, dtype=values.dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        for chunk in np.unique(chunks[rest > 0]).tolist():  # the low digits: a prefix of the chunk c ends in
            mine = (chunks == chunk) & (rest > 0)
            inside = values[..., chunk << shift:(chunk + 1) << shift]
            sums[..., mine] = _fold_digits(inside, rest[mine], sums[..., mine], started=np.zeros(mine.sum(), bool))
        tops = _chunk_sums(values[..., :int(chunks.max(initial=0)) << shift], shift)
        return _fold_digits(tops, chunks, sums, rest > 0)


def _fold_digits(level: np.ndarray, counts: np.ndarray, sums: np.ndarray, started: np.ndarray) -> np.ndarray:
    """Add to ``sums`` (where ``started``, else set) the balanced blocks of ``level`` that make up each count.

    For each binary digit of a count, from the lowest up, the aligned block
    of that many entries of ``level`` that ends at the digit is added on the
    left: ``block + sums``.  ``sums`` is changed in place and returned.
    """
    longest = int(counts.max(initial=0))
    level = level[..., :longest]
    started = started.copy()
    for a in range(longest.bit_length()):
        if a:
            pairs = level.shape[-1] // 2
            level = level[..., 0:2 * pairs:2] + level[..., 1:2 * pairs:2]
        digit = (counts >> a) & 1 == 1
        block = level[..., (counts[digit] >> a) - 1]  # the aligned block of 2**a entries that ends at the digit
        sums[..., digit] = np.where(started[digit], block + sums[..., digit], block)
        started |= digit
    return sums


def _chunk_sums(values: np.ndarray, shift: int) -> np.ndarray:
    """The balanced sum of each aligned chunk of 2**shift inputs (the length is a multiple of it), a few at a time."""
    chunks = values.shape[-1] >> shift
    tops = np.empty(values.shape[:-1] + (chunks,), dtype=values.dtype)
    group = max(1, PAIRWISE_CHUNK * 4 >> shift)  # chunks whose pyramid is taken at once
    for first in range(0, chunks, group):
        level = values[..., first << shift:min(first + group, chunks) << shift]
        for _ in range(shift):
            level = level[..., 0::2] + level[..., 1::2]
        tops[..., first:first + level.shape[-1]] = level
    return tops


def blocked_sum(values: np.ndarray, fmt: Format, block: int = DEFAULT_BLOCK) -> np.ndarray:
    """The last entry of :func:`blocked_running`, from the block sums alone (shape ``values.shape[:-1]``).

    The naive sum of each block (the last one may be shorter), then the
    naive sum of those: the same additions as the running version's last
    total, without a running total per input.  ``block`` must be at least 1.
    NaN, inf and -0.0 as in :func:`blocked_running`.
    """
    _check(values, fmt)
    if block < 1:
        raise ValueError(f"block size must be at least 1, got {block}")
    n = values.shape[-1]
    whole = n - n % block  # the inputs in complete blocks
    lead = values.shape[:-1]
    with np.errstate(over="ignore", invalid="ignore"):
        sums = np.add.accumulate(values[..., :whole].reshape(lead + (whole // block, block)), axis=-1)[..., -1]
        if whole < n:
            sums = np.concatenate([sums, np.add.accumulate(values[..., whole:], axis=-1)[..., -1:]], axis=-1)
        final: np.ndarray = np.add.accumulate(sums, axis=-1)[..., -1]
    return final


# --8<-- [start:neumaier]
def _running_from_zero(values: np.ndarray) -> np.ndarray:
    """`0, fl(0 + x0), fl(fl(0 + x0) + x1), ...` along the
    last axis, one entry longer than `values`.

    Starting from +0 like a loop with `s = 0` (so a leading
    -0.0 becomes +0.0).
    """
    zero = np.zeros_like(values[..., :1])
    from_zero = np.concatenate([zero, values], axis=-1)
    return np.add.accumulate(from_zero, axis=-1)


def neumaier_running(
    values: np.ndarray, fmt: Format
) -> np.ndarray:
    """Neumaier's improved Kahan-Babuska summation
    (Neumaier 1974), every operation in `fmt`.

    Like Kahan's, but the lost low-order part is taken from
    whichever of `s` and `x` is smaller in magnitude, so an
    input larger than the running sum no longer wipes out
    the correction.  The compensation is added back at the
    end: entry i is `fl(s + c)` after i + 1 inputs. The
    result is bit for bit the textbook loop, but `s` never
    sees `c`, so `s` and `c` are both plain running sums and
    no Python loop is needed. Infinities and NaN propagate
    into `c` and give NaN, as with Kahan.
    """
    _check(values, fmt)
    with np.errstate(over="ignore", invalid="ignore"):
        # s before and after each input: the naive sum
        s = _running_from_zero(values)
        before, after = s[..., :-1], s[..., 1:]
        s_bigger = np.abs(before) >= np.abs(values)
        # the larger of s and x ...
        big = np.where(s_bigger, before, values)
        # ... and the smaller, whose low bits were lost
        small = np.where(s_bigger, values, before)
        # exactly what each addition threw away
        lost = (big - after) + small
        # c is a naive running sum of the losses
        c = _running_from_zero(lost)[..., 1:]
        totals: np.ndarray = after + c
        return totals
# --8<-- [end:neumaier]


# --8<-- [start:blocked]
def blocked_running(
    values: np.ndarray,
    fmt: Format,
    block: int = DEFAULT_BLOCK,
) -> np.ndarray:
    """Naive sums within consecutive blocks of `block`
    inputs, then a naive sum of the block sums.

    Entry i is the blocked sum of the first i + 1 inputs:
    the running sum of the complete blocks before it plus
    the partial sum of its own block. `block` must be at
    least 1 (1 and >= n are both plain naive sums). NaN, inf
    and -0.0 behave as in naive summation (the last block is
    padded with -0.0, which adds nothing, not even a sign).
    """
    _check(values, fmt)
    if block < 1:
        raise ValueError(
            f"block size must be at least 1, got {block}")
    n = values.shape[-1]
    blocks = -(-n // block)
    rows = values.shape[:-1]
    # x + -0 == x, always
    padded = np.full(rows + (blocks * block,), -0.0,
                     dtype=values.dtype)
    padded[..., :n] = values
    with np.errstate(over="ignore", invalid="ignore"):
        by_block = padded.reshape(rows + (blocks, block))
        within = np.add.accumulate(by_block, axis=-1)
        # sums of complete blocks, naive
        before = np.add.accumulate(within[..., -1], axis=-1)
        totals = within.copy()
        totals[..., 1:, :] = (before[..., :-1, np.newaxis]
                              + within[..., 1:, :])
    return totals.reshape(padded.shape)[..., :n]
# --8<-- [end:blocked]


def stochastic_running(values: np.ndarray, fmt: Format, seed: int = 0) -> np.ndarray:
    """Naive summation with stochastic rounding: ``s = SR(s + x)``, seeded.

    Each exact sum is rounded up with probability equal to the fraction of
    the gap it has covered, so the expected result of every addition is
    exact and small inputs are not all lost: no stall.  One uniform draw per
    addition, from NumPy's PCG64 stream for ``(ROUNDING_STREAM, seed)``: a
    stream of its own, because draws equal to the ones that made the inputs
    (same seed) would be correlated with them and bias every rounding.  See
    :func:`fpsum.rounding.stochastic_round` for overflow, NaN and -0.

    The result is :func:`fpsum.rounding.stochastic_round` applied once per
    input, bit for bit; up to FP32 it is computed a run of inputs at a time
    (:func:`_stochastic_runs`).
    """
    _check(values, fmt)
    n = values.shape[-1]
    rows = values.reshape(-1, n)
    # RUN_LIMIT more steps' draws at the end are drawn and never used: a run may reach past the last input.
    draws = _draws_by_trial(np.random.default_rng([ROUNDING_STREAM, seed]), n + RUN_LIMIT, rows.shape[0])
    totals = _stochastic_runs(rows, fmt, draws) if fmt.precision <= 24 else _stochastic_steps(rows, fmt, draws)
    return totals.astype(fmt.dtype).reshape(values.shape)


def _draws_by_trial(rng: np.random.Generator, steps: int, trials: int) -> np.ndarray:
    """``rng.random((steps, trials)).T``, the draws for each step, trial after trial, stored by trial.

    Drawn a block of steps at a time and each block transposed while it is in
    cache, which is faster than transposing the whole; NumPy fills an array
    row after row from one stream, so the blocks are the same draws.
    """
    by_trial = np.empty((trials, steps))
    for begin in range(0, steps, DRAW_BLOCK):
        block = rng.random((min(DRAW_BLOCK, steps - begin), trials))
        by_trial[:, begin:begin + len(block)] = block.T
    return by_trial


def _stochastic_steps(rows: np.ndarray, fmt: Format, draws: np.ndarray) -> np.ndarray:
    """Stochastic running totals (float64) along ``rows`` (trials of ``fmt``), a :func:`stochastic_round` per input."""
    totals = np.empty(rows.shape)
    s = np.zeros(rows.shape[0], dtype=fmt.dtype)
    for i in range(rows.shape[1]):
        s = stochastic_round(s.astype(np.float64), rows[:, i].astype(np.float64), fmt, draws[:, i])
        totals[:, i] = s
    return totals


def _stochastic_runs(rows: np.ndarray, fmt: Format, draws: np.ndarray) -> np.ndarray:
    """Stochastic running totals (float32) along ``rows`` (trials of ``fmt``, FP32 or narrower), a run at a time.

    Each trial keeps its own place and total.  :func:`fpsum.rounding.stochastic_run`
    rounds the next inputs as if the sums stayed in the binade of the first
    one, all at once, and says how many totals that got right; a trial moves
    on by that many, or by one step of :func:`fpsum.rounding.stochastic_round`
    where it got none.  The runs lengthen while trials use them whole and
    shorten when totals wander across binades, between ``RUN_MIN`` and
    ``RUN_LIMIT``.  The same bits as :func:`_stochastic_steps`: the same
    draw for the same step, the same rounding.
    """
    trials, n = rows.shape
    inputs = np.zeros((trials, n + RUN_LIMIT), dtype=rows.dtype)  # padded, so that a run may reach past the end
    inputs[:, :n] = rows
    totals = np.empty(inputs.shape, dtype=np.float32)  # holds every value of FP32 and narrower exactly
    # [trial, step, :k]: the k inputs, draws or totals from that step on (views, no copies).  The inputs'
    # windows are over their bits, as sliding_window_view does not keep ml_dtypes' types.
    input_runs = sliding_window_view(inputs.view(f"u{inputs.itemsize}"), RUN_LIMIT, axis=1)
    draw_runs = sliding_window_view(draws, RUN_LIMIT, axis=1)
    total_runs = sliding_window_view(totals, RUN_LIMIT, axis=1, writeable=True)
    going = np.arange(trials)  # the trials not yet at the end ...
    at = np.zeros(trials, dtype=np.int64)  # ... the step each has reached ...
    s = np.zeros(trials)  # ... and its total so far
    width = RUN_MIN
    while going.size:
        x = input_runs[going, at, :width].view(rows.dtype).astype(np.float64)
        u = draw_runs[going, at, :width]
        run, held = stochastic_run(s, x, u, fmt)
        alone = held == 0  # the first sum overflows, is NaN or inf, or float64 rounds it: the reference step
        if alone.any():
            run[alone, 0] = stochastic_round(s[alone], x[alone, 0], fmt, u[alone, 0])
            held[alone] = 1
        with np.errstate(over="ignore"):  # totals that do not hold may lie beyond float32; later runs write over them
            total_runs[going, at, :width] = run
        s = run[np.arange(going.size), held - 1]
        at += held
        width = min(RUN_LIMIT, max(RUN_MIN, 2 * int(held.mean())))
        left = at < n
        going, at, s = going[left], at[left], s[left]
    return totals[:, :n]


RUNNING: dict[Method, Callable[[np.ndarray, Format], np.ndarray]] = {
    "naive": naive_running,
    "wide": wide_running,
    "kahan": kahan_running,
    "neumaier": neumaier_running,
    "pairwise": pairwise_running,
    "correct": correct_running,
}


def running_totals(
    method: Method, values: np.ndarray, fmt: Format, *, block: int = DEFAULT_BLOCK, seed: int = 0,
    folds: int = DEFAULT_FOLDS,
) -> np.ndarray:
    """Running totals of ``method`` (see the module docstring).

    ``block`` is used by ``blocked`` only, ``seed`` by ``stochastic`` only,
    ``folds`` (K) by ``sumk`` only (``sumtwo`` is SumK with K = 2).
    ``ValueError`` for an unknown method, a block size below 1 or K below 1.
    NaN, inf and -0.0 are handled by each method as its docstring says.
    """
    if method == "blocked":
        return blocked_running(values, fmt, block)
    if method == "stochastic":
        return stochastic_running(values, fmt, seed)
    if method in ("sumtwo", "sumk"):
        return sum_k_running(values, fmt, 2 if method == "sumtwo" else folds)
    try:
        run = RUNNING[method]
    except KeyError:
        raise ValueError(f"unknown method {method!r} (known: {', '.join(METHODS)})") from None
    return run(values, fmt)


def total(method: Method, values: np.ndarray, fmt: Format, *, block: int = DEFAULT_BLOCK, seed: int = 0,
          folds: int = DEFAULT_FOLDS) -> np.ndarray:
    """The final sum of ``method`` over the last axis (shape ``values.shape[:-1]``).

    The same value as the last running total; pairwise, blocked, Sum2, SumK
    and the correctly rounded sum are computed directly, which is cheaper than
    every prefix.  NaN, inf and -0.0 as in the running version of the method.
    """
    if method == "pairwise":
        return pairwise_sum(values, fmt)
    if method == "blocked":
        return blocked_sum(values, fmt, block)
    if method in ("sumtwo", "sumk"):
        return sum_k(values, fmt, 2 if method == "sumtwo" else folds)
    if method == "correct":
        return correct_sum(values, fmt)
    return running_totals(method, values, fmt, block=block, seed=seed, folds=folds)[..., -1]
