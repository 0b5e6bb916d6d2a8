"""Our patches of mkdocs-material find what they rely on in the installed theme, or stop the build naming the patch.

``hooks/theme/contract.py`` lists, per patch, the globals, classes,
selectors, template blocks and tags it needs in mkdocs-material, and the
partials it forks.  Checked here without a build or a browser: the pinned
theme holds them all; a copy of it with any one of them renamed fails,
naming that patch, and stops the build in one line; the patches that work
on a page or on the built site stop the build, naming themselves, where
their target is missing; and the names that Python, a11y.js, layout.css and
the playground share are written once (hooks/theme/names.py).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import sys
from pathlib import Path

import material
import pytest
from mkdocs.exceptions import PluginError

from repocopy import REPO

sys.path.insert(0, str(REPO))
from hooks.theme import code_blocks, contract  # noqa: E402
from hooks.theme.names import BUNDLE, SCROLLWRAP, TABLE_BOX, TABLE_PAD  # noqa: E402

INSTALLED = Path(material.__file__).parent / "templates"


@pytest.fixture(scope="module")
def theme_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the installed theme folder, without what no patch reads (icons, source maps, lunr's languages)."""
    copy = tmp_path_factory.mktemp("theme") / "templates"
    shutil.copytree(INSTALLED, copy, ignore=shutil.ignore_patterns(".icons", "*.map", "lunr", "__pycache__"))
    return copy


@pytest.fixture
def theme(theme_copy: Path, tmp_path: Path) -> Path:
    """A test's own copy of :func:`theme_copy`, its files hard links (a test edits a file by writing a new one)."""
    copy = tmp_path / "templates"
    shutil.copytree(theme_copy, copy, copy_function=os.link)
    return copy


def rewrite(file: Path, text: str) -> None:
    """Give ``file`` the text ``text`` as a new file: the old one may be a hard link that other copies share."""
    file.unlink()
    file.write_text(text, encoding="utf-8")


def one_file(theme: Path, pattern: str) -> Path:
    """The one file of ``theme`` whose path ``pattern`` matches."""
    (path,) = [path for path in contract.theme_files(theme) if re.fullmatch(pattern, path)]
    return theme / path


def rename(theme: Path, pattern: str, old: str, new: str) -> None:
    """Replace every ``old`` by ``new`` in the one file of ``theme`` that ``pattern`` names (``old`` must be there)."""
    file = one_file(theme, pattern)
    text = file.read_text(encoding="utf-8")
    assert old in text, (file, old)
    rewrite(file, text.replace(old, new))


def test_the_pinned_theme_holds_every_target() -> None:
    assert contract.problems(INSTALLED) == []


def test_every_patch_in_hooks_theme_declares_a_target() -> None:
    """Each patch file (not the contract, its names, nor the loader the hook inlines) has a target or a check."""
    declared = {t.patch for t in contract.TARGETS} | {f.patch for f in contract.FORKS} \
        | {patch for patch, _ in contract.LIBRARY_CHECKS}
    theme = REPO / "hooks" / "theme"
    patches = {path.relative_to(theme).as_posix() for path in theme.rglob("*") if path.is_file()
               and path.suffix in {".py", ".html", ".js"} and "__pycache__" not in path.parts} \
        - {"contract.py", "names.py", "theme_loader.js", "overrides/assets/javascripts/iframe-worker-shim.js"}
    assert patches - declared == set()


def mutation(target: contract.Target) -> tuple[str, str]:
    """An edit of the target's file that takes the target away: the text renamed, or for a regex, its source."""
    if target.holds == "":
        return "", ""  # the file itself: renamed by the test
    if not target.regex:
        middle = len(target.holds) // 2
        return target.holds, target.holds[:middle] + "_renamed_" + target.holds[middle:]
    block = re.fullmatch(r".*block\\s\+(\w+).*", target.holds)
    if block:
        return f"block {block.group(1)} ", f"block {block.group(1)}_renamed "
    return "<script src=\"{{ 'assets/javascripts/bundle.", "<script defer src=\"{{ 'assets/javascripts/bundle."


@pytest.mark.parametrize("target", contract.TARGETS, ids=lambda t: f"{t.patch}:{t.holds[:30]}")
def test_a_renamed_target_names_its_patch(theme: Path, target: contract.Target) -> None:
    old, new = mutation(target)
    if old:
        rename(theme, target.file, old, new)
    else:
        file = one_file(theme, target.file)
        file.rename(file.with_name("renamed-" + file.name))
    found = contract.problems(theme)
    assert any(line.startswith(target.patch + ": ") for line in found), found
    with pytest.raises(PluginError, match=r"^[^\n]+$"):
        contract.require(theme)


