"""Weight updates: every storage method against a slow scalar reference, bit for bit, and the claims about them.

The reference does one operation at a time on Python floats: the exact sum
rounded once, to nearest with :func:`fpsum.exact_rounding.add_exact` (exact integer
arithmetic, held to NumPy's and ml_dtypes' additions in test_rounding.py and
to ``round_exact`` in test_add_rounded.py), or stochastically with
:func:`fpsum.exact_rounding.round_exact` of the Fraction sum and the same draws.
It shares nothing with the model but those scalar roundings and the seeded
draw stream.
"""

from __future__ import annotations

import inspect
import math
import re
from fractions import Fraction

import numpy as np
import pytest

from figures import weight_updates
from fpsum import updates
from fpsum.array_rounding import to_format
from fpsum.exact_rounding import add_exact, round_exact
from fpsum.formats import BF16, E4M3, E5M2, FP16, FP32, FP64, Format
from fpsum.names import UPDATE_METHODS, UpdateMethod
from fpsum.rounded_once import add_rounded
from fpsum.stochastic_rounding import stochastic_round_bits
from fpsum.stochastic_sum import ROUNDING_STREAM
from fpsum.updates import (
    bytes_per_weight,
    constant_updates,
    exact_trajectory,
    lost_below,
    noisy_updates,
    update_trajectory,
)
from reference import assert_same_bits

FORMATS: tuple[Format, ...] = (BF16, FP16)


def ids(fmt: Format) -> str:
    return fmt.name


# --- the reference: one operation at a time -------------------------------------------


def rn(a: float, b: float, fmt: Format) -> float:
    """``a + b`` rounded once to nearest; an exact zero is +0.0 unless both are -0.0 (finite operands)."""
    return add_exact(a, b, fmt)


def reference_weight(w0: float, steps: list[float], fmt: Format, method: str, draws: list[float]) -> list[float]:
    """One weight's stored value after each step, by the definition of ``method``."""
    w = round_exact(w0, fmt)
    c = 0.0
    m = round_exact(w0, FP32)
    out = []
    for u, draw in zip(steps, draws):
        if method == "nearest":
            w = rn(w, u, fmt)
        elif method == "kahan":
            y = rn(u, -c, fmt)                 # y = u - c
            t = rn(w, y, fmt)                  # t = w + y
            c = rn(rn(t, -w, fmt), -y, fmt)    # c = (t - w) - y
            w = t
        elif method == "stochastic":
            exact = Fraction(w) + Fraction(u)
            w = rn(w, u, fmt) if exact == 0 else round_exact(exact, fmt, "stochastic", uniform=draw)
        else:
            m = rn(m, u, FP32)
            w = round_exact(m, fmt)
        out.append(w)
    return out


def reference_trajectory(w0: np.ndarray, ups: np.ndarray, fmt: Format, method: str, seed: int) -> np.ndarray:
    """The reference for every weight of ``w0`` (1-D) and ``ups`` (steps, weights)."""
    draws = np.random.default_rng([ROUNDING_STREAM, seed]).random(ups.shape)
    columns = [
        reference_weight(float(w0[j]), ups[:, j].astype(np.float64).tolist(), fmt, method, draws[:, j].tolist())
        for j in range(ups.shape[1])
    ]
    return np.array(columns).T


