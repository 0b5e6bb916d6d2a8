"""``fpsum dot``: a dot product of pairs read from text, in an accumulator, a truncating model or a block format.

The inputs are rounded to ``--format`` as ``fpsum sum`` rounds them.  Then:

* by default, every product is rounded once to ``--accumulate`` and the
  products are summed there by ``--method`` (or ``--fused``: one fused
  multiply-add a step);
* with ``--truncate-bits``, the products are summed by the model of a
  truncating hardware accumulator (:mod:`fpsum.hardware`);
* with ``--block-format``, the rounded inputs are quantized to the block
  format (:mod:`fpsum.blocks`) and the block values accumulated in
  ``--accumulate`` (FP32 or BF16) or in the truncating model
  (:mod:`fpsum.block_dot`); the report adds the error's two parts.

Options that do not go together are a ``UsageError``: one line, exit status 2.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

import numpy as np

from .block_dot import block_dot, check_accumulator
from .blocks import BLOCK_FORMATS, BlockFormat
from .dot import dot
from .formats import Format
from .hardware import TruncatedAccumulator, truncated_dot
from .reading import UsageError, read_pairs, read_source
from .report import exact_and_errors, write_report

BLOCK_ACCUMULATORS = ("fp32", "bf16")
"""The rounded accumulators a block-scaled dot product may use (and the truncating model)."""


def hardware_model(args: argparse.Namespace) -> TruncatedAccumulator | None:
    """The truncating accumulator the options ask for, or None; ``UsageError`` for options that do not go together."""
    if args.truncate_bits is None:
        extra = [name for name, value in (("--hw-block", args.hw_block), ("--promote-every", args.promote_every))
                 if value is not None]
        if extra:
            raise UsageError(f"fpsum dot: {extra[0]} goes with --truncate-bits")
        if args.accumulate is None:
            raise UsageError("fpsum dot: give --accumulate (or --truncate-bits for the hardware model)")
        return None
    if args.accumulate is not None:
        raise UsageError("fpsum dot: --accumulate and --truncate-bits are alternatives; give one")
    if args.fused or args.method != "naive":
        raise UsageError("fpsum dot: the truncating accumulator has no --method or --fused of its own (naive only)")
    try:
        return TruncatedAccumulator(args.truncate_bits, 4 if args.hw_block is None else args.hw_block,
                                    args.promote_every)
    except ValueError as error:
        raise UsageError(f"fpsum dot: {error}") from None


def _check_block_options(args: argparse.Namespace, fmt: BlockFormat, model: TruncatedAccumulator | None) -> None:
    """``UsageError`` for what a block-scaled dot product cannot take."""
    if args.fused or args.method != "naive":
        raise UsageError("fpsum dot: --block-format accumulates the blocks in order: no --method or --fused")
    if model is None and args.accumulate.name not in BLOCK_ACCUMULATORS:
        raise UsageError(f"fpsum dot: {fmt.name} takes --accumulate {' or '.join(BLOCK_ACCUMULATORS)} "
                         f"(or --truncate-bits), not {args.accumulate.name}")
    try:
        check_accumulator(fmt, model if model is not None else args.accumulate)
    except ValueError as error:
        raise UsageError(f"fpsum dot: {error}") from None


def _describe(model: TruncatedAccumulator | None, acc: Format | None, counted: str) -> tuple[str, str]:
    """The accumulator's name in the JSON and its description in the text report."""
    if model is None:
        assert acc is not None
        return acc.name, f"{acc.label} ({acc.name})"
    promote = "never" if model.promote_every is None else f"every {model.promote_every} {counted}"
    return "truncated", f"truncated to {model.bits} bits, {model.block} {counted} a step, into FP32 {promote}"


def command_dot(args: argparse.Namespace, out: TextIO) -> None:
    """``fpsum dot``: read pairs, round them to the format, form the dot product, print it and its errors."""
    fmt: Format = args.format
    model = hardware_model(args)
    block: BlockFormat | None = args.block_format
    if block is not None:
        _check_block_options(args, block, model)
    elif args.fused and args.method != "naive":
        raise UsageError(f"fpsum dot: --fused goes with --method naive only, not {args.method}")
    xs, ys = read_source(args.file, lambda stream, source: read_pairs(stream, source, fmt))
    x, y = xs.astype(fmt.dtype), ys.astype(fmt.dtype)  # exact: already in the format
    report: dict[str, Any] = {"format": fmt.name}
    lines = [("format", f"{fmt.label} ({fmt.name})")]
    if block is not None:
        try:
            blocked = block_dot(xs, ys, block, model if model is not None else args.accumulate)[0]
        except ValueError as error:  # NaN or inf among the inputs
            raise UsageError(f"fpsum dot: --block-format: {error}") from None
        result = blocked.result
        accumulate, described = _describe(model, args.accumulate, "blocks")
        report.update(block_format=block.name, accumulate=accumulate)
        lines += [("blocks", f"{block.label}, {block.block} elements a block"), ("accumulate", described)]
    else:
        if model is None:
            result = float(dot(x, y, fmt, args.accumulate, args.method, fused=args.fused, block=args.block))
        else:
            result = float(truncated_dot(x, y, model))
        accumulate, described = _describe(model, args.accumulate, "products")
        method = args.method + (" (fused multiply-add)" if args.fused else "") + (
            f" (block {args.block})" if args.method == "blocked" else "")
        report.update(accumulate=accumulate, method=args.method)
        lines += [("accumulate", described), ("method", method)]
    if model is not None:
        report.update(truncate_bits=model.bits, hw_block=model.block, promote_every=model.promote_every)
    # Inputs up to FP32 multiply exactly in float64 (products of at most 48 bits), with IEEE's
    # inf * 0 = NaN: the exact sum of these products is the exact dot product of the rounded inputs.
    with np.errstate(invalid="ignore"):
        exact, abs_error, rel_error = exact_and_errors(xs * ys, result)
    report.update(n=len(xs), result=result, exact=exact, abs_error=abs_error, rel_error=rel_error)
    lines.append(("n", str(len(xs))))
    if block is not None:
        report.update(quantization_rel_error=blocked.quantization_rel_error,
                      accumulation_rel_error=blocked.accumulation_rel_error)
    write_report(report, lines, args.json, out)
    if block is not None and not args.json:
        out.write(f"{'quantization rel error':10s} {blocked.quantization_rel_error!r}\n")
        out.write(f"{'accumulation rel error':10s} {blocked.accumulation_rel_error!r}\n")


def block_format(name: str) -> BlockFormat:
    """An argparse type: a block format by name, else an error that lists them."""
    try:
        return BLOCK_FORMATS[name.lower()]
    except KeyError:
        raise argparse.ArgumentTypeError(
            f"unknown block format {name!r} (choose from {', '.join(BLOCK_FORMATS)})") from None
