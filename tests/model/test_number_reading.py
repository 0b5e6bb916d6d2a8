"""How ``fpsum sum`` and ``fpsum dot`` read numbers: once rounded, exactly, and quickly (fpsum/reading.py).

The reader takes most decimals through the nearest double and only some
exactly.  Every value it returns is held here to the exact route alone:
``round_exact(Fraction(token))``, the rational the text names rounded once,
on decimals chosen to break the shortcut: the midpoints of each format
written out in full (each is a double, so ``float()`` lands on it exactly),
decimals a hair above and below a midpoint (which ``float()`` also rounds
onto it), the overflow threshold and its neighbours, subnormals, signed
zeros, and random decimals of every length.  Decimals far outside every
format are held to the format's rule for them (overflow, or a signed zero).
"""

from __future__ import annotations

import io
import math
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from fpsum.exact_rounding import round_exact
from fpsum.formats import FORMATS, Format
from fpsum.reading import FAR, UsageError, read_numbers, read_pairs
from reference import assert_same_bits

ALL_FORMATS = list(FORMATS.values())


def exactly(token: str, fmt: Format) -> float:
    """The oracle: the token's exact rational, rounded once (no shortcut; tokens of modest exponent only)."""
    lowered = token.lower().lstrip("+")
    if lowered in ("inf", "-inf", "infinity", "-infinity", "nan", "-nan"):
        return round_exact(float(lowered), fmt)
    value = Fraction(token)
    if value == 0:
        return round_exact(-0.0 if token.startswith("-") else 0.0, fmt)
    return round_exact(value, fmt)


def read(tokens: list[str], fmt: Format) -> np.ndarray:
    return read_numbers(io.StringIO("\n".join(tokens)), "<test>", fmt)


def decimal_text(value: Fraction) -> str:
    """A dyadic rational n / 2**k written out exactly, as the decimal n * 5**k / 10**k."""
    k = value.denominator.bit_length() - 1
    assert value.denominator == 1 << k, "not dyadic"
    return f"{value.numerator * 5 ** k}e-{k}"


def format_values(fmt: Format, rng: np.random.Generator, count: int) -> list[Fraction]:
    """Finite positive values of ``fmt``: its small ones, its largest ones, and ``count`` drawn across its range."""
    drawn = np.exp2(rng.uniform(math.log2(fmt.smallest_subnormal), math.log2(fmt.max_finite), count))
    chosen = [round_exact(Fraction(float(v)), fmt) for v in drawn]
    special = [fmt.smallest_subnormal, 2 * fmt.smallest_subnormal, fmt.smallest_normal, 1.0,
               fmt.max_finite - fmt.ulp(fmt.max_finite), fmt.max_finite]
    return [Fraction(v) for v in special + chosen if math.isfinite(v) and v > 0]


def hard_tokens(fmt: Format, rng: np.random.Generator) -> list[str]:
    """Midpoints of ``fmt`` in full, decimals a hair (2**-100 of it) either side of them, and the overflow
    threshold's: all dyadic, so written out exactly.
    """
    tokens = []
    for value in format_values(fmt, rng, 150):
        gap = Fraction(fmt.ulp(float(value)))
        for point in (value + gap / 2, value - gap / 2 if value > Fraction(fmt.smallest_subnormal) else value):
            hair = (point + Fraction(fmt.smallest_subnormal)) / 2 ** 100
            for near in (point, point + hair, point - hair):
                for sign in ("", "-"):
                    tokens.append(sign + decimal_text(near))
    top = Fraction(fmt.max_finite)
    threshold = top + Fraction(fmt.ulp(fmt.max_finite)) / 2
    for near in (threshold, threshold + threshold / 2 ** 100, threshold - threshold / 2 ** 100, 2 * top):
        tokens += [decimal_text(near), "-" + decimal_text(near)]
    return tokens


def random_tokens(rng: np.random.Generator, count: int) -> list[str]:
    """Decimals of 1 to 40 significant digits with exponents across every format's range, either sign."""
    tokens = []
    for _ in range(count):
        digits = "".join(rng.choice(list("0123456789"), int(rng.integers(1, 41))))
        point = int(rng.integers(0, len(digits) + 1))
        sign = str(rng.choice(["", "-", "+"]))
        exponent = int(rng.integers(-330, 310))
        tokens.append(f"{sign}{digits[:point]}.{digits[point:] or '0'}e{exponent}")
    return tokens


@pytest.mark.parametrize("fmt", ALL_FORMATS, ids=lambda f: f.name)
def test_the_shortcut_rounds_as_the_exact_route_on_midpoints_and_beside_them(fmt: Format) -> None:
    tokens = hard_tokens(fmt, np.random.default_rng(7))
    assert_same_bits(read(tokens, fmt), np.array([exactly(t, fmt) for t in tokens]))


@pytest.mark.parametrize("fmt", ALL_FORMATS, ids=lambda f: f.name)
def test_the_shortcut_rounds_as_the_exact_route_on_random_decimals(fmt: Format) -> None:
    tokens = random_tokens(np.random.default_rng(11), 3000)
    assert_same_bits(read(tokens, fmt), np.array([exactly(t, fmt) for t in tokens]))