def threshold_cases(fmt: Format, weights: int, steps: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Weights of a few binades, both signs (powers of two among them), and updates around their half-gap.

    Each weight gets its own scale: its own half-gap times 2**-4 .. 2**3, so
    most updates sit near the threshold where "nearest" loses them; signs
    are random step by step, with a drift, and a few are exact ties.
    """
    rng = np.random.default_rng([seed, fmt.precision])
    magnitude = np.ldexp(1.0 + rng.integers(0, 4, weights) * rng.random(weights), rng.integers(-6, 7, weights))
    w0 = np.where(rng.integers(0, 2, weights) == 1, -1.0, 1.0) * magnitude
    w0[:3] = [1.0, -2.0, 0.5]  # powers of two, where the gap below is half the gap above
    half = lost_below(w0, fmt, 1)
    scale = np.ldexp(rng.random((steps, weights)) + 0.5, rng.integers(-4, 4, (steps, weights)))
    drift = np.where(rng.random((steps, weights)) < 0.7, 1.0, -1.0) * np.where(rng.integers(0, 2, weights) == 1, -1, 1)
    ups = drift * half * scale
    ties = rng.random((steps, weights)) < 0.1
    ups = np.where(ties, drift * half * rng.integers(1, 4, (steps, weights)), ups)
    return w0, ups.astype(np.float32)


@pytest.mark.parametrize("method", UPDATE_METHODS)
@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_trajectory_matches_reference(fmt: Format, method: UpdateMethod) -> None:
    for seed in (1, 2, 3):
        w0, ups = threshold_cases(fmt, weights=12, steps=150, seed=seed)
        got = update_trajectory(w0, ups, fmt, method, seed=seed)
        assert got.shape == ups.shape and got.dtype == np.float64
        want = reference_trajectory(w0, ups, fmt, method, seed)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
        assert np.array_equal(got, got.astype(fmt.dtype).astype(np.float64))  # values of fmt


@pytest.mark.parametrize("method", UPDATE_METHODS)
def test_noisy_updates_match_reference(method: UpdateMethod) -> None:
    """Zero-mean noise: the weights wander both ways, past zero for the small ones."""
    ups = noisy_updates(200, 0.0, 3e-3, weights=6, seed=11)
    w0 = np.array([0.01, -0.004, 1.0, 3.0, -0.0, 0.0])
    got = update_trajectory(w0, ups, BF16, method, seed=4)
    np.testing.assert_array_equal(got, reference_trajectory(w0, ups, BF16, method, 4))
    assert (np.diff(np.signbit(got).astype(int), axis=0) != 0).any()  # some weight crossed zero


# --- what is lost, and when ----------------------------------------------------------


def weights_of(fmt: Format) -> np.ndarray:
    """Weights where thresholds differ: powers of two, odd and even last bits, subnormals, zeros, the largest."""
    rng = np.random.default_rng(fmt.precision)
    spread = np.ldexp(1.0 + rng.random(200), rng.integers(fmt.emin - 3, fmt.emax, 200))
    special = [1.0, 2.0, 0.5, 1.0 + 2 * fmt.unit_roundoff, fmt.smallest_normal, 2 * fmt.smallest_normal,
               fmt.smallest_subnormal, fmt.max_finite, 2.0**fmt.emax, 0.0]
    values = np.concatenate([spread, special])
    signed = np.concatenate([values, -values])
    return np.asarray(np.unique(np.asarray(signed).astype(fmt.dtype).astype(np.float64)))


def step_fp32(values: np.ndarray, toward: float) -> np.ndarray:
    """The FP32 neighbour of each FP32 value, towards ``toward``."""
    f = values.astype(np.float32)
    return np.nextafter(f, np.full_like(f, toward)).astype(np.float64)


@pytest.mark.parametrize("direction", [1.0, -1.0, None])
@pytest.mark.parametrize("fmt", (BF16, FP16, E4M3), ids=ids)
def test_lost_below_is_exactly_the_threshold(fmt: Format, direction: float | None) -> None:
    """Just below it nothing changes (in value), just above it the weight moves; at it, the tie goes to even."""
    w = weights_of(fmt)
    limit = lost_below(w, fmt, direction)
    assert np.all(limit == np.asarray(limit, dtype=np.float32))  # the thresholds are FP32 values
    even = (w.astype(fmt.dtype).view(np.uint8 if fmt.bits == 8 else np.uint16) & 1) == 0
    for sign in [1.0, -1.0] if direction is None else [direction]:
        def after(update: np.ndarray, s: float = sign) -> np.ndarray:
            return update_trajectory(w, (s * update).astype(np.float32)[np.newaxis], fmt, "nearest")[0]

        assert np.all(after(step_fp32(limit, 0.0)) == w)  # below: lost (a zero may change sign)
        # Without a direction the threshold is the smaller half-gap: above it the
        # weight moves only towards that side (towards zero, at a power of two).
        tight = lost_below(w, fmt, sign) == limit
        assert tight.sum() > w.size // 3
        moved = after(step_fp32(limit, math.inf))
        assert np.all(((moved != w) | np.isnan(moved))[tight])
        assert np.all(((after(limit) == w) == even)[tight])  # the tie goes to even


def test_bf16_weight_of_one() -> None:
    """Every update below 2**-9 is lost, either sign; upwards everything up to 2**-8 is (the tie goes to even 1.0)."""
    rng = np.random.default_rng(9)
    small = (rng.random(5000) * 2.0**-9).astype(np.float32)
    both = np.concatenate([small, -small])
    assert np.all(update_trajectory(np.ones(both.size), both[np.newaxis], BF16, "nearest") == 1.0)
    assert lost_below(1.0, BF16) == 2.0**-9
    assert lost_below(1.0, BF16, 1) == 2.0**-8 and lost_below(1.0, BF16, -1) == 2.0**-9
    steps = np.array([[2.0**-8], [2.0**-8 + 2.0**-31], [-(2.0**-9)], [-(2.0**-9) - 2.0**-32]], dtype=np.float32)
    after = [float(update_trajectory(1.0, u[np.newaxis], BF16, "nearest")[0, 0]) for u in steps]
    assert after == [1.0, 1.0 + 2.0**-7, 1.0, 1.0 - 2.0**-8]
    # Between the two thresholds the direction decides: 3e-3 never moves 1.0 up, but moves it down.
    assert update_trajectory(1.0, constant_updates(100, 3e-3), BF16, "nearest")[-1, 0] == 1.0
    assert update_trajectory(1.0, constant_updates(100, -3e-3), BF16, "nearest")[-1, 0] < 0.75


def test_ten_thousand_small_steps() -> None:
    """1.0 + 10,000 x 1e-4 in BF16: nearest never moves; master and Kahan stay within a few ulps of the truth."""
    ups = constant_updates(10_000, 1e-4)
    exact = exact_trajectory(1.0, ups)
    assert abs(exact[-1, 0] - 2.0) < 1e-6
    ulps = BF16.ulps(exact)
    nearest = update_trajectory(1.0, ups, BF16, "nearest")
    assert np.all(nearest == 1.0)
    master = update_trajectory(1.0, ups, BF16, "master")
    assert np.abs(master - exact).max() <= 0.6 * ulps.max() and np.all(np.abs(master - exact) <= 0.6 * ulps)
    kahan = update_trajectory(1.0, ups, BF16, "kahan")
    assert np.all(np.abs(kahan - exact) <= 5 * ulps)


def test_kahan_stagnates_too_for_larger_weights() -> None:
    """Kahan's compensation is itself a BF16 number: once |u| is below half its gap, u is lost again.

    c grows towards half the weight's gap, 2**-5 for a weight of 8, where
    BF16's half-gap is 2**-13 > 1e-4: from 8.0, steps of 1e-4 leave the
    weight at 8, as with plain rounding.  From 6.0 the run climbs to 8 and
    stops there; the master copy goes on (30,000 steps: exact 9 and 11).
    """
    ups = constant_updates(30_000, 1e-4, weights=2)
    kahan = update_trajectory(np.array([8.0, 6.0]), ups, BF16, "kahan")
    assert np.all(kahan[:, 0] == 8.0)
    assert kahan[-1, 1] == 8.0 and np.all(kahan[-10_000:, 1] == 8.0)
    assert update_trajectory(np.array([8.0, 6.0]), ups, BF16, "master")[-1].tolist() == [11.0, 9.0]


def test_the_master_copy_stagnates_much_later() -> None:
    """FP32 loses an update below half its own gap: 1e-4 < 2**-13 at 2048, so a master copy of 2048 stays put."""
    ups = constant_updates(1000, 1e-4, weights=2)
    master = update_trajectory(np.array([2048.0, 1024.0]), ups, BF16, "master")
    assert np.all(master[:, 0] == 2048.0)
    assert master[-1, 1] == 1024.0  # BF16 shows no change either (0.1 < its half-gap of 4) ...
    assert lost_below(1024.0, FP32, 1) == 2.0**-14 < 1e-4 < lost_below(2048.0, FP32, 1)  # ... but the copy moved


def test_stochastic_is_unbiased() -> None:
    """Over many seeds (and many weights per seed) the mean final weight is the exact one, within 4 standard errors."""
    ups = constant_updates(2000, 1e-4, weights=200)
    finals = np.concatenate([update_trajectory(1.0, ups, BF16, "stochastic", seed=s)[-1] for s in range(5)])
    exact = float(exact_trajectory(1.0, ups[:, :1])[-1, 0])
    standard_error = finals.std(ddof=1) / math.sqrt(finals.size)
    assert standard_error > 0
    assert abs(finals.mean() - exact) < 4 * standard_error
    assert abs(finals.mean() - 1.0) > 20 * standard_error  # and it did move, unlike nearest


def test_stochastic_is_seeded() -> None:
    ups = noisy_updates(300, 1e-4, 1e-4, weights=4, seed=0)
    one = update_trajectory(1.0, ups, BF16, "stochastic", seed=3)
    np.testing.assert_array_equal(one, update_trajectory(1.0, ups, BF16, "stochastic", seed=3))
    assert not np.array_equal(one, update_trajectory(1.0, ups, BF16, "stochastic", seed=4))
    # Drawn step by step, the draws are one array's: weight j's trajectory does not depend on the shape.
    np.testing.assert_array_equal(update_trajectory(1.0, ups[:, 0], BF16, "stochastic", seed=3),
                                  update_trajectory(1.0, ups[:, :1], BF16, "stochastic", seed=3)[:, 0])


# --- the rest of the API --------------------------------------------------------------


def test_shapes_and_starts() -> None:
    ups = noisy_updates(5, 0.0, 1e-2, weights=3, seed=1)
    assert ups.shape == (5, 3) and ups.dtype == np.float32
    assert update_trajectory(np.array([1.0, 2.0, 3.0]), ups, FP16, "kahan").shape == (5, 3)
    assert update_trajectory(1.0, ups[:, 0], FP16, "nearest").shape == (5,)
    assert exact_trajectory(1.0, ups).shape == (5, 3)
    # w0 is rounded to the format first (nearest) and taken as given by the exact trajectory.
    zero = np.zeros((1, 1), dtype=np.float32)
    assert update_trajectory(1.0 + 2.0**-8 + 2.0**-12, zero, BF16, "nearest")[0, 0] == 1.0 + 2.0**-7
    assert exact_trajectory(1.0 + 2.0**-40, zero)[0, 0] == 1.0 + 2.0**-40
    # The master copy starts from w0 in FP32, not from the rounded weight.
    up = constant_updates(1, 2.0**-9 + 2.0**-12)
    assert update_trajectory(1.0 + 2.0**-9, up, BF16, "master")[0, 0] == 1.0 + 2.0**-7
    assert update_trajectory(1.0 + 2.0**-9, up, BF16, "nearest")[0, 0] == 1.0


def test_signed_zeros_and_non_finite() -> None:
    zero = np.zeros((1, 2), dtype=np.float32)
    for method in UPDATE_METHODS:
        stays = update_trajectory(np.array([-0.0, 0.0]), -zero, BF16, method)[0]  # -0 + -0
        assert stays.tolist() == [0.0, 0.0] and np.signbit(stays).tolist() == [True, False]
    tiny = constant_updates(1, -1e-30)
    assert np.signbit(update_trajectory(0.0, tiny, FP16, "nearest")[0, 0])  # underflow keeps the sign
    bad = np.array([[1.0], [math.nan], [1.0]], dtype=np.float32)
    for method in UPDATE_METHODS:
        assert np.isnan(update_trajectory(1.0, bad, BF16, method)[1:]).all()
    big = constant_updates(3, 60000.0)
    assert np.isinf(update_trajectory(60000.0, big, FP16, "nearest")).all()
    kahan = update_trajectory(60000.0, big, FP16, "kahan")
    assert np.isinf(kahan[0, 0]) and np.isnan(kahan[1:]).all()  # inf - inf poisons c
    assert np.isnan(update_trajectory(400.0, constant_updates(1, 100.0), E4M3, "nearest")).all()
    with pytest.raises(ValueError, match="finite"):
        exact_trajectory(1.0, bad)
    with pytest.raises(ValueError, match="neighbours"):
        lost_below(math.inf, BF16)


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="float32"):
        update_trajectory(1.0, np.ones((3, 1)), BF16, "nearest")
    with pytest.raises(ValueError, match="at least one step"):
        update_trajectory(1.0, np.ones((0, 1), dtype=np.float32), BF16, "nearest")
    with pytest.raises(ValueError, match="at most 32 bits"):
        update_trajectory(1.0, np.ones((3, 1), dtype=np.float32), FP64, "nearest")
    with pytest.raises(ValueError, match="unknown update method"):
        update_trajectory(1.0, np.ones((3, 1), dtype=np.float32), BF16, "adam")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least 1"):
        constant_updates(0, 1e-3)
    with pytest.raises(ValueError, match="at least 1"):
        noisy_updates(3, 0.0, 1.0, weights=0, seed=0)


def test_bytes_per_weight() -> None:
    assert [bytes_per_weight(m, BF16) for m in UPDATE_METHODS] == [2, 4, 2, 6]
    assert [bytes_per_weight(m, E4M3) for m in UPDATE_METHODS] == [1, 2, 1, 5]
    with pytest.raises(ValueError, match="unknown update method"):
        bytes_per_weight("adam", BF16)  # type: ignore[arg-type]


def test_update_helpers() -> None:
    same = constant_updates(4, 0.1, weights=2)
    assert same.shape == (4, 2) and same.dtype == np.float32 and np.all(same == np.float32(0.1))
    a = noisy_updates(50, 1e-3, 1e-3, weights=3, seed=5)
    np.testing.assert_array_equal(a, noisy_updates(50, 1e-3, 1e-3, weights=3, seed=5))
    np.testing.assert_array_equal(a[:20], noisy_updates(20, 1e-3, 1e-3, weights=3, seed=5))
    assert (a > 0).any() and (a < 0).any()


def test_public_functions_state_their_nan_inf_and_signed_zero_behaviour() -> None:
    """As test_docstrings.py asks of the other model modules."""
    public = [obj for name, obj in vars(updates).items()
              if not name.startswith("_") and inspect.isfunction(obj) and obj.__module__ == updates.__name__]
    assert public
    assert all(re.search(r"NaN|\binf|-0", inspect.getdoc(f) or "") for f in public)


# --- the fast routes against the plain ones ----------------------------------------------


@pytest.mark.parametrize("fmt", (BF16, FP16, E4M3, E5M2, FP32), ids=ids)
def test_float32_sums_round_once_as_add_rounded_does(fmt: Format) -> None:
    """Weights of ``fmt`` plus FP32 updates: ties of ``fmt`` and just off them, far apart, overflow, specials."""
    rng = np.random.default_rng([15, fmt.precision])
    w = np.asarray(rng.standard_normal(4000) * np.ldexp(1.0, rng.integers(fmt.emin - 2, fmt.emax, 4000)))
    w = to_format(w, fmt).astype(np.float64)
    gap = np.where(np.isfinite(w), fmt.ulps(np.where(np.isfinite(w), w, 0.0)), 1.0)
    offsets = gap * np.array([0.5, -0.5, 0.25, 1.5, 2.0**-20, 2.0**-30])[rng.integers(0, 6, 4000)]
    nudged = np.nextafter(offsets.astype(np.float32), rng.choice([-np.inf, np.inf], 4000).astype(np.float32))
    u = np.where(rng.random(4000) < 0.5, offsets.astype(np.float32), nudged)
    u[:200] = (rng.standard_normal(200) * np.ldexp(1.0, rng.integers(-149, 128, 200))).astype(np.float32)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3.0e38, -3.0e38, 1e-45], dtype=np.float32)
    w = np.concatenate([w, np.repeat(to_format(np.array([0.0, -0.0, 1.0, fmt.max_finite]), fmt).astype(np.float64), 8),
                        np.array([np.inf, np.nan])])
    u = np.concatenate([u, np.tile(special, 4), np.array([-np.inf, 1.0], dtype=np.float32)])
    with np.errstate(over="ignore", invalid="ignore"):
        got = updates._add_rounded32(w.astype(np.float32), u, fmt)
        want = add_rounded(w, u.astype(np.float64), fmt)
    assert got.dtype == want.dtype
    assert_same_bits(got, want, w, u)


def test_long_runs_of_stalled_and_moving_weights_match_reference() -> None:
    """3,000 steps: weights that never move, now and then, or at every step; the blocks tried grow and shrink."""
    ups = np.concatenate([constant_updates(1500, 1e-4, weights=4), noisy_updates(1500, 0.0, 4e-2, weights=4, seed=3)])
    w0 = np.array([1.0, 8.0, 0.001, -300.0])
    for method in ("nearest", "stochastic", "master"):
        got = update_trajectory(w0, ups, BF16, method, seed=5)  # type: ignore[arg-type]
        np.testing.assert_array_equal(got, reference_trajectory(w0, ups, BF16, method, 5))


# ---------------------------------------------------------------- stochastic rounding with r random bits


@pytest.mark.parametrize("fmt", FORMATS, ids=ids)
def test_sr_bits_is_one_r_bit_rounding_per_step_from_the_seeded_stream(fmt: Format) -> None:
    """Step by step with ``stochastic_round_bits`` and whole draws from the (ROUNDING_STREAM, seed) stream."""
    r, seed = 8, 3
    ups = noisy_updates(400, 2e-4, 4e-4, 5, seed=1)
    got = update_trajectory(1.0, ups, fmt, "stochastic", seed=seed, sr_bits=r)
    cuts = np.random.default_rng([ROUNDING_STREAM, seed]).integers(0, 2**r, ups.shape)
    w = to_format(np.ones(5), fmt)
    for t in range(ups.shape[0]):
        w = stochastic_round_bits(w.astype(np.float64), ups[t].astype(np.float64), fmt, r, cuts[t])
        assert_same_bits(got[t], w.astype(np.float64))
    with pytest.raises(ValueError):
        update_trajectory(1.0, ups, fmt, "nearest", sr_bits=r)


def test_the_page_r_bit_weights_stall_where_ideal_draws_move() -> None:
    """In practice, Maths: with r = 8 the weight from 8 never moves, ideal draws take it on; from 1 it lags."""
    params = weight_updates.WeightUpdatesParams()
    t = weight_updates.compute(params)
    j8, j1 = params.starts.index(8.0), params.starts.index(1.0)
    gap8 = BF16.ulp(8.0)
    assert params.update < gap8 * 2.0**-params.sr_bits  # below the cut ...
    assert (t.few_bits[:, j8] == 8.0).all()  # ... so every draw loses it
    assert t.stored["stochastic"][-1, j8] > 8.0 + 0.5 * (t.exact[-1, j8] - 8.0)  # ideal draws move on
    assert params.update > BF16.ulp(1.0) * 2.0**-params.sr_bits
    climb = {"bits": t.few_bits[-1, j1] - 1.0, "exact": t.exact[-1, j1] - 1.0}
    assert 0 < climb["bits"] < climb["exact"]  # moves, but lags: fewer moves up than the update's share
    numbers = weight_updates.quoted(t, params)
    per = numbers["start1"]
    assert isinstance(per, dict) and float(per["bits_share"]) < float(per["ideal_share"])
