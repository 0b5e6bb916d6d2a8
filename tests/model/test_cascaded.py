"""TwoSum, VecSum, Sum2, SumK and the correctly rounded sum against slow exact references, bit for bit.

The model vectorises (``np.add.accumulate`` per VecSum pass, every step's
error at once, shared and trailing parts of every prefix; digits carried and
rounded to odd for the correctly rounded sum); the references are the
textbook loops of ``fpsum.textbook`` (one ``add_exact`` at a time) run on
every prefix on its own, and the exact rational sum of every prefix rounded
once.  They must agree on every running total in every format, NaN, inf
and -0.0 included.
"""

from __future__ import annotations

import itertools
import math
import sys
from fractions import Fraction

import numpy as np
import pytest

import reference
from fpsum.array_rounding import to_format
from fpsum.cascaded import sum_k, sum_k_running, two_sum, vec_sum
from fpsum.correct import correct_running, correct_sum
from fpsum.exact_rounding import round_exact
from fpsum.formats import BF16, E4M3, E5M2, FP16, FP32, FP64, Format
from fpsum.methods import running_totals, total
from fpsum.names import Method
from fpsum.textbook import correctly_rounded
from fpsum.textbook import sub as textbook_sub
from fpsum.textbook import sum_k as textbook_sum_k
from fpsum.textbook import two_sum as textbook_two_sum
from fpsum.textbook import vec_sum as textbook_vec_sum
from reference import (
    KINDS,
    NEW_FORMATS,
    TRIALS,
    as_bits,
    assert_every_case,
    assert_same_bits,
    cached_values,
    from_floats,
    make_values,
)

FORMATS: tuple[Format, ...] = (FP16, BF16, E4M3, E5M2, FP32, FP64, *NEW_FORMATS)
NEW: tuple[Method, ...] = ("sumtwo", "sumk", "correct")

pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")


def ids(fmt: Format) -> str:
    return fmt.name


def rows_of(values: np.ndarray) -> list[list[float]]:
    with np.errstate(invalid="ignore"):
        rows: list[list[float]] = values.reshape(-1, values.shape[-1]).astype(np.float64).tolist()
    return rows


def reference_running(method: str, values: np.ndarray, fmt: Format, folds: int = 3) -> np.ndarray:
    """The reference's running totals, row by row, in the format's dtype."""
    if method == "sumk":
        totals = [reference.sum_k_prefixes(row, fmt, folds) for row in rows_of(values)]
    else:
        totals = [reference.CASCADED[method](row, fmt) for row in rows_of(values)]
    return from_floats(totals, fmt).reshape(values.shape)


# ---------------------------------------------------------------- the running totals and the totals


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_running_totals_match_the_textbook(fmt: Format, kind: str) -> None:
    """Every method, every length (1 to 40): the running totals, bit for bit."""

    def check(n: int, method: Method) -> None:
        values = cached_values(fmt.name, kind, n)
        got = running_totals(method, values, fmt)
        assert got.shape == values.shape and got.dtype == fmt.dtype
        assert_same_bits(got, reference_running(method, values, fmt), values)

    assert_every_case(check, (1, 2, 3, 4, 5, 8, 13, 40), NEW)


@pytest.mark.parametrize("kind", ("mixed", "cancel", "specials", "codes"))
@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_sum_k_running_matches_for_every_k(fmt: Format, kind: str) -> None:
    """Prefixes shorter than K, equal to K and longer: the shared and trailing parts line up for every K."""

    def check(n: int, folds: int) -> None:
        values = cached_values(fmt.name, kind, n)
        assert_same_bits(sum_k_running(values, fmt, folds), reference_running("sumk", values, fmt, folds), values)

    assert_every_case(check, (1, 3, 4, 5, 6, 9, 33), (1, 2, 4, 5))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_totals_match_the_textbook(fmt: Format, kind: str) -> None:
    """Every method, lengths 1 to 257: the totals, bit for bit, and the last running total is the total."""

    def check(n: int, method: Method) -> None:
        values = cached_values(fmt.name, kind, n)
        got = np.asarray(total(method, values, fmt))
        assert got.shape == (TRIALS,)
        if method == "correct":
            want = [correctly_rounded(row, fmt) for row in rows_of(values)]
        else:
            want = [textbook_sum_k(row, fmt, 2 if method == "sumtwo" else 3) for row in rows_of(values)]
        assert_same_bits(got, from_floats(want, fmt))
        assert_same_bits(got, running_totals(method, values, fmt)[..., -1])

    assert_every_case(check, (1, 2, 7, 64, 100, 257), NEW)


