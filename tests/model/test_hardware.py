"""The truncating accumulator: cases worked out by hand, the published test vectors, and a Fraction reference.

Every expected value in the hand-made cases is worked out in its docstring
from the definition in ``fpsum.hardware``: align to the largest exponent,
cut every term towards zero to ``bits`` bits below it, add exactly, cut the
sum to ``bits`` significant bits.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from fpsum import hardware, textbook
from fpsum.array_rounding import to_format
from fpsum.dot import dot, exact_dot_running, exact_products
from fpsum.formats import BF16, E4M3, FP16, FP32, Format
from fpsum.hardware import TruncatedAccumulator, truncated_dot, truncated_dot_running, truncated_sums
from reference import from_floats, random_values


def run(xs: list[float], ys: list[float] | None = None, fmt: Format = FP16, **model: int | None) -> float:
    """The final value for ``xs`` times ``ys`` (default all ones) through ``TruncatedAccumulator(**model)``."""
    x = from_floats(xs, fmt)
    y = from_floats(ys if ys is not None else [1.0] * len(xs), fmt)
    return float(truncated_dot(x, y, TruncatedAccumulator(**model)))  # type: ignore[arg-type]


# --- by hand ---------------------------------------------------------------------------


def test_truncation_is_not_round_to_nearest() -> None:
    """bits=4, one product a step: 1, then 1 + 0.4375.

    Aligned to 1 (e_max = 0) the quantum is 2**(0 - 4 + 1) = 1/8; 0.4375 is
    3.5 eighths, cut to 3: 1 + 0.375 = 1.375 (1.011 in binary, 4 bits).
    Round to nearest at 4 bits would give 1.4375 -> a tie between 1.375 and
    1.5, going to the even 1.5.
    """
    assert run([1.0, 0.4375], bits=4, block=1) == 1.375


def test_alignment_to_the_largest_term_loses_small_products() -> None:
    """bits=4, four products a step.

    1 and three 1/16 in one step: aligned to 1, the quantum is 1/8 and each
    1/16 (half a quantum) is cut to 0: the result is 1, not 1.1875.  The
    three 1/16 in a step of their own (with a 0) sum exactly to 3/16; the
    next step aligns 3/16 to 1: 1.5 eighths cut to 1, so 1 + 1/8 = 1.125.
    """
    assert run([1.0, 1 / 16, 1 / 16, 1 / 16], bits=4, block=4) == 1.0
    assert run([1 / 16, 1 / 16, 1 / 16, 0.0, 1.0], bits=4, block=4) == 1.125


def test_the_sum_is_normalised_by_truncation() -> None:
    """bits=4: 1.875 * 3 + 1.75 = 7.375, exact after alignment (eighths), is 111.011 in binary.

    Cut to 4 significant bits: 111.0 = 7.  Round to nearest would give 7.5.
    """
    assert run([1.875, 1.875, 1.875, 1.75], bits=4, block=4) == 7.0


def test_negative_sums_are_cut_towards_zero() -> None:
    """The mirror images of the cases above: truncation is symmetric about zero."""
    assert run([-1.0, -0.4375], bits=4, block=1) == -1.375
    assert run([-1.875, -1.875, -1.875, -1.75], bits=4, block=4) == -7.0


def test_a_zero_result_is_positive_zero() -> None:
    value = run([-0.0, 1.0, -1.0], bits=8, block=1)
    assert value == 0 and not np.signbit(value)
    assert not np.signbit(run([-0.0]))


def test_special_values() -> None:
    x = from_floats([1.0, np.nan, 1.0, 1.0], FP16)
    assert np.isnan(truncated_dot_running(x, from_floats([1.0] * 4, FP16), TruncatedAccumulator())[1:]).all()
    infinite = truncated_dot_running(from_floats([1.0, np.inf, 1.0], FP16), from_floats([1.0] * 3, FP16),
                                     TruncatedAccumulator())
    assert infinite.tolist() == [1.0, np.inf, np.inf]
    both = truncated_dot_running(from_floats([np.inf, -np.inf], FP16), from_floats([1.0, 1.0], FP16),
                                 TruncatedAccumulator())
    assert both[0] == np.inf and np.isnan(both[1])
    zero_times_inf = truncated_dot(from_floats([0.0], FP16), from_floats([np.inf], FP16), TruncatedAccumulator())
    assert np.isnan(zero_times_inf)


# --- promotion -------------------------------------------------------------------------


def test_promotion_rescues_a_long_sum_of_ones() -> None:
    """65,536 products 1 * 1 with 14 bits.

    Without promotion the narrow sum counts exactly up to 2**14 = 16384;
    aligned to 16384 the quantum is 2**(14 - 14 + 1) = 2 and every 1 is cut
    to 0: it stays 16384, a quarter of the answer.  Promoted every 128, the
    narrow sum never passes 128 (exact), and FP32 adds 512 sums of 128
    exactly: 65536.
    """
    ones = from_floats([1.0] * 65536, FP16)
    assert float(truncated_dot(ones, ones, TruncatedAccumulator())) == 16384.0
    assert float(truncated_dot(ones, ones, TruncatedAccumulator(promote_every=128))) == 65536.0


def test_promotion_keeps_the_error_of_a_constant_input_small() -> None:
    """0.3 (in FP16) times 1, K up to 2**15: without promotion the error grows with K, with it it stays put.

    Promoted, every chunk of 128 products loses the same amount to
    truncation (the narrow sum restarts from 0), so the relative error is
    the same at every multiple of 128: that of the first chunk, below 0.5 %.
    Without promotion the quantum grows with the sum, and from 2**13 on it
    is 1, which cuts every product to 0.
    """
    k = 2**15
    x = to_format(np.full(k, 0.3), FP16)
    y = from_floats([1.0] * k, FP16)
    at = np.array([2**7, 2**10, 2**12, 2**15])
    exact = exact_dot_running(x, y, at)
    never = np.abs(truncated_dot_running(x, y, TruncatedAccumulator())[at - 1] - exact) / exact
    promoted = np.abs(truncated_dot_running(x, y, TruncatedAccumulator(promote_every=128))[at - 1] - exact) / exact
    assert never[0] < never[1] < never[2] < never[3] and never[3] > 0.5
    assert np.all(promoted == promoted[0]) and promoted[0] < 5e-3


def test_the_promoted_result_is_rounded_into_fp32() -> None:
    """bits=40 keeps 2**24 + 1 exactly in the narrow sum; added into FP32 (24 bits) it is a tie, going to 2**24.

    Once only: 2**24 promoted, then a narrow sum 1 + 2**-40 (41 bits, exact
    with 50): 2**24 + 1 + 2**-40 is just above the tie, so FP32 gives
    2**24 + 2.  Through float64 first (2**24 + 1, a tie) it would give 2**24.
    """
    values = [2.0**24, 1.0, 0.0, 0.0]
    assert run(values, fmt=FP32, bits=40, block=4) == 2.0**24 + 1
    assert run(values, fmt=FP32, bits=40, block=4, promote_every=4) == 2.0**24
    for tail in ([], [0.0, 0.0]):  # as the last pending sum, and once promoted itself
        assert run([2.0**24, 0.0, 1.0, 2.0**-40, *tail], fmt=FP32, bits=50, block=2, promote_every=2) == 2.0**24 + 2


# --- the published test vectors (Fasi, Higham, Mikaitis and Pranesh 2021) -----------------------


def v100(c: float, products: list[float]) -> float:
    """The accumulator ``c`` and four products through 24 bits: c enters as a step of its own (c * 1, then 0s)."""
    return run([c, 0.0, 0.0, 0.0, *products], fmt=FP32, bits=24, block=4)


def test_vectors_measured_on_v100() -> None:
    """Inputs and results from tc_test_numerics-V100.cu (FP32 accumulator), which this model reproduces."""
    tiny = 2.0**-24
    for j in range(4):  # "sum starts from largest element": the 1 may come anywhere
        products = [tiny] * 4
        products[j] = 1.0
        assert v100(tiny, products) == 1.0
    assert v100(0.0, [2.0, 2.0**-23 + 2.0**-24, 0.0, 0.0]) == 2.0               # round down for positive values
    assert v100(0.0, [-2.0, -(2.0**-23) - 2.0**-24, 0.0, 0.0]) == -2.0          # round up for negative values
    assert v100(-(1 - tiny), [1.0, 0.0, 0.0, 0.0]) == 2.0**-23                   # no extra alignment bit
    assert v100(1 - tiny, [tiny] * 4) == 1 + 2.0**-23                            # normalisation in addition
    assert v100(-1 + tiny, [1.0, -tiny, 0.0, 0.0]) == 2.0**-23                   # normalisation in subtraction
    c = 1 + 2.0**-22 + 2.0**-23
    for j in range(4):  # carry-out bits
        products = [1.0] * 4
        products[j] = 2.0**-23
        assert v100(c, products) == 4 + 2.0**-21
    assert v100(1.875, [1.0, 1.5, 1.75, 1.875]) == 8.0                          # a third carry bit
    assert v100(c, [1.0] * 4) == 5.0 and v100(-c, [-1.0] * 4) == -5.0           # normalisation cuts towards zero
    assert v100(1.0, [tiny] * 4) < v100(1 - tiny, [tiny] * 4)                   # not monotonic


def test_one_extra_alignment_bit_as_on_t4_and_a100() -> None:
    """tc_test_numerics-T4-A100-binary16.cu expects 1 - (1 - 2**-24) = 2**-24: 25 bits in the alignment."""
    assert run([-(1 - 2.0**-24), 0.0, 0.0, 0.0, 1.0], fmt=FP32, bits=25, block=4) == 2.0**-24


# --- against the Fraction reference ----------------------------------------------------


MODELS = [
    TruncatedAccumulator(),
    TruncatedAccumulator(promote_every=8),
    TruncatedAccumulator(bits=4, block=1),
    TruncatedAccumulator(bits=5, block=3, promote_every=6),
    TruncatedAccumulator(bits=24, block=4),
    TruncatedAccumulator(bits=50, block=4, promote_every=4),
    TruncatedAccumulator(bits=8, block=8, promote_every=16),
]


@pytest.mark.parametrize("model", MODELS, ids=str)
@pytest.mark.parametrize("fmt", (FP16, BF16, E4M3, FP32), ids=lambda f: f.name)
def test_matches_the_fraction_reference(fmt: Format, model: TruncatedAccumulator) -> None:
    for kind, n, seed in itertools.product(("mixed", "codes", "uniform"), (1, 2, 3, 5, 8, 13, 21, 40), (0, 1)):
        x = random_values(fmt, (3, n), seed, kind)
        y = random_values(fmt, (3, n), seed + 50, kind)
        got = truncated_dot_running(x, y, model)
        assert got.shape == x.shape and got.dtype == np.float64
        for row in range(3):
            want = textbook.truncating_dot(x[row].astype(float).tolist(), y[row].astype(float).tolist(),
                                           model.bits, model.block, model.promote_every)
            np.testing.assert_array_equal(got[row], want, err_msg=f"{kind} n={n} seed={seed} row={row}")


def test_every_entry_is_the_dot_product_of_its_prefix() -> None:
    """A partial last step is a step of fewer products: entry k is the model run on the first k + 1 pairs."""
    x = random_values(FP16, (2, 23), 3, "mixed")
    y = random_values(FP16, (2, 23), 4, "mixed")
    for model in (TruncatedAccumulator(bits=6, block=4), TruncatedAccumulator(bits=6, block=4, promote_every=8)):
        running = truncated_dot_running(x, y, model)
        for k in range(23):
            np.testing.assert_array_equal(truncated_dot(x[:, :k + 1], y[:, :k + 1], model), running[:, k])


def test_leading_axes_are_independent() -> None:
    x = random_values(BF16, (2, 3, 19), 5, "mixed")
    y = random_values(BF16, (2, 3, 19), 6, "mixed")
    model = TruncatedAccumulator(bits=7, block=4, promote_every=8)
    together = truncated_dot_running(x, y, model)
    for index in np.ndindex(2, 3):
        np.testing.assert_array_equal(truncated_dot_running(x[index], y[index], model), together[index])


# --- parameters ---------------------------------------------------------------------------


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"bits": 1}, "at least 2 bits"),
    ({"block": 0}, "at least 1 product"),
    ({"promote_every": 0}, "positive multiple of the block"),
    ({"promote_every": 6}, r"multiple of the block \(4\)"),
    ({"bits": 51}, "at most 50 bits"),
    ({"bits": 47, "block": 64}, "at most 46 bits"),
])
def test_bad_parameters_are_refused(kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TruncatedAccumulator(**kwargs)  # type: ignore[arg-type]


def test_widest_parameters_are_accepted() -> None:
    assert TruncatedAccumulator(bits=50, block=4).bits == 50
    assert TruncatedAccumulator(bits=46, block=64, promote_every=128).promote_every == 128


def test_inputs_are_checked() -> None:
    x = np.ones(4, dtype=np.float16)
    with pytest.raises(TypeError, match="one format"):
        truncated_dot(x, x.astype(np.float32), TruncatedAccumulator())
    with pytest.raises(TypeError, match="not one of the input formats"):
        truncated_dot(x.astype(np.float64), x.astype(np.float64), TruncatedAccumulator())
    with pytest.raises(ValueError, match="at least one pair"):
        truncated_dot(x[:0], x[:0], TruncatedAccumulator())


# --- claims -------------------------------------------------------------------------------


def test_fp8_dot_products_need_promotion() -> None:
    """E4M3 inputs uniform in [0, 1), K = 4096, 14 bits: errors above 5 % without promotion, below 0.1 % with N_c = 128.

    FP32 accumulation of the same products is better still (below 1e-5).
    """
    k = 4096
    x = random_values(E4M3, (8, k), 20, "uniform")
    y = random_values(E4M3, (8, k), 21, "uniform")
    exact = exact_dot_running(x, y, np.array([k]))[:, 0]

    def error(result: np.ndarray) -> np.ndarray:
        relative: np.ndarray = np.abs(result.astype(np.float64) - exact) / exact
        return relative

    assert error(truncated_dot(x, y, TruncatedAccumulator())).min() > 0.05
    assert error(truncated_dot(x, y, TruncatedAccumulator(promote_every=128))).max() < 1e-3
    assert error(dot(x, y, E4M3, FP32)).max() < 1e-5


# --- read at chosen counts -------------------------------------------------------------------


@pytest.mark.parametrize("model", [TruncatedAccumulator(bits=6, block=4), TruncatedAccumulator(bits=6, block=4,
                                   promote_every=16), TruncatedAccumulator(bits=14, block=4, promote_every=128),
                                   TruncatedAccumulator(bits=9, block=3, promote_every=9)], ids=str)
def test_sums_at_chosen_counts_match_the_fraction_reference(model: TruncatedAccumulator) -> None:
    """K = 301 (no whole number of steps or stretches), counts in any order and repeated, every stretch's end.

    Inputs of one sign grow the sum through many binades (the quantum
    coarsens, carries cut); mixed signs cancel back down.
    """
    for kind in ("uniform", "mixed"):
        x = random_values(BF16, (2, 301), 7, kind)
        y = random_values(BF16, (2, 301), 8, kind)
        at = np.array([301, 1, 2, 3, 4, 5, 16, 17, 128, 129, 300, 17, 9, 10, 256, 257])
        got = truncated_sums(exact_products(x, y), model, at)
        assert got.shape == (2, at.size)
        for row in range(2):
            want = textbook.truncating_dot(x[row].astype(float).tolist(), y[row].astype(float).tolist(),
                                           model.bits, model.block, model.promote_every)
            np.testing.assert_array_equal(got[row], np.array(want)[at - 1], err_msg=f"{kind} row={row}")


def test_sums_at_counts_need_counts_within_k() -> None:
    products = np.ones((2, 5))
    for at in (np.array([0]), np.array([6]), np.array([], dtype=np.int64)):
        with pytest.raises(ValueError, match="between 1 and K = 5"):
            truncated_sums(products, TruncatedAccumulator(), at)


@pytest.mark.parametrize("check", (1, 4, 1 << 30))
def test_a_run_stops_only_where_every_narrow_sum_has_stalled(check: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """bits=6, 1,200 products: sums of ones stall at 64 (each 1 is below the quantum, 2); one meets a 96
    three quarters of the way and moves on, so the run goes on until then; against the Fraction reference.
    """
    stalled = []
    look = hardware._stalled

    def spy(*args: object) -> bool:
        stalled.append(look(*args))  # type: ignore[arg-type]
        return stalled[-1]

    monkeypatch.setattr(hardware, "STALL_CHECK", check)
    x = np.ones((2, 1200))
    x[1, 900] = 96.0
    x16, y = to_format(x, FP16), to_format(np.ones((2, 1200)), FP16)
    model = TruncatedAccumulator(bits=6, block=4)
    with monkeypatch.context() as patched:
        patched.setattr(hardware, "_stalled", spy)
        got = truncated_dot_running(x16, y, model)
    for row in range(2):
        want = textbook.truncating_dot(x16[row].astype(float).tolist(), [1.0] * 1200, 6, 4, None)
        np.testing.assert_array_equal(got[row], want, err_msg=f"row={row}")
    assert got[0, -1] == 64.0 and got[1, -1] > 64.0
    assert stalled.count(True) == (1 if check < 200 else 0)  # once, after the 96: the run stops there
