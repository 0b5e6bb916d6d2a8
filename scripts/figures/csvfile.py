"""A figure's data as a CSV file: one way to write it, so every download reads the same."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence


def csv_file(header: Sequence[str], rows: Iterable[Sequence[object]]) -> bytes:
    """UTF-8 CSV with a header row, line-feed line ends and no index column.

    Floats should arrive as ``repr`` text (shortest round trip); other values are
    written with ``str``.  No NaN, inf or -0 handling of its own: values are written as given.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode()