@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
@pytest.mark.parametrize("kind", ("mixed", "cancel", "specials", "codes"))
def test_vec_sum_is_the_textbook_pass_and_keeps_the_exact_sum(fmt: Format, kind: str) -> None:
    values = cached_values(fmt.name, kind, 40)
    got = vec_sum(values, fmt)
    want = from_floats([textbook_vec_sum(row, fmt) for row in rows_of(values)], fmt)
    assert_same_bits(got, want, values)
    for row, out in zip(rows_of(values), rows_of(got)):
        if all(math.isfinite(v) for v in row + out):
            assert sum(map(Fraction, out), Fraction(0)) == sum(map(Fraction, row), Fraction(0))


@pytest.mark.parametrize("fmt", [E4M3, E5M2], ids=ids)
def test_two_sum_is_exact_for_every_pair_of_an_fp8_format(fmt: Format) -> None:
    """Exhaustive: all 256 x 256 pairs agree with the textbook; s + e = a + b wherever e is finite.

    The sum of two FP8 values is exact in float64 (multiples of the smallest
    subnormal below 2**17: at most 33 bits), so s + e = a + b is checked there.
    A finite s with a NaN e comes from an intermediate that overflowed.
    """
    codes = np.arange(256, dtype=np.uint8).view(fmt.dtype)
    a, b = (m.ravel() for m in np.meshgrid(codes, codes))
    s, e = two_sum(a, b)
    want = [textbook_two_sum(x, y, fmt) for x, y in zip(a.astype(np.float64).tolist(), b.astype(np.float64).tolist())]
    assert_same_bits(s, from_floats([w[0] for w in want], fmt), a, b)
    assert_same_bits(e, from_floats([w[1] for w in want], fmt), a, b)
    a64, b64, s64, e64 = (v.astype(np.float64) for v in (a, b, s, e))
    finite = np.isfinite(e64)
    assert np.all(s64[finite] + e64[finite] == a64[finite] + b64[finite])
    # Spurious overflow: s - a, what s took from b, rounds past the largest value (E5M2: 49152 + 12288).
    spurious = ~finite & np.isfinite(s64) & np.isfinite(a64) & np.isfinite(b64)
    for total_, x, y in zip(s64[spurious].tolist(), a64[spurious].tolist(), b64[spurious].tolist()):
        assert not math.isfinite(textbook_sub(total_, x, fmt)), (x, y)


@pytest.mark.parametrize("fmt", [FP16, BF16, FP32, FP64], ids=ids)
def test_two_sum_is_exact_on_random_pairs(fmt: Format) -> None:
    a = cached_values(fmt.name, "codes", 2000)[0]
    b = cached_values(fmt.name, "codes", 2000)[1]
    s, e = two_sum(a, b)
    for x, y, total_, error in zip(*(v.astype(np.float64).tolist() for v in (a, b, s, e))):
        if math.isfinite(total_):
            assert Fraction(total_) + Fraction(error) == Fraction(x) + Fraction(y), (x, y)
            assert (total_, error) == textbook_two_sum(x, y, fmt)


@pytest.mark.parametrize("method", NEW)
def test_leading_axes_are_independent_trials(method: Method) -> None:
    values = make_values(FP16, "mixed", (2, 3, 37), seed=7)
    got = running_totals(method, values, FP16)
    assert got.shape == values.shape
    for index in np.ndindex(values.shape[:-1]):
        assert_same_bits(running_totals(method, values[index], FP16), got[index])
    assert_same_bits(np.asarray(total(method, values, FP16)), got[..., -1])


def test_sum2_is_sumk_with_two_folds_and_one_fold_is_naive() -> None:
    values = cached_values("bf16", "cancel", 100)
    assert_same_bits(running_totals("sumtwo", values, BF16), running_totals("sumk", values, BF16, folds=2))
    assert_same_bits(running_totals("sumk", values, BF16, folds=1), running_totals("naive", values, BF16))
    assert_same_bits(np.asarray(total("sumk", values, BF16, folds=4)), sum_k(values, BF16, 4))


@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
@pytest.mark.parametrize("kind", ("uniform", "mixed", "cancel", "wide_range", "codes"))
def test_neumaier_is_sum2_bit_for_bit_where_nothing_overflows(fmt: Format, kind: str) -> None:
    """Neumaier's branch computes the same exact rounding error as TwoSum, and both add the errors naively.

    So the two give the same bits on every prefix of every row whose naive running sum stays finite (in FP4
    and FP6, which saturate instead of overflowing: stays below the largest value); the one exception is the
    sign of a zero: Neumaier's correction starts at +0, so -0.0 alone (or -0.0 + -0.0) comes out +0, where
    Sum2 keeps -0 (in FP4 and FP6, whose 16 and 64 codes make such prefixes common, the test meets them).
    """
    values = cached_values(fmt.name, kind, 257)
    if fmt.overflow == "saturate":
        values = values[..., :6]  # rows short enough that some never saturate
    with np.errstate(over="ignore", invalid="ignore"):
        naive = running_totals("naive", values, fmt).astype(np.float64)
        before = np.concatenate([np.zeros_like(naive[..., :1]), naive[..., :-1]], axis=-1)
        steps = before + values.astype(np.float64)  # each naive step's exact sum (exact in float64 here)
        finite = (np.isfinite(naive) & (np.abs(steps) <= fmt.max_finite)).all(axis=-1)
    assert finite.any() or kind not in ("uniform", "cancel")  # the others may overflow in every row
    neumaier, sum_two = (running_totals(m, values[finite], fmt).astype(np.float64) for m in ("neumaier", "sumtwo"))
    assert_same_bits(neumaier, np.where(sum_two == 0, neumaier, sum_two))  # a zero of either sign
    assert_same_bits(neumaier == 0, sum_two == 0)


