"""Error versus n: the grid of counts, and the relative errors recomputed with Fractions and the references."""

from __future__ import annotations

import functools
from fractions import Fraction

import numpy as np
import pytest

import reference
from fpsum import textbook
from fpsum.formats import BF16, E4M3, E5M2, FP16, Format, get_format
from fpsum.inputs import make_inputs
from fpsum.names import Method
from fpsum.sweep import Sweep, log_grid, run_sweep

CHECKED: tuple[Method, ...] = ("naive", "wide", "kahan", "pairwise")


def ids(fmt: Format) -> str:
    return fmt.name


# --- the grid ----------------------------------------------------------------------


def check_grid(grid: np.ndarray, n_max: int, per_octave: int) -> None:
    assert np.issubdtype(grid.dtype, np.integer)
    assert grid[0] == 1 and grid[-1] == n_max
    assert np.all(np.diff(grid) > 0)
    powers = {2**k for k in range(n_max.bit_length()) if 2**k <= n_max}
    assert powers <= set(grid.tolist())
    # About per_octave counts in every doubling (at least three quarters of it), once the
    # integers are far enough apart not to merge.
    for k in range(4, n_max.bit_length()):
        if 2 ** (k + 1) <= n_max:
            inside = np.count_nonzero((grid >= 2**k) & (grid < 2 ** (k + 1)))
            assert 0.75 * per_octave <= inside <= 2 * per_octave + 1, (k, inside)


@pytest.mark.parametrize("per_octave", [1, 2, 4, 8])
def test_log_grid(per_octave: int) -> None:
    """Every n_max from 1 to past 2**24, small and large, powers of two and not."""
    n_maxes = [1, 2, 3, 5, 7, 8, 100, 1000, 1024, 4097, 8192, 65536, 10**6, 2**24 + 3]
    reference.assert_every_case(lambda n_max: check_grid(log_grid(n_max, per_octave), n_max, per_octave), n_maxes)


def test_log_grid_every_small_n_max() -> None:
    for n_max in range(1, 3000):
        check_grid(log_grid(n_max), n_max, 4)


def test_log_grid_one_and_errors() -> None:
    assert log_grid(1).tolist() == [1]
    for bad in (0, -5):
        with pytest.raises(ValueError, match="n_max must be at least 1"):
            log_grid(bad)


@pytest.mark.parametrize("n_max", [2**49 - 1, 2**50 + 1, 2**53 - 1])
def test_log_grid_huge_n_max(n_max: int) -> None:
    """np.log2(2**49 - 1) rounds to exactly 49.0: the grid must still stop at n_max."""
    grid = log_grid(n_max)
    assert grid[-1] == n_max and grid.max() <= n_max
    assert np.all(np.diff(grid) > 0) and grid[0] == 1


# --- relative errors, recomputed ---------------------------------------------------


@functools.cache
def sweep(fmt_name: str, kind: str, n_max: int, trials: int, seed: int, methods: tuple[Method, ...] = CHECKED) -> Sweep:
    return run_sweep(get_format(fmt_name), methods, n_max, trials, seed, kind)  # type: ignore[arg-type]


def reference_total(method: str, xs: list[float], fmt: Format) -> float:
    if method == "pairwise":
        return textbook.pairwise(xs, fmt)
    return reference.RUNNING[method](xs, fmt)[-1]


def relative_error(computed: float, xs: list[float]) -> Fraction:
    exact = sum((Fraction(x) for x in xs), Fraction(0))
    return abs(Fraction(computed) - exact) / abs(exact)


def test_sweep_shapes() -> None:
    result = sweep("fp16", "uniform", 600, 3, 5)
    assert result.fmt is FP16 and result.kind == "uniform" and result.trials == 3 and result.seed == 5
    np.testing.assert_array_equal(result.ns, log_grid(600, 4))
    assert set(result.errors) == set(CHECKED)
    for errors in result.errors.values():
        assert errors.shape == (3, result.ns.size)
        assert np.all(errors >= 0)


