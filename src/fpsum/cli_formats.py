"""``fpsum formats``: every format of the model, its numbers, and the values of the small ones.

A row per format: bits, precision p, exponent range, unit roundoff u,
largest value, smallest normal and subnormal, where a running sum of inputs
in [0, 1) stalls, and what overflow gives; then E8M0, the MX scale, which
has no u, no subnormals and no stall (it cannot hold a sum).  After the
table, every value of each format with at most 64 codes (FP4 and FP6).
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

import numpy as np

from .e8m0 import E8M0
from .formats import FORMATS, Format

MAX_LISTED_CODES = 64
"""Formats with at most this many codes have every value listed."""


def listed_values(fmt: Format) -> list[float] | None:
    """Every value of a format of at most 64 codes, ascending (-0.0 and +0.0 both), or None for a wider one."""
    if 1 << fmt.bits > MAX_LISTED_CODES:
        return None
    codes = np.arange(1 << fmt.bits, dtype=np.uint8).view(fmt.dtype).astype(np.float64)
    finite = codes[np.isfinite(codes)]
    return sorted(finite.tolist(), key=lambda v: (v, not np.signbit(v)))


def _cell(value: object, width: int, digits: str) -> str:
    """A number in ``width`` columns with ``digits`` ("3g"), or a dash for a column the format does not have."""
    return f"{float(value):>{width}.{digits}}" if isinstance(value, (int, float)) else f"{'-':>{width}}"


def command_formats(args: argparse.Namespace, out: TextIO) -> None:
    """``fpsum formats``: one row per format, E8M0 last, then the values of FP4 and FP6."""
    rows = [fmt.describe() for fmt in FORMATS.values()] + [E8M0.describe()]
    listed = {fmt.name: values for fmt in FORMATS.values() if (values := listed_values(fmt)) is not None}
    if args.json:
        for row in rows:
            if row["name"] in listed:
                row["values"] = listed[str(row["name"])]
        out.write(json.dumps({"formats": rows}) + "\n")
        return
    out.write(f"{'name':8s} {'bits':>4s} {'p':>3s} {'emin':>6s} {'emax':>5s} {'u':>10s} {'max':>12s} "
              f"{'min normal':>11s} {'min subnormal':>13s} {'stall':>9s}  overflow\n")
    for r in rows:
        out.write(f"{r['name']!s:8s} {r['bits']!s:>4s} {r['precision']!s:>3s} {r['emin']!s:>6s} {r['emax']!s:>5s} "
                  f"{_cell(r['unit_roundoff'], 10, '3g')} {_cell(r['max_finite'], 12, '5g')} "
                  f"{_cell(r['smallest_normal'], 11, '3g')} {_cell(r['smallest_subnormal'], 13, '3g')} "
                  f"{_cell(r['stall_point'], 9, '4g')}  {r['overflow']}\n")
    for name, values in listed.items():
        out.write(f"\nvalues of {FORMATS[name].label} ({len(values)}):\n  " + " ".join(f"{v:g}" for v in values) + "\n")
