"""Write core/ziggurat.js: the tables of NumPy's standard-normal ziggurat, read from NumPy itself.

NumPy's ``Generator.standard_normal`` draws with a 256-layer ziggurat whose
tables (``ki``, ``wi``, ``fi``) are compiled into it.  Rather than guess how
they were computed (the digits of r and v, the precision of the arithmetic),
this script recovers them from NumPy's behaviour, bit for bit: it sets the
PCG64 state so that the next raw 64-bit draws are chosen words, and watches
what ``standard_normal`` does with them.

- ``wi[i]``: a draw with layer i, sign +, and 1 as its 52-bit magnitude
  returns exactly ``1 * wi[i]`` (accepted at once, or by the wedge test with
  a uniform of 0, which a tiny x always passes).
- ``ki[i]``: the smallest magnitude that is not accepted at once, found by
  bisection (an accepted draw consumes one raw word, a rejected one more).
- ``fi[i]`` = exp(-x_i**2 / 2) for the layer edges x_i = wi[i] * 2**52, and
  ``fi[0]`` = 1.  It only matters in the wedge test (a uniform against
  exp(-x**2/2)), where a difference in its last bit decides nothing unless a
  uniform lands exactly on it; the tests compare long normal streams.

Run with the project's Python: ``.venv/bin/python tools/playground/ziggurat_tables.py``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "assets" / "javascripts" / "playground" / "core" / "ziggurat.js"
MULT = 0x2360ED051FC65DA44385DF649FCCF645  # PCG64's 128-bit multiplier
MASK128 = (1 << 128) - 1
MULT_INVERSE = pow(MULT, -1, 1 << 128)


def _state_drawing(first: int, second: int) -> dict[str, int]:
    """A PCG64 state (state, inc) whose next two raw outputs are ``first`` and ``second``.

    PCG64 steps, then outputs (hi ^ lo) rotated right by the top 6 bits: with
    the high word 0 (or 1), the output of a state is its low word (xor 1).
    """
    after_first = first  # high word 0: rotation 0, output = low word
    after_second = second
    inc = (after_second - after_first * MULT) & MASK128
    if inc % 2 == 0:  # the increment must be odd: high word 1, low word second ^ 1 (the same output)
        after_second = (1 << 64) | (second ^ 1)
        inc = (after_second - after_first * MULT) & MASK128
    start = ((after_first - inc) * MULT_INVERSE) & MASK128
    return {"state": start, "inc": inc}


def _normal_after(first: int, second: int) -> tuple[float, int]:
    """standard_normal() when the raw draws begin ``first, second``; and the state it leaves (low 128 bits)."""
    bits = np.random.PCG64()
    state: Any = {"bit_generator": "PCG64", "state": _state_drawing(first, second), "has_uint32": 0, "uinteger": 0}
    bits.state = state
    value = float(np.random.Generator(bits).standard_normal())
    return value, int(bits.state["state"]["state"])


def _word(layer: int, magnitude: int) -> int:
    """The raw draw of a layer, sign + and a 52-bit magnitude (NumPy reads: 8 bits the layer, a sign bit, the rest)."""
    return layer | (magnitude << 9)


def _accepted_at_once(layer: int, magnitude: int) -> bool:
    word = _word(layer, magnitude)
    _, state = _normal_after(word, 0)
    return state == word  # one raw word consumed: the state is the one that drew it


def recover() -> tuple[list[int], list[float], list[float]]:
    """(ki, wi, fi) as NumPy uses them."""
    wi = [_normal_after(_word(i, 1), 0)[0] for i in range(256)]
    ki = []
    for i in range(256):
        low, high = 0, 1 << 52  # invariant: accepted at once below low; not at high (or high is 2**52)
        while low < high:
            middle = (low + high) // 2
            if _accepted_at_once(i, middle):
                low = middle + 1
            else:
                high = middle
        ki.append(low)
    fi = [1.0] + [math.exp(-0.5 * (w * 2.0**52) ** 2) for w in wi[1:]]
    return ki, wi, fi


def main() -> None:
    """Recover the tables and write them as a JavaScript module."""
    ki, wi, fi = recover()

    def rows(values: list[str]) -> str:
        return "\n".join("  " + ", ".join(values[k:k + 4]) + "," for k in range(0, len(values), 4))

    OUT.write_text(
        "/**\n"
        " * The tables of NumPy's 256-layer standard-normal ziggurat, as NumPy " + np.__version__ + " uses them.\n"
        " *\n"
        " * Written by tools/playground/ziggurat_tables.py, which reads them from NumPy's\n"
        " * behaviour (do not edit by hand).  ki: a draw of layer i whose 52-bit magnitude\n"
        " * is below ki[i] is accepted at once; wi[i]: the magnitude's scale to x;\n"
        " * fi[i] = exp(-x_i**2 / 2) at the layer's edge.  Doubles are written as the\n"
        " * shortest decimals that read back as them (KI's whole numbers are exact too), in\n"
        " * Float64Arrays, for speed: treat them as constants.\n"
        " */\n"
        f"export const KI = Float64Array.from([\n{rows([str(k) for k in ki])}\n]);\n"
        f"export const WI = Float64Array.from([\n{rows([repr(w) for w in wi])}\n]);\n"
        f"export const FI = Float64Array.from([\n{rows([repr(f) for f in fi])}\n]);\n",
        encoding="utf-8",
    )
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
