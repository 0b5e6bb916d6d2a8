"""fpsum: a model of floating-point summation in low precision.

Pure and deterministic: no I/O, no plotting; the same seed gives the same bits.

The names below are the package's interface, each defined in a module of its
own (``fpsum.methods``, ``fpsum.race``, ...).  Each is imported from there
the first time it is read (PEP 562), so ``import fpsum`` is quick and
``from fpsum.race import run_race`` runs the race and what it needs, not the
whole model: the build keys each figure on the modules its builder runs
(``scripts/figures/imports.py``).  ``dot()`` and ``matmul()`` stay in their
modules: exported here, they would hide ``fpsum.dot`` and ``fpsum.matmul``.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what type checkers and readers see; at run time __getattr__ imports each name when it is read
    from .array_rounding import to_format
    from .bounds import first_order_bounds, gamma
    from .cascaded import DEFAULT_FOLDS, sum_k, sum_k_running, two_sum, vec_sum
    from .conditioned import ConditionedSums, condition_number, conditioned_sums, kappa_limit, log_targets
    from .correct import correct_running, correct_sum
    from .dot import ACCUMULATORS, DOT_METHODS, INPUT_FORMATS, dot_running, exact_dot, exact_dot_running, products
    from .exact import exact_running, exact_sum, exact_total
    from .exact_rounding import add_exact, round_exact
    from .formats import BF16, E4M3, E5M2, FORMATS, FP16, FP32, FP64, Format, get_format
    from .hardware import TruncatedAccumulator, truncated_dot, truncated_dot_running
    from .inputs import INPUT_KINDS, INPUT_LABELS, InputKind, make_inputs
    from .matmul import exact_matmul, relative_frobenius_error
    from .methods import running_totals, total
    from .names import METHOD_LABELS, METHODS, UPDATE_LABELS, UPDATE_METHODS, Method, UpdateMethod
    from .order import random_orders, shuffled_totals, sorted_totals, totals_in_orders, tree_reduction
    from .race import RACE_METHODS, RACE_N, Race, run_race
    from .sweep import Sweep, log_grid, run_sweep
    from .updates import (
        bytes_per_weight,
        constant_updates,
        exact_trajectory,
        lost_below,
        noisy_updates,
        update_trajectory,
    )

__version__ = "0.1.0"

_HOMES: dict[str, tuple[str, ...]] = {
    "array_rounding": ("to_format",),
    "bounds": ("first_order_bounds", "gamma"),
    "cascaded": ("DEFAULT_FOLDS", "sum_k", "sum_k_running", "two_sum", "vec_sum"),
    "conditioned": ("ConditionedSums", "condition_number", "conditioned_sums", "kappa_limit", "log_targets"),
    "correct": ("correct_running", "correct_sum"),
    "dot": ("ACCUMULATORS", "DOT_METHODS", "INPUT_FORMATS", "dot_running", "exact_dot", "exact_dot_running",
            "products"),
    "exact": ("exact_running", "exact_sum", "exact_total"),
    "exact_rounding": ("add_exact", "round_exact"),
    "formats": ("BF16", "E4M3", "E5M2", "FORMATS", "FP16", "FP32", "FP64", "Format", "get_format"),
    "hardware": ("TruncatedAccumulator", "truncated_dot", "truncated_dot_running"),
    "inputs": ("INPUT_KINDS", "INPUT_LABELS", "InputKind", "make_inputs"),
    "matmul": ("exact_matmul", "relative_frobenius_error"),
    "methods": ("running_totals", "total"),
    "names": ("METHOD_LABELS", "METHODS", "Method", "UPDATE_LABELS", "UPDATE_METHODS", "UpdateMethod"),
    "order": ("random_orders", "shuffled_totals", "sorted_totals", "totals_in_orders", "tree_reduction"),
    "race": ("RACE_METHODS", "RACE_N", "Race", "run_race"),
    "sweep": ("Sweep", "log_grid", "run_sweep"),
    "updates": ("bytes_per_weight", "constant_updates", "exact_trajectory", "lost_below", "noisy_updates",
                "update_trajectory"),
}
"""Each module of the package and the names of the interface it defines (the imports above, as data)."""

_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = sorted(_HOME_OF)


def __getattr__(name: str) -> object:
    """The interface's ``name`` imported from its module, or a submodule of the package (as ``fpsum.dot`` is
    read after ``import fpsum``); ``AttributeError`` for any other name.
    """
    module = _HOME_OF.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    elif importlib.util.find_spec(f"{__name__}.{name}") is not None:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # read once: the next read finds it without this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
