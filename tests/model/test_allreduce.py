"""The all-reduce model against an exact-rational reference written here, the ring's orders by hand, and the
numbers issue 42 quotes (PR #8561's running loss, Lightning #18620's 256 + 1, pre-divide's 1/3 in BF16).

The reference shares nothing with the model: every value is a Fraction, every rounding is
:func:`nearest` below (round to nearest, ties to even, overflow to inf), and each algorithm is the
issue's definition written as a plain loop.
"""

from __future__ import annotations

import inspect
import itertools
import math
import re
from collections.abc import Sequence
from fractions import Fraction
from types import ModuleType

import numpy as np
import pytest

from fpsum import allreduce as allreduce_module
from fpsum import training_sums
from fpsum.allreduce import ALGORITHMS, AVERAGES, allreduce, check_accumulator, reduce_ranks, ring_orders
from fpsum.array_rounding import to_format
from fpsum.formats import BF16, FP16, FP32, FP64, Format
from fpsum.training_sums import logged_loss, microbatch_allreduce, running_loss

WIRE_AND_ACCUMULATE = [(BF16, BF16), (BF16, FP32), (BF16, FP64), (FP16, FP16), (FP16, FP32), (FP32, FP32), (FP32, FP64)]
RANK_COUNTS = [1, 2, 3, 4, 5, 7, 8, 12, 16, 33]


def nearest(x: Fraction | float, fmt: Format) -> Fraction | float:
    """``x`` rounded to ``fmt``: nearest, ties to even, +-inf beyond the largest finite value (IEEE formats only)."""
    if isinstance(x, float) and not math.isfinite(x):
        return x
    x = Fraction(x)
    if x == 0:
        return Fraction(0)
    magnitude = abs(x)
    exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()  # floor(log2), or one more
    if Fraction(2) ** exponent > magnitude:
        exponent -= 1
    exponent = max(exponent, fmt.emin)  # the binade of |x|, no lower than the normal range's
    quantum = Fraction(2) ** (exponent - fmt.precision + 1)
    steps, rest = divmod(magnitude, quantum)
    count = int(steps) + (1 if rest > quantum / 2 or (rest == quantum / 2 and steps % 2 == 1) else 0)
    rounded = count * quantum
    if rounded > Fraction(fmt.max_finite):
        return math.inf if x > 0 else -math.inf
    return rounded if x > 0 else -rounded


def add(a: Fraction | float, b: Fraction | float, fmt: Format) -> Fraction | float:
    if isinstance(a, float) or isinstance(b, float):  # an infinity
        return a + b
    return nearest(a + b, fmt)


def hop(a: Fraction | float, b: Fraction | float, wire: Format, acc: Format) -> Fraction | float:
    """Added in the accumulation format, the sum rounded to the wire to be sent on."""
    return nearest(add(a, b, acc), wire)  # type: ignore[arg-type]


def ref_ring(values: Sequence[Fraction], wire: Format, acc: Format, chunk: int, step: int = 1) -> Fraction | float:
    n = len(values)
    rank = (chunk + step) % n
    partial: Fraction | float = values[rank]
    for _ in range(n - 1):
        rank = (rank + step) % n  # the next rank on the ring receives and adds its own value
        partial = hop(partial, values[rank], wire, acc)
    assert rank == chunk  # the chunk's owner adds last
    return partial


def ref_tree(values: Sequence[Fraction], wire: Format, acc: Format) -> Fraction | float:
    if len(values) == 1:
        return values[0]
    left = 1
    while 2 * left < len(values):
        left *= 2
    return hop(ref_tree(values[:left], wire, acc), ref_tree(values[left:], wire, acc), wire, acc)


def ref_alltoall(values: Sequence[Fraction], wire: Format, acc: Format) -> Fraction | float:
    total: Fraction | float = values[0]
    for v in values[1:]:
        total = add(total, v, acc)
    return nearest(total, wire)  # type: ignore[arg-type]


def ref_switch(values: Sequence[Fraction], wire: Format) -> Fraction | float:
    return nearest(sum(values, Fraction(0)), wire)


def reference(values: Sequence[Fraction], algorithm: str, wire: Format, acc: Format, average: str,
              chunk: int) -> Fraction | float:
    n = len(values)
    if average == "pre":
        scale = nearest(Fraction(1, n), wire)
        values = [nearest(v * scale, wire) for v in values]  # type: ignore[operator,misc]
    result = {"ring": lambda: ref_ring(values, wire, acc, chunk), "tree": lambda: ref_tree(values, wire, acc),
              "alltoall": lambda: ref_alltoall(values, wire, acc),
              "switch": lambda: ref_switch(values, wire)}[algorithm]()
    if average == "post" and not isinstance(result, float):
        result = nearest(result / n, wire)
    return result


