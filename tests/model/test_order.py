"""The order of a sum: permuted, sorted and tree-reduced totals against slow scalar references, bit for bit.

The references are the textbook loops (:mod:`fpsum.textbook`, one
``add_exact`` at a time) run on Python lists in the order under test, and a
two-loop tree reduction written from its definition.  Then the claims: the
order matters for uniform FP16 inputs and cannot matter when every partial
sum is exact.
"""

from __future__ import annotations

import inspect
import math
import re

import numpy as np
import pytest

import reference
from fpsum import order, textbook
from fpsum.array_rounding import to_format
from fpsum.exact_rounding import add_exact
from fpsum.formats import BF16, E4M3, FP16, FP32, Format
from fpsum.inputs import make_inputs
from fpsum.methods import total
from fpsum.names import METHODS, Method
from fpsum.order import random_orders, shuffled_totals, sorted_totals, totals_in_orders, tree_reduction
from fpsum.pairwise import pairwise_sum
from reference import assert_every_case, assert_same_bits, from_floats

FORMATS: tuple[Format, ...] = (FP16, BF16)
# Scalar references for a whole sum in a given order.
SCALAR: dict[str, reference.Running] = {m: reference.RUNNING[m] for m in ("naive", "kahan", "neumaier", "wide")}


def ids(fmt: Format) -> str:
    return fmt.name


def scalar_total(method: str, xs: list[float], fmt: Format) -> float:
    if method == "pairwise":
        return textbook.pairwise(xs, fmt)
    return SCALAR[method](xs, fmt)[-1]


def output_format(method: str, fmt: Format) -> Format:
    return reference.wide_accumulator(fmt) if method == "wide" else fmt


def mixed(fmt: Format, n: int, seed: int) -> np.ndarray:
    """Both signs, magnitudes over 2**-6 .. 2**6: sums that round and cancel."""
    rng = np.random.default_rng([seed, n, fmt.precision])
    return to_format(rng.standard_normal(n) * np.ldexp(1.0, rng.integers(-6, 7, n)), fmt)


# --- permutations ---------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_identity_order_is_the_plain_total(method: Method) -> None:
    values = mixed(FP16, 300, 1)
    identity = np.arange(values.size)[np.newaxis]
    got = totals_in_orders(values, identity, FP16, method, seed=5)
    assert got.shape == (1,)
    assert_same_bits(got, np.asarray(total(method, values, FP16, seed=5))[np.newaxis])


@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_every_shuffled_total_matches_the_reference(fmt: Format) -> None:
    """Every method and length: each of 25 seeded orders' total, bit for bit."""

    def check(n: int, method: str) -> None:
        values = mixed(fmt, n, 2)
        got = shuffled_totals(values, fmt, orders=25, seed=7, method=method)  # type: ignore[arg-type]
        assert got.shape == (25,)
        xs = values.astype(np.float64)
        want = [scalar_total(method, xs[p].tolist(), fmt) for p in random_orders(n, 25, 7)]
        assert_same_bits(got, from_floats(want, output_format(method, fmt)))

    assert_every_case(check, [1, 2, 3, 7, 16, 33], ["naive", "kahan", "neumaier", "wide", "pairwise"])


def test_random_orders_are_seeded_permutations() -> None:
    orders = random_orders(50, 40, seed=3)
    assert orders.shape == (40, 50) and orders.dtype == np.int64
    assert np.all(np.sort(orders, axis=1) == np.arange(50))
    assert len({tuple(row) for row in orders.tolist()}) == 40
    np.testing.assert_array_equal(orders, random_orders(50, 40, seed=3))
    assert not np.array_equal(orders, random_orders(50, 40, seed=4))


def test_orders_are_not_drawn_from_the_inputs_stream() -> None:
    """With the inputs' own stream, the first "random" order would be the inputs sorted by value."""
    values = make_inputs("uniform", 200, FP32, seed=3)
    same_stream = np.argsort(np.random.default_rng(3).random(200))
    assert np.array_equal(np.argsort(values.astype(np.float64)[same_stream]), np.arange(200))  # the trap
    assert not np.all(np.diff(values[random_orders(200, 1, seed=3)[0]]) >= 0)


# --- sorted orders ---------------------------------------------------------------------


@pytest.mark.parametrize("method", ["naive", "kahan", "pairwise"])
@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_sorted_totals_match_the_reference(fmt: Format, method: Method) -> None:
    values = mixed(fmt, 200, 3)
    xs = values.astype(np.float64).tolist()
    want = {
        "ascending": sorted(xs),
        "descending": sorted(xs, reverse=True),
        "ascending_magnitude": sorted(xs, key=abs),
        "descending_magnitude": sorted(xs, key=abs, reverse=True),
    }
    got = sorted_totals(values, fmt, method)
    assert list(got) == list(want)
    for key, ordered in want.items():
        assert got[key] == scalar_total(method, ordered, fmt), key


def test_sorted_totals_of_ties_and_specials() -> None:
    values = from_floats([1.0, -0.0, 0.0, -1.0, 2.0, -2.0], FP16)
    got = sorted_totals(values, FP16)
    assert all(v == 0.0 and not math.copysign(1, v) < 0 for v in got.values())
    with_nan = from_floats([1.0, math.nan, 2.0], FP16)
    assert all(math.isnan(v) for v in sorted_totals(with_nan, FP16).values())


