"""Error bounds of summation: the worst-case constants and the probabilistic one.

All bounds are for round to nearest with no overflow (underflow does no
harm: an addition that lands among the subnormals is exact).  ``u`` is the
format's unit roundoff, 2**-p.
"""

from __future__ import annotations

import math

from .formats import Format


def gamma(k: int, u: float) -> float:
    """Higham's gamma_k = k u / (1 - k u); ``inf`` once k u >= 1, where the constant is undefined.

    ``ValueError`` for a negative ``k``.  NaN never arises for finite ``u``.
    """
    if k < 0:
        raise ValueError(f"gamma needs k >= 0, got {k}")
    return math.inf if k * u >= 1 else k * u / (1 - k * u)


def first_order_bounds(n: int, fmt: Format) -> dict[str, float]:
    """The leading terms of the worst-case relative bounds for ``n`` inputs of one sign.

    ``naive`` (n - 1) u, ``pairwise`` ceil(log2 n) u, ``kahan`` 2u (its
    O(n u^2) term left out: it is not small once n u nears 1), and ``sqrt``
    sqrt(n) u, the probabilistic bound with its constant set to 1 (Higham and
    Mary 2019), which random data usually stay below.  ``ValueError`` for n < 1.
    No NaN, inf or -0 can come out: n and u are positive and finite.
    """
    if n < 1:
        raise ValueError(f"bounds need n >= 1, got {n}")
    u = fmt.unit_roundoff
    return {
        "naive": (n - 1) * u,
        "pairwise": math.ceil(math.log2(n)) * u if n > 1 else 0.0,
        "kahan": 2 * u,
        "sqrt": math.sqrt(n) * u,
    }
