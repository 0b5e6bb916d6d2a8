"""fpsum: a model of floating-point summation in low precision.

Pure and deterministic: no I/O, no plotting; the same seed gives the same bits.

Each name is imported from the module that defines it, its one import path
(``from fpsum.formats import FP16``, ``from fpsum.methods import total``).
The package itself defines only ``__version__``, so ``import fpsum`` runs no
other module.
"""

from __future__ import annotations

__version__ = "0.1.0"
