"""The playground's script: its ES modules bundled into one classic script, with the build's looks and labels.

The modules live in ``docs/assets/javascripts/playground/`` (``core/``: the
arithmetic, ``ui/``: the page); ``ui/main.js`` is the entry.  A browser
refuses to load a module script from a ``file://`` page, so the page loads
``assets/javascripts/playground.js``, one classic script made by esbuild
(pinned by ``tools/bundler/package-lock.json``), which works from disk as over
HTTP, and which is also its own Web Worker over HTTP.  The bundle is held to
:data:`GZIP_BUDGET`: a bigger one fails the build.

Numbers of record ``playground``: ``kb_gzip``, the bundle's gzipped size in
kilobytes (one decimal).
"""

from __future__ import annotations

import gzip
import json
import subprocess
from dataclasses import dataclass
from html import escape
from pathlib import Path
from urllib.parse import quote

from fpsum.inputs import INPUT_LABELS
from fpsum.names import METHODS

from .cache import REPO
from .contract import ROOT
from .looks import CIRCLE_RADIUS, LOOKS, MARKERS
from .record import Built, Record

MODULES = REPO / "docs" / "assets" / "javascripts" / "playground"
ENTRY = "ui/main.js"
SCRIPT = "assets/javascripts/playground.js"
"""The bundle's path in the site."""
BUNDLER = REPO / "tools" / "bundler"
ESBUILD = BUNDLER / "node_modules" / ".bin" / "esbuild"
BUILD_GLOBAL = "globalThis.FPSUM_BUILD"
"""What ``ui/looks.js`` reads the build's values from: esbuild replaces it by them (its ``define``)."""
GZIP_BUDGET = 30 * 1024
"""Issue 26: the page's own script under 30 KB gzipped."""
PAGE = "playground.html"


def playground_query(fmt: str, kind: str, n: int, seed: int, methods: tuple[str, ...]) -> str:
    """The playground's query string for drawn inputs (issue 26's URL contract), with its "?"."""
    pairs = [("format", fmt), ("methods", ",".join(methods)), ("inputs", kind), ("n", str(n)), ("seed", str(seed))]
    return "?" + "&".join(f"{key}={quote(value, safe=',')}" for key, value in pairs)


def playground_link(fmt: str, kind: str, n: int, seed: int, methods: tuple[str, ...], what: str) -> str:
    """A caption's link to the same experiment in the playground (HTML, from a fragment: ``contract.ROOT``).

    ``what`` names the experiment, so that each race's link says where it leads.
    """
    href = f"{ROOT}{PAGE}{playground_query(fmt, kind, n, seed, methods)}"
    return f'<a class="fpsum-playground-link" href="{escape(href)}">Try it in the playground ({escape(what)})</a>'


@dataclass(frozen=True)
class PlaygroundParams:
    """Which module starts the page, and where the bundle goes."""

    entry: str = ENTRY
    script: str = SCRIPT


def records() -> list[Record]:
    """The one bundle; every module file is an input (the cache key hashes their bytes)."""
    return [Record("playground", PlaygroundParams(), build,
                   inputs=(*sorted(MODULES.rglob("*.js")), BUNDLER / "package-lock.json"))]


def looks() -> dict[str, dict[str, object]]:
    """Each summation method's look (and the exact total's) as the chart draws it: label, width, dash, marker.

    Colours are not here: the page has them as ``--look-<method>`` custom
    properties in both palettes (``looks.css``).
    """
    names = [*METHODS, "exact"]
    return {name: {"label": LOOKS[name].label, "width": LOOKS[name].width, "dash": LOOKS[name].dasharray(),
                   "marker": marker_path(LOOKS[name].marker)}
            for name in names if name in LOOKS}


def marker_path(name: str) -> str:
    """A marker's outline as SVG path data around (0, 0), as the race draws it; "" for none.

    A circle is two arcs of :data:`figures.looks.CIRCLE_RADIUS`.
    """
    if not name:
        return ""
    points = MARKERS[name].points
    if not points:
        r = f"{CIRCLE_RADIUS:g}"
        return f"M-{r} 0a{r} {r} 0 1 0 {2 * CIRCLE_RADIUS:g} 0a{r} {r} 0 1 0-{2 * CIRCLE_RADIUS:g} 0Z"
    return "M" + "L".join(f"{x:g} {y:g}" for x, y in points) + "Z"


def build_values() -> dict[str, object]:
    """What the build hands the modules: the looks, and the model's labels of the input kinds."""
    return {"looks": looks(), "inputLabels": dict(INPUT_LABELS)}


def gzipped_size(data: bytes) -> int:
    """Bytes of ``data`` gzipped as a server would (level 9, no timestamp)."""
    return len(gzip.compress(data, compresslevel=9, mtime=0))


def bundle(root: Path, entry: str, values: dict[str, object]) -> bytes:
    """The classic script (an IIFE) of module ``entry`` (a path under ``root``) and every module it imports, by
    esbuild, with ``values`` (JSON-able) in place of :data:`BUILD_GLOBAL`.  Comments dropped, names kept; the
    same files give the same bytes.  ``RuntimeError`` with esbuild's own message if it is missing or refuses.
    """
    if not ESBUILD.exists():
        raise RuntimeError("esbuild is not installed in tools/bundler: run `make site`, or `npm ci` there")
    command = [str(ESBUILD), entry, "--bundle", "--format=iife", "--target=es2022", "--charset=utf8",
               "--legal-comments=none", "--minify-whitespace", "--minify-syntax", "--log-level=error",
               f"--define:{BUILD_GLOBAL}={json.dumps(values, sort_keys=True)}"]
    done = subprocess.run(command, cwd=root, capture_output=True)
    if done.returncode != 0:
        raise RuntimeError(f"esbuild refused {entry}: {done.stderr.decode().strip()}")
    return done.stdout


def build(record_id: str, params: PlaygroundParams) -> Built:
    """The bundle; ``ValueError`` if it is over :data:`GZIP_BUDGET` gzipped."""
    script = bundle(Path(MODULES), params.entry, build_values())
    size = gzipped_size(script)
    if size > GZIP_BUDGET:
        raise ValueError(f"the playground's script is {size} bytes gzipped, over the budget of {GZIP_BUDGET}")
    return Built(files={params.script: script}, numbers={"kb_gzip": f"{size / 1024:.1f}"})