def seeded(rows: int, n: int, wire: Format, seed: int) -> np.ndarray:
    """Gradient-like values of mixed signs and magnitudes (2**-6 to 2**6), in the wire format."""
    rng = np.random.default_rng(seed)
    wide = rng.normal(size=(rows, n)) * np.exp2(rng.integers(-6, 7, size=(rows, n)))
    return to_format(wide, wire)


@pytest.mark.parametrize(("wire", "acc"), WIRE_AND_ACCUMULATE, ids=lambda f: f.name)
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_algorithm_matches_the_exact_reference(algorithm: str, wire: Format, acc: Format) -> None:
    for n in RANK_COUNTS:
        values = seeded(20, n, wire, seed=n)
        chunks = np.arange(20) % n
        for average in AVERAGES:
            got = reduce_ranks(values, algorithm, wire, acc, average, chunks)  # type: ignore[arg-type]
            for row, chunk, result in zip(values.astype(np.float64), chunks.tolist(), got.astype(np.float64)):
                expected = reference([Fraction(v) for v in row], algorithm, wire, acc, average, chunk)
                assert result == expected, (algorithm, average, n, chunk, row)


# The rule by hand for N = 4: chunk c starts at rank (c + 1) mod 4, and each hop's receiver adds its own.
HAND_ORDERS = {
    0: (1, 2, 3, 0),  # rank 1 sends v1; rank 2 adds v2; rank 3 adds v3; rank 0 adds v0 and holds chunk 0
    1: (2, 3, 0, 1),  # rank 2 sends v2; rank 3 adds v3; rank 0 adds v0; rank 1 adds v1 and holds chunk 1
    2: (3, 0, 1, 2),  # rank 3 sends v3; rank 0 adds v0; rank 1 adds v1; rank 2 adds v2 and holds chunk 2
    3: (0, 1, 2, 3),  # rank 0 sends v0; rank 1 adds v1; rank 2 adds v2; rank 3 adds v3 and holds chunk 3
}
# v = (256, 1, 1, 1) in BF16 (ulp 2 from 256 to 512), the sums by hand:
HAND_RESULTS = {
    0: 260.0,  # 1 + 1 = 2, + 1 = 3, + 256 = 259: a tie between 258 and 260, to the even 260
    1: 260.0,  # 1 + 1 = 2, + 256 = 258, + 1 = 259: the same tie, 260
    2: 256.0,  # 1 + 256 = 257: a tie, to 256; + 1 = 257 -> 256; + 1 -> 256
    3: 256.0,  # 256 + 1 -> 256, three times
}


@pytest.mark.parametrize("chunk", range(4))
def test_the_ring_orders_for_four_ranks_by_hand(chunk: int) -> None:
    reduction = allreduce([256, 1, 1, 1], "ring", BF16, chunk=chunk)
    assert reduction.order == HAND_ORDERS[chunk]
    assert tuple(ring_orders(4, chunk).tolist()) == HAND_ORDERS[chunk]
    assert reduction.result == HAND_RESULTS[chunk]
    assert reduction.exact == 259


# The ring the other way round (gloo's): chunk c starts at rank (c - 1) mod 4 and goes down to rank c.
HAND_ORDERS_DOWN = {0: (3, 2, 1, 0), 1: (0, 3, 2, 1), 2: (1, 0, 3, 2), 3: (2, 1, 0, 3)}


@pytest.mark.parametrize("chunk", range(4))
def test_the_ring_down_for_four_ranks_by_hand(chunk: int) -> None:
    assert tuple(ring_orders(4, chunk, direction=-1).tolist()) == HAND_ORDERS_DOWN[chunk]
    values = to_format(np.array([[256.0, 1.0, 1.0, 1.0]]), BF16)
    # by hand: chunk 0 adds 1 + 1 + 1 + 256 = 259 -> 260; chunk 1: 256 + 1 -> 256, then 256 each time;
    # chunk 2: 1 + 256 -> 256, + 1, + 1 -> 256; chunk 3: 1 + 1 = 2, + 256 = 258, + 1 = 259 -> 260
    expected = {0: 260.0, 1: 256.0, 2: 256.0, 3: 260.0}[chunk]
    assert float(reduce_ranks(values, "ring", BF16, chunk=chunk, direction=-1)[0]) == expected
    for wire, acc in WIRE_AND_ACCUMULATE:
        rows = seeded(20, 7, wire, seed=chunk)
        got = reduce_ranks(rows, "ring", wire, acc, chunk=chunk, direction=-1).astype(np.float64)
        for row, result in zip(rows.astype(np.float64), got):
            assert result == ref_ring([Fraction(v) for v in row], wire, acc, chunk, step=-1)
    with pytest.raises(ValueError, match="up"):
        ring_orders(4, 0, direction=2)


