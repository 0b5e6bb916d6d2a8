"""The ``fpsum`` command line: sums, dot products, races, formats, moments, softmax and all-reduce.

This module is the model's only door to the outside (files, standard input,
printing); the model itself stays pure.  Every mistake in the input ends in
one line on standard error, naming what is wrong and where, and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TextIO

from .blocked import DEFAULT_BLOCK
from .blocks import BLOCK_FORMATS
from .cascaded import DEFAULT_FOLDS
from .cli_allreduce import ALLREDUCE_HELP, allreduce_options, command_allreduce
from .cli_dot import BLOCK_ACCUMULATORS, block_format, command_dot
from .cli_formats import command_formats
from .cli_norm import add_norm_commands
from .dot import ACCUMULATORS, DOT_METHODS, INPUT_FORMATS
from .e8m0 import E8M0
from .formats import FORMATS, Format, get_format
from .inputs import INPUT_KINDS
from .methods import total
from .names import METHODS, Method
from .race import run_race
from .reading import UsageError, read_numbers, read_source
from .report import exact_and_errors, json_value, write_report

EXIT_USAGE = 2
MAX_RACE_N = 1 << 26


class _Parser(argparse.ArgumentParser):
    """argparse, but an error is one line and exit status 2, without the usage block."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def _format(name: str) -> Format:
    if name.lower() == E8M0.name:
        raise argparse.ArgumentTypeError("e8m0 is the MX scale format (powers of two only, no zero, no sign): "
                                         "it cannot hold a sum")
    try:
        return get_format(name)
    except KeyError:
        raise argparse.ArgumentTypeError(f"unknown format {name!r} (choose from {', '.join(FORMATS)})") from None


def _format_among(names: tuple[str, ...], role: str) -> Callable[[str], Format]:
    """An argparse type: a format whose name is in ``names``, else an error that says what it cannot be."""

    def parse(text: str) -> Format:
        fmt = _format(text)
        if fmt.name not in names:
            raise argparse.ArgumentTypeError(f"{fmt.name} cannot be {role} (choose from {', '.join(names)})")
        return fmt

    parse.__name__ = role
    return parse


def _method_among(methods: tuple[Method, ...]) -> Callable[[str], Method]:
    """An argparse type: one of ``methods``, else an error that lists them."""

    def parse(name: str) -> Method:
        if name not in methods:
            raise argparse.ArgumentTypeError(f"unknown method {name!r} (choose from {', '.join(methods)})")
        return name

    parse.__name__ = "method"
    return parse


_method = _method_among(METHODS)


