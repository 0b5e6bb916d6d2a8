"""How numbers are written on the site."""

from __future__ import annotations

import math


def number(value: float, decimals: int = 3) -> str:
    """A value for prose: thousands separators, at most ``decimals`` decimals, no trailing zeros.

    Whole numbers print without a decimal point (``2048.0`` -> ``2,048``);
    negative values use a true minus sign; inf and NaN print as ``∞`` and ``NaN``.
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "−∞" if value < 0 else "∞"
    text = f"{abs(value):,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text in ("0", ""):
        return "0"
    return ("−" if value < 0 else "") + text


def significant(value: float, digits: int = 2) -> str:
    """A small positive quantity to ``digits`` significant digits, without exponent notation.

    ``0.0013``, ``4``, ``0.044``; 0 prints as ``0``.  Meant for errors and
    bounds between about 1e-9 and 1e6.
    """
    if value == 0:
        return "0"
    exponent = math.floor(math.log10(abs(value)))
    decimals = max(digits - 1 - exponent, 0)
    return f"{value:,.{decimals}f}"


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def superscript(exponent: int) -> str:
    """An integer exponent in superscript digits: ``-24`` as ``⁻²⁴``."""
    return str(exponent).translate(_SUPERSCRIPT)


def decade_tick(value: float, _position: object = None) -> str:
    """A tick label at a power of ten, as matplotlib's ``FuncFormatter`` calls it: ``1`` for 10⁰, else ``10⁻³``.

    ``value`` is a positive power of ten (the nearest decade is written); the
    position matplotlib passes is not used.
    """
    exponent = round(math.log10(value))
    return "1" if exponent == 0 else "10" + superscript(exponent)


def scientific(value: float, digits: int = 1) -> str:
    """A large or small positive number as prose writes it, to ``digits`` figures: ``8 × 10³¹``, ``3.39 × 10³⁸``.

    A mantissa of exactly 1 is left out (``10⁴``).  For finite positive values only.
    """
    mantissa, exponent_text = f"{value:.{digits - 1}e}".split("e")
    exponent = int(exponent_text)
    power = "10" + superscript(exponent)
    return power if float(mantissa) == 1 else f"{mantissa} × {power}"