def test_orders_of_many_chunks_at_once_and_bad_chunks() -> None:
    orders = ring_orders(4, np.array([[0, 1], [2, 3]]))
    assert orders.shape == (2, 2, 4)
    assert [tuple(o) for o in orders.reshape(4, 4).tolist()] == [HAND_ORDERS[c] for c in range(4)]
    for bad in (-1, 4):
        with pytest.raises(ValueError, match="between 0 and 3"):
            ring_orders(4, bad)
        with pytest.raises(ValueError, match="between 0 and 3"):
            allreduce([1, 2, 3, 4], "tree", BF16, chunk=bad)


def test_an_accumulator_narrower_than_the_wire_is_refused() -> None:
    check_accumulator(BF16, FP32)
    for wire, acc in ((FP16, BF16), (BF16, FP16), (FP32, BF16), (FP32, FP16)):
        with pytest.raises(ValueError, match="narrower"):
            check_accumulator(wire, acc)
        with pytest.raises(ValueError, match="narrower"):
            reduce_ranks(to_format(np.ones(3), wire), "alltoall", wire, acc)


def test_pre_divide_rounds_a_third_in_bf16_to_0_333984375() -> None:
    """1/3 in BF16 is 171/512 = 0.333984375, 1/512 = 0.195 % high; one rank holding 1 shows it."""
    reduction = allreduce([1, 0, 0], "ring", BF16, average="pre")
    assert reduction.result == 0.333984375
    assert reduction.exact == Fraction(1, 3)
    assert reduction.rel_error == 1 / 512
    post = allreduce([1, 0, 0], "ring", BF16, average="post")
    assert post.result == 0.333984375  # here one rounding of 1/3 either way


@pytest.mark.parametrize("wire", [BF16, FP16, FP32])
def test_pre_divide_is_exact_for_powers_of_two_only(wire: Format) -> None:
    for n in range(1, 65):
        reduction = allreduce([1] + [0] * (n - 1), "alltoall", wire, average="pre")
        power = n & (n - 1) == 0
        assert (reduction.rel_error == 0) == power, n
        assert (reduction.result == 1 / n) == power, n


def test_lightning_18620_256_plus_1_is_256_in_bf16() -> None:
    assert float(running_loss(np.array([256.0, 1.0]), BF16)[-1]) == 256
    for chunk in (0, 1):
        assert allreduce([256, 1], "ring", BF16, chunk=chunk).result == 256
    assert allreduce([256, 1], "alltoall", BF16, FP32).result == 256  # 257 rounds to BF16 at the end: a tie, to 256
    assert allreduce([256, 1, 1], "alltoall", BF16, FP32).result == 258  # 258 is a BF16 value


def test_pr_8561_the_bf16_running_loss_reads_904_1704_2960_then_4096_for_good() -> None:
    """A loss of 10 a step in BF16: 904, 1,704 and 2,960 after 100, 200 and 300 steps, then 4,096 from step 371 on."""
    totals = running_loss(np.full(10_000, 10.0), BF16).astype(np.float64)
    assert [totals[99], totals[199], totals[299]] == [904, 1704, 2960]
    assert totals[369] < 4096 and np.all(totals[370:] == 4096)  # from step 371 to step 10,000
    # For good: at 4,096 BF16's gap is 32, and 10 is less than half of it.
    assert float(running_loss(np.array([4096.0, 10.0]), BF16)[-1]) == 4096
    fp32 = running_loss(np.full(1_000, 10.0), FP32).astype(np.float64)
    assert fp32[99] == 1000 and fp32[-1] == 10_000


def test_the_logged_loss_restarts_the_sum_at_each_log() -> None:
    """PR #8561's fix: every 100 steps the BF16 part (904) is added to a float64 total; the reference by hand."""
    totals = logged_loss(np.full(1_000, 10.0), BF16, every=100)
    part = Fraction(0)
    for _ in range(100):
        part = nearest(part + 10, BF16)  # type: ignore[assignment]
    assert part == 904
    assert totals.tolist() == [904.0 * k for k in range(1, 11)]
    with pytest.raises(ValueError):
        logged_loss(np.ones(3), BF16, every=0)


