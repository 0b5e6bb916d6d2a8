"""The playground's bundle (scripts/figures/playground.py, by esbuild): one classic script from the ES
modules, the same bytes on every build, under its size budget, with the build's looks and labels in it;
what esbuild refuses stops the build with its own words.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from figures.playground import (
    BUILD_GLOBAL,
    GZIP_BUDGET,
    MODULES,
    build_values,
    bundle,
    gzipped_size,
    playground_query,
)


def run(script: bytes, tail: str) -> str:
    """What ``script`` followed by ``tail`` prints, run by node as a classic script (no module system)."""
    node = shutil.which("node")
    if not node:
        pytest.skip("node is not installed")
    done = subprocess.run([node, "-e", script.decode() + tail], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_the_bundle_is_one_deterministic_classic_script_under_budget() -> None:
    first = bundle(MODULES, "ui/main.js", build_values())
    assert first == bundle(MODULES, "ui/main.js", build_values())
    assert gzipped_size(first) <= GZIP_BUDGET
    text = first.decode()
    assert not re.search(r"^(import|export)\b|[;}]\s*(import|export)\s*[{*\"]", text, re.M), "module syntax left"
    assert BUILD_GLOBAL not in text, "the build's values were not put in"
    # Without a document the bundle is the playground's Web Worker: it answers the messages of its scope.
    worker = run(b"globalThis.self = {postMessage() {}, onmessage: null};\n" + first,
                 "\nconsole.log(typeof self.onmessage)")
    assert worker == "function"


def test_the_build_hands_the_modules_every_look_and_label(tmp_path: Path) -> None:
    """The bundled looks.js holds the build's values, as the page reads them."""
    values = build_values()
    root = shutil.copytree(MODULES, tmp_path / "playground")
    write(root, {"probe.js": 'import { LOOKS, INPUT_LABELS } from "./ui/looks.js";\n'
                             "console.log(JSON.stringify([LOOKS, INPUT_LABELS]));\n"})
    looks, labels = json.loads(run(bundle(root, "probe.js", values), ""))
    assert looks == values["looks"] and labels == values["inputLabels"]


def test_what_esbuild_refuses_stops_the_build_with_its_message(tmp_path: Path) -> None:
    root = write(tmp_path, {"main.js": 'import { missing } from "./nowhere.js";\n'})
    with pytest.raises(RuntimeError, match="nowhere.js"):
        bundle(root, "main.js", {})


def test_a_race_links_to_its_experiment() -> None:
    assert playground_query("fp16", "uniform", 8192, 0, ("naive", "kahan")) == \
        "?format=fp16&methods=naive,kahan&inputs=uniform&n=8192&seed=0"