@pytest.mark.parametrize("method", CHECKED)
@pytest.mark.parametrize("kind", ["uniform", "normal"])
def test_fp16_errors_recomputed_exactly(kind: str, method: Method) -> None:
    """FP16 inputs are multiples of 2**-24 and these sums stay below 2**10: the model's float64
    subtraction is exact and its division rounds once, so it must equal the Fraction error rounded once.
    """
    n_max, trials, seed = 600, 3, 5
    result = sweep("fp16", kind, n_max, trials, seed)
    values = make_inputs(kind, n_max, FP16, seed, trials=trials).astype(np.float64)  # type: ignore[arg-type]
    for trial, j in [(0, 0), (0, 5), (1, 11), (2, len(result.ns) - 1), (1, len(result.ns) // 2)]:
        n = int(result.ns[j])
        xs = values[trial, :n].tolist()
        want = float(relative_error(reference_total(method, xs, FP16), xs))
        assert result.errors[method][trial, j] == want, (trial, n)


@pytest.mark.parametrize("method", CHECKED)
def test_bf16_errors_recomputed(method: Method) -> None:
    """BF16 exact sums need not fit float64 in general, so allow a few float64 roundings."""
    n_max, trials, seed = 400, 2, 8
    result = sweep("bf16", "normal", n_max, trials, seed)
    values = make_inputs("normal", n_max, BF16, seed, trials=trials).astype(np.float64)
    for trial, j in [(0, 3), (1, 9), (0, len(result.ns) - 1)]:
        n = int(result.ns[j])
        xs = values[trial, :n].tolist()
        want = float(relative_error(reference_total(method, xs, BF16), xs))
        assert result.errors[method][trial, j] == pytest.approx(want, rel=2.0**-48, abs=0), (trial, n)


def test_naive_fp16_error_at_2_to_the_16_is_the_stall() -> None:
    """At n = 2**16 naive FP16 returns 2048: relative error 1 - 2048/exact, about 1 - 2048/32768."""
    n, trials = 2**16, 2
    result = sweep("fp16", "uniform", n, trials, 0, ("naive",))
    assert result.ns[-1] == n
    values = make_inputs("uniform", n, FP16, 0, trials=trials).astype(np.float64)
    for trial in range(trials):
        exact = sum((Fraction(x) for x in values[trial].tolist()), Fraction(0))
        assert result.errors["naive"][trial, -1] == float(1 - Fraction(2048) / exact)
        assert result.errors["naive"][trial, -1] == pytest.approx(1 - 2048 / 32768, abs=0.01)


def test_sweep_in_chunks_is_one_draw() -> None:
    """33 trials of 2**19 inputs exceed 2**24 values, so the sweep draws them in two chunks;
    the last trial must still be row 32 of the single draw ``make_inputs(..., trials=33)``.
    """
    n_max, trials = 2**19, 33
    result = sweep("fp16", "uniform", n_max, trials, 0, ("naive",))
    last = make_inputs("uniform", n_max, FP16, 0, trials=trials)[-1].astype(np.float64).tolist()
    for j in (0, 10, 30):
        n = int(result.ns[j])
        xs = last[:n]
        assert result.errors["naive"][-1, j] == float(relative_error(textbook.naive(xs, FP16)[-1], xs)), n
    scaled = np.ldexp(np.asarray(last), 24)  # FP16 values are multiples of 2**-24: whole numbers, summed exactly
    assert np.all(scaled == np.round(scaled))
    exact = Fraction(int(scaled.astype(np.int64).sum()), 2**24)
    assert result.errors["naive"][-1, -1] == float(1 - Fraction(2048) / exact)  # stalled at 2048


def test_errors_are_zero_where_the_method_is_exact() -> None:
    """One input: every method returns it.  All ones in FP16: every partial sum up to 2048 is exact."""
    result = sweep("fp16", "uniform", 300, 4, 1)
    for method in CHECKED:
        assert np.all(result.errors[method][:, 0] == 0), method  # ns[0] == 1

    ones = sweep("fp16", "ones", 4096, 1, 0)
    ns = ones.ns
    below = ns <= 2048
    for method in CHECKED:
        assert np.all(ones.errors[method][0, below] == 0), method
    assert np.all(ones.errors["wide"] == 0)
    assert ones.errors["pairwise"][0, ns == 4096] == 0  # a power of two: a balanced tree of exact sums
    # Beyond the stall naive is stuck at 2048: error exactly 1 - 2048/n.
    for n, error in zip(ns[~below].tolist(), ones.errors["naive"][0, ~below].tolist()):
        assert error == float(1 - Fraction(2048, n))


@pytest.mark.parametrize(("fmt", "n_max", "overflow_at"), [(E4M3, 512, 512), (E5M2, 2**16, 2**16)],
                         ids=["e4m3", "e5m2"])
def test_overflow_gives_infinite_error(fmt: Format, n_max: int, overflow_at: int) -> None:
    """All ones, pairwise: the balanced sum of 2**k ones is 2**k, beyond E4M3's 448 (NaN) or E5M2's 57344 (inf)."""
    result = sweep(fmt.name, "ones", n_max, 1, 0, ("naive", "pairwise"))
    at = result.ns == overflow_at
    assert np.isinf(result.errors["pairwise"][0, at]).all()
    assert np.all(result.errors["pairwise"][0, result.ns <= fmt.stall_point] == 0)
    # Naive stalls at 2**p long before: finite, and exactly 1 - 2**p / n.
    assert np.isfinite(result.errors["naive"]).all()
    assert result.errors["naive"][0, -1] == float(1 - Fraction(int(fmt.stall_point), n_max))