# ---------------------------------------------------------------- the correctly rounded sum


@pytest.mark.parametrize(("fmt", "inputs", "want"), [
    (FP16, [2048.0, 1.0], 2048.0),                       # a tie, to even
    (FP16, [2050.0, 1.0], 2052.0),                       # a tie, to even (up)
    (FP16, [2048.0, 1.0, 2.0**-24], 2050.0),              # just above the tie
    (FP16, [2048.0, 1.0, -(2.0**-24)], 2048.0),           # just below it
    (BF16, [256.0, 1.0, 2.0**-60], 258.0),               # rounded through float64 first, a false tie
    (FP32, [2.0**24, 1.0, 2.0**-40], 2.0**24 + 2),       # the same in FP32
    (FP32, [-(2.0**24), -1.0, -(2.0**-40)], -(2.0**24) - 2),
    (E4M3, [16.0, 1.0, 2.0**-9], 18.0),
    (E5M2, [8.0, 1.0, 2.0**-16], 10.0),
    (FP64, [1.0, 2.0**-53, 2.0**-105], 1.0 + 2.0**-52),  # FP64: nearest once, not through fsum's partials
    (FP64, [2.0**1023, 2.0**1023, -(2.0**1023)], 2.0**1023),  # the partial sums overflow, the sum does not
    (FP16, [60000.0, 60000.0, -60000.0], 60000.0),
])
def test_ties_and_sticky_bits_round_once(fmt: Format, inputs: list[float], want: float) -> None:
    values = from_floats(inputs, fmt)
    assert float(correct_sum(values, fmt)) == want
    assert float(correct_running(values, fmt)[-1]) == want
    assert round_exact(sum(map(Fraction, inputs), Fraction(0)), fmt) == want


def test_rounding_twice_would_be_wrong_in_those_cases() -> None:
    """The trap the model avoids: the exact sum to float64 (math.fsum), then to the format, goes to the even side."""
    for fmt, inputs in ((BF16, [256.0, 1.0, 2.0**-60]), (FP32, [2.0**24, 1.0, 2.0**-40])):
        twice = float(to_format(np.array(math.fsum(inputs)), fmt))
        assert twice != float(correct_sum(from_floats(inputs, fmt), fmt))


@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_ties_in_bulk(fmt: Format) -> None:
    """Sums landing exactly halfway between neighbours, and a hair either side, at many scales."""
    rng = np.random.default_rng(fmt.bits)
    rows = []
    for _ in range(200):
        e = int(rng.integers(fmt.emin, max(min(fmt.emax, 60) - 2, fmt.emin + 1)))
        base = round_exact(Fraction(float(rng.uniform(1, 2))) * Fraction(2) ** e, fmt)
        half = fmt.ulp(base) / 2  # base + half is a tie unless half is below the smallest subnormal
        tiny = fmt.smallest_subnormal
        nudge = float(rng.choice([0.0, tiny, -tiny]))
        rows.append([base, half if half >= tiny else 0.0, nudge])
    values = from_floats(rows, fmt)
    want = [correctly_rounded(row, fmt) for row in rows_of(values)]
    assert_same_bits(correct_sum(values, fmt), from_floats(want, fmt), values)


def test_fp64_agrees_with_math_fsum() -> None:
    """For float64, math.fsum is correctly rounded (Shewchuk): the same bits, however much the sum cancels."""
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((200, 60)) * 2.0 ** rng.integers(-300, 300, (200, 60))
    xs[:, 30:50] = -xs[:, :20] * (1 + 2.0**-50)
    got = correct_sum(xs, FP64)
    assert_same_bits(got, np.array([math.fsum(row) for row in xs.tolist()]))


def test_fp64_overflow_and_subnormals() -> None:
    big = FP64.max_finite
    assert correct_sum(np.array([big, big]), FP64) == math.inf
    assert correct_sum(np.array([-big, -big, big / 2]), FP64) == -math.inf
    tiny = FP64.smallest_subnormal
    assert correct_sum(np.array([tiny, tiny, -tiny, 1.0, -1.0]), FP64) == tiny
    assert_same_bits(correct_running(np.array([big, big, -big]), FP64), np.array([big, math.inf, big]))


