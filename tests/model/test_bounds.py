"""The model's error-bound constants, and the vectorised ulp, against their definitions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fpsum.bounds import first_order_bounds, gamma
from fpsum.formats import BF16, E4M3, E5M2, FP16, FP32, Format

FORMATS = [FP16, BF16, FP32, E4M3, E5M2]


def test_gamma_is_ku_over_one_minus_ku_and_infinite_past_one() -> None:
    u = 2.0**-11
    assert gamma(0, u) == 0.0
    assert gamma(1000, u) == pytest.approx(1000 * u / (1 - 1000 * u), rel=1e-15)
    assert gamma(2048, u) == math.inf and gamma(5000, u) == math.inf
    with pytest.raises(ValueError, match="k >= 0"):
        gamma(-1, u)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_first_order_bounds_are_the_leading_terms(fmt: Format) -> None:
    u = fmt.unit_roundoff
    bounds = first_order_bounds(8192, fmt)
    assert bounds == {"naive": 8191 * u, "pairwise": 13 * u, "kahan": 2 * u, "sqrt": math.sqrt(8192) * u}
    assert first_order_bounds(1, fmt)["naive"] == 0 and first_order_bounds(1, fmt)["pairwise"] == 0
    with pytest.raises(ValueError, match="n >= 1"):
        first_order_bounds(0, fmt)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_vectorised_ulps_match_ulp_everywhere(fmt: Format) -> None:
    """Every binade from the subnormals to the largest finite value, both signs, and the zeros."""
    exponents = np.arange(fmt.emin - fmt.precision + 1, fmt.emax + 1)
    values = np.concatenate([2.0**exponents, 1.5 * 2.0**exponents[:-1], [fmt.max_finite, 0.0, -0.0]])
    values = np.concatenate([values, -values])
    assert fmt.ulps(values).tolist() == [fmt.ulp(float(v)) for v in values]
    assert fmt.ulps(np.array([[0.0, 3.0]])).shape == (1, 2)
    with pytest.raises(ValueError, match="non-finite"):
        fmt.ulps(np.array([1.0, np.inf]))
