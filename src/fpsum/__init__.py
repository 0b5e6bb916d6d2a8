"""fpsum: a model of floating-point summation in low precision.

Pure and deterministic: no I/O, no plotting; the same seed gives the same bits.
"""

from .bounds import first_order_bounds, gamma
from .cascaded import DEFAULT_FOLDS, sum_k, sum_k_running, two_sum, vec_sum
from .conditioned import ConditionedSums, condition_number, conditioned_sums, kappa_limit, log_targets
from .correct import correct_running, correct_sum
from .dot import ACCUMULATORS, DOT_METHODS, INPUT_FORMATS, dot_running, exact_dot, exact_dot_running, products
from .exact import exact_running, exact_sum, exact_total
from .formats import BF16, E4M3, E5M2, FORMATS, FP16, FP32, FP64, Format, get_format
from .hardware import TruncatedAccumulator, truncated_dot, truncated_dot_running
from .inputs import INPUT_KINDS, INPUT_LABELS, InputKind, make_inputs
from .matmul import exact_matmul, relative_frobenius_error
from .methods import METHOD_LABELS, METHODS, Method, running_totals, total
from .order import random_orders, shuffled_totals, sorted_totals, totals_in_orders, tree_reduction
from .race import RACE_METHODS, RACE_N, Race, run_race
from .rounding import add_exact, round_exact, to_format
from .sweep import Sweep, log_grid, run_sweep
from .updates import (
    UPDATE_LABELS,
    UPDATE_METHODS,
    UpdateMethod,
    bytes_per_weight,
    constant_updates,
    exact_trajectory,
    lost_below,
    noisy_updates,
    update_trajectory,
)

__version__ = "0.1.0"

__all__ = [
    "BF16", "E4M3", "E5M2", "FORMATS", "FP16", "FP32", "FP64", "Format", "get_format",
    "INPUT_KINDS", "INPUT_LABELS", "InputKind", "make_inputs",
    "METHOD_LABELS", "METHODS", "Method", "running_totals", "total",
    "RACE_METHODS", "RACE_N", "Race", "run_race",
    "add_exact", "round_exact", "to_format",
    "Sweep", "log_grid", "run_sweep",
    "exact_running", "exact_sum", "exact_total",
    "first_order_bounds", "gamma",
    "DEFAULT_FOLDS", "sum_k", "sum_k_running", "two_sum", "vec_sum", "correct_running", "correct_sum",
    "ConditionedSums", "condition_number", "conditioned_sums", "kappa_limit", "log_targets",
    # dot() and matmul() stay in their modules: exported here, they would hide fpsum.dot and fpsum.matmul.
    "ACCUMULATORS", "DOT_METHODS", "INPUT_FORMATS", "dot_running", "exact_dot", "exact_dot_running", "products",
    "TruncatedAccumulator", "truncated_dot", "truncated_dot_running",
    "exact_matmul", "relative_frobenius_error",
    "random_orders", "shuffled_totals", "sorted_totals", "totals_in_orders", "tree_reduction",
    "UPDATE_LABELS", "UPDATE_METHODS", "UpdateMethod", "bytes_per_weight", "constant_updates",
    "exact_trajectory", "lost_below", "noisy_updates", "update_trajectory",
]
