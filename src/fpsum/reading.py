"""Numbers from text, each rounded once to a format, as ``fpsum sum`` and ``fpsum dot`` read them.

A token is a decimal (``0.1``, ``-3e-5``, ``.5``, ``7.``), a fraction
``p/q``, or ``inf``, ``infinity`` or ``nan`` with either sign.  Its value is
the exact rational the text names, rounded once to the format (nearest, ties
to even); ``-0`` and a negative value that rounds to zero give -0.0.

Two routes lead to that rounding, and the second is taken only where the
first could differ from it:

* **Through the nearest double.**  ``float()`` rounds a plain decimal
  correctly to the nearest double ``d``, and :func:`~fpsum.array_rounding.to_format`
  rounds ``d`` correctly to the format.  Two roundings give the rounding of
  the exact value unless ``d`` is itself a midpoint of the format: every
  midpoint of a format of at most 53 bits is a double, so a midpoint strictly
  between the decimal and ``d`` would be a double nearer the decimal than
  ``d``, which cannot be.  With no midpoint between them, the decimal and
  ``d`` lie in the same half-gap and round alike; only when ``d`` *is* a
  midpoint can the decimal lie on either side of it.
* **Exactly**, for those midpoints, for values at or beyond the format's
  largest finite value, for fractions and for any token that is not a plain
  ASCII decimal (``float()`` would read ``1_000`` or Unicode digits, which
  the exact reader decides on): the exact rational, rounded by
  :func:`~fpsum.exact_rounding.round_exact`.  A decimal whose exponent puts it far
  beyond every format (above 10**400 or below 10**-400 in magnitude) is read
  as +-10**+-400, which every format rounds the same way (overflow, or a
  signed zero), so ``1e1000000`` costs no more than ``1e400``.
"""

from __future__ import annotations

import bisect
import re
import sys
import unicodedata
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import TextIO, TypeVar

import numpy as np

from .array_rounding import to_format
from .exact_rounding import round_exact
from .formats import Format
from .rounded_once import on_midpoint

T = TypeVar("T")


class UsageError(Exception):
    """Bad input: the message is printed as is, on one line."""


# A plain ASCII decimal, which float() and Fraction() read as the same number.
_PLAIN = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
# A decimal in parts (sign, integer digits, fraction digits, exponent's sign and digits), as Fraction()
# reads one: any Unicode decimal digits, single underscores between digits.
_DIGITS = r"(?:\d+(?:_\d+)*)"
_DECIMAL = re.compile(rf"([+-]?)(?=\d|\.\d)({_DIGITS}?)(?:\.({_DIGITS}?))?(?:[eE]([+-]?)({_DIGITS}))?\Z")
FAR = 400
"""Beyond 10**FAR in magnitude every format overflows, and below 10**-FAR every one rounds to zero."""
_SPECIAL = ("inf", "-inf", "infinity", "-infinity", "nan", "-nan")


def _ascii_digits(text: str) -> str:
    """The digits of ``text`` (a run of Unicode decimal digits and underscores) as ASCII digits."""
    if text.isascii():
        return text.replace("_", "")
    return "".join(str(unicodedata.decimal(c)) for c in text if c != "_")


def _far_decimal(token: str) -> Fraction | None:
    """For a decimal beyond 10**+-FAR in magnitude, +-10**+-FAR (which rounds alike); for a zero with
    an exponent, 0; None otherwise.
    """
    parts = _DECIMAL.match(token)
    if parts is None or parts.group(5) is None:
        return None
    sign, whole, fraction, exp_sign, exp_text = parts.groups()
    whole, fraction = _ascii_digits(whole).lstrip("0"), _ascii_digits(fraction or "")
    exp_digits = _ascii_digits(exp_text).lstrip("0") or "0"
    if whole:
        lead = len(whole) - 1  # the leading digit's place: 10**lead
    elif fraction.strip("0"):
        lead = -(len(fraction) - len(fraction.lstrip("0"))) - 1
    else:
        return Fraction(0)  # a zero, whatever its exponent (Fraction() would work out 10**exponent)
    if len(exp_digits) > 20:  # no token is long enough for lead to matter against such an exponent
        huge = exp_sign != "-"
    else:
        exponent = int(exp_digits) * (-1 if exp_sign == "-" else 1) + lead
        if -FAR <= exponent <= FAR:
            return None
        huge = exponent > FAR
    magnitude = Fraction(10) ** FAR if huge else Fraction(1, 10 ** FAR)
    return -magnitude if sign == "-" else magnitude


