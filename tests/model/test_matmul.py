"""Matrix products: every entry bit for bit the dot product of its row and column, prefixes, exact products, errors."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

import fpsum
import fpsum.matmul
import fpsum.matmul_exact
import fpsum.matmul_operands
import fpsum.matmul_walk
from fpsum.array_rounding import to_format
from fpsum.dot import DOT_METHODS, dot, dot_running, exact_dot
from fpsum.formats import BF16, E4M3, E5M2, FP16, FP32, FP64, Format
from fpsum.inputs import make_inputs
from fpsum.matmul import matmul, relative_frobenius_error
from fpsum.matmul_exact import exact_matmul
from fpsum.names import Method
from reference import assert_same_bits, random_values

CASES = [(FP16, FP16), (FP16, BF16), (FP16, FP32), (BF16, BF16), (BF16, FP32), (E4M3, FP16), (E5M2, BF16),
         (FP32, FP32), (FP32, FP64)]


def case_id(case: tuple[Format, Format]) -> str:
    return f"{case[0].name}-{case[1].name}"


def operands(fmt: Format, m: int, k: int, n: int, seed: int, kind: str = "mixed") -> tuple[np.ndarray, np.ndarray]:
    return random_values(fmt, (m, k), seed, kind), random_values(fmt, (k, n), seed + 1, kind)


def entrywise(a: np.ndarray, b: np.ndarray, fmt: Format, acc: Format, method: Method) -> np.ndarray:
    """The matrix product the slow way: one ``dot`` per entry."""
    out = np.empty((a.shape[0], b.shape[1]), dtype=acc.dtype)
    for i, j in itertools.product(range(a.shape[0]), range(b.shape[1])):
        out[i, j] = dot(np.ascontiguousarray(a[i]), np.ascontiguousarray(b[:, j]), fmt, acc, method)
    return out


@pytest.mark.parametrize("method", DOT_METHODS)
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_every_entry_is_the_dot_product(case: tuple[Format, Format], method: Method) -> None:
    fmt, acc = case
    for kind in ("mixed", "codes"):
        a, b = operands(fmt, 3, 37, 4, 1, kind)
        got = matmul(a, b, fmt, acc, method)
        assert got.shape == (3, 4) and got.dtype == acc.dtype
        assert_same_bits(got, entrywise(a, b, fmt, acc, method))


def test_bf16_products_outside_float32s_range_take_the_float64_route() -> None:
    """BF16 values near 2**100 and 2**-130: their products overflow or underflow float32, so float32 cannot hold them.

    The entries must still be the dot products, whichever way the model computes them.
    """
    rng = np.random.default_rng(5)
    for low, high in ((-10, 100), (-130, 10), (-5, 5)):
        a = to_format(rng.standard_normal((4, 9)) * 2.0 ** rng.integers(low, high, (4, 9)), BF16)
        b = to_format(rng.standard_normal((9, 3)) * 2.0 ** rng.integers(low, high, (9, 3)), BF16)
        for acc in (BF16, FP32, FP64):
            assert_same_bits(matmul(a, b, BF16, acc), entrywise(a, b, BF16, acc, "naive"))
            assert_same_bits(matmul(a, b, BF16, acc, "pairwise"), entrywise(a, b, BF16, acc, "pairwise"))


@pytest.mark.parametrize("method", ("naive", "pairwise", "kahan"))
def test_prefixes_from_one_pass_equal_separate_products(method: Method) -> None:
    a, b = operands(BF16, 5, 64, 6, 2)
    at = np.array([1, 2, 3, 17, 32, 63, 64])
    swept = matmul(a, b, BF16, FP16, method, at=at)
    assert swept.shape == (7, 5, 6)
    for t, k in enumerate(at.tolist()):
        assert_same_bits(swept[t], matmul(np.ascontiguousarray(a[:, :k]), np.ascontiguousarray(b[:k]),
                                          BF16, FP16, method))


def test_groups_of_rows_do_not_change_the_result(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = operands(FP16, 7, 50, 3, 3)
    at = np.array([10, 50])
    whole = matmul(a, b, FP16, FP16, at=at)
    exact = exact_matmul(a, b, at=at)
    monkeypatch.setattr(fpsum.matmul_operands, "PRODUCTS_PER_GROUP", 1)  # one row of C at a time
    assert_same_bits(matmul(a, b, FP16, FP16, at=at), whole)
    np.testing.assert_array_equal(exact_matmul(a, b, at=at), exact)


@pytest.mark.parametrize("fmt", (FP16, BF16, E4M3, FP32), ids=lambda f: f.name)
def test_exact_matmul_against_fractions(fmt: Format) -> None:
    a, b = operands(fmt, 3, 40, 2, 4, "codes")
    at = np.array([1, 5, 40])
    got = exact_matmul(a, b, at=at)
    assert got.shape == (3, 3, 2)
    for (t, k), i, j in itertools.product(enumerate(at.tolist()), range(3), range(2)):
        want = sum((Fraction(float(a[i, q])) * Fraction(float(b[q, j])) for q in range(k)), Fraction(0))
        assert got[t, i, j] == float(want)
    np.testing.assert_array_equal(exact_matmul(a, b), got[-1])
    assert exact_matmul(a, b)[0, 0] == float(exact_dot(a[0], b[:, 0]))


@pytest.mark.parametrize("fmt", (FP16, BF16, E4M3, E5M2, FP32), ids=lambda f: f.name)
@pytest.mark.parametrize("kind", ("codes", "uniform", "normal"))
def test_exact_matmul_by_slices_equals_product_by_product(fmt: Format, kind: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast route (integer slices through float64 matrix products) gives the slow route's bits, or steps aside."""
    if kind == "codes":
        a, b = operands(fmt, 5, 300, 4, 8, "codes")
    else:
        a = make_inputs(kind, 300, fmt, 8, trials=5)  # type: ignore[arg-type]
        b = make_inputs(kind, 300, fmt, 9, trials=4).T  # type: ignore[arg-type]
    at = np.array([1, 7, 64, 300])
    sliced = fpsum.matmul_exact._exact_by_slices(a, b, at)
    if kind != "codes" or fmt.bits == 8:  # values over a few dozen binades: a few slices hold them
        assert sliced is not None
    monkeypatch.setattr(fpsum.matmul_exact, "_exact_by_slices", lambda *args: None)
    slow = exact_matmul(a, b, at=at)
    if sliced is not None:
        assert_same_bits(sliced, slow)


