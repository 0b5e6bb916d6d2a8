"""The race, the exact sums and the inputs, against exact Fraction arithmetic and the slow references."""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import reference
from fpsum import textbook
from fpsum.array_rounding import to_format
from fpsum.exact import exact_running, exact_sum, exact_total
from fpsum.exact_rounding import round_exact
from fpsum.formats import BF16, E4M3, E5M2, FP16, FP32, Format, get_format
from fpsum.inputs import DRAW_BLOCK, INPUT_KINDS, input_blocks, make_inputs
from fpsum.race import RACE_N, Race, run_race
from reference import assert_same_bits, from_floats

SEEDS = (0, 1, 2, 3)


def ids(fmt: Format) -> str:
    return fmt.name


@functools.cache
def race(fmt_name: str, kind: str, seed: int) -> Race:
    return run_race(get_format(fmt_name), kind, seed=seed)  # type: ignore[arg-type]


@functools.cache
def inputs(fmt_name: str, kind: str, seed: int, n: int = RACE_N) -> tuple[float, ...]:
    return tuple(make_inputs(kind, n, get_format(fmt_name), seed).astype(np.float64).tolist())  # type: ignore[arg-type]


@functools.cache
def fraction_sum(xs: tuple[float, ...]) -> Fraction:
    return reference.exact_total(xs)


@functools.cache
def fraction_abs_sum(xs: tuple[float, ...]) -> Fraction:
    return reference.exact_total(abs(x) for x in xs)


# --- the race -------------------------------------------------------------------


def test_race_length() -> None:
    assert RACE_N == 8192


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", ["uniform", "ones"])
@pytest.mark.parametrize("fmt", [FP16, BF16, E4M3, E5M2], ids=ids)
def test_naive_ends_at_the_stall_point(fmt: Format, kind: str, seed: int) -> None:
    """2**p: FP16 2048, BF16 256, E4M3 16, E5M2 8, far below the true total of about 4096 or 8192."""
    result = race(fmt.name, kind, seed)
    assert result.final["naive"] == 2.0**fmt.precision
    assert float(fraction_sum(inputs(fmt.name, kind, seed))) > 1.5 * 2.0**fmt.precision


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", ["uniform", "ones"])
@pytest.mark.parametrize("fmt", [FP16, BF16], ids=ids)
def test_naive_stall_step(fmt: Format, kind: str, seed: int) -> None:
    """The stall is the count at which the reference running total first reaches 2**p and stays."""
    xs = inputs(fmt.name, kind, seed)
    running = textbook.naive(xs, fmt)
    stall = 2.0**fmt.precision
    first = running.index(stall)
    assert all(s == stall for s in running[first:])
    assert all(s < stall for s in running[:first])
    result = race(fmt.name, kind, seed)
    assert result.stalls["naive"] == first + 1
    if kind == "ones":
        assert result.stalls["naive"] == 2**fmt.precision  # 1 + 1 + ... is exact up to 2**p
    step = list(result.steps).index(first + 1)  # the stall step is always sampled
    assert result.totals["naive"][step] == stall and result.totals["naive"][step - 1] < stall


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("fmt", [FP16, BF16], ids=ids)
def test_the_fixes_do_not_stall(fmt: Format, seed: int) -> None:
    """An FP32 accumulator cannot freeze with a sum of more than one FP16/BF16 ulp still to come:
    every later input would have to be below 2**-11, and 8,192 of those add up to less than 4.
    """
    result = race(fmt.name, "uniform", seed)
    assert result.stalls["wide"] is None


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("fmt", [FP16, BF16], ids=ids)
def test_kahan_within_one_ulp_of_exact(fmt: Format, seed: int) -> None:
    exact = fraction_sum(inputs(fmt.name, "uniform", seed))
    kahan = race(fmt.name, "uniform", seed).final["kahan"]
    assert abs(Fraction(kahan) - exact) <= Fraction(fmt.ulp(float(exact)))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", ["uniform", "normal"])
