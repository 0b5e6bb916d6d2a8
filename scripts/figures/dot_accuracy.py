"""Numbers of the dot-product page beyond its figure: products that leave FP32's normal range, attention's P·V,
Dot2 on ill-conditioned inputs and where it fails, and TF32 inputs to an FP32 dot product.

Record ``dot-cases``: ``tiny`` (a BF16 value x whose square lies among FP32's
subnormals: ``x``, ``exact``, ``fp32``, ``command``), ``attention`` (softmax
weights p of ``k`` normal logits against a ± normal column v: the median κ of
p·v over ``trials`` rows, ``kappa``, against 1 for the sum of p), and
``underflow`` (the FP16 pair on which Dot2 fails: ``a``, ``exact``,
``dot2``, ``bound``, ``kappa``), and ``beyond`` (an FP32 result rounded to
FP16: ``largest``, FP16's largest value, which every FP32 value from it up
to below ``inf_from`` rounds to, and ``inf_from``, from which on it rounds
to inf; ``command`` rounds ``below``, a whole number just under
``inf_from``).

Record ``dot2``: ``n``, ``c`` and per row ``<format>.r<i>`` the achieved
``kappa``, the relative errors of the naive dot product (``naive``) and of
Dot2 (``dot2``), and Dot2's bound u + γ_n² κ (``bound``).

Record ``dot-tf32``: ``k``, ``trials`` and per input kind the median
relative errors of the FP32 dot product of FP32 inputs (``fp32``) and of
the same with the inputs rounded to TF32 first (``tf32``), and their ratio.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from fpsum.array_rounding import to_format
from fpsum.conditioned import condition_number, conditioned_sums, kappa_limit
from fpsum.dot import dot, exact_dot, exact_dot_running, exact_products, products
from fpsum.dot2 import dot2
from fpsum.exact_rounding import round_exact
from fpsum.formats import BF16, FP16, FP32, Format, get_format
from fpsum.inputs import INPUT_KINDS, make_inputs
from fpsum.tf32 import tf32_dot

from .contract import NestedNumbers
from .record import Built, Record
from .text import number, scientific, significant


def records() -> list[Record]:
    """The page's three sets of numbers that no figure draws."""
    return [
        Record("dot-cases", CasesParams(), build_cases),
        Record("dot2", Dot2Params(), build_dot2),
        Record("dot-tf32", Tf32Params(), build_tf32),
    ]


# --- single cases ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class CasesParams:
    """The BF16 value squared below FP32's normal range, the attention rows, and the FP16 value Dot2 fails on."""

    tiny: float = (1 + 2.0**-7) * 2.0**-70
    attention_k: int = 4096
    attention_trials: int = 16
    seed: int = 47
    underflow: float = (1 + 2.0**-10) * 2.0**-8

    def __post_init__(self) -> None:
        if round_exact(self.tiny, BF16) != self.tiny:
            raise ValueError(f"{self.tiny!r} is not a BF16 value")
        if round_exact(self.underflow, FP16) != self.underflow:
            raise ValueError(f"{self.underflow!r} is not an FP16 value")
        if self.attention_k < 2 or self.attention_trials < 1:
            raise ValueError(f"attention rows need k >= 2 and trials >= 1: {self}")


def tiny_square(params: CasesParams) -> tuple[Fraction, float]:
    """The exact square of ``params.tiny`` and the FP32 product the model forms from two BF16 copies of it."""
    x = np.array([params.tiny]).astype(BF16.dtype)
    return Fraction(params.tiny) ** 2, float(products(x, x, FP32)[0])