def parse_number(token: str) -> Fraction | float:
    """The exact value of ``token``: a Fraction; ``inf``, ``-inf``, ``nan`` and ``-0`` as floats.

    A decimal beyond 10**+-FAR comes back as +-10**+-FAR (see the module's
    docstring).  ``ValueError`` (or ``ZeroDivisionError`` for ``p/0``) for
    anything that is not a number.
    """
    lowered = token.lower().lstrip("+")  # as the playground's parser: leading plus signs are dropped
    if lowered in _SPECIAL:
        return float(lowered)
    exact = _far_decimal(token)
    if exact is None:
        exact = Fraction(token)  # decimal, exponent or p/q; exact, never through float64
    if exact == 0 and token.startswith("-"):
        return -0.0
    return exact


def _round_all(tokens: list[str], fmt: Format) -> tuple[np.ndarray, tuple[int, str] | None]:
    """The tokens' values rounded to ``fmt`` (float64), and the first bad token's index and what is wrong."""
    plain = np.fromiter((_PLAIN.match(token) is not None for token in tokens), dtype=bool, count=len(tokens))
    doubles = np.array([float(token) if ok else 0.0 for token, ok in zip(tokens, plain)], dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = to_format(doubles, fmt).astype(np.float64)
        exact_route = ~plain | ~(np.abs(doubles) < fmt.max_finite) | on_midpoint(doubles, rounded, fmt)
    for index in np.flatnonzero(exact_route).tolist():
        try:
            value = parse_number(tokens[index])
        except (ValueError, ZeroDivisionError):
            return rounded, (index, "is not a number")
        try:
            rounded[index] = round_exact(value, fmt)
        except ValueError:  # NaN, in a format that has none
            return rounded, (index, f"cannot be held in {fmt.label}, which has no NaN")
    return rounded, None


def _tokens_by_line(stream: Iterable[str]) -> tuple[list[list[str]], list[str]]:
    """Each line's tokens, and all tokens in order."""
    lines = [line.split() for line in stream]
    return lines, [token for line in lines for token in line]


def _line_of(lines: list[list[str]], index: int) -> int:
    """The 1-based line that holds token ``index`` of the tokens of ``lines``, in order."""
    ends = list(np.cumsum([len(line) for line in lines]))
    return bisect.bisect_right(ends, index) + 1


def _rounded(lines: list[list[str]], tokens: list[str], fmt: Format, source: str) -> np.ndarray:
    values, bad = _round_all(tokens, fmt)
    if bad is not None:
        index, problem = bad
        raise UsageError(f"{source}: line {_line_of(lines, index)}: {tokens[index]!r} {problem}")
    return values


def read_numbers(stream: TextIO, source: str, fmt: Format) -> np.ndarray:
    """Every whitespace-separated number in ``stream``, rounded once to ``fmt``, as float64.

    ``UsageError`` names the line of a token that is not a number, or says there are none.
    """
    lines, tokens = _tokens_by_line(stream)
    if not tokens:
        raise UsageError(f"{source}: no numbers to sum")
    return _rounded(lines, tokens, fmt, source)


def read_pairs(stream: TextIO, source: str, fmt: Format) -> tuple[np.ndarray, np.ndarray]:
    """Two numbers on every non-blank line (x and y), each rounded once to ``fmt``, as float64 arrays.

    ``UsageError`` for a line with another count, a token that is not a number, or no pairs at all.
    """
    lines, tokens = _tokens_by_line(stream)
    for number, line in enumerate(lines, start=1):
        if line and len(line) != 2:
            raise UsageError(f"{source}: line {number}: expected two numbers (x y), found {len(line)}")
    if not tokens:
        raise UsageError(f"{source}: no pairs of numbers")
    values = _rounded(lines, tokens, fmt, source)
    return values[0::2], values[1::2]


def read_source(file: str | None, read: Callable[[TextIO, str], T]) -> T:
    """``read(stream, source)`` on FILE, or standard input for None or '-'; an unreadable file is a ``UsageError``."""
    if file in (None, "-"):
        return read(sys.stdin, "<stdin>")
    try:
        with open(file, encoding="utf-8") as handle:
            return read(handle, file)
    except OSError as error:
        raise UsageError(f"{file}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{file}: not a text file (UTF-8)") from None