def test_a_midpoint_decimal_needs_the_exact_route() -> None:
    """The case the shortcut exists to catch: 2049 + 2**-30 is above FP16's midpoint 2049, yet its double is 2049."""
    fp16 = FORMATS["fp16"]
    token = str(Decimal(2049) + Decimal(2) ** -60)
    assert float(token) == 2049.0  # the double lands on the midpoint
    assert read([token, "2049"], fp16).tolist() == [2050.0, 2048.0]


@pytest.mark.parametrize("fmt", ALL_FORMATS, ids=lambda f: f.name)
def test_special_tokens_zeros_and_fractions(fmt: Format) -> None:
    tokens = ["0", "-0", "+0.0", "-0e5", "0e-7", "inf", "-inf", "+inf", "Infinity", "-INF",
              "1/3", "-7/2", "1_000.5", "١٢", "+.5", "7.", "-1e-30"]
    if fmt.overflow != "saturate":
        tokens += ["nan", "-nan"]
    assert_same_bits(read(tokens, fmt), np.array([exactly(t, fmt) for t in tokens]))


@pytest.mark.parametrize("fmt", [f for f in ALL_FORMATS if f.overflow == "saturate"], ids=lambda f: f.name)
def test_nan_in_a_format_without_one_is_refused(fmt: Format) -> None:
    with pytest.raises(UsageError, match=rf"line 2: 'nan' cannot be held in {fmt.label}, which has no NaN"):
        read_numbers(io.StringIO("1\nnan\n"), "<test>", fmt)


@pytest.mark.parametrize("fmt", ALL_FORMATS, ids=lambda f: f.name)
def test_a_decimal_far_outside_every_format_gets_the_formats_answer(fmt: Format) -> None:
    """Overflow as the format overflows (inf, NaN, or saturation), and a signed zero below every subnormal."""
    big, small = round_exact(Fraction(10) ** (FAR + 1), fmt), round_exact(Fraction(1, 10 ** (FAR + 1)), fmt)
    assert {"inf": math.isinf(big), "nan": math.isnan(big), "saturate": big == fmt.max_finite}[fmt.overflow]
    assert small == 0.0
    negative_zero = -0.0 if fmt.signed_zero else 0.0
    cases = {
        "1e1000000": big, "-1e5000000": -big, "1_0e500000": big, "١e999999": big, "9e" + "9" * 5000: big,
        "1e-1000000": 0.0, "-1e-5000000": negative_zero, "123.4e-999999": 0.0, "1e-" + "9" * 5000: 0.0,
        "0e99999999": 0.0, "-0e99999999": negative_zero, "0.000e-99999999": 0.0,
    }
    assert_same_bits(read(list(cases), fmt), np.array(list(cases.values())))


def test_every_format_lies_well_inside_the_far_bound() -> None:
    """What makes ``FAR`` safe: 10**FAR is beyond twice every format's largest value, 10**-FAR below half its
    smallest subnormal.
    """
    for fmt in ALL_FORMATS:
        assert Fraction(10) ** FAR > 2 * Fraction(fmt.max_finite)
        assert Fraction(1, 10 ** FAR) < Fraction(fmt.smallest_subnormal) / 2


def test_a_huge_exponent_is_answered_at_once() -> None:
    """Before, ``1e5000000`` kept fpsum busy for minutes (exact arithmetic on millions of digits)."""
    tokens = "1e5000000 -1e-5000000 0e5000000 2e999999 3/1"
    done = subprocess.run([sys.executable, "-m", "fpsum", "sum", "--format", "fp16", "--method", "naive", "--json"],
                          input=tokens, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert '"result": "inf"' in done.stdout


def test_a_bad_token_is_named_with_its_line() -> None:
    with pytest.raises(UsageError, match=r"<test>: line 3: '1\.2\.3' is not a number"):
        read_numbers(io.StringIO("1 2\n\n4 1.2.3 5\n"), "<test>", FORMATS["fp16"])
    with pytest.raises(UsageError, match=r"line 2: '1e' is not a number"):
        read_numbers(io.StringIO("1\n1e\n"), "<test>", FORMATS["bf16"])
    with pytest.raises(UsageError, match="no numbers to sum"):
        read_numbers(io.StringIO("\n \n"), "<test>", FORMATS["fp16"])


def test_pairs_are_read_two_a_line() -> None:
    x, y = read_pairs(io.StringIO("1 2\n\n0.1 -3\n"), "<test>", FORMATS["fp16"])
    assert x.tolist() == [1.0, exactly("0.1", FORMATS["fp16"])] and y.tolist() == [2.0, -3.0]
    with pytest.raises(UsageError, match="line 2: expected two numbers"):
        read_pairs(io.StringIO("1 2\n3\n"), "<test>", FORMATS["fp16"])
    with pytest.raises(UsageError, match="line 1: 'x' is not a number"):
        read_pairs(io.StringIO("x 2\n"), "<test>", FORMATS["fp16"])
