"""The playground's JavaScript arithmetic against the model, bit for bit.

The playground (docs/assets/javascripts/playground/core) is a second
implementation of ``fpsum``'s arithmetic, so it is held to the model's own
output: every expected value here comes from ``fpsum`` (or NumPy, or exact
fractions computed here), never from the JavaScript.  The JavaScript runs in
node through tools/playground/oracle.js, many cases per call; doubles travel
as their float64 bytes, and results are compared as bit patterns (all NaNs
equal, -0 and +0 different).

What is compared: every two-operand addition in each FP8, FP6 and FP4 format
(all pairs of its codes, NaN and inf included); a million random pairs in
FP16, BF16 and FP32 each, and edge cases (ties, subnormals, the largest value,
overflow); rounding of doubles to each format, midpoints included; NumPy's
random streams; every input kind; more than 20,000 whole sums (totals and
every running total) across formats, methods, kinds and n up to 2**20,
stochastic rounding included (same PCG64 stream for the same seed); reading
text as ``fpsum sum`` reads it; exact sums and errors; the stall step; and
the step traces against fractions.
"""

from __future__ import annotations

import base64
import io
import json
import math
import re
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from fpsum.array_rounding import to_format
from fpsum.exact import exact_sum
from fpsum.exact_rounding import round_exact
from fpsum.formats import BF16, E4M3, E5M2, FORMATS, FP16, FP32, FP64, Format, accumulator_for
from fpsum.inputs import INPUT_KINDS, InputKind, make_inputs
from fpsum.methods import DIRECT_TOTALS, running_totals, total
from fpsum.names import Method
from fpsum.race import run_race
from fpsum.reading import UsageError, read_numbers
from fpsum.report import exact_and_errors
from fpsum.rounded_once import add_rounded
from fpsum.stochastic_rounding import stochastic_round
from reference import assert_same_bits
from repocopy import REPO

ORACLE = REPO / "tools" / "playground" / "oracle.js"
CORE_FORMATS = REPO / "docs" / "assets" / "javascripts" / "playground" / "core" / "formats.js"
PLAYGROUND_NAMES = tuple(FORMATS)
"""The formats the playground offers: every format of the model, in its order."""
PLAYGROUND_FORMATS = [FORMATS[name] for name in PLAYGROUND_NAMES]
SMALL_FORMATS = [fmt for fmt in PLAYGROUND_FORMATS if fmt.bits <= 8]
"""The FP8, FP6 and FP4 formats: few enough codes to add every pair."""
METHODS: tuple[Method, ...] = ("naive", "wide", "kahan", "neumaier", "pairwise", "blocked", "stochastic")
DETERMINISTIC: tuple[Method, ...] = METHODS[:-1]
SEED = 20261202
PAIRS = 1_000_000

pytestmark = [
    pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning"),
]


def encode(values: np.ndarray | Sequence[float]) -> str:
    """Doubles as base64 of their little-endian float64 bytes (what oracle.js reads)."""
    return base64.b64encode(np.ascontiguousarray(values, dtype="<f8").tobytes()).decode("ascii")


def decode(text: str) -> np.ndarray:
    """The doubles oracle.js sent."""
    return np.frombuffer(base64.b64decode(text), dtype="<f8").astype(np.float64)