@pytest.mark.parametrize(("file", "old", "new"), [
    (BUNDLE, f'"{SCROLLWRAP}"', '"md-typeset__scrollbox"'),
    (contract.MAIN_CSS, f".{TABLE_PAD}", ".md-typeset__tablebox"),  # the old name, longer: not the class any more
])
def test_a_renamed_class_stops_the_build_naming_table_wraps(theme: Path, file: str, old: str, new: str) -> None:
    rename(theme, file, old, new)
    with pytest.raises(PluginError) as error:
        contract.require(theme)
    assert re.fullmatch(r"table_wraps\.py: mkdocs-material's assets/\S+ no longer holds .*", str(error.value))


@pytest.mark.parametrize("fork", contract.FORKS, ids=lambda f: f.patch)
def test_a_changed_upstream_partial_names_its_fork(theme: Path, fork: contract.Fork) -> None:
    partial = theme / fork.upstream
    rewrite(partial, partial.read_text(encoding="utf-8") + "<!-- upstream changed -->\n")
    with pytest.raises(PluginError, match=f"^{re.escape(fork.patch)}: .* has changed since it was forked"):
        contract.require(theme)


def test_the_forks_were_made_from_the_pinned_partials() -> None:
    """Beside its own comment, search.html differs from the installed partial in its first <div> alone."""
    fork = (REPO / "hooks/theme/overrides/partials/search.html").read_text(encoding="utf-8").splitlines()
    upstream = (INSTALLED / "partials/search.html").read_text(encoding="utf-8").splitlines()
    fork, upstream = fork[fork.index("-#}") + 1:], upstream[upstream.index("-#}") + 1:]
    assert len(fork) == len(upstream)
    assert [i for i, (a, b) in enumerate(zip(fork, upstream)) if a != b] == [0]


def test_code_blocks_stop_on_a_pre_not_from_pymdownx_highlight() -> None:
    with pytest.raises(PluginError, match=r"^code_blocks\.py: page\.md: 1 <pre> not in the form"):
        code_blocks.prepared('<pre class="x"><code>a = 1\n</code></pre>', "page.md")


def test_code_blocks_stop_on_lines_without_their_spans() -> None:
    with pytest.raises(PluginError, match=r"^code_blocks\.py: page\.md: a code block's lines are not each in a span"):
        code_blocks.prepared("<pre><span></span><code>a = 1\nb = 2\n</code></pre>", "page.md")


@pytest.mark.parametrize("name", ["SnippetMissingError", "SnippetPreprocessor"])
def test_build_errors_without_what_it_wraps_stops_the_build(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    from pymdownx import snippets

    monkeypatch.delattr(snippets, name)
    spec = importlib.util.spec_from_file_location("build_errors_alone", REPO / "hooks/theme/build_errors.py")
    assert spec is not None and spec.loader is not None
    with pytest.raises(PluginError, match=r"^build_errors\.py: pymdownx\.snippets has no SnippetMissingError or"):
        spec.loader.exec_module(importlib.util.module_from_spec(spec))


def test_the_contract_is_the_first_hook_of_the_build() -> None:
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    hooks = re.findall(r"^  - (hooks/\S+)$", config.split("\nhooks:\n", 1)[1].split("\n\n", 1)[0], re.M)
    assert hooks[0] == "hooks/theme/contract.py"


# ---------------------------------------------------------------- one owner for the shared names

SHARED_BY = ["hooks/theme/overrides/assets/javascripts/a11y.js", "docs/assets/stylesheets/layout.css",
             "docs/assets/javascripts/playground/ui/table.js"]
"""The scripts and style sheets that use the table boxes' classes, which cannot import names.py."""


@pytest.mark.parametrize("path", SHARED_BY)
def test_scripts_and_sheets_use_the_owners_classes(path: str) -> None:
    text = (REPO / path).read_text(encoding="utf-8")
    assert set(re.findall(r"md-typeset__[\w-]+", text)) == {SCROLLWRAP, TABLE_PAD}


def test_a11y_js_finds_a_tables_box_by_the_owners_selector() -> None:
    text = (REPO / SHARED_BY[0]).read_text(encoding="utf-8")
    assert f"var TABLE_BOX = {json.dumps(TABLE_BOX)};" in text


def test_python_spells_the_shared_names_only_in_names_py() -> None:
    """The bundle's path and the scroll box's class are read from hooks/theme/names.py, not written again."""
    spelled = [path.relative_to(REPO).as_posix()
               for folder in ("hooks", "scripts", "tests") for path in sorted((REPO / folder).rglob("*.py"))
               if path.name != Path(__file__).name
               and re.search(r"bundle\\\.|md-typeset__scrollwrap", path.read_text(encoding="utf-8"))]
    assert spelled == ["hooks/theme/names.py"]