def test_exact_matmul_by_slices_steps_aside_for_values_over_too_many_binades() -> None:
    a = np.array([[2.0**100, 2.0**-100]], dtype=np.float32)
    b = np.array([[1.0], [1.0]], dtype=np.float32)
    assert fpsum.matmul_exact._exact_by_slices(a, b, np.array([2])) is None
    assert exact_matmul(a, b)[0, 0] == 2.0**100 + 2.0**-100  # the slow route, correctly rounded


def test_relative_frobenius_error_by_hand() -> None:
    """C = diag(3, 4) has norm 5; an error of 1 in one entry is 1/5; a batch axis is kept."""
    c = np.array([[3.0, 0.0], [0.0, 4.0]])
    c_hat = np.stack([c, c + np.array([[0.0, 0.0], [0.0, 1.0]]), c + np.array([[1.0, 1.0], [1.0, 1.0]])])
    np.testing.assert_array_equal(relative_frobenius_error(c_hat, c), [0.0, 0.2, 0.4])
    assert relative_frobenius_error(c.astype(np.float16), c) == 0.0
    assert relative_frobenius_error(np.zeros((2, 2)), np.zeros((2, 2))) == 0.0
    assert relative_frobenius_error(np.eye(2), np.zeros((2, 2))) == np.inf
    assert relative_frobenius_error(np.array([[np.inf, 0.0], [0.0, 4.0]]), c) == np.inf
    assert np.isnan(relative_frobenius_error(np.array([[np.nan, 0.0], [0.0, 4.0]]), c))
    assert np.isnan(relative_frobenius_error(np.full((2, 2), np.nan), np.zeros((2, 2))))


