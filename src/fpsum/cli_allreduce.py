"""``fpsum allreduce``: one element's all-reduce over the ranks whose values are read from text.

The N numbers read (one per rank, in rank order) are rounded to ``--wire``
as ``fpsum sum`` rounds them, and reduced by :func:`fpsum.allreduce.allreduce`.
Bad input (no values, a word, a NaN or inf value, an accumulation format
narrower than the wire, a chunk outside 0..N-1 or a chunk given to another
algorithm than the ring) is a ``UsageError``: one line, exit status 2.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, TextIO

from .allreduce import ALGORITHMS, AVERAGES, allreduce, check_accumulator
from .formats import FORMATS, Format
from .reading import UsageError, read_numbers, read_source
from .report import write_report

ALLREDUCE_HELP = (
    "one element's all-reduce over N ranks: ring, tree, all-to-all or switch",
    "Read N decimal numbers (one per rank, in rank order) from FILE or standard input, round each "
    "to the wire format, all-reduce them and print the result, the exact sum of the rounded values "
    "(divided by N when averaging), the absolute and relative error and, for the ring, the order in "
    "which the ranks' values were added.  ring: the partial sum of an element in chunk C starts at "
    "rank (C + 1) mod N and each hop adds the next rank's value in --accumulate, rounding the sum "
    "to --wire to send it on (--direction down: it starts at rank (C - 1) mod N and goes the other way, "
    "as PyTorch's gloo backend does).  tree: a binary tree of the ranks (the pairwise sum's split), each "
    "sum rounded to --wire.  alltoall: the N values summed in rank order in --accumulate, only the "
    "result rounded to --wire.  switch: the exact sum rounded once to --wire.  --average pre "
    "multiplies each value by 1/N rounded to --wire; --average post divides the result by N once.",
    ["printf '1\\n0.01\\n0.01\\n0.01\\n' | fpsum allreduce --algorithm ring --wire bf16 --chunk 3",
     "fpsum allreduce grads.txt --algorithm alltoall --wire bf16 --accumulate fp32 --json",
     "fpsum allreduce grads.txt --algorithm tree --wire fp16 --average pre"],
)
"""The subcommand's summary, description and examples, as ``fpsum.cli``'s ``_command`` takes them."""

DIRECTIONS = {"up": 1, "down": -1}
"""``--direction``'s names for :func:`fpsum.allreduce.ring_orders`' ways round the ring."""


def allreduce_options(command: argparse.ArgumentParser, fmt: Callable[[str], Format]) -> None:
    """Add ``fpsum allreduce``'s arguments; ``fmt`` is the command line's parser of a format name."""
    command.add_argument("file", nargs="?", help="file of the ranks' values (default: standard input, also '-')")
    command.add_argument("--algorithm", required=True, choices=ALGORITHMS, help="how the ranks reduce")
    command.add_argument("--wire", required=True, type=fmt,
                         help=f"format sent between ranks: one of {', '.join(FORMATS)}")
    command.add_argument("--accumulate", type=fmt, help="format each addition is rounded to, at least as wide as "
                                                        "the wire (default: the wire format)")
    command.add_argument("--average", choices=AVERAGES, default="none",
                         help="divide by N: none, pre (each value times 1/N) or post (the result, once); default none")
    command.add_argument("--chunk", type=int, help="the ring's chunk C of the element, 0..N-1 (default 0)")
    command.add_argument("--direction", choices=tuple(DIRECTIONS), default="up",
                         help="the ring's way round: up (chunk C starts at rank C+1, the default) or down "
                              "(it starts at rank C-1, as PyTorch's gloo sends)")


def command_allreduce(args: argparse.Namespace, out: TextIO) -> None:
    """``fpsum allreduce``: read the ranks' values, round them to the wire, all-reduce, print the result and errors."""
    wire: Format = args.wire
    accumulate: Format = wire if args.accumulate is None else args.accumulate
    try:
        check_accumulator(wire, accumulate)
    except ValueError as error:
        raise UsageError(f"fpsum allreduce: {error}") from None
    if args.chunk is not None and args.algorithm != "ring":
        raise UsageError(f"fpsum allreduce: --chunk goes with --algorithm ring, not {args.algorithm}")
    if args.direction != "up" and args.algorithm != "ring":
        raise UsageError(f"fpsum allreduce: --direction goes with --algorithm ring, not {args.algorithm}")
    rounded = read_source(args.file, lambda stream, source: read_numbers(stream, source, wire))
    n = len(rounded)
    chunk = 0 if args.chunk is None else args.chunk
    if not 0 <= chunk < n:
        raise UsageError(f"fpsum allreduce: --chunk {chunk} is outside 0..{n - 1} (the ranks are the {n} values read)")
    try:
        reduction = allreduce(rounded, args.algorithm, wire, accumulate, args.average, chunk,
                              DIRECTIONS[args.direction])
    except ValueError as error:  # NaN or inf among the values
        raise UsageError(f"fpsum allreduce: {error}") from None
    result = reduction.result
    abs_error = float(abs(Fraction(result) - reduction.exact)) if math.isfinite(result) else abs(result)
    report: dict[str, Any] = {
        "algorithm": args.algorithm, "wire": wire.name, "accumulate": accumulate.name, "average": args.average,
        "n": n,
    }
    ring = f" (chunk {chunk}, going {args.direction})" if args.algorithm == "ring" else ""
    lines = [("algorithm", args.algorithm + ring),
             ("wire", f"{wire.label} ({wire.name})"), ("accumulate", f"{accumulate.label} ({accumulate.name})"),
             ("average", args.average), ("n", str(n))]
    if reduction.order is not None:
        report.update(chunk=chunk, direction=args.direction, order=list(reduction.order))
        lines.append(("order", " ".join(map(str, reduction.order))))
    report.update(result=result, exact=float(reduction.exact), abs_error=abs_error, rel_error=reduction.rel_error)
    write_report(report, lines, args.json, out)
