"""One rounding near the edges of a format: past its largest value, and at a power of two (issue 39, 5 and 7).

The dot-product page: an FP32 result rounded to FP16 becomes inf only from
65,520 on; below that it rounds to 65,504.  The playground's Maths: the
half-gap bound on what a step loses holds short of the largest value (E2M1
saturates, E4M3 gives NaN), and the gap below a power of two is half the
gap above.  In practice: except at the smallest normal value, where the
subnormals keep the gap.  Each checked on the model, exhaustively where the
formats are small, and on the built pages' sentences.
"""

from __future__ import annotations

import io
import json
import re
import shlex
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from figures import dot_accuracy, step_limits
from figures.text import number
from fpsum.array_rounding import to_format
from fpsum.cli import main
from fpsum.formats import FP16, get_format
from fpsum.methods import total
from spoken import code_texts, section, spoken_text

LIMITS = step_limits.build("step-limits", step_limits.StepLimitsParams()).numbers
PLAYGROUND_FORMATS = ("fp16", "bf16", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1")


def run_piped(command: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """Run a page's ``echo X | fpsum ...`` or ``printf '...' | fpsum ...`` in process, with ``--json``."""
    printer, rest = command.split(" | ", 1)
    words = shlex.split(printer)
    assert words[0] in ("echo", "printf") and len(words) == 2, command
    text = words[1] + "\n" if words[0] == "echo" else words[1].replace("\\n", "\n")
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    out = io.StringIO()
    assert main(shlex.split(rest)[1:] + ["--json"], out) == 0, command
    result: dict[str, object] = json.loads(out.getvalue())
    return result


def to_fp16(values: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.asarray(to_format(values.astype(np.float64), FP16), dtype=np.float64)


# --- item 5: an FP32 result rounded to FP16 ---------------------------------------------------------


def test_fp32_results_up_to_65520_round_to_65504_and_only_from_65520_to_inf(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every FP32 value from FP16's largest up to the midpoint rounds to the largest; from the midpoint on, inf."""
    largest = FP16.max_finite
    midpoint = Fraction(largest) + Fraction(FP16.ulp(largest)) / 2
    start, stop = np.float32(largest), np.float32(2.0**16)  # every FP32 value from the largest to 2¹⁶
    bits = np.arange(start.view(np.uint32), stop.view(np.uint32), dtype=np.uint32)
    values = bits.view(np.float32)
    rounded = to_fp16(values)
    below = np.array([Fraction(float(v)) < midpoint for v in values])
    assert below.sum() > 1000 and (~below).sum() > 1000
    assert np.all(rounded[below] == largest) and np.all(np.isinf(rounded[~below]))
    beyond = dot_accuracy.beyond_fp16()
    assert beyond["largest"] == number(largest) and beyond["inf_from"] == number(float(midpoint))
    result = run_piped(beyond["command"], monkeypatch)
    assert result["result"] == largest and Fraction(largest) < int(beyond["below"].replace(",", "")) < midpoint


def test_the_dot_page_says_where_fp16_gives_inf(site_dir: Path) -> None:
    html = (site_dir / "dot-products.html").read_text(encoding="utf-8")
    sentence = section(spoken_text(html), "Rounding the result back to 16 bits", "When")
    beyond = dot_accuracy.beyond_fp16()
    assert "FP16 turns it into inf" not in sentence
    assert beyond["largest"] in sentence and beyond["inf_from"] in sentence
    assert beyond["command"] in code_texts(html)


# --- item 7: the playground's Maths --------------------------------------------------------------------


def every_value(name: str) -> np.ndarray:
    """Every finite value of the format, sorted, read through ml_dtypes from every bit pattern (not the model)."""
    fmt = get_format(name)
    size = np.dtype(fmt.dtype).itemsize
    with np.errstate(invalid="ignore"):
        raw = np.arange(2 ** (8 * size), dtype=np.uint8 if size == 1 else np.uint16).view(fmt.dtype).astype(np.float64)
    return np.unique(raw[np.isfinite(raw)])


def page_ulp(v: np.ndarray, name: str) -> np.ndarray:
    """The page's ulp(v) = 2^(max(e, emin) − p + 1) with 2^e ≤ |v| < 2^(e+1), for v ≠ 0."""
    fmt = get_format(name)
    e = np.frexp(np.abs(v))[1] - 1
    return np.ldexp(1.0, np.maximum(e, fmt.emin) - fmt.precision + 1)


@pytest.mark.parametrize("name", ["e2m1", "e3m2", "e2m3", "e4m3", "e5m2"])
def test_a_step_loses_at_most_half_a_gap_while_the_exact_sum_is_within_range(name: str) -> None:
    """Every pair of values: |δ| ≤ ½ ulp(s + x) when |s + x| is at most the largest value; past it, not always."""
    fmt = get_format(name)
    values = every_value(name)
    s, x = np.meshgrid(values, values)
    exact = (s + x).ravel()  # exact in float64 for these narrow formats
    with np.errstate(over="ignore", invalid="ignore"):
        stepped = to_format(exact, fmt).astype(np.float64)
    inside = (np.abs(exact) <= fmt.max_finite) & (exact != 0)
    assert np.all(np.abs(exact - stepped)[inside] <= page_ulp(exact[inside], name) / 2)
    outside = np.abs(exact) > fmt.max_finite + page_ulp(np.array([fmt.max_finite]), name)[0] / 2
    with np.errstate(invalid="ignore"):
        kept = np.abs(exact - stepped)[outside] <= page_ulp(exact[outside], name) / 2
    assert outside.any() and not kept.all()


@pytest.mark.parametrize("key", ["saturate", "overflow"])
def test_past_the_largest_value_a_step_saturates_or_gives_nan(key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    case = LIMITS[key]
    assert isinstance(case, dict)
    name = case["command"].split("--format ")[1].split()[0]
    fmt = get_format(name)
    a = fmt.max_finite
    with np.errstate(over="ignore", invalid="ignore"):
        result = float(total("naive", np.array([a, a]).astype(fmt.dtype), fmt))
    if key == "saturate":
        assert result == a and 2 * a - result > fmt.ulp(a) / 2  # more than half a gap lost
    else:
        assert np.isnan(result)
    printed = run_piped(case["command"], monkeypatch)
    assert str(printed["result"]) in (repr(result), "nan") and case["result"] == number(result)


@pytest.mark.parametrize("name", PLAYGROUND_FORMATS)
def test_the_gap_below_a_power_of_two_is_half_the_gap_above_except_at_the_smallest_normal(name: str) -> None:
    """"Neighbours 2^(e−p+1) apart" holds above 2^e; below it the gap is half, except at 2^emin (BF16's 2⁻¹²⁶)."""
    fmt = get_format(name)
    values = every_value(name)
    for e in range(fmt.emin, fmt.emax + 1):
        i = int(np.searchsorted(values, 2.0**e))
        assert values[i] == 2.0**e
        up, down = values[i + 1] - values[i], values[i] - values[i - 1]
        assert up == 2.0 ** (e - fmt.precision + 1)
        assert down == (up if e == fmt.emin else up / 2), (name, e)


def test_the_playground_maths_states_the_limits(site_dir: Path) -> None:
    html = (site_dir / "playground.html").read_text(encoding="utf-8")
    maths = section(spoken_text(html), "Maths: one rounded step", "Code: the rounding")
    assert "has neighbours" not in maths
    for key in ("saturate", "overflow"):
        case = LIMITS[key]
        assert isinstance(case, dict)
        assert case["format"] in maths and case["result"] in maths, key
        assert case["command"] in code_texts(html), key
    assert "half" in section(maths, "power of two", ".")


def test_in_practice_keeps_the_gap_at_the_smallest_normal(site_dir: Path) -> None:
    text = spoken_text((site_dir / "in-practice.html").read_text(encoding="utf-8"))
    sentence = section(text, "The gap to its neighbour away from zero", "An update")
    assert "smallest normal" in sentence, sentence


@pytest.mark.parametrize(("names", "outcome"), [
    (("fp16", "bf16", "fp32", "fp64", "e5m2"), "inf"),
    (("e4m3", "e4m3fnuz", "e5m2fnuz"), "nan"),
    (("e3m2", "e2m3", "e2m1"), "largest"),
])
def test_past_its_largest_value_each_playground_format_gives_what_the_maths_says(
        names: tuple[str, ...], outcome: str) -> None:
    """"The formats with an inf give inf, the other FP8 formats NaN, FP6 and FP4 stay at their largest value"."""
    for name in names:
        fmt = get_format(name)
        a = fmt.max_finite
        with np.errstate(over="ignore", invalid="ignore"):
            result = float(total("naive", np.array([a, a]).astype(fmt.dtype), fmt))
        assert (np.isinf(result) if outcome == "inf" else np.isnan(result) if outcome == "nan" else result == a), name


def test_the_maths_names_every_format_the_playground_offers() -> None:
    """The three groups of the sentence cover the playground's formats (its core/formats.js), no more."""
    source = (Path(__file__).resolve().parents[2] / "docs/assets/javascripts/playground/core/formats.js").read_text()
    offered = set(re.findall(r'(?:ieee|define)\("(\w+)"', source))
    assert offered == {"fp16", "bf16", "fp32", "fp64", "e5m2", "e4m3", "e4m3fnuz", "e5m2fnuz", "e3m2", "e2m3", "e2m1"}