def test_bad_operands_are_refused() -> None:
    a = np.ones((2, 3), dtype=np.float16)
    with pytest.raises(ValueError, match="matching K"):
        matmul(a, a, FP16, FP32)
    with pytest.raises(TypeError, match="expected both float16"):
        matmul(a, a.T.astype(np.float32), FP16, FP32)
    with pytest.raises(ValueError, match="accumulator"):
        matmul(a, a.T, FP16, E4M3)
    with pytest.raises(ValueError, match="increase strictly"):
        matmul(a, a.T, FP16, FP32, at=np.array([2, 2]))
    with pytest.raises(ValueError, match="up to K = 3"):
        matmul(a, a.T, FP16, FP32, at=np.array([4]))
    with pytest.raises(ValueError, match="whole numbers"):
        exact_matmul(a, a.T, at=np.array([1.0]))
    with pytest.raises(ValueError, match="finite"):
        exact_matmul(np.full((2, 3), np.inf, dtype=np.float16), a.T)
    with pytest.raises(TypeError, match="not one of the input formats"):
        exact_matmul(a.astype(np.float64), a.T.astype(np.float64))


def test_fp16_accumulation_of_a_long_matrix_product() -> None:
    """8 x 8 outputs, FP16 inputs uniform in [0, 1), K = 2**14: ~50 % error in FP16, ~1e-6 in FP32.

    The same stall as for one dot product (each entry is one); the
    Frobenius norm averages over the entries.
    """
    k = 2**14
    a, b = operands(FP16, 8, k, 8, 6, "uniform")
    at = np.array([2**8, k])
    exact = exact_matmul(a, b, at=at)
    narrow = relative_frobenius_error(matmul(a, b, FP16, FP16, at=at), exact)
    wide = relative_frobenius_error(matmul(a, b, FP16, FP32, at=at), exact)
    assert narrow[0] < 1e-2 and narrow[1] > 0.4
    assert wide.max() < 1e-5


def by_dot_running(a: np.ndarray, b: np.ndarray, fmt: Format, acc: Format, at: np.ndarray) -> np.ndarray:
    """The naive sums at ``at`` the reference way, ``(at, ..., m, n)``: fpsum.dot.dot_running along each entry's K."""
    lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    (m, k), n = a.shape[-2:], b.shape[-1]
    x = np.broadcast_to(a[..., :, np.newaxis, :], lead + (m, n, k))
    y = np.broadcast_to(np.swapaxes(b, -1, -2)[..., np.newaxis, :, :], lead + (m, n, k))
    return np.moveaxis(dot_running(np.ascontiguousarray(x), np.ascontiguousarray(y), fmt, acc)[..., at - 1], -1, 0)