@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_special_cases(fmt: Format) -> None:
    nan = math.nan
    inf = math.inf if fmt.overflow == "inf" else nan
    negative_zero = -0.0 if fmt.signed_zero else 0.0  # the fnuz formats have no -0
    cases = [([-0.0], negative_zero), ([-0.0, -0.0], negative_zero), ([-0.0, 0.0], 0.0), ([1.0, -1.0], 0.0)]
    if fmt.overflow != "saturate":  # FP4 and FP6 hold no NaN
        cases.append(([nan, 1.0], nan))
    if fmt.overflow == "inf":
        cases += [([math.inf, 1.0], inf), ([-math.inf, 1.0], -inf), ([math.inf, -math.inf], nan)]
    for inputs, want in cases:
        got = float(correct_sum(from_floats([round_exact(v, fmt) for v in inputs], fmt), fmt))
        same = got == want and math.copysign(1, got) == math.copysign(1, want)
        assert same or (math.isnan(got) and math.isnan(want)), (inputs, got)
    over = [fmt.max_finite, fmt.max_finite]
    got = float(correct_sum(from_floats(over, fmt), fmt))
    assert {"inf": got == math.inf, "nan": math.isnan(got), "saturate": got == fmt.max_finite}[fmt.overflow]


# ---------------------------------------------------------------- error paths


@pytest.mark.parametrize("method", NEW)
def test_wrong_dtype_and_empty_inputs_are_refused(method: Method) -> None:
    with pytest.raises(TypeError, match="expected float16"):
        running_totals(method, np.ones(4, dtype=np.float32), FP16)
    with pytest.raises(TypeError, match="for BF16"):
        total(method, np.ones(4, dtype=np.float16), BF16)
    with pytest.raises(ValueError, match="at least one input"):
        running_totals(method, np.ones((3, 0), dtype=np.float16), FP16)


def test_k_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="K >= 1"):
        running_totals("sumk", np.ones(4, dtype=np.float16), FP16, folds=0)
    with pytest.raises(ValueError, match="K >= 1"):
        total("sumk", np.ones(4, dtype=np.float16), FP16, folds=0)


def test_inputs_are_not_written_to() -> None:
    values = cached_values("fp16", "mixed", 64)  # read-only: a write would raise
    before = as_bits(values).copy()
    for method in NEW:
        running_totals(method, values, FP16)
        total(method, values, FP16)
    assert np.array_equal(as_bits(values), before)


def test_every_pair_of_values_of_e5m2_sums_correctly() -> None:
    """Exhaustive over two-value sums of E5M2: correct_sum is the exact sum rounded once (finite pairs).

    The float64 sum of two E5M2 values is exact (multiples of 2**-16 below
    2**17), and -0.0 only for -0.0 + -0.0: the pairs with the same float64
    sum (bits) have the same exact sum and zero sign, so the reference
    rounds each distinct sum once.
    """
    codes = np.arange(256, dtype=np.uint8).view(E5M2.dtype)
    finite = codes[np.isfinite(codes.astype(np.float64))]
    pairs = np.array(list(itertools.product(finite.tolist(), repeat=2)))
    values = from_floats(pairs, E5M2)
    sums, which = np.unique((pairs[:, 0] + pairs[:, 1]).view(np.uint64), return_inverse=True)
    want = np.array([correctly_rounded([s], E5M2) for s in sums.view(np.float64).tolist()])[which.ravel()]
    assert_same_bits(correct_sum(values, E5M2), from_floats(want, E5M2), values)


# ---------------------------------------------------------------- the command line


def test_fpsum_sum_takes_the_new_methods_and_k(monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import json

    from fpsum.cli import main

    data = "1e20 1 -1e20 3e-5"
    for method, folds, want in (("sumtwo", 3, 1.0 + 3e-5), ("sumk", 1, 3e-5), ("sumk", 3, 1.0 + 3e-5),
                                ("correct", 3, 1.0 + 3e-5)):
        monkeypatch.setattr(sys, "stdin", io.StringIO(data))
        out = io.StringIO()
        assert main(["sum", "--format", "fp64", "--method", method, "--folds", str(folds), "--json"], out) == 0
        assert json.loads(out.getvalue())["result"] == want, (method, folds)
    monkeypatch.setattr(sys, "stdin", io.StringIO("1 2 3"))
    out = io.StringIO()
    assert main(["sum", "--format", "bf16", "--method", "sumk", "--folds", "4"], out) == 0
    assert "sumk (K = 4)" in out.getvalue()
    assert main(["sum", "--format", "bf16", "--method", "sumk", "--folds", "0"], io.StringIO()) == 2