def _whole(what: str, minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum``, else an error that names ``what``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be a whole number, got {text!r}") from None
        if value < minimum:
            limit = "must not be negative" if minimum == 0 else f"must be at least {minimum}"
            raise argparse.ArgumentTypeError(f"{what} {limit}, got {value}")
        return value

    parse.__name__ = what
    return parse


def command_sum(args: argparse.Namespace, out: TextIO) -> None:
    """``fpsum sum``: read numbers, round them to the format, sum them by the method, print result and errors."""
    fmt: Format = args.format
    rounded = read_source(args.file, lambda stream, source: read_numbers(stream, source, fmt))
    values = rounded.astype(fmt.dtype)  # exact: already in the format
    result = float(total(args.method, values, fmt, block=args.block, seed=args.seed, folds=args.folds))
    exact, abs_error, rel_error = exact_and_errors(rounded, result)
    report = {
        "format": fmt.name, "method": args.method, "n": len(rounded),
        "result": result, "exact": exact, "abs_error": abs_error, "rel_error": rel_error,
    }
    write_report(report, [
        ("format", f"{fmt.label} ({fmt.name})"),
        ("method", args.method + {"blocked": f" (block {args.block})",
                                  "sumk": f" (K = {args.folds})"}.get(args.method, "")),
        ("n", str(len(rounded))),
    ], args.json, out)


def command_race(args: argparse.Namespace, out: TextIO) -> None:
    """``fpsum race``: every method's final total on the seeded inputs, and the exact total."""
    fmt: Format = args.format
    if args.n > MAX_RACE_N:
        raise UsageError(f"fpsum race: --n {args.n} is more than this command races ({MAX_RACE_N})")
    race = run_race(fmt, args.inputs, n=args.n, seed=args.seed, samples=2, methods=METHODS)
    if args.json:
        out.write(json.dumps({
            "format": fmt.name, "inputs": args.inputs, "n": args.n, "seed": args.seed,
            "exact": json_value(race.exact_final),
            "final": {m: json_value(v) for m, v in race.final.items()},
            "stalled_after": race.stalls,
        }) + "\n")
        return
    out.write(f"{fmt.label}, {args.n} {args.inputs} inputs, seed {args.seed}\n")
    out.write(f"{'exact':12s} {race.exact_final!r}\n")
    for method, value in race.final.items():
        stall = race.stalls[method]
        note = f"   stalled after {stall} inputs" if stall is not None else ""
        out.write(f"{method:12s} {value!r}{note}\n")


def _command(commands: Any, name: str, summary: str, description: str, examples: list[str],
             run: Callable[[argparse.Namespace, TextIO], None]) -> argparse.ArgumentParser:
    """A subcommand with its help, its examples (line breaks kept) and ``--json``."""
    command: argparse.ArgumentParser = commands.add_parser(
        name, help=summary, description=description, epilog="example:\n  " + "\n  ".join(examples),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    command.add_argument("--json", action="store_true", help="print one JSON object")
    command.set_defaults(run=run)
    return command


def _format_option(command: argparse.ArgumentParser) -> None:
    command.add_argument("--format", required=True, type=_format, help=f"one of {', '.join(FORMATS)}")


def build_parser() -> argparse.ArgumentParser:
    """The command line: ``sum``, ``dot``, ``race``, ``formats``, ``moments``, ``softmax`` and ``allreduce``,
    each with an example in its help.
    """
    parser = _Parser(prog="fpsum", description="Floating-point summation in low precision, bit for bit.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    summing = _command(
        commands, "sum", "sum numbers in a format by a method",
        "Read decimal numbers (separated by spaces or newlines) from FILE or standard input, "
        "round each to the format, sum them by the method, and print the result, the exact sum "
        "of the rounded inputs, and the absolute and relative error.",
        ["seq 1 5000 | fpsum sum --format fp16 --method naive",
         "fpsum sum data.txt --format bf16 --method kahan --json",
         "fpsum sum data.txt --format fp16 --method sumk --folds 3"], command_sum)
    summing.add_argument("file", nargs="?", help="file of numbers (default: standard input, also '-')")
    _format_option(summing)
    summing.add_argument("--method", required=True, type=_method, help=f"one of {', '.join(METHODS)}")
    summing.add_argument("--block", type=_whole("block size", 1), default=DEFAULT_BLOCK,
                         help=f"block size of the blocked method (default {DEFAULT_BLOCK})")
    summing.add_argument("--seed", type=_whole("seed", 0), default=0, help="seed of stochastic rounding (default 0)")
    summing.add_argument("--folds", type=_whole("folds", 1), default=DEFAULT_FOLDS,
                         help=f"K of the sumk method: VecSum K - 1 times, then a naive sum (default {DEFAULT_FOLDS})")

    dotting = _command(
        commands, "dot", "a dot product of pairs in a format, accumulated in another",
        "Read pairs of decimal numbers (x y, one pair a line) from FILE or standard input, round "
        "each number to the input format, multiply each pair exactly and round the product once to "
        "the accumulator, sum the products there by the method, and print the result, the exact "
        "dot product of the rounded inputs, and the absolute and relative error.  --fused rounds "
        "s + x*y once instead (a fused multiply-add; naive only).  --truncate-bits selects instead "
        "a model of a hardware accumulator that truncates: products exact, aligned to the largest "
        "term of each step of --hw-block products and cut to --truncate-bits bits, optionally "
        "added into FP32 every --promote-every products.  --block-format quantizes the rounded inputs "
        "to a block-scaled format first (MX: blocks of 32 sharing a power of two; NVFP4: FP4 in "
        "blocks of 16 with FP8 scales), sums each block's products exactly, scales them and "
        "accumulates the blocks in --accumulate (fp32 or bf16) or the truncating model (steps of "
        "--hw-block blocks, promoted every --promote-every elements), and reports the error's two "
        "parts: quantization and accumulation.",
        ["paste x.txt y.txt | fpsum dot --format fp16 --accumulate fp16",
         "fpsum dot pairs.txt --format bf16 --accumulate fp32 --method pairwise --json",
         "fpsum dot pairs.txt --format e4m3 --truncate-bits 14 --promote-every 128",
         "fpsum dot pairs.txt --format fp32 --block-format mxfp4 --accumulate fp32 --json"], command_dot)
    dotting.add_argument("file", nargs="?", help="file of pairs, x y on each line (default: standard input, also '-')")
    dotting.add_argument("--format", required=True, type=_format_among(INPUT_FORMATS, "an input format"),
                         help=f"format of x and y: one of {', '.join(INPUT_FORMATS)}")
    dotting.add_argument("--accumulate", type=_format_among(ACCUMULATORS, "an accumulator"),
                         help=f"format of the products and the sum: one of {', '.join(ACCUMULATORS)}")
    dotting.add_argument("--method", type=_method_among(DOT_METHODS), default="naive",
                         help=f"one of {', '.join(DOT_METHODS)} (default naive)")
    dotting.add_argument("--fused", action="store_true", help="fused multiply-add: s + x*y rounded once (naive only)")
    dotting.add_argument("--block", type=_whole("block size", 1), default=DEFAULT_BLOCK,
                         help=f"block size of the blocked method (default {DEFAULT_BLOCK})")
    dotting.add_argument("--truncate-bits", type=_whole("--truncate-bits", 2),
                         help="the hardware model instead of --accumulate: bits kept by the truncating accumulator")
    dotting.add_argument("--hw-block", type=_whole("--hw-block", 1),
                         help="products per step of the hardware model (default 4)")
    dotting.add_argument("--promote-every", type=_whole("--promote-every", 1),
                         help="add the narrow sum into FP32 every N products, a multiple of --hw-block (default never)")
    dotting.add_argument("--block-format", type=block_format,
                         help=f"quantize the inputs to one of {', '.join(BLOCK_FORMATS)} and accumulate its blocks in "
                              f"--accumulate ({' or '.join(BLOCK_ACCUMULATORS)}) or --truncate-bits")

    racing = _command(
        commands, "race", "race every method on seeded inputs",
        "Draw N seeded inputs, sum them by every method, and print each final total, "
        "the exact total, and where each method stalled.",
        ["fpsum race --format fp16 --inputs uniform", "fpsum race --format bf16 --inputs ones --n 1000 --json"],
        command_race)
    _format_option(racing)
    racing.add_argument("--inputs", required=True, choices=INPUT_KINDS, help="kind of inputs")
    racing.add_argument("--n", type=_whole("n", 1), default=8192, help="number of inputs (default 8192)")
    racing.add_argument("--seed", type=_whole("seed", 0), default=0, help="seed of the inputs (default 0)")

    _command(commands, "formats", "print the table of formats",
             "Print every format: bits, precision p, exponent range, unit roundoff, largest "
             "finite value, smallest normal and subnormal, stall point for inputs in [0, 1), "
             "and how it overflows; then E8M0, the MX scale; then every value of FP4 and FP6.",
             ["fpsum formats", "fpsum formats --json"], command_formats)
    add_norm_commands(commands, _command)
    allreduce_options(_command(commands, "allreduce", *ALLREDUCE_HELP, command_allreduce), _format)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the command line; returns the exit status (0, or 2 for bad input)."""
    stream = out if out is not None else sys.stdout
    try:
        args = build_parser().parse_args(argv)
        args.run(args, stream)
    except UsageError as error:
        print(str(error).replace("\n", " "), file=sys.stderr)
        return EXIT_USAGE
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
