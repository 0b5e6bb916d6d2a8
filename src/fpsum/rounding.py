"""Rounding to a format: exactly (the reference) and fast (the dtype casts), to nearest and stochastically.

Two routes to the same answer, in modules by concern:

- :mod:`fpsum.exact_rounding`: :func:`round_exact` works on exact rationals
  and is slow and obviously right, the oracle the tests hold NumPy's and
  ml_dtypes' arithmetic to; :func:`add_exact` rounds the sum of two floats
  once, in integers;
- :mod:`fpsum.array_rounding`: :func:`to_format` rounds float64 arrays with
  dtype casts, and is what the model uses at speed;
- :mod:`fpsum.rounded_once`: :func:`add_rounded` adds two float64 arrays and
  rounds the exact sum once, :func:`round_quotient` divides them so, where
  rounding the float64 result would round twice (:func:`on_midpoint` says
  where it would);
- :mod:`fpsum.stochastic_rounding`: :func:`stochastic_round` and
  :func:`stochastic_round_bits` add two float64 arrays and round the exact
  sum once, stochastically; :func:`stochastic_run` does so along a run.

Each name can be imported from here as well as from its own module.
"""

from __future__ import annotations

from .array_rounding import to_format
from .exact_rounding import Mode, add_exact, round_exact
from .rounded_once import add_rounded, on_midpoint, round_quotient
from .stochastic_rounding import _two_sum as _two_sum  # for fpsum.correct, which splits float64 sums too
from .stochastic_rounding import stochastic_round, stochastic_round_bits, stochastic_run

__all__ = [
    "Mode", "round_exact", "add_exact",
    "to_format",
    "add_rounded", "on_midpoint", "round_quotient",
    "stochastic_round", "stochastic_round_bits", "stochastic_run",
]