def attention_rows(params: CasesParams) -> tuple[np.ndarray, np.ndarray]:
    """Softmax weights of standard normal logits (FP32; weights rounded to BF16) and a ± normal BF16 column, per row."""
    logits = make_inputs("normal", params.attention_k, FP32, params.seed, trials=params.attention_trials)
    weights = np.exp(logits.astype(np.float64) - logits.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    p = to_format(weights, BF16)
    v = make_inputs("normal", params.attention_k, BF16, params.seed + 1, trials=params.attention_trials)
    return p, v


def kappas(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """κ = |x|ᵀ|y| / |xᵀy| of each row: the condition number of the sum of its exact products (inf if it is 0)."""
    _, _, kappa = condition_number(exact_products(x, y))
    return kappa


def underflow_pair(params: CasesParams) -> tuple[np.ndarray, np.ndarray]:
    """x = (a, 1), y = (a, -fl(a²)) in FP16: the exact dot product is a² - fl(a²), the rounding error of a²."""
    a = np.array([params.underflow], dtype=np.float16)
    square = products(a, a, FP16)[0]
    return np.array([a[0], 1.0], dtype=np.float16), np.array([a[0], -square], dtype=np.float16)


def dot2_bound(x: np.ndarray, y: np.ndarray, fmt: Format) -> tuple[Fraction, Fraction]:
    """The exact dot product of two 1-D vectors and Dot2's bound u |s| + γ_K² |x|ᵀ|y| (Ogita, Rump and Oishi 5.5)."""
    exact = exact_dot(x, y)
    absolute = exact_dot(np.abs(x.astype(np.float64)), np.abs(y.astype(np.float64)))
    k = x.shape[-1]
    u = Fraction(fmt.unit_roundoff)
    gamma = k * u / (1 - k * u)
    return exact, u * abs(exact) + gamma**2 * absolute


def beyond_fp16() -> dict[str, str]:
    """Where rounding an FP32 result to FP16 gives FP16's largest value and where inf, from the model's rounding.

    The last FP32 value below the midpoint between FP16's largest value and
    2**16 rounds down to the largest; the midpoint itself is a tie, and its
    even neighbour 2**16 is beyond the format: inf.
    """
    largest = FP16.max_finite
    inf_from = largest + FP16.ulp(largest) / 2
    last = np.nextafter(np.float32(inf_from), np.float32(0))
    with np.errstate(over="ignore"):
        down, up = (float(to_format(np.array([float(v)]), FP16)[0]) for v in (last, inf_from))
    if down != largest or not np.isinf(up):
        raise ValueError(f"FP16 rounds {float(last)!r} to {down!r} and {inf_from!r} to {up!r}")
    below = int(inf_from) - 1
    return {"largest": number(largest), "inf_from": number(inf_from), "below": number(below),
            "command": f"echo {below} | fpsum sum --format fp16 --method naive"}


def build_cases(record_id: str, params: CasesParams) -> Built:
    """The three single cases (see the module docstring)."""
    exact, fp32 = tiny_square(params)
    p, v = attention_rows(params)
    x, y = underflow_pair(params)
    s, bound = dot2_bound(x, y, FP16)
    result = float(dot2(x, y, FP16))
    kappa = float(abs(exact_dot(np.abs(x.astype(np.float64)), np.abs(y.astype(np.float64))) / s))
    tiny = repr(params.tiny)
    numbers: dict[str, NestedNumbers | str] = {
        "tiny": {
            "x": tiny, "exact": repr(float(exact)), "fp32": repr(fp32),
            "command": f"echo '{tiny} {tiny}' | fpsum dot --format bf16 --accumulate fp32",
        },
        "attention": {
            "k": number(params.attention_k), "trials": number(params.attention_trials),
            "kappa": number(float(np.median(kappas(p, v))), 0),
        },
        "beyond": beyond_fp16(),
        "underflow": {
            "a": repr(params.underflow), "exact": ("−" if s < 0 else "") + scientific(abs(float(s)), 3),
            "dot2": number(result),
            "bound": significant(float(bound / abs(s))), "kappa": number(kappa, 0),
        },
    }
    return Built(files={}, numbers=numbers)


# --- Dot2 on ill-conditioned inputs ----------------------------------------------------------------


@dataclass(frozen=True)
class Dot2Params:
    """Per format, the target condition numbers; the length, the seed, and the constant y (nearest 4/3)."""

    targets: tuple[tuple[str, tuple[float, ...]], ...] = (("fp16", (30.0, 300.0)), ("fp32", (1e5, 1e8, 1e11)))
    n: int = 32
    seed: int = 1
    c: float = 4 / 3

    def __post_init__(self) -> None:
        for name, kappas_ in self.targets:
            fmt = get_format(name)
            if not kappas_ or max(kappas_) > kappa_limit(fmt, self.n):
                raise ValueError(f"targets {kappas_} out of reach for {self.n} terms of {fmt.label}")


@dataclass(frozen=True)
class Dot2Row:
    """One ill-conditioned dot product: its inputs, κ, and the naive and Dot2 results against the exact one."""

    fmt: Format
    x: np.ndarray
    y: np.ndarray
    kappa: float
    naive: float
    dot2: float
    bound: float


def relative_error(value: np.ndarray, exact: Fraction) -> float:
    """|value - exact| / |exact| of a computed scalar, from exact rationals, rounded once to a float."""
    return float(abs(Fraction(float(value)) - exact) / abs(exact))


def dot2_rows(params: Dot2Params) -> list[Dot2Row]:
    """x a sum of the target condition number (:func:`fpsum.conditioned.conditioned_sums`), y every entry fl(c):
    one row per target.

    fl(c) has a full significand, so the products are rounded too, and the
    dot product has the sum's κ (c scales both |x|ᵀ|y| and xᵀy).
    """
    rows = []
    for name, targets in params.targets:
        fmt = get_format(name)
        xs = conditioned_sums(np.array(targets), params.n, fmt, seed=params.seed).values
        c = to_format(np.array(params.c), fmt)
        for x in xs:
            y = np.full_like(x, c)
            exact, bound = dot2_bound(x, y, fmt)
            absolute = exact_dot(np.abs(x.astype(np.float64)), np.abs(y.astype(np.float64)))
            rows.append(Dot2Row(fmt=fmt, x=x, y=y, kappa=float(absolute / abs(exact)),
                                naive=relative_error(dot(x, y, fmt, fmt), exact),
                                dot2=relative_error(dot2(x, y, fmt), exact), bound=float(bound / abs(exact))))
    return rows


def size(value: float) -> str:
    """A positive quantity to two figures: plain from 0.01 to 1,000 (``0.13``, ``586``), else ``3.3 × 10⁻⁵``."""
    return significant(value) if 0.01 <= value < 1000 else scientific(value, 2)


def build_dot2(record_id: str, params: Dot2Params) -> Built:
    """The Dot2 table's numbers (see the module docstring)."""
    numbers: dict[str, NestedNumbers | str] = {"n": number(params.n)}
    seen: dict[str, int] = {}
    for row in dot2_rows(params):
        index = seen.get(row.fmt.name, 0) + 1
        seen[row.fmt.name] = index
        by_format = numbers.setdefault(row.fmt.name, {})
        assert isinstance(by_format, dict)
        by_format[f"r{index}"] = {
            "kappa": size(row.kappa), "naive": size(row.naive), "dot2": size(row.dot2), "bound": size(row.bound),
        }
        by_format["c"] = repr(float(to_format(np.array(params.c), row.fmt)))
    return Built(files={}, numbers=numbers)


# --- TF32 ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tf32Params:
    """The length of the dot products, the trials, the seed (y from the next), the input kinds."""

    k: int = 4096
    trials: int = 16
    seed: int = 53
    kinds: tuple[str, ...] = ("normal", "uniform")

    def __post_init__(self) -> None:
        if self.k < 1 or self.trials < 1 or set(self.kinds) - set(INPUT_KINDS):
            raise ValueError(f"invalid TF32 parameters: {self}")


def tf32_errors(params: Tf32Params, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """FP32 inputs of ``kind``: relative errors of the FP32 and the TF32-input dot product, per trial; and x, y."""
    x = make_inputs(kind, params.k, FP32, params.seed, trials=params.trials)  # type: ignore[arg-type]
    y = make_inputs(kind, params.k, FP32, params.seed + 1, trials=params.trials)  # type: ignore[arg-type]
    exact = exact_dot_running(x, y, np.array([params.k]))[:, 0]
    fp32 = np.abs(dot(x, y, FP32, FP32).astype(np.float64) - exact) / np.abs(exact)
    tf32 = np.abs(tf32_dot(x, y).astype(np.float64) - exact) / np.abs(exact)
    return fp32, tf32, x, y


def build_tf32(record_id: str, params: Tf32Params) -> Built:
    """The TF32 numbers (see the module docstring)."""
    numbers: dict[str, NestedNumbers | str] = {"k": number(params.k), "trials": number(params.trials)}
    for kind in params.kinds:
        fp32, tf32, _, _ = tf32_errors(params, kind)
        numbers[kind] = {
            "fp32": scientific(float(np.median(fp32)), 2), "tf32": scientific(float(np.median(tf32)), 2),
            "ratio": number(float(np.median(tf32) / np.median(fp32)), 0),
        }
    return Built(files={}, numbers=numbers)
