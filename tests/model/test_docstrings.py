"""Every public function of the model says what it does with NaN, infinities and -0.

That docstrings exist and follow one convention is ruff's job (``make test`` runs it); what they
must say about special values is checked here.
"""

from __future__ import annotations

import inspect
import re
from types import ModuleType

import pytest

from fpsum import (
    array_rounding,
    block_dot,
    blocked,
    blocks,
    compensated,
    e8m0,
    exact,
    exact_rounding,
    formats,
    inputs,
    matmul_exact,
    methods,
    moments,
    naive,
    pairwise,
    race,
    rms,
    rounded_once,
    softmax,
    stochastic_rounding,
    stochastic_sum,
    sweep,
    textbook,
)

MODULES = [formats, exact_rounding, array_rounding, rounded_once, stochastic_rounding, inputs,
           methods, naive, compensated, pairwise, blocked, stochastic_sum, textbook, exact, race, sweep, e8m0,
           blocks, block_dot, matmul_exact, moments, rms, softmax]


def public_functions(module: ModuleType) -> list[str]:
    return [name for name, obj in vars(module).items()
            if not name.startswith("_") and inspect.isfunction(obj) and obj.__module__ == module.__name__]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_public_functions_state_their_nan_inf_and_signed_zero_behaviour(module: ModuleType) -> None:
    missing = [name for name in public_functions(module)
               if not re.search(r"NaN|\binf|-0", inspect.getdoc(getattr(module, name)) or "")]
    assert not missing, f"{module.__name__}: no word on NaN/inf/-0 in {missing}"

