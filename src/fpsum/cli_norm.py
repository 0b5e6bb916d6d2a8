"""``fpsum moments`` and ``fpsum softmax``: a row's mean and variance, or its softmax denominator, from text.

The numbers are read and rounded to ``--format`` as ``fpsum sum`` reads them
(:mod:`fpsum.reading`), converted exactly to ``--accumulate`` (default: the
input format), and handed to the model (:mod:`fpsum.moments`,
:mod:`fpsum.softmax`).  Bad input (no numbers, a word, an unknown method, an
accumulation format narrower than the input, a number that rounds to inf or
NaN) is a ``UsageError``: one line on standard error, exit status 2.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, TextIO, cast

import numpy as np

from .formats import Format, get_format
from .moments import MOMENT_METHODS, NORM_FORMATS, MomentMethod, check_formats, moments
from .reading import UsageError, read_numbers, read_source
from .report import json_value
from .softmax import SOFTMAX_ORDERS, SoftmaxOrder, softmax

Command = Callable[..., argparse.ArgumentParser]
"""``fpsum.cli._command``: adds a subcommand with its help, examples and ``--json``."""


def _norm_format(text: str) -> Format:
    """An argparse type: one of :data:`~fpsum.moments.NORM_FORMATS`, else an error that lists them."""
    if text.lower() not in NORM_FORMATS:
        raise argparse.ArgumentTypeError(f"unknown format {text!r} (choose from {', '.join(NORM_FORMATS)})")
    return get_format(text)


def _choice(names: tuple[str, ...], what: str) -> Callable[[str], str]:
    """An argparse type: one of ``names``, else an error that lists them."""

    def parse(text: str) -> str:
        if text not in names:
            raise argparse.ArgumentTypeError(f"unknown {what} {text!r} (choose from {', '.join(names)})")
        return text

    parse.__name__ = what
    return parse


def _row(args: argparse.Namespace, command: str) -> tuple[np.ndarray, Format, Format]:
    """The rounded inputs (float64), the input format and the accumulation format; ``UsageError`` for bad ones."""
    fmt: Format = args.format
    acc: Format = args.accumulate or fmt
    try:
        check_formats(fmt, acc)
    except ValueError as error:
        raise UsageError(f"fpsum {command}: {error}") from None
    rounded = read_source(args.file, lambda stream, source: read_numbers(stream, source, fmt))
    bad = np.flatnonzero(~np.isfinite(rounded))
    if bad.size:
        raise UsageError(f"fpsum {command}: number {int(bad[0]) + 1} is {float(rounded[bad[0]])} in {fmt.label}; "
                         "the inputs must be finite")
    return rounded, fmt, acc


def _exact(value: Fraction | float) -> float:
    """An exact value as the nearest double (one rounding, by ``Fraction.__float__``); +-inf beyond its range."""
    if isinstance(value, float):  # NaN: no exact value
        return value
    try:
        return float(value)
    except OverflowError:  # the variance of FP64 inputs near 1e300
        return math.inf if value > 0 else -math.inf


def _write(report: dict[str, Any], as_json: bool, out: TextIO) -> None:
    """One JSON object (non-finite floats as strings), or one ``name value`` line per key."""
    if as_json:
        out.write(json.dumps({k: json_value(v) if isinstance(v, float) else v for k, v in report.items()}) + "\n")
        return
    for key, value in report.items():
        shown = repr(value) if isinstance(value, float) else str(value)
        out.write(f"{key.replace('_', ' '):21s} {shown}\n")


def command_moments(args: argparse.Namespace, out: TextIO) -> None:
    """``fpsum moments``: read a row, print its mean and variance by the method and the exact ones."""
    rounded, fmt, acc = _row(args, "moments")
    result = moments(rounded, fmt, acc, cast(MomentMethod, args.method))
    _write({
        "format": fmt.name, "accumulate": acc.name, "method": args.method, "n": result.n,
        "mean": result.mean, "variance": result.variance,
        "exact_mean": _exact(result.exact_mean), "exact_variance": _exact(result.exact_variance),
        "mean_rel_error": result.mean_rel_error, "variance_rel_error": result.variance_rel_error,
    }, args.json, out)


def command_softmax(args: argparse.Namespace, out: TextIO) -> None:
    """``fpsum softmax``: read logits, print the denominator, the sum of the probabilities and the exact ones."""
    rounded, fmt, acc = _row(args, "softmax")
    result = softmax(rounded, fmt, acc, cast(SoftmaxOrder, args.order))
    _write({
        "format": fmt.name, "accumulate": acc.name, "order": args.order, "n": result.n,
        "denominator": result.denominator, "exact_denominator": _exact(result.exact_denominator),
        "denominator_rel_error": result.denominator_rel_error,
        "probability_sum": result.probability_sum,
        "exact_probability_sum": _exact(result.exact_probability_sum),
    }, args.json, out)


def add_norm_commands(commands: Any, command: Command) -> None:
    """Add ``moments`` and ``softmax`` to ``commands`` (argparse's subparsers) through cli's ``_command``."""
    formats = ", ".join(NORM_FORMATS)
    stats = command(
        commands, "moments", "mean and variance of a row by a method",
        "Read decimal numbers from FILE or standard input, round each to the format, convert them to "
        "the accumulation format (default: the input format; it must hold every input value), and "
        "compute the mean and the population variance (divide by n) by the method, every operation "
        "rounded once: textbook (E[x^2] - E[x]^2), two-pass, welford or chan (pairwise merges). Print "
        "them, the exact mean and variance of the rounded inputs, and the relative errors.",
        ["python3 -c 'import random; print(*(random.gauss(2000, 1) for _ in range(4)))' "
         "| fpsum moments --format fp32 --method textbook",
         "fpsum moments row.txt --format bf16 --method welford --accumulate fp32 --json"], command_moments)
    stats.add_argument("file", nargs="?", help="file of numbers (default: standard input, also '-')")
    stats.add_argument("--format", required=True, type=_norm_format, help=f"format of the inputs: one of {formats}")
    stats.add_argument("--method", required=True, type=_choice(MOMENT_METHODS, "method"),
                       help=f"one of {', '.join(MOMENT_METHODS)}")
    stats.add_argument("--accumulate", type=_norm_format,
                       help="format of every operation (default: the input format), as wide as the input or wider")

    soft = command(
        commands, "softmax", "the softmax denominator of a row in an order",
        "Read logits from FILE or standard input, round each to the format, convert them to the "
        "accumulation format, and sum exp(x - max) there in the order: naive, pairwise or online "
        "(a running max and a rescaled running sum, as flash attention does). Each exp is the "
        "correctly rounded exp of the rounded difference. Print the denominator, the exact sum of "
        "its terms, the sum of the rounded probabilities in the same format and its exact value.",
        ["python3 -c 'print(*[0] * 4096)' | fpsum softmax --format fp16 --order naive",
         "fpsum softmax logits.txt --format bf16 --accumulate fp32 --order online --json"], command_softmax)
    soft.add_argument("file", nargs="?", help="file of logits (default: standard input, also '-')")
    soft.add_argument("--format", required=True, type=_norm_format, help=f"format of the logits: one of {formats}")
    soft.add_argument("--order", required=True, type=_choice(SOFTMAX_ORDERS, "order"),
                      help=f"one of {', '.join(SOFTMAX_ORDERS)}")
    soft.add_argument("--accumulate", type=_norm_format,
                      help="format of every operation (default: the input format), as wide as the input or wider")
