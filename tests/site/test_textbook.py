"""The textbook loops (fpsum.textbook) and what the Code sections say about them.

That the vectorised methods give the loops' bits is test_methods.py's and
test_more_methods.py's job (reference.py imports the loops); here: the loops'
edge cases, the exactness the pages claim for the compensation steps, the
claim about ``math.fsum``, and that every piece of code a page includes is
shown as it is in the source.
"""

from __future__ import annotations

import html as html_lib
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from fpsum.array_rounding import to_format
from fpsum.exact import exact_sum
from fpsum.formats import BF16, E4M3, E5M2, FP16, Format
from fpsum.textbook import add, kahan, largest_power_of_two_below, naive, neumaier, pairwise, sub
from reference import NEW_FORMATS

REPO = Path(__file__).resolve().parents[2]
FORMATS = [FP16, BF16, E4M3, E5M2, *NEW_FORMATS]
# mkdocs.yml: pymdownx.snippets base_path
SNIPPET_BASES = (REPO / "src", REPO / "scripts", REPO / "docs" / "assets" / "javascripts")


def values(fmt: Format, n: int, seed: int) -> list[float]:
    """``n`` finite values of ``fmt``, of both signs, over the format's binades (subnormals included)."""
    rng = np.random.default_rng(seed)
    exponents = rng.integers(fmt.emin - 2, fmt.emax - 2, size=n)
    stored = to_format(rng.uniform(-1, 1, size=n) * 2.0**exponents, fmt)
    return [float(v) for v in stored.astype(np.float64)]


def test_edge_cases() -> None:
    assert naive([-0.0], FP16) == [-0.0] and math.copysign(1, naive([-0.0], FP16)[0]) < 0
    assert math.copysign(1, kahan([-0.0], FP16)[0]) > 0  # s starts at +0
    assert kahan([], FP16) == [] and neumaier([], FP16) == []
    assert math.copysign(1, sub(-0.0, 0.0, FP16)) < 0 and math.copysign(1, sub(0.0, 0.0, FP16)) > 0
    assert math.isnan(kahan([math.inf, 1.0], FP16)[-1])
    assert pairwise([-0.0], FP16) == 0.0 and math.copysign(1, pairwise([-0.0], FP16)) < 0
    with pytest.raises(ValueError):
        pairwise([], FP16)
    with pytest.raises(ValueError):
        largest_power_of_two_below(1)
    assert [largest_power_of_two_below(n) for n in range(2, 10)] == [1, 2, 2, 4, 4, 4, 4, 8]


def test_naive_loop_stalls_at_the_stall_point() -> None:
    """FP16: adding ones stops at 2,048 = 2^11, where one is half the spacing (a tie, to even)."""
    assert naive([1.0] * 3000, FP16)[-1] == 2048.0


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_the_lost_part_is_exact_when_the_larger_operand_comes_first(fmt: Format) -> None:
    """Kahan's ``c = (t - s) - y`` (if |s| >= |y|) and Neumaier's ``(big - t) + small``: t's rounding error, exact."""
    for a, b in zip(values(fmt, 2000, 1), values(fmt, 2000, 2)):
        big, small = (a, b) if abs(a) >= abs(b) else (b, a)
        t = add(big, small, fmt)
        if not math.isfinite(t):
            continue
        error = Fraction(big) + Fraction(small) - Fraction(t)
        assert Fraction(add(sub(big, t, fmt), small, fmt)) == error, (big, small)  # Neumaier
        assert Fraction(sub(sub(t, big, fmt), small, fmt)) == -error, (big, small)  # Kahan, s = big, y = small


def test_math_fsum_is_correctly_rounded() -> None:
    """The Code section's claim: fsum of float64 values is their exact sum rounded once, however they cancel."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        xs = (rng.standard_normal(50) * 2.0 ** rng.integers(-60, 60, size=50)).tolist()
        xs += [-x for x in xs[:20]] + [1e-30, 3.0]  # exact cancellations leave tiny survivors
        rng.shuffle(xs)
        assert math.fsum(xs) == float(sum(map(Fraction, xs), Fraction(0)))
    stored = to_format(rng.uniform(0, 1, 8192), BF16)
    assert math.fsum(stored.astype(np.float64).tolist()) == float(exact_sum(stored))


def included_sections() -> list[tuple[str, str, str]]:
    """Every ``--8<-- "file:section"`` (or whole file) a page includes: (page, file, section or "")."""
    found = []
    for page in sorted((REPO / "docs").glob("*.md")):
        for target in re.findall(r'^--8<-- "([^"]+)"\s*$', page.read_text(encoding="utf-8"), re.M):
            file, _, section = target.partition(":")
            found.append((page.stem, file, section))
    return found


def source_of(file: str, section: str) -> str:
    """The text pymdownx.snippets includes: the whole file, or the lines between a section's markers."""
    path = next(base / file for base in SNIPPET_BASES if (base / file).is_file())
    text = path.read_text(encoding="utf-8")
    if not section:
        return text
    match = re.search(rf"^[^\n]*--8<-- \[start:{section}\][^\n]*\n(.*?)^[^\n]*--8<-- \[end:{section}\]", text,
                      re.S | re.M)
    assert match, f"{file} has no section {section!r}"
    return match.group(1)


@pytest.mark.parametrize(("page", "file", "section"), included_sections())
def test_code_a_page_includes_is_shown_as_it_is_in_the_source(site_dir: Path, page: str, file: str,
                                                              section: str) -> None:
    html = (site_dir / f"{page}.html").read_text(encoding="utf-8")
    blocks = [html_lib.unescape(re.sub(r"<[^>]+>", "", b)) for b in re.findall(r"<code>(.*?)</code>", html, re.S)]
    lines = [line for line in source_of(file, section).splitlines() if line.strip()]
    assert lines, f"{file}:{section} is empty"
    shown = [b.splitlines() for b in blocks]
    assert any([line for line in block if line.strip()] == lines for block in shown), \
        f"{page}.html does not show {file}:{section} line for line"
