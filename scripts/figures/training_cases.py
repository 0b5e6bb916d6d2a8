"""The training page's counterexamples and its averaging numbers, each with the ``fpsum`` command that shows it.

Numbers of record ``training-cases``:

- ``vanish``: nccl#855's small values that vanish in a ring.  N = ``n``
  ranks in BF16, rank 0 holding ``big`` and the others ``small`` each; the
  ``exact`` sum; the ring's result for the chunk whose partial sum starts at
  rank 0 (``first_chunk``: ``ring_first``) and for chunk 0, which starts at
  rank 1 (``ring_last``), the ``tree``'s and the all-to-all's with an FP32
  sum (``alltoall``); a ``command`` for each of ``ring_first_command``,
  ``ring_last_command``, ``tree_command``, ``alltoall_command``;
- ``average``: 1/3 rounded to BF16 (``third``), how far above 1/3 it lies
  (``third_high``, per cent), how many rank counts from 2 to ``n_max`` have
  1/N exact in BF16 (``exact_counts``, the powers of two), the largest
  relative error of 1/N in BF16 over them (``worst``, per cent, at N =
  ``worst_n``); and the mean signed relative error of an average over
  ``n`` = 3 ranks of ``trials`` seeded elements (normal, sd 1e-3), pre- and
  post-divided: how far above the exact averages they sit (``pre_bias``,
  ``post_bias``, per cent, :func:`biases`); ``command``: pre-division of
  1, 0, 0 over three ranks, whose result is 1/3 rounded to BF16;
- ``epoch``: Lightning-AI/pytorch-lightning#18620's ``n`` + 1 in BF16
  (``sum``), n = 256, with its ``command``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from fpsum.allreduce import Algorithm, allreduce, reduce_ranks
from fpsum.array_rounding import to_format
from fpsum.exact_rounding import round_exact
from fpsum.formats import BF16, FP32, Format

from .contract import NestedNumbers
from .record import Built, Record
from .text import number, significant, superscript


@dataclass(frozen=True)
class TrainingCasesParams:
    """The vanishing ring (ranks, the big and the small value), the averaging sweep (N, elements, seed)."""

    n: int = 8
    big: float = 1.0
    small: float = 2.0**-9
    average_n: int = 3
    average_n_max: int = 1024
    trials: int = 4096
    seed: int = 0

    def __post_init__(self) -> None:
        if self.n < 3 or self.average_n < 2 or self.average_n_max < self.average_n or self.trials < 16:
            raise ValueError(f"invalid training cases: {self}")

    def vanish_values(self) -> list[float]:
        """Rank 0 holds ``big``, every other rank ``small``."""
        return [self.big] + [self.small] * (self.n - 1)


def records() -> list[Record]:
    """The page's counterexamples and averaging numbers."""
    return [Record("training-cases", TrainingCasesParams(), build)]


def _command(values: list[float], options: str) -> str:
    """``python3 -c 'print(...)' | fpsum allreduce OPTIONS``: the values one a rank, repeats written as a list."""
    first, rest = values[0], values[1:]
    if rest and all(v == rest[0] for v in rest) and rest[0] != first:
        shown = f"{first!r}, *[{rest[0]!r}] * {len(rest)}"
    else:
        shown = f"*[{first!r}] * {len(values)}" if all(v == first for v in values) else ", ".join(map(repr, values))
    return f"python3 -c 'print({shown})' | fpsum allreduce {options}"


def vanish(params: TrainingCasesParams) -> dict[str, str]:
    """The ring from the big value first or last, the tree, and the all-to-all, on the same ranks."""
    values = params.vanish_values()
    first_chunk = params.n - 1  # its partial sum starts at rank (chunk + 1) mod N = 0
    runs: dict[str, tuple[Algorithm, Format | None, int]] = {
        "ring_first": ("ring", None, first_chunk), "ring_last": ("ring", None, 0),
        "tree": ("tree", None, 0), "alltoall": ("alltoall", FP32, 0)}
    out = {"n": number(params.n), "big": number(params.big), "small": f"2{superscript(round(np.log2(params.small)))}",
           "first_chunk": number(first_chunk),
           "exact": number(float(allreduce(values, "switch", BF16).exact), 9)}
    for key, (algorithm, accumulate, chunk) in runs.items():
        out[key] = number(allreduce(values, algorithm, BF16, accumulate, chunk=chunk).result, 9)
        options = f"--algorithm {algorithm} --wire bf16"
        options += f" --chunk {chunk}" if algorithm == "ring" else ""
        options += " --accumulate fp32" if accumulate is not None else ""
        out[f"{key}_command"] = _command(values, options)
    return out


def biases(params: TrainingCasesParams) -> dict[str, float]:
    """How far a pre- and a post-divided average sit above the exact one: the least-squares scale of the computed
    averages against the exact ones, minus 1 (all-to-all with an FP32 sum, so that only the division differs).

    A scale, not a mean of relative errors: an element whose exact sum is
    near 0 would swamp that mean.
    """
    rng = np.random.default_rng([params.seed, params.average_n])
    values = to_format(rng.normal(0.0, 1e-3, (params.trials, params.average_n)), BF16)
    exact = np.array([float(sum(map(Fraction, row), Fraction(0)) / params.average_n) for row in values.tolist()])
    held = values.astype(BF16.dtype)
    out = {}
    for average in ("pre", "post"):
        result = reduce_ranks(held, "alltoall", BF16, FP32, average).astype(np.float64)
        out[average] = float(result @ exact / (exact @ exact) - 1)
    return out


def average(params: TrainingCasesParams) -> dict[str, str]:
    """1/N in BF16: the 1/3 case, which counts are exact, the worst; and the bias of pre-division."""
    third = round_exact(Fraction(1, 3), BF16)
    errors = {n: abs(Fraction(round_exact(Fraction(1, n), BF16)) * n - 1)
              for n in range(2, params.average_n_max + 1)}
    worst = max(errors, key=lambda n: errors[n])
    bias = biases(params)
    return {
        "third": repr(third), "third_high": significant(100 * float(Fraction(third) * 3 - 1), 3),
        "n_max": number(params.average_n_max),
        "exact_counts": number(sum(1 for e in errors.values() if e == 0)),
        "worst": significant(100 * float(errors[worst]), 3), "worst_n": number(worst),
        "n": number(params.average_n), "trials": number(params.trials),
        "pre_bias": significant(100 * bias["pre"], 2), "post_bias": significant(100 * abs(bias["post"]), 1),
        "command": _command([1.0] + [0.0] * (params.average_n - 1), "--algorithm switch --wire bf16 --average pre"),
    }


def epoch() -> dict[str, str]:
    """256 + 1 in BF16."""
    total = float(to_format(np.array([256.0 + 1.0]), BF16)[0])
    return {"n": "256", "sum": number(total), "command": "echo 256 1 | fpsum sum --format bf16 --method naive"}


def build(record_id: str, params: TrainingCasesParams) -> Built:
    """The numbers only: no figure."""
    numbers: NestedNumbers = {"vanish": vanish(params), "average": average(params), "epoch": epoch()}
    return Built(files={}, numbers=numbers)