@pytest.mark.parametrize("fmt", [FP16, BF16, E4M3, E5M2], ids=ids)
def test_wide_within_worst_case_bound(fmt: Format, kind: str, seed: int) -> None:
    """|FP32 running total - exact| <= (n - 1) u sum|x_i|, u = 2**-24."""
    xs = inputs(fmt.name, kind, seed)
    exact = fraction_sum(xs)
    bound = (len(xs) - 1) * Fraction(1, 2**24) * fraction_abs_sum(xs)
    wide = race(fmt.name, kind, seed).final["wide"]
    assert abs(Fraction(wide) - exact) <= bound


@pytest.mark.parametrize("kind", ["uniform", "ones", "normal"])
@pytest.mark.parametrize("fmt", [FP16, BF16], ids=ids)
def test_race_exact_and_sampled_totals(fmt: Format, kind: str) -> None:
    """exact_final and the sampled exact totals are the Fraction sums rounded to float64;
    the sampled totals of each method are the references' running totals at those steps.
    """
    seed = 0
    xs = inputs(fmt.name, kind, seed)
    result = race(fmt.name, kind, seed)
    prefixes = reference.exact_prefix_sums(xs)
    assert result.exact_final == float(prefixes[-1])
    steps = result.steps.tolist()
    assert steps == sorted(set(steps)) and steps[0] == 1 and steps[-1] == RACE_N
    assert {s for s in result.stalls.values() if s is not None} <= set(steps)
    np.testing.assert_array_equal(result.exact, [float(prefixes[s - 1]) for s in steps])
    for method in ("naive", "wide", "kahan"):
        want = reference.RUNNING[method](xs, fmt)
        np.testing.assert_array_equal(result.totals[method], [want[s - 1] for s in steps], err_msg=method)
        assert result.final[method] == want[-1]
    pairwise = reference.pairwise_prefixes(xs, fmt, steps)
    np.testing.assert_array_equal(result.totals["pairwise"], pairwise)
    assert result.final["pairwise"] == pairwise[-1]


def test_race_small_n_and_errors() -> None:
    one = run_race(FP16, "uniform", n=1)
    assert one.steps.tolist() == [1] and one.exact_final == one.final["naive"]
    assert all(s is None for s in one.stalls.values())
    two = run_race(BF16, "ones", n=2, samples=1)
    assert two.steps.tolist() == [1, 2] and two.final["pairwise"] == 2.0
    with pytest.raises(ValueError, match="samples"):
        run_race(FP16, "uniform", samples=0)
    with pytest.raises(ValueError, match="n must be at least 1"):
        run_race(FP16, "uniform", n=0)


# --- exact sums --------------------------------------------------------------------


