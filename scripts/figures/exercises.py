"""The numbers in the worked answers of every page's Exercises section, computed by the model.

Record ``exercises``: one group of numbers per page (``accumulation``,
``error_vs_n``, ``formats``, ``beyond_kahan``, ``dot``), one function per
exercise.  Each answer's ``command`` is the ``fpsum`` command that checks it,
where there is one.  ``tests/site/test_exercises.py`` works every answer out
again from the model by another route.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from fpsum.array_rounding import to_format
from fpsum.bounds import first_order_bounds
from fpsum.dot import dot_running, exact_dot_running
from fpsum.exact import exact_running, exact_total
from fpsum.exact_rounding import add_exact, round_exact
from fpsum.formats import BF16, E4M3, E5M2, FP16, FP32, Format
from fpsum.hardware import TruncatedAccumulator, truncated_dot
from fpsum.inputs import make_inputs
from fpsum.methods import running_totals, total
from fpsum.names import UPDATE_METHODS
from fpsum.order import tree_reduction
from fpsum.race import run_race
from fpsum.stochastic_rounding import stochastic_round
from fpsum.stochastic_sum import ROUNDING_STREAM
from fpsum.updates import bytes_per_weight, lost_below

from .contract import NestedNumbers
from .record import Built, Record
from .text import number, scientific, significant


@dataclass(frozen=True)
class ExercisesParams:
    """The inputs the exercises name (each answer's numbers follow from these and the model)."""

    constant: float = 0.1
    constant_n: int = 4000
    race_n: int = 10_000
    subnormal_power: int = -20
    percent: float = 1.0
    overflow_terms: tuple[float, ...] = (448.0, 16.0, 32.0)
    cancelling: tuple[float, ...] = (1.0, 4096.0, 1.0, -4096.0)
    sr_value: float = 1 / 3
    sr_draws: int = 10_000
    blocked_n: int = 65_536
    leading_true: float = 0.99
    dot_k_max: int = 8192
    ones: int = 65_536
    bits: int = 14
    promote_every: int = 128
    kappa_k: int = 65_536
    update_probe: float = 0.004
    tree_n: int = 4096
    parameters: float = 7e9
    cancel_pair: tuple[float, float] = (1024.0, -1023.0)
    handful_trials: int = 20_000
    longer_n: int = 50
    lossy_n: int = 700
    lossy_trials: int = 200
    seed: int = 0


def records() -> list[Record]:
    """The one record of exercise answers."""
    return [Record("exercises", ExercisesParams(), build)]


def first_frozen(running: np.ndarray) -> int:
    """1-based count after which ``running`` never changes again (its length if it changes at the end)."""
    changes = np.nonzero(running[1:] != running[:-1])[0]
    return int(changes[-1]) + 2 if changes.size else 1


def constant_stall(params: ExercisesParams) -> NestedNumbers:
    """FP16 naive sum of one constant repeated: where it stops, after how many inputs, against the exact sum."""
    fmt = FP16
    stored = round_exact(params.constant, fmt)
    running = running_totals("naive", to_format(np.full(params.constant_n, stored), fmt), fmt)
    frozen = first_frozen(running.astype(np.float64))
    return {
        "value": repr(params.constant), "stored": repr(stored), "n": number(params.constant_n),
        "stall": number(float(running[-1])), "after": number(frozen), "exact": number(stored * params.constant_n),
        "exact_at_stall": number(stored * frozen),
        "half_gap": number(fmt.ulp(float(running[-1])) / 2, 4),
        "below": number(float(running[-1]) / 2), "below_gap": number(fmt.ulp(float(running[-1]) / 2), 4),
        "below_half": number(fmt.ulp(float(running[-1]) / 2) / 2, 4),
        "command": f"yes {params.constant!r} | head -n {params.constant_n} | fpsum sum --format fp16 --method naive",
    }


def half_gap_tie(params: ExercisesParams) -> NestedNumbers:
    """An input of half the spacing is a tie: from an even total it is lost, from an odd one it moves a whole gap.

    In FP16's binade [2^(p-1), 2^p) the spacing is 1; ``tie_start`` is its
    first value, whose last significand bit is even, and the next one is odd.
    """
    fmt = FP16
    even = float(2 ** (fmt.precision - 1))
    odd = even + fmt.ulp(even)
    half = fmt.ulp(even) / 2
    return {"even": number(even), "odd": number(odd), "half": number(half),
            "even_sum": number(add_exact(even, half, fmt)), "odd_sum": number(add_exact(odd, half, fmt)),
            "command": f"printf '{odd:g}\\n{half:g}\\n' | fpsum sum --format fp16 --method naive"}


def fast_two_sum(params: ExercisesParams) -> NestedNumbers:
    """Kahan's correction c = (t - s) - y for s = 2,048 and y = 0.3 in FP16: it is minus the rounding error."""
    fmt = FP16
    s, y = 2048.0, round_exact(0.3, fmt)
    t = add_exact(s, y, fmt)
    c = add_exact(add_exact(t, -s, fmt), -y, fmt)
    return {"s": number(s), "y": repr(y), "t": number(t), "c": repr(c), "error": repr(t - s - y)}


def bf16_race(params: ExercisesParams) -> NestedNumbers:
    """The BF16 race on ``race_n`` uniform inputs: naive against pairwise and the exact total."""
    race = run_race(BF16, "uniform", n=params.race_n, seed=params.seed, samples=2,
                          methods=("naive", "pairwise"))
    values = make_inputs("uniform", params.race_n, BF16, params.seed).astype(np.float64)
    left, right = values[0::2], values[1::2]  # the tree's first level: neighbouring pairs
    pair = to_format(left + right, BF16).astype(np.float64)  # exact in float64, then rounded once
    lost = ((pair == left) & (right > 0)) | ((pair == right) & (left > 0))
    return {
        "pair_lost": number(int(lost.sum())),
        "n": number(params.race_n), "naive": number(race.final["naive"]), "pairwise": number(race.final["pairwise"]),
        "exact": number(race.exact_final, 2), "stalled_after": number(race.stalls["naive"] or params.race_n),
        "command": f"fpsum race --format bf16 --inputs uniform --n {params.race_n}",
    }


def bounds_reach(params: ExercisesParams) -> NestedNumbers:
    """Where the worst-case bound (n - 1)u reaches 1, and where √n·u reaches ``percent`` per cent."""
    numbers: dict[str, NestedNumbers | str] = {"percent": number(params.percent)}
    for fmt in (FP16, BF16):
        u = fmt.unit_roundoff
        worst = next(n for n in range(2, 10**7) if first_order_bounds(n, fmt)["naive"] >= 1)
        typical = math.ceil((params.percent / 100 / u) ** 2)
        numbers[fmt.name] = {"worst": number(worst), "typical": number(typical)}
    numbers["fp32_stall_n"] = number(2 * FP32.stall_point)
    return numbers


def naive_errors(kind: str, n: int, trials: int, fmt: Format, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Relative errors of ``trials`` naive sums of ``n`` seeded inputs of ``kind``, and the inputs themselves."""
    values = make_inputs(kind, n, fmt, seed, trials)  # type: ignore[arg-type]
    exact = exact_running(values, np.array([n]))[:, 0]
    naive_total = total("naive", values, fmt).astype(np.float64)
    return np.abs(naive_total - exact) / exact, values


def lost_whole(values: np.ndarray, fmt: Format) -> np.ndarray:
    """Which positive inputs a naive sum lost whole: the running total did not move when they were added."""
    running = running_totals("naive", values, fmt).astype(np.float64)
    before = np.concatenate([np.zeros(running.shape[:-1] + (1,)), running[..., :-1]], axis=-1)
    lost: np.ndarray = (running == before) & (values.astype(np.float64) > 0)
    return lost


def typical_measured(params: ExercisesParams) -> NestedNumbers:
    """What BF16 sums measure against √n·u: a handful of uniform terms, and skewed terms that are lost whole.

    ``handful``: at the n where √n·u reaches ``percent`` (a handful of terms
    in BF16), the median, 90th percentile and largest error of uniform terms
    and the share of trials reaching ``percent``; the median at ``longer_n``.
    ``lossy``: ``lossy_n`` squares of uniforms, how many are lost whole on
    average, the share of the exact total they carry (median), the median
    error, √n·u and the share of trials below it.
    """
    fmt = BF16
    u = fmt.unit_roundoff
    target = params.percent / 100
    handful = math.ceil((target / u) ** 2)  # as bounds_reach finds it
    errors, _ = naive_errors("uniform", handful, params.handful_trials, fmt, params.seed)
    longer, _ = naive_errors("uniform", params.longer_n, params.handful_trials, fmt, params.seed)
    n = params.lossy_n
    lossy, values = naive_errors("squares", n, params.lossy_trials, fmt, params.seed)
    lost = lost_whole(values, fmt)
    wide = values.astype(np.float64)
    carried = (wide * lost).sum(axis=-1) / wide.sum(axis=-1)
    scale = math.sqrt(n) * u
    return {
        "handful": {
            "n": number(handful), "trials": number(params.handful_trials),
            "median": significant(100 * float(np.median(errors))),
            "p90": significant(100 * float(np.quantile(errors, 0.9))),
            "largest": significant(100 * float(errors.max())),
            "reach": significant(100 * float((errors >= target).mean())),
            "longer_n": number(params.longer_n), "longer_median": significant(100 * float(np.median(longer))),
        },
        "lossy": {
            "n": number(n), "trials": number(params.lossy_trials),
            "lost": number(float(lost.sum(axis=-1).mean()), 0), "carried": significant(100 * float(np.median(carried))),
            "median": significant(100 * float(np.median(lossy))), "scale": significant(100 * scale, 3),
            "below": number(100 * float((lossy < scale).mean())),
            "command": f"fpsum race --format bf16 --inputs squares --n {n}",
        },
    }


def e4m3_overflow(params: ExercisesParams) -> NestedNumbers:
    """E4M3 has no infinity: a sum that rounds beyond 448 is NaN, one that ties back to 448 is 448."""
    fmt = E4M3
    top, tie, over = params.overflow_terms
    return {
        "max": number(fmt.max_finite), "tie": number(tie), "over": number(over),
        "tie_sum": number(add_exact(top, tie, fmt)), "over_sum": number(add_exact(top, over, fmt)),
        "gap": number(fmt.ulp(top)),
        "command": f"printf '{top:g}\\n{over:g}\\n' | fpsum sum --format e4m3 --method naive",
    }


def fp8_stalls(params: ExercisesParams) -> NestedNumbers:
    """Stall points for inputs in [0, 1) of the FP8 formats and BF16, and BF16's largest value."""
    return {
        "e4m3": number(E4M3.stall_point), "e5m2": number(E5M2.stall_point),
        "bf16": number(BF16.stall_point), "bf16_max": scientific(BF16.max_finite, 3),
    }


def scaled_stall(params: ExercisesParams) -> NestedNumbers:
    """The FP16 race's inputs times 2^``subnormal_power`` (< 0): when the naive sum stops changing.

    ``power`` is the magnitude of ``subnormal_power``, for a page's ``2^{-...}``.

    Scaled by a power of two in the normal range the count is the unscaled
    one; scaled into the subnormals the inputs round differently.
    """
    fmt = FP16
    values = make_inputs("uniform", params.race_n, fmt, params.seed).astype(np.float64)
    counts = {}
    for power in (0, params.subnormal_power):
        scaled = to_format(values * 2.0**power, fmt)
        counts[power] = first_frozen(running_totals("naive", scaled, fmt).astype(np.float64))
    return {"n": number(params.race_n), "power": str(-params.subnormal_power),
            "after": number(counts[params.subnormal_power]), "unscaled_after": number(counts[0])}


def cancelling(params: ExercisesParams) -> NestedNumbers:
    """Naive, Kahan and Neumaier on inputs that cancel, in FP16."""
    fmt = FP16
    values = to_format(np.array(params.cancelling), fmt)
    results = {m: number(float(total(m, values, fmt))) for m in ("naive", "kahan", "neumaier")}
    listed = ", ".join(number(v) for v in params.cancelling)
    terms = "\\n".join(f"{v:g}" for v in params.cancelling)
    return results | {"inputs": listed, "exact": number(exact_total(values)),
                      "command": f"printf '{terms}\\n' | fpsum sum --format fp16 --method neumaier"}


def unbiased(params: ExercisesParams) -> NestedNumbers:
    """Stochastic rounding of 1/3 to FP16, ``sr_draws`` times: the neighbours, the mean and its standard error."""
    fmt = FP16
    value = params.sr_value
    draws = np.random.default_rng([ROUNDING_STREAM, params.seed]).random(params.sr_draws)
    nearest = round_exact(value, fmt)
    # The neighbour on value's other side (compared as Python floats: NumPy would compare in float16).
    other = np.nextafter(np.float16(nearest), np.float16(1 if nearest < value else 0))
    low, high = sorted((float(nearest), float(other)))
    # low + (value - low), rounded stochastically as an addition would round it; value - low is exact in float64.
    rounded = stochastic_round(np.full(params.sr_draws, low), np.full(params.sr_draws, value - low), fmt, draws)
    values = rounded.astype(np.float64)
    up_share = (value - low) / (high - low)
    stderr = float(values.std(ddof=1) / math.sqrt(values.size))
    return {
        "draws": number(params.sr_draws), "low": repr(low), "high": repr(high), "p_up": significant(up_share, 4),
        "mean": f"{values.mean():.8f}", "stderr": significant(stderr), "value": f"{value:.8f}",
        "z": significant(abs(float(values.mean()) - value) / stderr),
    }


def blocked_bound(params: ExercisesParams) -> NestedNumbers:
    """The first-order bound (b + n/b)u of blocked summation, at its best block size b = √n."""
    fmt = FP16
    n = params.blocked_n
    best = int(math.isqrt(n))
    bound = (best + n / best) * fmt.unit_roundoff
    naive = (n - 1) * fmt.unit_roundoff
    # A relative bound of a quarter does not keep the leading digit: the smallest two-decimal answer it allows.
    computed = math.ceil(100 * params.leading_true * (1 - bound)) / 100
    return {"n": number(n), "b": number(best), "bound": significant(bound), "naive": significant(naive),
            "low": number(1 - bound, 4), "high": number(1 + bound, 4),
            "true": number(params.leading_true), "computed": number(computed)}


def dot_half_wrong(params: ExercisesParams) -> NestedNumbers:
    """The K at which a BF16 dot product of uniform inputs in a BF16 accumulator is first 50 % wrong."""
    fmt = BF16
    x = make_inputs("uniform", params.dot_k_max, fmt, params.seed)
    y = make_inputs("uniform", params.dot_k_max, fmt, params.seed + 1)
    ks = np.arange(1, params.dot_k_max + 1)
    exact = exact_dot_running(x, y, ks)
    error = np.abs(dot_running(x, y, fmt, fmt).astype(np.float64) - exact) / exact
    k = int(np.argmax(error >= 0.5)) + 1
    result = float(dot_running(x[:k], y[:k], fmt, fmt)[-1])
    return {"k": number(k), "exact": number(float(exact[k - 1]), 1), "result": number(result),
            "seed": number(params.seed)}


def truncated_ones(params: ExercisesParams) -> NestedNumbers:
    """``ones`` products 1 × 1 through the truncating accumulator, without and with promotion."""
    ones = to_format(np.ones(params.ones), BF16)
    never = float(truncated_dot(ones, ones, TruncatedAccumulator(bits=params.bits)))
    model = TruncatedAccumulator(bits=params.bits, promote_every=params.promote_every)
    promoted = float(truncated_dot(ones, ones, model))
    return {
        "n": number(params.ones), "bits": number(params.bits), "never": number(never), "promoted": number(promoted),
        "every": number(params.promote_every), "stuck": number(2.0**params.bits),
        "command": f"yes '1 1' | head -n {params.ones} | fpsum dot --format bf16 --truncate-bits {params.bits}",
    }


def kappa_estimate(params: ExercisesParams) -> NestedNumbers:
    """The median κ of K standard normal pairs, from the central limit theorem: (2/π) K / (0.674 √K)."""
    k = params.kappa_k
    quartile = NormalDist().inv_cdf(0.75)  # the median of |N(0, 1)|
    constant = (2 / math.pi) / quartile
    return {"k": number(k), "root": number(math.sqrt(k)), "quartile": f"{quartile:.3f}",
            "constant": f"{constant:.2f}", "median": number(constant * math.sqrt(k), 0)}


def update_thresholds(params: ExercisesParams) -> NestedNumbers:
    """A BF16 weight of 1: the update sizes lost upwards and downwards, and commands that show each side."""
    fmt = BF16
    up = float(lost_below(1.0, fmt, 1.0))
    down = float(lost_below(1.0, fmt, -1.0))
    moved = round_exact(params.update_probe, fmt)
    return {
        "up": repr(up), "down": repr(down),
        "up_power": str(int(math.log2(up))), "down_power": str(int(math.log2(down))),
        "tie_sum": number(add_exact(1.0, up, fmt), 8), "probe": repr(params.update_probe), "probe_stored": repr(moved),
        "probe_sum": repr(add_exact(1.0, moved, fmt)),
        "tie_command": f"printf '1\\n{up!r}\\n' | fpsum sum --format bf16 --method naive",
        "probe_command": f"printf '1\\n{params.update_probe!r}\\n' | fpsum sum --format bf16 --method naive",
    }


def tree_workers(params: ExercisesParams) -> NestedNumbers:
    """A BF16 grid-stride reduction of uniform inputs: the totals for 1, 2, 4, ... workers; the first that is right."""
    fmt = BF16
    values = make_inputs("uniform", params.tree_n, fmt, params.seed)
    correct = float(total("correct", values, fmt))
    totals = {w: float(tree_reduction(values, fmt, w)) for w in (1, 2, 4, 8, 16, 32)}
    first = min(w for w, t in totals.items() if t == correct)
    return {"n": number(params.tree_n), "correct": number(correct), "first": number(first),
            "share": number(params.tree_n / first), **{f"w{w}": number(t) for w, t in totals.items()}}


def update_memory(params: ExercisesParams) -> NestedNumbers:
    """Bytes per weight of the four ways to store a BF16 weight, and what they come to for a model's parameters."""
    fmt = BF16
    numbers: dict[str, NestedNumbers | str] = {"parameters": f"{params.parameters / 1e9:g} billion"}
    for method in UPDATE_METHODS:
        size = bytes_per_weight(method, fmt)
        numbers[method] = {"bytes": str(size), "gb": number(size * params.parameters / 1e9)}
    return numbers


def sterbenz(params: ExercisesParams) -> NestedNumbers:
    """Two FP16 inputs that nearly cancel: κ, the naive bound it implies, and the (exact) naive sum."""
    fmt = FP16
    a, b = params.cancel_pair
    values = to_format(np.array([a, b]), fmt)
    kappa = float(np.abs(values.astype(np.float64)).sum() / abs(exact_total(values)))
    result = float(total("naive", values, fmt))
    return {"a": number(a), "b": number(b), "kappa": number(kappa), "bound": significant(kappa * fmt.unit_roundoff),
            "result": number(result), "exact": number(exact_total(values)),
            "command": f"printf '{a:g}\\n{b:g}\\n' | fpsum sum --format fp16 --method naive"}


def build(record_id: str, params: ExercisesParams) -> Built:
    """Every page's answers."""
    return Built(files={}, numbers={
        "accumulation": {"constant": constant_stall(params), "tie": half_gap_tie(params),
                         "fast_two_sum": fast_two_sum(params),
                         "race": bf16_race(params)},
        "error_vs_n": {**bounds_reach(params), **typical_measured(params)},
        "formats": {"overflow": e4m3_overflow(params), "stalls": fp8_stalls(params),
                    "scaled": scaled_stall(params)},
        "beyond_kahan": {"cancelling": cancelling(params), "unbiased": unbiased(params),
                         "blocked": blocked_bound(params)},
        "dot": {"half_wrong": dot_half_wrong(params), "ones": truncated_ones(params),
                "kappa": kappa_estimate(params)},
        "practice": {"thresholds": update_thresholds(params), "tree": tree_workers(params),
                     "memory": update_memory(params)},
        "conditioning": {"sterbenz": sterbenz(params)},
    })