@pytest.mark.parametrize(("wire", "acc"), [(BF16, BF16), (BF16, FP32), (FP16, FP32), (FP32, FP32)],
                         ids=lambda f: f.name)
def test_micro_batches_are_summed_in_the_accumulator_then_reduced(wire: Format, acc: Format) -> None:
    rng = np.random.default_rng(7)
    grads = to_format(rng.normal(size=(3, 5, 9)) * 0.01, acc)  # 3 elements, 5 ranks, 9 micro-batches
    for algorithm in ALGORITHMS:
        got = microbatch_allreduce(grads, algorithm, wire, acc, "post", chunk=np.array([0, 2, 4]))
        for element, chunk in zip(range(3), (0, 2, 4)):
            per_rank = []
            for rank in range(5):
                total = Fraction(float(grads[element, rank, 0]))
                for g in grads[element, rank, 1:].astype(np.float64):
                    total = nearest(total + Fraction(g), acc)  # type: ignore[assignment]
                per_rank.append(nearest(total, wire))
            expected = reference(per_rank, algorithm, wire, acc, "post", chunk)  # type: ignore[arg-type]
            assert float(got[element]) == expected, (algorithm, element)


def test_fp32_accumulation_changes_nothing_in_a_bf16_ring_but_does_in_an_alltoall() -> None:
    """NCCL's maintainer in nvidia/nccl#1026: with BF16 on the wire, adding in FP32 at each hop changes nothing.

    Two BF16 values differ in exponent by so much that their sum is inexact in FP32 only when the smaller is far
    below half a BF16 ulp of the larger; the all-to-all keeps FP32 across every addition, so there it matters.
    """
    values = seeded(2_000, 16, BF16, seed=3)
    chunks = np.arange(2_000) % 16
    ring_bf16 = reduce_ranks(values, "ring", BF16, BF16, chunk=chunks)
    ring_fp32 = reduce_ranks(values, "ring", BF16, FP32, chunk=chunks)
    assert np.array_equal(ring_bf16, ring_fp32)
    tree_bf16, tree_fp32 = (reduce_ranks(values, "tree", BF16, acc) for acc in (BF16, FP32))
    assert np.array_equal(tree_bf16, tree_fp32)
    alltoall_bf16, alltoall_fp32 = (reduce_ranks(values, "alltoall", BF16, acc) for acc in (BF16, FP32))
    assert not np.array_equal(alltoall_bf16, alltoall_fp32)


def test_special_values_and_bad_arguments() -> None:
    with pytest.raises(ValueError, match="finite"):
        allreduce([1.0, math.inf], "ring", BF16)
    with pytest.raises(TypeError):
        reduce_ranks(np.ones(3), "ring", BF16)
    with pytest.raises(ValueError, match="at least one rank"):
        reduce_ranks(to_format(np.ones((2, 0)), BF16), "ring", BF16)
    with pytest.raises(ValueError, match="unknown algorithm"):
        reduce_ranks(to_format(np.ones(3), BF16), "star", BF16)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown averaging"):
        reduce_ranks(to_format(np.ones(3), BF16), "ring", BF16, average="mean")  # type: ignore[arg-type]
    overflow = allreduce([60_000, 60_000], "ring", FP16)
    assert overflow.result == math.inf and overflow.rel_error == math.inf
    negative_zeros = to_format(np.array([-0.0, -0.0, -0.0]), FP16)
    for algorithm in ALGORITHMS:
        assert np.signbit(reduce_ranks(negative_zeros, algorithm, FP16)), algorithm
    nan = to_format(np.array([1.0, math.nan, 2.0]), FP16)
    for algorithm, acc in itertools.product(ALGORITHMS, (FP16, FP32)):
        assert np.isnan(reduce_ranks(nan, algorithm, FP16, acc)), algorithm


@pytest.mark.parametrize("module", [allreduce_module, training_sums], ids=lambda m: m.__name__)
def test_public_functions_state_their_nan_inf_and_signed_zero_behaviour(module: ModuleType) -> None:
    """As test_docstrings.py asks of the other modules of the model."""
    public = [name for name, obj in vars(module).items()
              if not name.startswith("_") and inspect.isfunction(obj) and obj.__module__ == module.__name__]
    missing = [name for name in public if not re.search(r"NaN|\binf|-0", inspect.getdoc(getattr(module, name)) or "")]
    assert public and not missing, missing
