"""The playground's bundle (scripts/figures/jsbundle.py, scripts/figures/playground.py): one classic
script from the ES modules, the same bytes on every build, under its size budget; the bundler refuses
what it cannot translate, and its comment stripper leaves strings, templates and regular expressions be.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from figures.jsbundle import BundleError, bundle, strip_comments
from figures.playground import GZIP_BUDGET, MODULES, build_values, gzipped_size, playground_query


def test_the_bundle_is_one_deterministic_script_under_budget() -> None:
    first = bundle(MODULES, "ui/main.js", build_values())
    assert first == bundle(MODULES, "ui/main.js", build_values())
    assert gzipped_size(first) <= GZIP_BUDGET
    text = first.decode()
    assert "import " not in text.split("\n", 3)[-1] or "import(" not in text
    assert "/* build:" not in text, "a placeholder the build did not fill"
    node = shutil.which("node")
    if node:
        checked = subprocess.run([node, "--check", "-"], input=first, capture_output=True)
        assert checked.returncode == 0, checked.stderr.decode()


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def run(script: bytes, tail: str) -> str:
    node = shutil.which("node")
    if not node:
        pytest.skip("node is not installed")
    done = subprocess.run([node, "-e", script.decode() + tail], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_imports_exports_and_reexports_are_translated(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "a/one.js": "export const ONE = 1;\nexport function twice(x) { return 2 * x; }\n",
        "a/index.js": 'export { ONE as one } from "./one.js";\nexport * from "./one.js";\n',
        "b/main.js": 'import { one, twice as double } from "../a/index.js";\nimport * as all from "../a/one.js";\n'
                     "globalThis.out = [one, double(3), all.ONE].join(' ');\n",
    })
    assert run(bundle(root, "b/main.js"), "\nconsole.log(globalThis.out)") == "1 6 1"


@pytest.mark.parametrize("source", [
    "export default 3;\n", 'const m = import("./x.js");\n', 'import thing from "./x.js";\n',
    "export const { a } = b;\n",
])
def test_what_the_bundler_cannot_translate_is_refused(tmp_path: Path, source: str) -> None:
    root = write(tmp_path, {"main.js": source, "x.js": "export const a = 1;\n"})
    with pytest.raises(BundleError, match="main.js"):
        bundle(root, "main.js")


def test_a_cycle_is_refused(tmp_path: Path) -> None:
    root = write(tmp_path, {"a.js": 'import { b } from "./b.js";\nexport const a = 1;\n',
                            "b.js": 'import { a } from "./a.js";\nexport const b = 2;\n'})
    with pytest.raises(BundleError, match="cycle"):
        bundle(root, "a.js")


def test_comments_go_and_strings_templates_and_regular_expressions_stay() -> None:
    source = ('/** doc */\nconst a = "// not a comment"; // dropped\n'
              "const b = `/* kept ${a + `${'//'}`} */`;\n"
              "const c = /\\/\\/[/]x/g.test(a) ? 1 / 2 : 3; /* gone */\n"
              "function f() { return /a\\/b/.source; }\n")
    stripped = strip_comments(source)
    assert "doc" not in stripped and "dropped" not in stripped and "gone" not in stripped
    for kept in ('"// not a comment"', "`/* kept ${a+`${'//'}`} */`", "/\\/\\/[/]x/g", "1/2", "/a\\/b/"):
        assert kept in stripped, kept


def test_blanks_go_where_no_token_needs_them() -> None:
    assert strip_comments("let  a = b - -c;\nconst x = 1 .toFixed(2) + typeof  y;\n") == \
        "let a=b- -c;\nconst x=1 .toFixed(2)+typeof y;\n"


def test_a_race_links_to_its_experiment() -> None:
    assert playground_query("fp16", "uniform", 8192, 0, ("naive", "kahan")) == \
        "?format=fp16&methods=naive,kahan&inputs=uniform&n=8192&seed=0"