def stalling(acc: Format, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """BF16 stacks ``(6, 3, k)`` and ``(6, k, 4)`` whose naive sums in ``acc`` stall, or nearly, and start again.

    Each sum starts at ``acc``'s stall point 2**p (gap 2 above, 1 below);
    the products after it are powers of two from 2**-6 to 1, at most half
    the gap above, so exact ties.  Matrix 0 stalls for good; 1 starts one
    gap higher, an odd last bit, where a tie moves it; 2 has products of
    both signs (half the gap below is 0.5); 3 jumps by 2**p halfway; 4 is
    -0.0 then zero products (the first +0.0 makes it +0.0); 5 meets an inf.
    """
    rng = np.random.default_rng(seed)
    start = acc.stall_point
    a = 2.0 ** rng.integers(-3, 1, (6, 3, k))
    b = 2.0 ** rng.integers(-3, 1, (6, k, 4))
    a[..., 0], b[:, 0, :] = start, 1.0
    a[1, :, 0] = start + 2
    a[2, :, 1:] *= rng.choice([-1.0, 1.0], (3, k - 1))
    a[3, :, k // 2] = start
    a[4] = 0.0
    a[4, :, 0] = -0.0
    a[5, 1, 3 * k // 4] = np.inf
    return to_format(a, BF16), to_format(b, BF16)


@pytest.mark.parametrize("acc", (BF16, FP16, FP32), ids=lambda f: f.name)
@pytest.mark.parametrize(("span", "step"), ((1, 1), (3, 7), (16, 1 << 18)))
def test_the_naive_walk_skips_stalled_sums_without_changing_a_bit(acc: Format, span: int, step: int,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Matrices left out of a span because no product of it can move their sums: the same bits as summing them.

    Ties at half a gap, the narrower gap below a power of two, zeros of both
    signs and an inf all decide whether a sum may be left alone.
    """
    a, b = stalling(acc, 120, span)
    at = np.array([1, 2, 59, 60, 61, 100, 120])
    want = by_dot_running(a, b, BF16, acc, at)
    skipped = []
    moving = fpsum.matmul_walk._moving

    def spy(*args: object) -> np.ndarray:
        result: np.ndarray = moving(*args)  # type: ignore[arg-type]
        skipped.append(int((~result).sum()))
        return result

    monkeypatch.setattr(fpsum.matmul_walk, "SPAN", span)
    monkeypatch.setattr(fpsum.matmul_walk, "PRODUCTS_PER_STEP", step)
    monkeypatch.setattr(fpsum.matmul_walk, "_moving", spy)
    got = matmul(a, b, BF16, acc, at=at)
    assert_same_bits(got, want)
    assert sum(skipped) > 0  # some sums were left alone, so the test tests something
    assert_same_bits(matmul(a, b, BF16, acc), want[-1])


def test_stacks_broadcast_and_every_matrix_is_its_own_product() -> None:
    a = np.stack([operands(FP16, 3, 40, 5, seed, "mixed")[0] for seed in range(4)]).reshape(2, 2, 3, 40)
    b = operands(FP16, 3, 40, 5, 9, "mixed")[1]
    at = np.array([5, 40])
    for method in ("naive", "pairwise"):
        got = matmul(a, b, FP16, FP16, method, at=at)
        assert got.shape == (2, 2, 2, 3, 5)
        for i, j in itertools.product(range(2), range(2)):
            assert_same_bits(got[:, i, j], matmul(a[i, j], b, FP16, FP16, method, at=at))
    exact = exact_matmul(a, b[np.newaxis, np.newaxis], at=at)
    for i, j in itertools.product(range(2), range(2)):
        np.testing.assert_array_equal(exact[:, i, j], exact_matmul(a[i, j], b, at=at))
    with pytest.raises(ValueError, match="do not broadcast"):
        matmul(a, np.stack([b, b, b]), FP16, FP16)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_naive_matmuls_share_one_walk_and_give_each_accumulator_its_own_product(case: tuple[Format, Format]) -> None:
    fmt, acc = case
    a, b = operands(fmt, 4, 70, 3, 5, "codes")
    accs = (acc, FP32 if fmt.bits < 32 else FP64, acc)
    at = np.array([1, 33, 70])
    for got, each in zip(fpsum.matmul.naive_matmuls(a, b, fmt, accs, at=at), accs):
        assert_same_bits(got, matmul(a, b, fmt, each, at=at))
        assert_same_bits(got, by_dot_running(a, b, fmt, each, at))
    with pytest.raises(ValueError, match="at least one"):
        fpsum.matmul.naive_matmuls(a, b, fmt, ())


def test_exact_matmul_over_many_binades_sums_its_levels_exactly() -> None:
    """FP32 values from 2**12 down to 2**-56, of both signs: four slices each, too many digits for one float64.

    The levels go to fpsum.exact.exact_running; the result is still the exact sum, rounded once.
    """
    rng = np.random.default_rng(12)
    a = to_format(rng.standard_normal((3, 64)) * 2.0 ** rng.integers(-30, 10, (3, 64)), FP32)
    b = to_format(rng.standard_normal((64, 2)) * 2.0 ** rng.integers(-30, 10, (64, 2)), FP32)
    slices = fpsum.matmul_exact._slices(a, 21)
    assert slices is not None and slices.count == 4
    assert fpsum.matmul_exact._exact_by_slices(a, b, np.array([64])) is not None
    got = exact_matmul(a, b)
    for i, j in itertools.product(range(3), range(2)):
        assert got[i, j] == float(exact_dot(a[i], b[:, j]))


def test_correctly_rounded_levels_against_fractions() -> None:
    """Levels of whole numbers up to 2**52, both signs, zeros, and sums that fall on ties: one rounding each."""
    rng = np.random.default_rng(13)
    width = 17
    for count in (1, 2, 3, 4, 5):
        levels = [np.trunc(rng.uniform(-1, 1, 400) * 2.0 ** rng.integers(0, 53, 400)) for _ in range(count)]
        levels[0][:40] = 0.0
        levels[-1][40:80] = -0.0
        if count > 1:  # halfway between two floats (2**52 + 1 is odd, half its ulp below), or just off it
            for level in levels:
                level[80:100] = 0.0
            levels[0][80:100] = 2.0**52 + 1
            levels[1][80:100] = 2.0 ** (width - 1)
            levels[-1][90:95] += 1.0
            levels[-1][95:100] -= 1.0
        got = fpsum.matmul_exact._correctly_rounded(levels, width, -30)
        for index in range(400):
            exact = sum((Fraction(float(level[index])) * 2 ** ((count - 1 - place) * width)
                         for place, level in enumerate(levels)), Fraction(0))
            want = float(exact * Fraction(2) ** -30)
            assert got[index] == want and (want != 0 or not np.signbit(got[index])), (count, index)


@pytest.mark.parametrize("scale", (2.0**-140, 2.0**-100, 2.0**20, 2.0**100), ids=lambda s: f"2**{int(np.log2(s))}")
def test_exact_matmul_by_slices_of_tiny_and_huge_values(scale: float) -> None:
    """FP32 subnormals and values far above 1: slices cut where float32 cannot scale them, still exact."""
    rng = np.random.default_rng(14)
    a = to_format(rng.standard_normal((2, 50)) * scale, FP32)
    b = to_format(rng.standard_normal((50, 3)), FP32)
    assert fpsum.matmul_exact._exact_by_slices(a, b, np.array([50])) is not None
    got = exact_matmul(a, b)
    for i, j in itertools.product(range(2), range(3)):
        assert got[i, j] == float(exact_dot(a[i], b[:, j]))


@pytest.mark.parametrize("sparse", (0.0, 1 / 16, 1.01))
@pytest.mark.parametrize("fmt", (BF16, FP16, FP32), ids=lambda f: f.name)
def test_exact_matmul_by_matrix_products_or_term_by_term(fmt: Format, sparse: float,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The low slices multiplied densely (never sparse), where few, or always term by term: the same exact sums.

    Values mostly of one size with a few smaller ones, in every binade down to 2**-30 (zeros and both signs
    too), so that the low slices are mostly zeros, against exact_dot at every count.
    """
    rng = np.random.default_rng(16)
    a = rng.standard_normal((4, 200)) * np.where(rng.random((4, 200)) < 0.1, 2.0 ** rng.integers(-30, 0, (4, 200)), 1)
    b = rng.standard_normal((200, 3)) * np.where(rng.random((200, 3)) < 0.1, 2.0 ** rng.integers(-20, 0, (200, 3)), 1)
    a[0, :7], b[:5, 1] = 0.0, -0.0
    a, b = to_format(a, fmt), to_format(b, fmt)
    monkeypatch.setattr(fpsum.matmul_exact, "SPARSE", sparse)
    at = np.array([1, 16, 17, 150, 200])
    got = fpsum.matmul_exact._exact_by_slices(a, b, at)
    assert got is not None
    for (t, k), i, j in itertools.product(enumerate(at.tolist()), range(4), range(3)):
        assert got[t, i, j] == float(exact_dot(a[i, :k], b[:k, j])), (t, i, j)