def fraction_running(rows: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Prefix sums of each row at the counts ``at``, as Fractions rounded once to float64."""
    flat = rows.reshape(-1, rows.shape[-1]).astype(np.float64)
    out = [[float(p[c - 1]) for c in at.tolist()] for p in map(reference.exact_prefix_sums, flat.tolist())]
    return np.array(out).reshape(rows.shape[:-1] + (at.size,))


def random_counts(n: int, rng: np.random.Generator) -> np.ndarray:
    return np.unique(np.concatenate([[1, n], rng.integers(1, n, 30, endpoint=True)]))


def signed_log_uniform(size: int, low: float, high: float, rng: np.random.Generator) -> np.ndarray:
    """Magnitudes 2**uniform(low, high), random signs."""
    return np.where(rng.integers(0, 2, size) == 1, -1.0, 1.0) * 2.0 ** rng.uniform(low, high, size)


@pytest.mark.parametrize("fmt", [FP16, BF16, E4M3, E5M2, FP32], ids=ids)
@pytest.mark.parametrize("shape", [(500,), (3, 400), (2, 2, 300)])
def test_exact_running_in_the_format_range(fmt: Format, shape: tuple[int, ...]) -> None:
    """Normal values times 8, both signs: exact prefix sums rounded once to float64, any leading axes."""
    rng = np.random.default_rng([5, fmt.bits, fmt.precision, len(shape)])
    values = from_floats([round_exact(v, fmt) for v in (rng.standard_normal(math.prod(shape)) * 8).tolist()], fmt)
    values = values.reshape(shape)
    at = random_counts(shape[-1], rng)
    got = exact_running(values, at)
    assert got.shape == shape[:-1] + (at.size,)
    assert_same_bits(got, fraction_running(values, at))


@pytest.mark.parametrize("shape", [(300,), (2, 150)])
@pytest.mark.parametrize(("fmt", "low", "high"), [(BF16, -100, 100), (FP32, -120, 120), (BF16, -133, 127)])
def test_exact_running_wide_range(fmt: Format, low: int, high: int, shape: tuple[int, ...]) -> None:
    """Values from 2**-100 to 2**100 (and BF16's whole range, subnormals included): the exact sums
    need hundreds of bits, far beyond any int64 or float64 shortcut.
    """
    rng = np.random.default_rng([11, fmt.bits, -low])
    drawn = signed_log_uniform(math.prod(shape), low, high, rng)
    values = from_floats([round_exact(v, fmt) for v in drawn.tolist()], fmt).reshape(shape)
    at = random_counts(shape[-1], rng)
    assert_same_bits(exact_running(values, at), fraction_running(values, at))


@pytest.mark.parametrize(
    "values",
    [
        [2.0**59, 2.0**59, 2.0**59, 1.0],  # 3 * 2**59 + 1 needs 62 bits: rounds
        [2.0**60, 2.0**60, 2.0**60, 1.0],
        [2.0**53, 1.0, 2.0, 1.0],  # 2**53 + 1 is a float64 tie: to even
        [1.0, 2.0**-60, -1.0, 2.0**-70],
        [1.0, 2.0**-50, -1.0, 2.0**-55],
        [0.0, -0.0, 1.0],
        [1.0, 2.0**-53, 2.0**-53, 2.0**-53, -1.0],
        # A float64 tie (1 + 2**-53) broken by a far smaller term: rounding twice gets it wrong.
        [1.0, 2.0**-53, 2.0**-160],
        [1.0, 2.0**-53, -(2.0**-160)],
        [1.0 + 2.0**-52, 2.0**-53, -(2.0**-300)],
        [2.0**-1074, 2.0**-1074, 1.0],  # float64 subnormals
        [2.0**-1000 * (1 + 2.0**-52), 1.0, -1.0],
        [2.0**1023 * 1.5, -(2.0**1023), 2.0**-1074],  # near the top of float64, and its bottom
        [1.7976931348623157e308, -1.7976931348623157e308, 1.0],
    ],
)
def test_exact_running_float64_edges(values: list[float]) -> None:
    array = np.array(values)
    at = np.arange(1, array.size + 1)
    assert_same_bits(exact_running(array, at), fraction_running(array, at))


@pytest.mark.parametrize("values", [np.zeros(3, dtype=np.float16), np.array([[0.0, -0.0], [0.0, 0.0]])])
def test_exact_running_all_zeros(values: np.ndarray) -> None:
    """Every value zero (the digit-level sum then has no level at all): zeros, not an error."""
    at = np.arange(1, values.shape[-1] + 1)
    got = exact_running(values, at)
    assert got.shape == values.shape[:-1] + (at.size,)
    assert np.all(got == 0)


@pytest.mark.parametrize(
    "values",
    [
        from_floats([1.0, 2.0**-53, 2.0**-130], FP32),  # a float64 tie, broken far below
        np.array([2.0**53, 1.0]),  # a tie: to even
        np.array([[1.0 + 2.0**-52, 2.0**-53], [0.5, -0.5]]),  # a tie to even, upwards; every value counts
        np.random.default_rng(17).random(5000).astype(np.float16),
        np.random.default_rng(18).standard_normal(3000).astype(ml_dtypes.bfloat16),
        np.random.default_rng(19).random(700).astype(ml_dtypes.float8_e4m3fn),
        np.array([1.7976931348623157e308, -1.7976931348623157e308, 2.0**-1074]),
    ],
    ids=["tie-below", "tie-even", "tie-up-2d", "fp16", "bf16", "e4m3", "fp64-extremes"],
)
def test_exact_total_is_the_exact_sum_rounded_once(values: np.ndarray) -> None:
    """The float the figures quote as the exact sum: the Fraction of exact_sum, rounded to nearest (ties to even)."""
    expected = float(exact_sum(values))
    got = exact_total(values)
    assert np.float64(got).view(np.uint64) == np.float64(expected).view(np.uint64), (got, expected)


def test_exact_total_of_nothing_is_zero_and_of_nan_an_error() -> None:
    assert exact_total(np.zeros(0, dtype=np.float16)) == 0.0
    with pytest.raises(ValueError):
        exact_total(np.array([1.0, np.nan]))


@pytest.mark.parametrize("fmt", [BF16, FP32], ids=ids)
def test_exact_running_tie_broken_far_below(fmt: Format) -> None:
    """The same trap in a narrow format's own dtype: 1 + 2**-53 + 2**-130."""
    values = from_floats([1.0, 2.0**-53, 2.0**-130, -(2.0**-130), 2.0**-130], fmt)
    at = np.arange(1, 6)
    assert_same_bits(exact_running(values, at), fraction_running(values, at))
    assert exact_running(values, at)[2] == 1 + 2.0**-52


def test_exact_running_float64_random_extremes() -> None:
    rng = np.random.default_rng(13)
    values = signed_log_uniform(200, -1074, 1000, rng) * (1 + rng.random(200))
    at = random_counts(200, rng)
    assert_same_bits(exact_running(values, at), fraction_running(values, at))


@pytest.mark.parametrize("block", [1, 7, 64])
@pytest.mark.parametrize(("fmt", "low", "high"),
                         [(FP16, -26, 15), (BF16, -133, 10), (FP32, -149, -100), (FP32, -100, 100)])
def test_exact_running_block_by_block(fmt: Format, low: int, high: int, block: int,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Mixed binades, subnormals, both signs and zeros (-0.0 too), walked in column blocks of any width:
    one level (FP16) to six (FP32 from 2**-100 to 2**100), each level's sums carried from block to
    block, give the Fraction prefix sums rounded once, at every count and at a few.
    """
    monkeypatch.setattr("fpsum.exact.EXACT_BLOCK", block)
    rng = np.random.default_rng([23, fmt.bits, -low, block])
    drawn = signed_log_uniform(300, low, high, rng)
    drawn[rng.integers(0, 300, 20)] = 0.0
    drawn[rng.integers(0, 300, 20)] = -0.0
    values = from_floats([round_exact(v, fmt) for v in drawn.tolist()], fmt).reshape(2, 150)
    every = np.arange(1, 151)
    assert_same_bits(exact_running(values, every), fraction_running(values, every))
    at = random_counts(150, rng)
    assert_same_bits(exact_running(values, at), fraction_running(values, at))


def test_exact_running_long_sums_past_2_to_the_24() -> None:
    """2**24 + 2**20 + 3 FP32 inputs, a pattern of 1,000 values repeated: magnitudes from 2**-60 to 2**10
    (four float64 levels at this length), both signs, zeros.  The Fraction prefix sums are then
    whole patterns times the pattern's sum, plus a prefix of the pattern.
    """
    rng = np.random.default_rng(29)
    pattern = [round_exact(v, FP32) for v in signed_log_uniform(1000, -60, 10, rng).tolist()]
    pattern[::97] = [0.0] * len(pattern[::97])
    n = 2**24 + 2**20 + 3
    values = np.resize(from_floats(pattern, FP32), n)  # the pattern repeated
    at = np.array([1, 999, 1000, 1001, 2**24 - 1, 2**24, 2**24 + 1, n - 1, n])
    prefixes = reference.exact_prefix_sums(pattern)
    want = [float(c // 1000 * prefixes[-1] + (prefixes[c % 1000 - 1] if c % 1000 else 0)) for c in at.tolist()]
    assert_same_bits(exact_running(values, at), np.array(want))


@pytest.mark.parametrize("special", [np.nan, np.inf, -np.inf])
def test_exact_running_finds_a_special_value_in_any_block(special: float, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("fpsum.exact.EXACT_BLOCK", 4)
    values = np.ones((2, 50), dtype=np.float32)
    values[1, 37] = special
    with pytest.raises(ValueError, match="finite"):
        exact_running(values, np.array([1]))


@pytest.mark.parametrize("fmt", [FP16, BF16, FP32], ids=ids)
def test_exact_running_counts_in_any_order(fmt: Format) -> None:
    """``at`` need not be sorted or distinct: each entry is answered where it stands."""
    rng = np.random.default_rng(17)
    values = from_floats([round_exact(v, fmt) for v in signed_log_uniform(60, -20, 14, rng).tolist()], fmt)
    at = np.array([60, 1, 7, 7, 60, 2, 31, 1])
    assert_same_bits(exact_running(values, at), fraction_running(values, at))
    assert exact_running(values, np.array([], dtype=np.int64)).shape == (0,)


def test_exact_running_errors() -> None:
    values = np.ones(5, dtype=np.float16)
    for bad in ([0], [6], [1, 7]):
        with pytest.raises(ValueError, match="between 1 and n"):
            exact_running(values, np.array(bad))
    for special in (np.inf, np.nan):
        with pytest.raises(ValueError, match="finite"):
            exact_running(np.array([1.0, special]), np.array([1]))
        with pytest.raises(ValueError, match="finite"):
            exact_sum(np.array([1.0, special]))


def test_exact_sum() -> None:
    values = make_inputs("normal", 1000, BF16, seed=4, trials=2)
    assert exact_sum(values) == fraction_sum(tuple(values.astype(np.float64).ravel().tolist()))
    assert exact_sum(np.array([2.0**100, 1.0, -(2.0**100)])) == 1
    assert isinstance(exact_sum(np.zeros(3)), Fraction)


# --- inputs -----------------------------------------------------------------------


@pytest.mark.parametrize("fmt", [FP16, BF16, E4M3, E5M2, FP32], ids=ids)
@pytest.mark.parametrize("kind", ["uniform", "normal", "symmetric"])
def test_inputs_are_the_seeded_draws_rounded_once(fmt: Format, kind: str) -> None:
    values = make_inputs(kind, 400, fmt, seed=9, trials=3)  # type: ignore[arg-type]
    assert values.dtype == fmt.dtype and values.shape == (3, 400)
    rng = np.random.default_rng(9)
    draw = {"uniform": lambda: rng.random((3, 400)), "normal": lambda: rng.standard_normal((3, 400)),
            "symmetric": lambda: 2.0 * rng.random((3, 400)) - 1.0}[kind]
    # round_exact keeps the sign of a negative draw that rounds to zero; the inputs never hold -0.0.
    want = from_floats([round_exact(v, fmt) + 0.0 for v in draw().ravel().tolist()], fmt).reshape(3, 400)
    assert_same_bits(values, want)
    assert_same_bits(make_inputs(kind, 400, fmt, seed=9, trials=3), values)  # type: ignore[arg-type]
    assert np.all(np.isfinite(values.astype(np.float64)))
    assert not np.any((values.astype(np.float64) == 0) & np.signbit(values.astype(np.float64)))


def one_draw(kind: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Every float64 draw of ``make_inputs`` at once, straight from the definitions of the kinds."""
    rng = np.random.default_rng(seed)
    draws = {"uniform": lambda: rng.random(shape), "ones": lambda: np.ones(shape),
             "normal": lambda: rng.standard_normal(shape), "squares": lambda: rng.random(shape) ** 2,
             "exp": lambda: np.exp(-3.0 * rng.random(shape)), "symmetric": lambda: 2.0 * rng.random(shape) - 1.0}
    drawn: np.ndarray = draws[kind]()
    return drawn


@pytest.mark.parametrize("block", [64, None])
@pytest.mark.parametrize("fmt", [FP16, BF16, E4M3, FP32], ids=ids)
@pytest.mark.parametrize("kind", INPUT_KINDS)
def test_inputs_drawn_block_by_block_are_one_draw(kind: str, fmt: Format, block: int | None,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 64 values (straddling the rows) or of the default size (just past one): the stream
    drawn in consecutive pieces gives the values of one draw, rounded once, -0.0 made +0.0.
    """
    if block is not None:
        monkeypatch.setattr("fpsum.inputs.DRAW_BLOCK", block)
    n = 1000 if block is not None else DRAW_BLOCK + 5
    values = make_inputs(kind, n, fmt, seed=31, trials=3)  # type: ignore[arg-type]
    assert_same_bits(values, to_format(one_draw(kind, (3, n), 31), fmt) + np.zeros((), dtype=fmt.dtype))


@pytest.mark.parametrize("block", [1, 5, 4096])
def test_input_blocks_are_one_draw_in_pieces(block: int) -> None:
    values = make_inputs("normal", 10_000, BF16, seed=3)
    pieces = list(input_blocks("normal", 10_000, BF16, 3, block))
    assert all(p.size == block for p in pieces[:-1]) and 1 <= pieces[-1].size <= block
    assert_same_bits(np.concatenate(pieces), values)
    with pytest.raises(ValueError, match="at least 1"):
        next(input_blocks("normal", 10, BF16, 3, 0))


@pytest.mark.parametrize("kind", ["normal", "symmetric"])
def test_tiny_negative_draws_become_plus_zero(kind: str) -> None:
    """In E4M3 a million draws hold hundreds below half the smallest subnormal: +0.0, never -0.0."""
    drawn = make_inputs(kind, 10**6, E4M3, seed=1).astype(np.float64)  # type: ignore[arg-type]
    zeros = drawn == 0
    assert zeros.sum() > 100  # about half of them negative draws
    assert not np.any(zeros & np.signbit(drawn))


@pytest.mark.parametrize("fmt", [FP16, BF16, E4M3, E5M2, FP32], ids=ids)
def test_inputs_are_rounded_once_at_scale(fmt: Format) -> None:
    """2**20 uniform draws: the inputs are ``to_format`` of the seeded draws (``to_format`` is held to
    ``round_exact`` in test_rounding.py).  In BF16 such a sample holds draws that rounding twice,
    through float32, gets wrong, so this tells a direct ml_dtypes cast apart.
    """
    n = 2**20
    draws = np.random.default_rng(12).random(n)
    values = make_inputs("uniform", n, fmt, seed=12)
    assert_same_bits(values, to_format(draws, fmt))
    if fmt is BF16:
        assert np.count_nonzero(values != draws.astype(BF16.dtype)) > 0


def test_inputs_kinds() -> None:
    uniform = make_inputs("uniform", 10_000, FP16, seed=1).astype(np.float64)
    assert uniform.shape == (10_000,)
    assert uniform.min() >= 0 and uniform.max() <= 1
    assert np.all(make_inputs("ones", 10, BF16, seed=3).astype(np.float64) == 1)
    normal = make_inputs("normal", 1000, FP16, seed=1).astype(np.float64)
    assert (normal < 0).any() and (normal > 0).any()
    assert not np.array_equal(make_inputs("uniform", 100, FP16, seed=1), make_inputs("uniform", 100, FP16, seed=2))


def test_inputs_errors() -> None:
    with pytest.raises(ValueError, match="n must be at least 1"):
        make_inputs("uniform", 0, FP16)
    with pytest.raises(ValueError, match="trials must be at least 1"):
        make_inputs("uniform", 5, FP16, trials=0)
    with pytest.raises(ValueError, match="unknown input kind 'gaussian'"):
        make_inputs("gaussian", 5, FP16)  # type: ignore[arg-type]


def test_fp32_stall_point_by_arithmetic() -> None:
    """FP32's stall, 2**24, by its own arithmetic rather than by a 2**25-term race."""
    assert FP32.stall_point == 2.0**24
    assert float(np.float32(2.0**24) + np.float32(1.0)) == 2.0**24
    assert round_exact(2**24 + 1, FP32) == 2.0**24
