"""TeX to SVG with MathJax, at build time: one Node process for every formula not yet cached.

``tools/mathjax/render.js`` (MathJax 3.2.2, pinned by ``tools/mathjax/package-lock.json``)
reads the formulas as JSON and writes, for each, MathJax's ``mjx-container`` (the SVG, and
its name in words from MathJax's speech rule engine) and the outlines of the glyphs it draws,
by id.  Each result is kept in ``.cache/formulas/<key>.json``, the key hashing the formula (its TeX, inline or display)
and everything that shapes its drawing: the renderer's code, which holds MathJax's options,
and the lock, which pins MathJax.  A build whose formulas are all cached starts no Node.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "mathjax"
RENDERER = TOOL / "render.js"
LOCK = TOOL / "package-lock.json"
CACHE = ROOT / ".cache" / "formulas"
NODE_TIMEOUT_S = 600


@dataclass(frozen=True)
class Formula:
    """One formula as a page has it: its TeX (no delimiters) and whether it is displayed."""

    tex: str
    display: bool


@dataclass(frozen=True)
class Drawn:
    """A formula as MathJax drew it: the container, and the outline of each glyph id it uses."""

    container: str
    glyphs: dict[str, str]


class RenderError(Exception):
    """MathJax could not be run, or refused formulas: ``failures`` maps each refused formula to its TeX error."""

    def __init__(self, message: str, failures: dict[Formula, str] | None = None) -> None:
        """``message`` says what went wrong as a whole; ``failures`` is empty when Node itself failed."""
        super().__init__(message)
        self.failures = failures or {}


@cache
def renderer_digest() -> str:
    """A hash of the renderer's code and of the lock that pins MathJax (read once per process)."""
    digest = hashlib.sha256()
    for path in (RENDERER, LOCK):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_key(formula: Formula) -> str:
    """The formula's cache entry name: changes with its TeX, its display mode, MathJax or its options."""
    text = json.dumps([renderer_digest(), formula.tex, formula.display])
    return hashlib.sha256(text.encode()).hexdigest()


def read_cached(formula: Formula, folder: Path = CACHE) -> Drawn | None:
    """The cached drawing, or None if there is none (or it is unreadable: it is then drawn again)."""
    try:
        entry = json.loads((folder / f"{cache_key(formula)}.json").read_text(encoding="utf-8"))
        return Drawn(container=entry["svg"], glyphs=entry["glyphs"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_cached(formula: Formula, drawn: Drawn, folder: Path = CACHE) -> None:
    """Keep the drawing; written to a temporary file first, so a build cut short leaves no half entry."""
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"tex": formula.tex, "display": formula.display, "svg": drawn.container,
                       "glyphs": drawn.glyphs}, sort_keys=True)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=folder, delete=False, suffix=".tmp") as out:
        out.write(text)
    os.replace(out.name, folder / f"{cache_key(formula)}.json")


def run_node(formulas: list[Formula]) -> dict[Formula, Drawn]:
    """Draw the formulas in one Node process; ``RenderError`` if Node is missing, fails, or a formula is bad TeX."""
    node = shutil.which("node")
    if node is None:
        raise RenderError("Node.js (18.20 or newer) was not found: the formulas are drawn at build time by "
                          "tools/mathjax/render.js (see the README)")
    if not (TOOL / "node_modules" / "mathjax-full").is_dir():
        raise RenderError("MathJax is not installed in tools/mathjax: run `make site`, or `npm ci` there")
    request = json.dumps({"formulas": [{"tex": f.tex, "display": f.display} for f in formulas]})
    try:
        done = subprocess.run([node, str(RENDERER)], input=request, capture_output=True, text=True,
                              encoding="utf-8", check=False, timeout=NODE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise RenderError(f"tools/mathjax/render.js took more than {NODE_TIMEOUT_S} s") from None
    if done.returncode != 0:
        raise RenderError(f"tools/mathjax/render.js failed (exit status {done.returncode}): {done.stderr.strip()}")
    results = json.loads(done.stdout)["formulas"]
    if len(results) != len(formulas):
        raise RenderError(f"tools/mathjax/render.js drew {len(results)} formulas of {len(formulas)}")
    failures = {f: r["error"] for f, r in zip(formulas, results, strict=True) if "error" in r}
    if failures:
        raise RenderError(f"{len(failures)} formula(s) are not valid TeX", failures)
    return {f: Drawn(container=r["svg"], glyphs=r["glyphs"]) for f, r in zip(formulas, results, strict=True)}


def draw(formulas: Iterable[Formula], folder: Path = CACHE) -> dict[Formula, Drawn]:
    """Every formula drawn: from the cache, and the rest by one Node process (then cached).

    Nothing is cached from a run in which some formula failed, so the error shows again on the
    next build until the TeX is fixed; ``RenderError`` names the failures.
    """
    drawn: dict[Formula, Drawn] = {}
    missing: list[Formula] = []
    for formula in dict.fromkeys(formulas):
        hit = read_cached(formula, folder)
        if hit is None:
            missing.append(formula)
        else:
            drawn[formula] = hit
    if missing:
        fresh = run_node(missing)
        for formula, result in fresh.items():
            write_cached(formula, result, folder)
        drawn.update(fresh)
    return drawn