def oracle(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run the cases through oracle.js in one node process; its results, in order."""
    node = shutil.which("node")
    assert node is not None, "node (20 or later) is needed for the playground's tests"
    done = subprocess.run([node, str(ORACLE)], input=json.dumps({"cases": cases}), capture_output=True,
                          text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    results: list[dict[str, Any]] = json.loads(done.stdout)["results"]
    assert len(results) == len(cases)
    return results


def as64(values: np.ndarray) -> np.ndarray:
    """Any float array as float64 (exact)."""
    return np.asarray(values).astype(np.float64)


def all_codes(fmt: Format) -> np.ndarray:
    """Every value of a format of at most 16 bits, by code (NaN and inf codes included), as float64.

    ml_dtypes keeps FP4 and FP6 values in a byte, their code in its low bits.
    """
    width = np.uint8 if fmt.bits <= 8 else {16: np.uint16}[fmt.bits]
    return as64(np.arange(1 << fmt.bits, dtype=np.int64).astype(width).view(fmt.dtype))


def random_values(fmt: Format, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` values of ``fmt`` from random bit patterns (NaN and inf included), as float64."""
    if fmt.bits == 32:
        return as64(rng.integers(0, 1 << 32, count, dtype=np.uint64).astype(np.uint32).view(np.float32))
    return all_codes(fmt)[rng.integers(0, 1 << fmt.bits, count)]


def near_values(fmt: Format, a: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Values of ``fmt`` within a few binades of each ``a`` (so that sums round and cancel), either sign."""
    scale = np.exp2(rng.integers(-fmt.precision - 3, 4, a.size).astype(np.float64))
    drawn = a * scale * rng.uniform(-2, 2, a.size)
    return as64(to_format(drawn, fmt))


def edge_values(fmt: Format) -> np.ndarray:
    """Zeros, subnormals, the smallest normal, 1 and its neighbours, the largest values, inf and NaN, both signs."""
    sub, normal, top = fmt.smallest_subnormal, fmt.smallest_normal, fmt.max_finite
    one_up = 1 + 2.0 ** (1 - fmt.precision)
    values = [0.0, sub, 2 * sub, 3 * sub, normal - sub, normal, normal + sub, 0.5, 1.0, one_up, 1.5,
              2.0 ** (fmt.precision - 1), 2.0 ** fmt.precision, top, top - fmt.ulp(top), top / 2, 2.0 ** fmt.emax]
    signed = values + [-v for v in values] + [-0.0, math.inf, -math.inf]
    signed += [math.nan] if fmt.overflow != "saturate" else []  # FP4 and FP6 have no NaN: rounding it is an error
    return as64(to_format(np.array(signed), fmt))


def tie_pairs(fmt: Format, rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Pairs whose exact sum is a midpoint of ``fmt`` (or a value a quarter or three quarters of a gap away)."""
    a = random_values(fmt, count, rng)
    a = a[np.isfinite(a)]
    gaps = fmt.ulps(a)
    factor = rng.choice(np.array([0.5, -0.5, 1.5, -1.5, 0.25, 0.75, -0.25]), a.size)
    b = as64(to_format(gaps * factor, fmt))
    return a, b


@pytest.mark.parametrize("fmt", SMALL_FORMATS, ids=lambda f: f.name)
def test_small_format_additions_exhaustive(fmt: Format) -> None:
    """Every pair of the format's codes (65,536 additions in FP8, NaN and inf included) as add_rounded gives it."""
    codes = all_codes(fmt)
    a, b = np.repeat(codes, codes.size), np.tile(codes, codes.size)
    got = decode(oracle([{"op": "add", "format": fmt.name, "a": encode(a), "b": encode(b)}])[0]["y"])
    assert got.size == 4 ** fmt.bits
    assert_same_bits(got, as64(add_rounded(a, b, fmt)), a, b)


@pytest.mark.parametrize("fmt", [fmt for fmt in SMALL_FORMATS if fmt.overflow == "saturate"], ids=lambda f: f.name)
def test_fast2sum_is_exact_where_a_sum_saturates(fmt: Format) -> None:
    """Kahan's and Neumaier's loops in methods.js skip rounding t - s and (t - s) - y where |s| >= |y|: in FP4
    and FP6, whose sums beyond the largest value are cut to it, both must still be values of the format.
    """
    codes = all_codes(fmt)
    s, y = np.repeat(codes, codes.size), np.tile(codes, codes.size)
    s, y = s[np.abs(s) >= np.abs(y)], y[np.abs(s) >= np.abs(y)]
    t = as64(add_rounded(s, y, fmt))
    assert np.any(np.abs(s + y) > fmt.max_finite), "no pair saturates: the check would be vacuous"
    for exact in (t - s, (t - s) - y):
        assert_same_bits(as64(to_format(exact, fmt)), exact)


@pytest.mark.parametrize("fmt", [FP16, BF16, FP32], ids=lambda f: f.name)
def test_random_and_edge_additions(fmt: Format) -> None:
    """A million random pairs (half of them of nearby magnitudes), every pair of edge values, and ties."""
    rng = np.random.default_rng([SEED, fmt.bits, fmt.precision])
    half = PAIRS // 2
    first = random_values(fmt, PAIRS, rng)
    second = np.concatenate([random_values(fmt, half, rng), near_values(fmt, first[half:], rng)])
    edges = edge_values(fmt)
    tie_a, tie_b = tie_pairs(fmt, rng, 50_000)
    a = np.concatenate([first, np.repeat(edges, edges.size), tie_a, tie_b])
    b = np.concatenate([second, np.tile(edges, edges.size), tie_b, tie_a])
    got = decode(oracle([{"op": "add", "format": fmt.name, "a": encode(a), "b": encode(b)}])[0]["y"])
    assert got.size >= PAIRS + edges.size**2
    assert_same_bits(got, as64(add_rounded(a, b, fmt)), a, b)


def doubles_to_round(fmt: Format, rng: np.random.Generator) -> np.ndarray:
    """Doubles around the format's values: exact midpoints and their double neighbours, random doubles of every size."""
    values = random_values(fmt, 100_000, rng) if fmt.bits <= 32 else rng.standard_normal(100_000)
    values = values[np.isfinite(values)]
    gaps = fmt.ulps(values)
    midpoints = values + gaps / 2
    with np.errstate(over="ignore"):
        around = np.concatenate([midpoints, np.nextafter(midpoints, np.inf), np.nextafter(midpoints, -np.inf),
                                 values + gaps / 4, values - gaps * 0.75, -midpoints])
    anything = rng.integers(0, 1 << 63, 100_000, dtype=np.uint64).view(np.float64) * rng.choice([-1.0, 1.0], 100_000)
    scaled = rng.standard_normal(100_000) * np.exp2(rng.integers(fmt.emin - fmt.precision - 4, fmt.emax + 3, 100_000))
    specials = np.array([0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, -5e-324, 1.7976931348623157e308,
                         fmt.max_finite + fmt.ulp(fmt.max_finite) / 2, fmt.smallest_subnormal / 2,
                         -fmt.smallest_subnormal / 2, fmt.smallest_subnormal * 0.5000001])
    values = np.concatenate([around, anything, scaled, specials])
    return values[~np.isnan(values)] if fmt.overflow == "saturate" else values  # FP4, FP6: NaN is an error


@pytest.mark.parametrize("fmt", PLAYGROUND_FORMATS, ids=lambda f: f.name)
def test_rounding_doubles(fmt: Format) -> None:
    """roundToFormat, and the summation loops' fast rounders applied in turn, as fpsum's to_format rounds."""
    x = doubles_to_round(fmt, np.random.default_rng([SEED, 2, fmt.bits, fmt.precision]))
    want = as64(to_format(x, fmt))
    cases = [{"op": op, "format": fmt.name, "x": encode(x)} for op in ("round", "round_seq")]
    for result in oracle(cases):
        assert_same_bits(decode(result["y"]), want, x)
        if "z" in result:  # roundNear, which remembers the binade of the last value
            assert_same_bits(decode(result["z"]), want, x)
            sorted_x = np.sort(x[np.isfinite(x)])  # long runs in one binade: the remembered path
            again = oracle([{"op": "round_seq", "format": fmt.name, "x": encode(sorted_x)}])[0]
            assert_same_bits(decode(again["z"]), as64(to_format(sorted_x, fmt)), sorted_x)
    exact = np.array([round_exact(float(v), fmt) for v in x[::97]])  # the slow reference, on a sample
    assert_same_bits(want[::97], exact, x[::97])


@pytest.mark.parametrize("fmt", [fmt for fmt in PLAYGROUND_FORMATS if fmt is not FP64], ids=lambda f: f.name)
def test_stochastic_rounding_of_pairs(fmt: Format) -> None:
    """stochasticRound(a, b, draw) as fpsum's stochastic_round, on random, nearby and edge pairs."""
    rng = np.random.default_rng([SEED, 3, fmt.bits, fmt.precision])
    a = random_values(fmt, 200_000, rng)
    b = np.concatenate([random_values(fmt, 100_000, rng), near_values(fmt, a[100_000:], rng)])
    edges = edge_values(fmt)
    a = np.concatenate([a, np.repeat(edges, edges.size)])
    b = np.concatenate([b, np.tile(edges, edges.size)])
    draws = rng.random(a.size)
    got = decode(oracle([{"op": "stochastic", "format": fmt.name, "a": encode(a), "b": encode(b),
                          "draws": encode(draws)}])[0]["y"])
    assert_same_bits(got, as64(stochastic_round(a, b, fmt, draws)), a, b, draws)


RNG_SEEDS: list[int | list[int]] = [0, 1, 42, 2**32 + 5, 2**40 + 3, [0x5352, 0], [0x5352, 7], [1, 2, 3, 4, 5]]


def test_random_streams() -> None:
    """NumPy's default_rng(seed).random() and .standard_normal() streams, several seeds (a million normals for one)."""
    wanted = [(op, seed, 1_000_000 if seed == 1 and op == "normal" else 100_000)
              for seed in RNG_SEEDS for op in ("random", "normal")]
    cases = [{"op": op, "seed": seed, "count": count} for op, seed, count in wanted]
    for (op, seed, count), result in zip(wanted, oracle(cases)):
        generator = np.random.default_rng(seed)
        want = generator.random(count) if op == "random" else generator.standard_normal(count)
        assert_same_bits(decode(result["y"]), want)


def test_inputs_as_fpsum_draws_them() -> None:
    """drawInputs for every kind, format and a few seeds is make_inputs, bit for bit; exp as far as Math.exp allows."""
    wanted: list[tuple[InputKind, Format, int, int]] = [
        (kind, fmt, seed, n) for kind in INPUT_KINDS for fmt in PLAYGROUND_FORMATS
        for seed, n in ((0, 20_000), (7, 3), (2**33, 5000))]
    wanted.append(("normal", FP16, 3, 1 << 20))
    cases = [{"op": "inputs", "kind": kind, "n": n, "seed": seed, "format": fmt.name} for kind, fmt, seed, n in wanted]
    exp_differ = 0
    for (kind, fmt, seed, n), result in zip(wanted, oracle(cases)):
        want = as64(make_inputs(kind, n, fmt, seed))
        got = decode(result["y"])
        if kind == "exp" and fmt is FP64:
            exp_differ += int(np.count_nonzero(got != want))
            np.testing.assert_allclose(got, want, rtol=4e-16, atol=0)  # Math.exp is not numpy's exp
        else:
            assert_same_bits(got, want)
    print(f"FP64 exp inputs that differ in the last bit: {exp_differ}")
    matches = oracle([{"op": "inputs", "kind": "constant", "n": 4, "seed": 0, "format": "fp16", "c": 0.1}])
    assert_same_bits(decode(matches[0]["y"]), np.full(4, round_exact(Fraction("0.1"), FP16)))


SUM_FORMATS = PLAYGROUND_FORMATS
SMALL_N = (1, 2, 3, 5, 16, 100, 257, 1000)
TRIALS = 16


def sum_groups() -> Iterator[tuple[Format, InputKind, int, int, int]]:
    """(format, kind, n, seed, block) of the batched whole sums: every format, kind and small n."""
    blocks = (1, 3, 128, 1000)
    for i, (fmt, kind, n) in enumerate((f, k, n) for f in SUM_FORMATS for k in INPUT_KINDS for n in SMALL_N):
        yield fmt, kind, n, i, blocks[i % len(blocks)]


def check_sums(fmt: Format, values: np.ndarray, results: dict[str, Any], methods: Sequence[Method], block: int,
               sr_seed: int = 0) -> int:
    """Compare the oracle's totals and running totals (rows of ``values``) with fpsum's; the number of sums."""
    compared = 0
    stored = values.astype(fmt.dtype)
    for method in methods:
        want_running = as64(running_totals(method, stored, fmt, block=block, seed=sr_seed))
        # fpsum's total is its last running total except where it is computed directly: not computed twice.
        want_total = (as64(total(method, stored, fmt, block=block, seed=sr_seed)) if method in DIRECT_TOTALS
                      else want_running[..., -1])
        got_total = decode(results["totals"][method]).reshape(want_total.shape)
        assert_same_bits(got_total, want_total)
        assert_same_bits(decode(results["running"][method]).reshape(want_running.shape), want_running)
        compared += got_total.size
    return compared


def test_whole_sums_batched() -> None:
    """More than 20,000 sums: every format, kind and small n, 16 trials each, six methods; totals and running totals.

    The oracle draws the inputs itself (the same (trials, n) draws as
    make_inputs), except for exp, whose inputs it is given.
    """
    groups = list(sum_groups())
    cases = []
    inputs = []
    for fmt, kind, n, seed, block in groups:
        values = as64(make_inputs(kind, n, fmt, seed, trials=TRIALS))
        inputs.append(values)
        case: dict[str, Any] = {"op": "sums", "format": fmt.name, "methods": list(DETERMINISTIC), "n": n,
                                "trials": TRIALS, "block": block, "running": True}
        case.update({"values": encode(values.ravel())} if kind == "exp" else {"kind": kind, "seed": seed})
        cases.append(case)
    compared = 0
    for (fmt, _, _, _, block), values, result in zip(groups, inputs, oracle(cases)):
        compared += check_sums(fmt, values, result, DETERMINISTIC, block)
    assert compared >= 20_000


def test_long_sums() -> None:
    """n = 2**16 in every format and method (uniform and normal inputs; normal alone in the fnuz, FP6 and FP4
    formats, where a uniform sum stops within a few hundred inputs), and 2**20 in FP16 and BF16.
    """
    cases = []
    wanted: list[tuple[Format, InputKind, int, tuple[Method, ...]]] = []
    for fmt in SUM_FORMATS:
        for kind in ("uniform", "normal") if fmt.bits >= 16 or fmt in (E4M3, E5M2) else ("normal",):
            wanted.append((fmt, kind, 1 << 16, METHODS if fmt is not FP64 else DETERMINISTIC))
    for fmt in (FP16, BF16):
        wanted.append((fmt, "uniform", 1 << 20, METHODS))
    wanted.append((E4M3, "symmetric", 1 << 20, ("naive", "pairwise", "blocked")))
    for fmt, kind, n, methods in wanted:
        cases.append({"op": "sums", "format": fmt.name, "methods": list(methods), "n": n, "trials": 1,
                      "kind": kind, "seed": n + fmt.bits, "block": 128, "sr_seed": 5, "running": True})
    for (fmt, kind, n, methods), result in zip(wanted, oracle(cases)):
        values = as64(make_inputs(kind, n, fmt, n + fmt.bits))
        check_sums(fmt, values, result, methods, 128, sr_seed=5)


def test_stochastic_sums() -> None:
    """Stochastic rounding's totals and running totals with its own seeded stream, in every format and kind."""
    wanted = [(fmt, kind, n, sr_seed) for fmt in SUM_FORMATS for kind in INPUT_KINDS for n in (1, 7, 100, 1000)
              for sr_seed in (0, 3) if not (fmt is FP64 and n > 100)]
    cases = [{"op": "sums", "format": fmt.name, "methods": ["stochastic"], "n": n, "trials": 1, "sr_seed": sr_seed,
              "values": encode(as64(make_inputs(kind, n, fmt, n)))}
             for fmt, kind, n, sr_seed in wanted]
    for (fmt, kind, n, sr_seed), result in zip(wanted, oracle([dict(c, running=True) for c in cases])):
        values = as64(make_inputs(kind, n, fmt, n))
        check_sums(fmt, values, result, ("stochastic",), 128, sr_seed=sr_seed)


def test_sums_of_special_values() -> None:
    """Sums with NaN, inf, -0, subnormals and overflow, in every format and method."""
    rng = np.random.default_rng([SEED, 5])
    cases = []
    rows = []
    for fmt in SUM_FORMATS:
        edges = edge_values(fmt)
        for _ in range(20):
            row = rng.choice(edges, 12)
            rows.append((fmt, row))
            cases.append({"op": "sums", "format": fmt.name, "methods": list(METHODS), "n": row.size, "trials": 1,
                          "values": encode(row), "running": True})
        for chosen in ([-0.0], [-0.0, -0.0], [fmt.max_finite] * 5, [-0.0, 0.0, -0.0]):
            rows.append((fmt, as64(to_format(np.array(chosen), fmt))))
            cases.append({"op": "sums", "format": fmt.name, "methods": list(METHODS), "n": len(chosen), "trials": 1,
                          "values": encode(rows[-1][1]), "running": True})
    for (fmt, row), result in zip(rows, oracle(cases)):
        check_sums(fmt, row[np.newaxis, :], result, METHODS, 128)


def test_bad_sum_requests() -> None:
    """An unknown method or format, a block size of 0 and a negative seed are InputErrors naming the problem."""
    one = encode([1.0])
    cases = [{"op": "sums", "format": "fp16", "methods": ["fast"], "n": 1, "trials": 1, "values": one},
             {"op": "sums", "format": "fp12", "methods": ["naive"], "n": 1, "trials": 1, "values": one},
             {"op": "sums", "format": "fp16", "methods": ["blocked"], "n": 1, "trials": 1, "values": one, "block": 0},
             {"op": "sums", "format": "fp16", "methods": ["stochastic"], "n": 1, "trials": 1, "values": one,
              "sr_seed": -1},
             {"op": "inputs", "kind": "cauchy", "n": 3, "seed": 0, "format": "fp16"}]
    messages = [result.get("error", "") for result in oracle(cases)]
    for needle, message in zip(("fast", "fp12", "block", "sr_seed", "cauchy"), messages):
        assert needle in message and "\n" not in message, message


PARSE_TEXTS = [
    "1 2 3", "0.1\n0.2\n0.3\n", "1e-3 -2.5E+4 .5 5. -0 +0 -0.0e7", "1/3 -2/7 22/7", "inf -inf +inf nan -nan Infinity",
    "++inf +-inf", "1_000 2_5.5_0 1e1_0", "65519 65520 65504.0001 -65536", "1e-8 5.9604644775390625e-8 2.98e-8",
    "3.0000000000000000000000000000000001 0.99999999999999999999999999", "1e400 -1e400 1e-400 -1e-400",
    "1e99999 -1e-99999 0e99999 -0e99999", "448 464 465 -480 240", "57344 61440 61439.99", "\t1\r\n2\r3\x0c4\xa05",
    "3.4028235677973366e38 3.4028234663852886e38 1.401298464324817e-45 7e-46",
    "x", "1 2 three", "1..2", "1e", "--1", "1/0", "0/0", "_1", "1__0", "1_", "0x10", "1.d", "", "   \n ", "1,5",
]


@pytest.mark.parametrize("fmt", PLAYGROUND_FORMATS, ids=lambda f: f.name)
def test_parse_as_fpsum_sum_reads(fmt: Format) -> None:
    """parseNumbers rounds every token as fpsum sum does, refuses the tokens it refuses, and reads 10,000 decimals."""
    rng = np.random.default_rng([SEED, 6, fmt.bits, fmt.precision])
    mantissas = rng.integers(0, 10**12, 10_000)
    exponents = rng.integers(-50, 40, 10_000)
    decimals = " ".join(f"{'-' if i % 3 == 0 else ''}{m}e{e}" for i, (m, e) in enumerate(zip(mantissas, exponents)))
    texts = [*PARSE_TEXTS, decimals, near_midpoints(fmt, rng)]
    results = oracle([{"op": "parse", "format": fmt.name, "text": text} for text in texts])
    for text, result in zip(texts, results):
        try:
            want: np.ndarray | None = read_numbers(io.StringIO(text.replace(",", " ")), "<text>", fmt)
        except UsageError:
            want = None
        if want is None:
            assert "error" in result and "\n" not in result["error"], (text, result)
        else:
            assert "y" in result, (text, result)
            assert_same_bits(decode(result["y"]), want)


def near_midpoints(fmt: Format, rng: np.random.Generator) -> str:
    """Decimals on and beside midpoints of ``fmt`` (closer than a double can tell apart), and short ones near them."""
    values = random_values(fmt, 400, rng) if fmt.bits <= 32 else rng.standard_normal(400)
    values = values[np.isfinite(values) & (np.abs(values) < fmt.max_finite)]
    tokens = []
    with localcontext() as context:
        context.prec = 1200
        for value, gap in zip(values.tolist(), fmt.ulps(values).tolist()):
            middle = Decimal(value) + Decimal(gap) / 2  # exact: dyadic
            for offset in ("0", "1e-40", "-1e-40", "1e-19", "-1e-19"):
                shifted = middle * (1 + Decimal(offset))
                tokens.append(format(shifted, "f") if abs(shifted.adjusted()) < 60 else format(shifted, "e"))
                # and cut to 13, 17 and 20 digits: short enough to be read through a double
                tokens.extend(format(shifted, f".{digits - 1}e") for digits in (13, 17, 20))
    return "\n".join(tokens)


def test_parse_limits_and_messages() -> None:
    """A bad token's message names it and its line; more than 100,000 numbers is refused."""
    results = oracle([{"op": "parse", "format": "fp16", "text": "1 2\n3 4 oops 5"},
                      {"op": "parse", "format": "fp16", "text": "1\n" * 100_000},
                      {"op": "parse", "format": "fp16", "text": "1\n" * 100_001}])
    assert "line 2" in results[0]["error"] and "oops" in results[0]["error"]
    assert decode(results[1]["y"]).size == 100_000
    assert "100000" in results[2]["error"]


def test_exact_sums_and_errors() -> None:
    """exactTotal, absoluteError, relativeError as fpsum sum reports them; ulpError against fractions."""
    rng = np.random.default_rng([SEED, 7])
    cases = []
    expected = []
    for fmt in SUM_FORMATS:
        for kind in INPUT_KINDS:
            for n in (1, 10, 1000, 1 << 16) if kind in ("uniform", "normal") else (1, 10, 1000):
                values = as64(make_inputs(kind, n, fmt, n))
                methods = DETERMINISTIC if n < 1 << 16 else ("naive", "pairwise")
                results = np.array([float(total(m, values.astype(fmt.dtype), fmt)) for m in methods]
                                   + [0.0, math.inf, math.nan, float(values.sum())])
                expected.append((fmt, values, results))
        for _ in range(10):
            values = rng.choice(edge_values(fmt), 6)
            expected.append((fmt, values, np.array([math.inf, -math.inf, math.nan, 0.0, 1.0])))
        expected.append((fmt, as64(to_format(np.array([1.0, -1.0]), fmt)), np.array([0.0, -0.0, 1.0])))
    for fmt, values, results in expected:
        cases.append({"op": "exact", "format": fmt.name, "values": encode(values), "results": encode(results)})
    for (fmt, values, results), result in zip(expected, oracle(cases)):
        reports = [exact_and_errors(values, float(r)) for r in results]
        assert_same_bits(decode(result["value"]), np.array([reports[0][0]]))
        assert_same_bits(decode(result["abs"]), np.array([r[1] for r in reports]), results)
        assert_same_bits(decode(result["rel"]), np.array([r[2] for r in reports]), results)
        assert_same_bits(decode(result["ulps"]), np.array([ulps(values, float(r), fmt) for r in results]), results)


def ulps(values: np.ndarray, result: float, fmt: Format) -> float:
    """|result - exact| in units of ``fmt``'s gap at the exact sum (rounded to a double), by fractions."""
    exact_value, abs_error, _ = exact_and_errors(values, result)
    if not np.isfinite(values).all() or not math.isfinite(abs_error):
        return abs_error  # no finite exact sum, or no finite error: as the absolute error
    if not math.isfinite(exact_value):
        return math.nan  # an exact sum beyond the doubles has no gap to count in
    exact = exact_sum(values)
    try:
        return float(abs(Fraction(result) - exact) / Fraction(fmt.ulp(exact_value)))
    except OverflowError:  # beyond the doubles: rounds to inf
        return math.inf


def test_stall_steps() -> None:
    """stallStep of each method's running totals is where fpsum race says the method stalled."""
    kinds: tuple[InputKind, ...] = ("uniform", "ones", "squares")
    wanted = [(fmt, kind, n, seed) for fmt in PLAYGROUND_FORMATS if fmt is not FP64 for kind in kinds
              for n, seed in ((300, 1), (5000, 2), (1 << 16, 3))]
    methods: tuple[Method, ...] = ("naive", "wide", "kahan", "neumaier", "pairwise")
    cases = [{"op": "stall", "method": m, "format": fmt.name, "values": encode(as64(make_inputs(kind, n, fmt, seed)))}
             for fmt, kind, n, seed in wanted for m in methods]
    results = iter(oracle(cases))
    stalled = 0
    for fmt, kind, n, seed in wanted:
        race = run_race(fmt, kind, n=n, seed=seed, samples=2, methods=methods)
        for m in methods:
            got = next(results)["stall"]
            assert got == race.stalls[m], (fmt.name, kind, n, m)
            stalled += got is not None
    assert stalled > 10  # the comparison covers sums that stall, not only sums that never do


def neighbours(exact: Fraction, fmt: Format) -> tuple[float, float]:
    """The largest value of ``fmt`` <= exact and the smallest >= exact, by fractions (beyond the range: inf or NaN)."""
    nearest = round_exact(exact, fmt)
    beyond = math.inf if fmt.overflow == "inf" else math.nan
    if not math.isfinite(nearest) or abs(nearest) == fmt.max_finite:
        if exact > Fraction(fmt.max_finite):
            return fmt.max_finite, beyond
        if exact < -Fraction(fmt.max_finite):
            return -beyond, -fmt.max_finite
    if Fraction(nearest) == exact:
        return nearest, nearest
    step = np.array([nearest]).astype(fmt.dtype)
    toward = np.array([fmt.max_finite if Fraction(nearest) < exact else -fmt.max_finite]).astype(fmt.dtype)
    other = float(np.nextafter(step, toward)[0])
    return (nearest, other) if Fraction(nearest) < exact else (other, nearest)


def test_traces_against_fractions() -> None:
    """traceStep's fields for naive, wide, kahan and neumaier steps, and firstLostStep, recomputed with fractions."""
    wanted: list[tuple[Format, np.ndarray, Method, int]] = []
    kinds: tuple[InputKind, ...] = ("uniform", "normal", "ones")
    traced: tuple[Method, ...] = ("naive", "wide", "kahan", "neumaier")
    for fmt in (fmt for fmt in PLAYGROUND_FORMATS if fmt is not FP64):
        for kind in kinds:
            values = as64(make_inputs(kind, 1000 if fmt.bits > 8 else 200, fmt, 11))
            for method in traced:
                for k in (1, 2, 17, values.size // 2, values.size):
                    wanted.append((fmt, values, method, k))
    cases = [{"op": "trace", "method": m, "format": fmt.name, "values": encode(v), "k": k} for fmt, v, m, k in wanted]
    cases += [{"op": "first_lost", "method": m, "format": fmt.name, "values": encode(v)}
              for fmt, v, m, k in wanted if k == 1]
    results = oracle(cases)
    for (fmt, values, method, k), got in zip(wanted, results):
        work = accumulator_for(fmt) if method == "wide" else fmt
        stored = values.astype(fmt.dtype)
        x = float(values[k - 1])
        if method in ("naive", "wide"):
            run = as64(running_totals(method, stored, fmt))
            total_before, addend = (0.0 if k == 1 else float(run[k - 2])), x
        else:
            total_before, addend, compensation = replay(method, values, fmt, k)
        exact = Fraction(total_before) + Fraction(addend)
        below, above = neighbours(exact, work)
        result = float(round_exact(exact, work)) if k > 1 or method in ("kahan", "neumaier") else x
        fields = {name: decode(value)[0] for name, value in got.items() if name not in ("exactSum", "swallowed")}
        assert got["exactSum"] == decimal(exact)
        names = ("total", "input", "below", "above", "result")
        want = np.array([total_before, addend, below, above, result])
        assert_same_bits(np.array([fields[name] for name in names]), want)
        assert fields["lost"] == float(exact - Fraction(result))
        assert got["swallowed"] == (addend != 0 and result == total_before)
        if method in ("kahan", "neumaier"):
            assert_same_bits(np.array([fields["compensation"]]), np.array([compensation]))
    lost_results = results[len(wanted):]
    for (fmt, values, method, _), got in zip([w for w in wanted if w[3] == 1], lost_results):
        assert got["step"] == first_swallowed(method, values, fmt), (fmt.name, method)


def compensated_steps(method: str, values: np.ndarray, fmt: Format) -> Iterator[tuple[float, float, float]]:
    """Kahan's or Neumaier's loop in fractions, rounded once per operation: (s before, addend, c after) per step."""
    def add(a: float, b: float) -> float:
        return round_exact(Fraction(a) + Fraction(b), fmt) if a + b != 0 else a + b

    s = c = 0.0
    for x in values.tolist():
        if method == "kahan":
            y = add(x, -c)
            t = add(s, y)
            new_c = add(add(t, -s), -y)
            yield s, y, new_c
            s, c = t, new_c
        else:
            after = add(s, x)
            lost = add(add(s, -after), x) if abs(s) >= abs(x) else add(add(x, -after), s)
            new_c = add(c, lost)
            yield s, x, new_c
            s, c = after, new_c


_STEPS: dict[tuple[str, bytes, str], list[tuple[float, float, float]]] = {}


def replay(method: str, values: np.ndarray, fmt: Format, k: int) -> tuple[float, float, float]:
    """Step k (1-based) of :func:`compensated_steps` (each run of the loop computed once)."""
    key = (method, values.tobytes(), fmt.name)
    if key not in _STEPS:
        _STEPS[key] = list(compensated_steps(method, values, fmt))
    return _STEPS[key][k - 1]


def first_swallowed(method: Method, values: np.ndarray, fmt: Format) -> int | None:
    """The first step whose nonzero addend left the running total unchanged (for kahan, the corrected input)."""
    if method in ("naive", "wide"):
        run = as64(running_totals(method, values.astype(fmt.dtype), fmt))
        for k in range(2, values.size + 1):
            if values[k - 1] != 0 and run[k - 1] == run[k - 2]:
                return k
        return None
    for k, (s, addend, _) in enumerate(compensated_steps(method, values, fmt), start=1):
        if addend != 0 and round_exact(Fraction(s) + Fraction(addend), fmt) == s:
            return k
    return None


def decimal(value: Fraction) -> str:
    """The exact decimal of a dyadic fraction: every digit, no exponent, no trailing zeros."""
    sign = "-" if value < 0 else ""
    value = abs(value)
    whole, rest = divmod(value.numerator, value.denominator)
    digits = []
    while rest:
        rest *= 10
        digit, rest = divmod(rest, value.denominator)
        digits.append(str(digit))
    return sign + str(whole) + ("." + "".join(digits) if digits else "")


def test_is_lost() -> None:
    """isLost for a typed total and input: rounded to the format first, then taken apart as a step."""
    pairs = [(FP16, 2048.0, 0.7), (FP16, 2048.0, 1.0), (FP16, 2048.0, 1.5), (BF16, 256.0, 1.0), (E4M3, 448.0, 16.0),
             (E5M2, 57344.0, 8192.0), (FP16, 0.1, 0.2)]
    cases = [{"op": "is_lost", "format": f.name, "total": encode([t]), "input": encode([x])} for f, t, x in pairs]
    for (fmt, t, x), got in zip(pairs, oracle(cases)):
        total_value, addend = round_exact(Fraction(t), fmt), round_exact(Fraction(x), fmt)
        exact = Fraction(total_value) + Fraction(addend)
        result = round_exact(exact, fmt)
        assert_same_bits(np.array([decode(got["result"])[0], decode(got["input"])[0]]), np.array([result, addend]))
        assert got["swallowed"] == (addend != 0 and result == total_value)
        assert got["exactSum"] == decimal(exact)


def test_ml_dtypes_is_the_model() -> None:
    """The dtypes the exhaustive test reads codes from are the ones fpsum's formats use, and hold their values."""
    assert E4M3.dtype == np.dtype(ml_dtypes.float8_e4m3fn) and E5M2.dtype == np.dtype(ml_dtypes.float8_e5m2)
    for fmt in SMALL_FORMATS:
        finite = all_codes(fmt)[np.isfinite(all_codes(fmt))]
        assert finite.max() == fmt.max_finite and finite[finite > 0].min() == fmt.smallest_subnormal, fmt.name


def test_the_playground_offers_the_formats_it_is_tested_in() -> None:
    """The port's format list (core/formats.js) is the one these tests hold to the model."""
    defined = re.findall(r'(?:ieee|define)\("([a-z0-9]+)"', CORE_FORMATS.read_text(encoding="utf-8"))
    assert tuple(defined) == PLAYGROUND_NAMES