# --- the tree reduction ----------------------------------------------------------------


def reference_tree(xs: list[float], fmt: Format, workers: int) -> float:
    """Worker t adds xs[t], xs[t + workers], ... one at a time; then the pairwise sum of the partials."""
    partials = []
    for t in range(workers):
        s = xs[t]
        for x in xs[t + workers::workers]:
            s = add_exact(s, x, fmt)
        partials.append(s)
    return textbook.pairwise(partials, fmt)


@pytest.mark.parametrize("n", [1, 5, 64, 100, 257])
@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_tree_reduction_matches_the_reference(fmt: Format, n: int) -> None:
    values = np.stack([mixed(fmt, n, 4), make_inputs("uniform", n, fmt, seed=4)])
    for workers in sorted({1, 2, 3, 4, 7, 8, 32, n // 2 or 1, n - 1 or 1, n} & set(range(1, n + 1))):
        got = tree_reduction(values, fmt, workers)
        assert got.shape == (2,) and got.dtype == fmt.dtype
        want = [reference_tree(row, fmt, workers) for row in values.astype(np.float64).tolist()]
        assert_same_bits(got, from_floats(want, fmt))


def test_tree_reduction_at_the_ends() -> None:
    """One worker is the naive sum; n workers, the pairwise sum; leading axes are independent."""
    values = make_inputs("uniform", 4096, FP16, seed=1, trials=3)
    assert_same_bits(tree_reduction(values, FP16, 1), np.asarray(total("naive", values, FP16)))
    assert_same_bits(tree_reduction(values, FP16, 4096), np.asarray(pairwise_sum(values, FP16)))
    exact = float(values[0].astype(np.float64).sum())
    assert abs(float(tree_reduction(values[0], FP16, 1)) - exact) > 8  # one worker nears the stall at 2048
    assert abs(float(tree_reduction(values[0], FP16, 256)) - exact) < 2  # 256 short sums and a tree do not
    for index in range(3):
        assert_same_bits(tree_reduction(values, FP16, 96)[index:index + 1],
                         np.asarray(tree_reduction(values[index], FP16, 96))[np.newaxis])


def test_tree_reduction_special_values() -> None:
    zeros = from_floats([-0.0] * 7, BF16)
    assert all(np.signbit(float(tree_reduction(zeros, BF16, w))) for w in range(1, 8))
    assert float(tree_reduction(from_floats([65504.0, 65504.0, -1.0], FP16), FP16, 2)) == math.inf
    assert math.isnan(float(tree_reduction(from_floats([math.inf, 1.0, -math.inf], FP16), FP16, 2)))
    assert math.isnan(float(tree_reduction(from_floats([448.0, 448.0], E4M3), E4M3, 2)))


def test_bad_arguments() -> None:
    values = make_inputs("uniform", 10, FP16)
    for workers in (0, 11):
        with pytest.raises(ValueError, match="between 1 and n"):
            tree_reduction(values, FP16, workers)
    with pytest.raises(TypeError, match="expected float16"):
        tree_reduction(values.astype(np.float32), FP16, 2)
    with pytest.raises(ValueError, match="1-D"):
        shuffled_totals(values.reshape(2, 5), FP16, 3, 0)
    with pytest.raises(TypeError, match="for BF16"):
        sorted_totals(values, BF16)
    with pytest.raises(ValueError, match="shape"):
        totals_in_orders(values, np.arange(9)[np.newaxis], FP16)
    with pytest.raises(ValueError, match="at least 1"):
        random_orders(10, 0, 0)


# --- the claims -----------------------------------------------------------------------


def test_order_changes_the_fp16_total_of_uniform_inputs() -> None:
    values = make_inputs("uniform", 4096, FP16, seed=0)
    totals = shuffled_totals(values, FP16, orders=200, seed=0).astype(np.float64)
    assert totals.max() > totals.min()
    assert np.unique(totals).size > 5
    trees = {float(tree_reduction(values, FP16, w)) for w in (1, 32, 256, 1024)}
    assert len(trees) > 1


@pytest.mark.parametrize("method", ["naive", "kahan", "pairwise", "neumaier"])
def test_order_cannot_matter_when_every_partial_sum_is_exact(method: Method) -> None:
    """Inputs in {-1, 0, 1} with at most 2048 of either sign: every partial sum is an integer FP16 holds."""
    rng = np.random.default_rng(6)
    values = from_floats(rng.choice([-1.0, 0.0, 0.0, 1.0], 4096).tolist(), FP16)
    assert max((values == 1).sum(), (values == -1).sum()) <= 2048
    exact = float(values.astype(np.float64).sum())
    totals = shuffled_totals(values, FP16, orders=100, seed=1, method=method).astype(np.float64)
    assert np.all(totals == exact)
    assert all(float(tree_reduction(values, FP16, w)) == exact for w in (1, 3, 32, 256, 4096))
    assert set(sorted_totals(values, FP16, method).values()) == {exact}


def test_public_functions_state_their_nan_inf_and_signed_zero_behaviour() -> None:
    """As test_docstrings.py asks of the other model modules."""
    public = [obj for name, obj in vars(order).items()
              if not name.startswith("_") and inspect.isfunction(obj) and obj.__module__ == order.__name__]
    assert public
    assert all(re.search(r"NaN|\binf|-0", inspect.getdoc(f) or "") for f in public)
