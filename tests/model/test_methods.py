"""The summation methods against the slow scalar references in ``reference.py``, bit for bit.

The model vectorises (``np.add.accumulate``, Kahan looped over inputs but
vectorised over trials, pairwise by binary digits of the prefix length); the
references do one ``add_exact`` at a time, straight from each method's
definition.  They must agree on every running total, for every prefix,
including NaN / inf / -0.0 outcomes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import pytest

import reference
from fpsum import textbook
from fpsum.formats import BF16, E4M3, E5M2, FP16, FP32, FP64, Format, get_format
from fpsum.methods import running_totals, total
from fpsum.naive import naive_at
from fpsum.names import METHOD_LABELS, METHODS, Method
from fpsum.pairwise import pairwise_at, pairwise_split, pairwise_sum
from reference import KINDS, TRIALS, assert_every_case, assert_same_bits, cached_values, from_floats, make_values

FORMATS: tuple[Format, ...] = (FP16, BF16, E4M3, E5M2, FP32, *reference.NEW_FORMATS)
LENGTHS = (1, 2, 3, 4, 5, 7, 8, 13, 64, 100, 257)
# The methods with a reference in reference.py (the model may have more).
CHECKED: tuple[Method, ...] = ("naive", "wide", "kahan", "neumaier", "pairwise")

pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")


def ids(fmt: Format) -> str:
    return fmt.name


def reference_running(method: str, values: np.ndarray, fmt: Format) -> np.ndarray:
    """The reference's running totals, row by row, in the model's output dtype."""
    out_fmt = reference.wide_accumulator(fmt) if method == "wide" else fmt
    rows = values.reshape(-1, values.shape[-1]).astype(np.float64).tolist()
    totals = [reference.RUNNING[method](row, fmt) for row in rows]
    return from_floats(totals, out_fmt).reshape(values.shape)


@functools.cache
def cached_reference(method: str, fmt_name: str, kind: str, n: int) -> np.ndarray:
    """``reference_running`` on ``cached_values(fmt_name, kind, n)``, computed once for every test that needs it."""
    want = reference_running(method, cached_values(fmt_name, kind, n), get_format(fmt_name))
    want.setflags(write=False)
    return want


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_running_totals_match_reference(fmt: Format, kind: str) -> None:
    """Every length and every method: the running totals, bit for bit."""

    def check(n: int, method: Method) -> None:
        values = cached_values(fmt.name, kind, n)
        got = running_totals(method, values, fmt)
        assert got.shape == values.shape
        assert_same_bits(got, cached_reference(method, fmt.name, kind, n))

    assert_every_case(check, LENGTHS, CHECKED)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_total_matches_reference(fmt: Format, kind: str) -> None:
    """The final sum, every method and length; for pairwise from the recursive ``pairwise_sum`` and the one-shot
    reference.
    """

    def check(n: int, method: Method) -> None:
        values = cached_values(fmt.name, kind, n)
        got = np.asarray(total(method, values, fmt))
        assert got.shape == (TRIALS,)
        if method == "pairwise":
            want = from_floats([textbook.pairwise(row, fmt) for row in values.astype(np.float64).tolist()], fmt)
        else:
            want = cached_reference(method, fmt.name, kind, n)[..., -1]  # the reference's last running total
        assert_same_bits(got, want)

    assert_every_case(check, (1, 2, 3, 4, 6, 8, 64, 100), CHECKED)


@pytest.mark.parametrize("fmt", (FP16, BF16, E4M3), ids=ids)
@pytest.mark.parametrize("kind", ("uniform", "cancel", "wide_range"))
def test_pairwise_running_is_pairwise_sum_of_every_prefix(fmt: Format, kind: str) -> None:
    """Model against model: ``pairwise_running[..., i-1] == pairwise_sum(values[..., :i])`` for all i."""
    values = cached_values(fmt.name, kind, 100)
    running = running_totals("pairwise", values, fmt)
    for i in range(1, values.shape[-1] + 1):
        assert_same_bits(running[..., i - 1], np.asarray(pairwise_sum(values[..., :i], fmt)))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_pairwise_at_is_the_reference_at_every_count(fmt: Format, kind: str) -> None:
    """``pairwise_at`` (one pyramid of pair sums for all counts) against the recursive definition, every
    prefix, NaN / inf / -0.0 included; then counts out of order, repeated, and on more leading axes.
    Lengths 1, 2, 3, 100 and 257.
    """

    def check(n: int) -> None:
        values = cached_values(fmt.name, kind, n)
        want = cached_reference("pairwise", fmt.name, kind, n)  # reference.pairwise_prefixes, row by row
        assert_same_bits(pairwise_at(values, fmt, np.arange(1, n + 1)), want)
        shuffled = np.array([n, 1, (n + 1) // 2, n, 1])
        assert_same_bits(pairwise_at(values, fmt, shuffled), want[:, shuffled - 1])
        stacked = np.stack([values, values[::-1]])
        assert_same_bits(pairwise_at(stacked, fmt, shuffled), np.stack([want, want[::-1]])[..., shuffled - 1])

    assert_every_case(check, (1, 2, 3, 100, 257))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_pairwise_at_in_chunks_of_any_size(fmt: Format, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks far smaller than the counts (1, 2, 8, 64): the digits below a chunk and above it still add up
    to the tree.
    """
    values = cached_values(fmt.name, kind, 257)
    want = cached_reference("pairwise", fmt.name, kind, 257)

    def check(chunk: int) -> None:
        monkeypatch.setattr("fpsum.pairwise.PAIRWISE_CHUNK", chunk)
        assert_same_bits(pairwise_at(values, fmt, np.arange(1, 258)), want)
        counts = np.array([257, 64, 1, 128, 65, 256, 64])
        assert_same_bits(pairwise_at(values, fmt, counts), want[:, counts - 1])

    assert_every_case(check, (1, 2, 8, 64))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_naive_at_carries_the_running_total_across_blocks(fmt: Format, kind: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """``naive_at`` in blocks of any size (1, 5, 64, 2**14; the first addition of a block is fl(total + x))
    gives the one-pass running totals bit for bit, NaN / inf / -0.0 included, at counts in any order.
    """
    values = cached_values(fmt.name, kind, 257)
    want = cached_reference("naive", fmt.name, kind, 257)  # textbook.naive, row by row

    def check(block: int) -> None:
        monkeypatch.setattr("fpsum.naive.NAIVE_BLOCK", block * TRIALS)
        assert_same_bits(naive_at(values, fmt, np.arange(1, 258)), want)
        counts = np.array([257, 1, 64, 65, 64, 2])
        assert_same_bits(naive_at(values, fmt, counts), want[:, counts - 1])
        assert_same_bits(naive_at(values[0], fmt, counts), want[0, counts - 1])

    assert_every_case(check, (1, 5, 64, 1 << 14))


@pytest.mark.parametrize("block", (1, 3, 64))
@pytest.mark.parametrize("fmt", (FP16, BF16, E4M3, E5M2), ids=ids)
def test_naive_at_skips_only_what_stalls(fmt: Format, block: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sum that stalls and moves again, in small blocks.  At S = 2**p the gap is 2 above and 1 below:
    ones are ties that round back (to even), 7/16 rounds back from either side, -1/2 is a tie that rounds
    back, -5/8 moves the sum to S - 1 (odd), where 1/2 is a tie that moves it back to S; then larger
    inputs, a total of the other sign, overflow and NaN.  A row of each sign; every total is the one-pass one.
    """
    monkeypatch.setattr("fpsum.naive.NAIVE_BLOCK", block * 2)
    stall = int(fmt.stall_point)
    pieces = [[1.0] * (stall + 9), [0.4375] * 40, [-0.4375] * 7, [-0.5] * 7, [-0.625], [0.4375] * 9, [0.5] * 3,
              [0.4375] * 9, [3.0] * 5, [0.4375] * 20, [-4.0 * stall] * 3, [0.4375] * 11, [fmt.max_finite] * 3,
              [0.4375] * 5, [np.nan], [0.4375] * 5]
    xs = [x for piece in pieces for x in piece]
    values = from_floats([xs, [-x for x in xs]], fmt)  # every input exact in the format
    want = from_floats([textbook.naive(row, fmt) for row in values.astype(np.float64).tolist()], fmt)
    every = np.arange(1, len(xs) + 1)
    assert_same_bits(naive_at(values, fmt, every), want, values)
    assert_same_bits(naive_at(values, fmt, every[::-7]), want[:, ::-7])
    zeros = from_floats([[-0.0] * 8 + [0.0] * 8], fmt)  # a total of -0.0 stays put for -0.0, not for +0.0
    assert_same_bits(naive_at(zeros, fmt, np.arange(1, 17)), running_totals("naive", zeros, fmt))


@pytest.mark.parametrize("at", (pairwise_at, naive_at))
def test_sums_at_counts_refuse_bad_counts(at: Callable[[np.ndarray, Format, np.ndarray], np.ndarray]) -> None:
    values = np.ones((2, 5), dtype=np.float16)
    for bad in ([0], [6], [1, 7]):
        with pytest.raises(ValueError, match="between 1 and n"):
            at(values, FP16, np.array(bad))
    with pytest.raises(TypeError, match="expected float16"):
        at(values.astype(np.float32), FP16, np.array([1]))
    assert at(values, FP16, np.array([], dtype=np.int64)).shape == (2, 0)


@pytest.mark.parametrize("method", CHECKED)
@pytest.mark.parametrize("fmt", (FP16, BF16, E5M2), ids=ids)
def test_leading_axes_are_independent_trials(fmt: Format, method: Method) -> None:
    """Shape (2, 3, n): every row is summed on its own, as if it were passed alone."""
    values = make_values(fmt, "mixed", (2, 3, 37), seed=7)
    got = running_totals(method, values, fmt)
    assert got.shape == values.shape
    assert_same_bits(got, reference_running(method, values, fmt))
    for index in np.ndindex(values.shape[:-1]):
        assert_same_bits(running_totals(method, values[index], fmt), got[index])
    final = np.asarray(total(method, values, fmt))
    assert final.shape == (2, 3)
    assert_same_bits(final, got[..., -1])


@pytest.mark.parametrize("method", CHECKED)
def test_one_dimensional_input(method: Method) -> None:
    values = make_values(FP16, "uniform", (50,), seed=3)
    got = running_totals(method, values, FP16)
    assert got.shape == (50,)
    assert_same_bits(got, reference_running(method, values, FP16))
    assert np.asarray(total(method, values, FP16)).shape == ()


def test_wide_accumulates_in_the_wider_format() -> None:
    for fmt in (FP16, BF16, E4M3, E5M2):
        assert running_totals("wide", make_values(fmt, "uniform", (4,), 0), fmt).dtype == np.float32
    assert running_totals("wide", make_values(FP32, "uniform", (4,), 0), FP32).dtype == np.float64


def test_all_ones_by_hand() -> None:
    """8,192 ones in FP16, worked out on paper: naive stops at 2048; the others are exact."""
    ones = np.ones(8192, dtype=np.float16)
    naive = running_totals("naive", ones, FP16).astype(np.float64)
    np.testing.assert_array_equal(naive[:2048], np.arange(1, 2049))
    assert np.all(naive[2048:] == 2048)
    assert float(total("wide", ones, FP16)) == 8192
    assert float(total("pairwise", ones, FP16)) == 8192
    assert float(total("kahan", ones, FP16)) == 8192


def test_pairwise_split_is_largest_power_of_two_below() -> None:
    for n in range(2, 5000):
        assert pairwise_split(n) == textbook.largest_power_of_two_below(n), n


def test_method_registry() -> None:
    assert set(CHECKED) <= set(METHODS)
    assert set(reference.RUNNING) == set(CHECKED)
    assert set(METHODS) | {"exact"} == set(METHOD_LABELS)


# --- error paths ----------------------------------------------------------------


@pytest.mark.parametrize("method", CHECKED)
def test_wrong_dtype_is_refused(method: Method) -> None:
    with pytest.raises(TypeError, match="expected float16"):
        running_totals(method, np.ones(4, dtype=np.float32), FP16)
    with pytest.raises(TypeError, match="for BF16"):
        total(method, np.ones(4, dtype=np.float16), BF16)


@pytest.mark.parametrize("method", CHECKED)
def test_empty_input_is_refused(method: Method) -> None:
    with pytest.raises(ValueError, match="at least one input"):
        running_totals(method, np.ones((3, 0), dtype=np.float16), FP16)


def test_unknown_method() -> None:
    values = np.ones(4, dtype=np.float16)
    with pytest.raises(ValueError, match="unknown method 'bogus'"):
        running_totals("bogus", values, FP16)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown method"):
        total("exact", values, FP16)  # type: ignore[arg-type]


def test_fp64_inputs() -> None:
    """The FP64 format works too (wide is then FP64 as well): a sanity check of the plumbing."""
    values = np.array([1.0, 2.0**-53, 2.0**-53, -1.0])
    assert_same_bits(running_totals("naive", values, FP64), np.array([1.0, 1.0, 1.0, 0.0]))
    assert_same_bits(running_totals("kahan", values, FP64), from_floats(textbook.kahan(values.tolist(), FP64), FP64))
