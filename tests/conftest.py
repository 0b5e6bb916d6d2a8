"""Shared fixtures: the built site, a local server for it, and Debian's chromium for pytest-playwright.

The browser is pytest-playwright's ``browser`` fixture (one per worker for the
whole run), launched on Debian's chromium by ``browser_type_launch_args`` below.
The repository copy, and the site (its build), are built once per test run, however many
pytest-xdist workers use them (``once_per_run``); the site packed as ``make archive`` packs it,
and each page's fresh loads in chromium (``fresh_loads``), once per test process.
"""

from __future__ import annotations

import os
import shutil
import threading
import traceback
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock
from playwright.sync_api import Browser

from browsing import CHROMIUM_ARGS, Visit, serving
from figures.alone import MODULES_ENV
from figures.cache import CACHE_DIR
from figures.mpl_dark_proof import PROOF_ENV
from figures.site_info import read_citation
from fresh_loads import Loaded, fresh_loads
from repo_copy import copy_repo
from repocopy import ADDRESS, REPO, BuiltCopy, build_copy
from screens import SCHEMES, SCREENS
from site_archive import archive_folder, pack

HEADLESS_SHELL = "chromium-headless-shell"
"""The browser the tests drive: Debian's package of chromium's headless shell."""
BUILD_TIMEOUT_S = 600  # how long a worker waits for another worker's build
VERSION = str(read_citation()["version"])
"""The site's version as it is cited (CITATION.cff's): ``make archive`` and ``make publish-version`` use it."""
# Fixtures of more than one layer that need a module of their own: ``make publish-version``'s clone.
pytest_plugins = ["publishing"]
RECORD_MODULES = "record-modules.json"
"""Beside ``built_copy``'s repository: each record's loaded module files in its cold build (test_cache_keys)."""
DARK_PROOF = "dark-proof.txt"
"""Beside ``built_copy``'s repository: each static figure layout whose dark SVG its cold build proved
(``figures.mpl_dark_proof``, test_figure_layout)."""
ARCHIVE_EPOCH = 1_700_000_000  # 2023-11-14 22:13:20 UTC: the date every file in the tests' archive carries


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--check-pass``: of the browser layer, only ``make check``'s pass (the tests marked ``check``)."""
    parser.addoption("--check-pass", action="store_true",
                     help="browser layer: only the tests marked check, at the first screen and palette (make check)")


def pytest_configure(config: pytest.Config) -> None:
    """The browser tests run on Debian's chromium only: pytest-playwright's ``--browser`` may not pick another.

    Registers :class:`SharedLoadsTogether`.
    """
    if set(config.getoption("--browser", default=None) or ["chromium"]) != {"chromium"}:
        raise pytest.UsageError("the browser tests run on Debian's chromium only: leave out --browser")
    config.pluginmanager.register(SharedLoadsTogether(), "shared-loads-together")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Keep the layers apart: a test that uses the browser is in ``tests/browser/``, and no other test is.

    So ``-m "not browser"`` (or leaving out ``tests/browser``) runs every test
    that needs no browser, and opens none.  A test whose folder and fixtures
    disagree fails here, before its fixtures are set up.
    """
    uses = "browser" in getattr(item, "fixturenames", ())
    if uses and item.get_closest_marker("browser") is None:
        pytest.fail("uses the browser but is not in tests/browser/ (-m 'not browser' would open one)", pytrace=False)
    if not uses and item.get_closest_marker("browser") is not None:
        pytest.fail("is in tests/browser/ but uses no browser: move it to the layer it tests", pytrace=False)


LAYERS = ("model", "build", "site", "browser")
"""The folders of ``tests/``, cheapest first; each test carries its folder's name as its mark (pyproject.toml)."""


def layer_of(path: Path) -> str:
    """The layer a test file is in: its folder under ``tests/``; a test anywhere else is an error."""
    parts = path.relative_to(Path(__file__).parent).parts
    if len(parts) != 2 or parts[0] not in LAYERS:
        raise pytest.UsageError(f"{path}: a test file belongs in one of tests/{{{','.join(LAYERS)}}}/")
    return parts[0]


def in_check_pass(item: pytest.Item) -> bool:
    """Whether a browser test is in ``make check``'s pass: marked ``check``, at the first screen and palette.

    ``@pytest.mark.check(pages=(...))`` keeps only those pages of a test that
    is parametrized over every page (``name``), as the axe checks are.
    """
    mark = item.get_closest_marker("check")
    if mark is None:
        return False
    params = getattr(item, "callspec", None)
    params = params.params if params else {}
    if params.get("screen", SCREENS[0]) != SCREENS[0] or params.get("scheme", SCHEMES[0]) != SCHEMES[0]:
        return False
    pages = mark.kwargs.get("pages")
    return pages is None or params.get("name") in pages


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each test is marked with its layer (its folder), and a page's browser tests share one worker.

    The mark follows the folder, so ``-m model`` or ``-m "not browser"``
    select by layer with no mark written in a test file.  With
    ``--check-pass`` the browser layer is cut to ``make check``'s pass
    (:func:`in_check_pass`).  Each page's browser tests run in one
    pytest-xdist worker (``--dist loadgroup``, group: the page): a page's
    loads that its tests share in a test process (``opened``, ``loaded``) are
    then made once per run, not once in each worker, while the pages spread
    over the workers.  Tried first, so that the marks are there when ``-m``
    deselects and pytest-xdist, which reads the groups in this same hook,
    finds them.
    """
    for item in items:
        item.add_marker(getattr(pytest.mark, layer_of(item.path)))
    if config.getoption("--check-pass"):
        left_out = [item for item in items if item.get_closest_marker("browser") and not in_check_pass(item)]
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            dropped = set(left_out)
            items[:] = [item for item in items if item not in dropped]
    for item in items:
        callspec = getattr(item, "callspec", None)
        page = callspec.params.get("name") if callspec else None
        if item.get_closest_marker("browser") and isinstance(page, str) and page.endswith(".html"):
            item.add_marker(pytest.mark.xdist_group(page))


def shared_load_key(item: pytest.Item, names: tuple[str, ...]) -> str:
    """The values of the parameters ``names`` that ``item`` takes (None for one it does not take)."""
    params = item.callspec.params if isinstance(item, pytest.Function) and hasattr(item, "callspec") else {}
    return repr(tuple(params.get(name) for name in names))


class SharedLoadsTogether:
    """A plugin (registered in :func:`pytest_configure`): its hook must come after pytest's own reordering."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """In a module that names ``RUN_TOGETHER`` (its module-scoped parameters, such as the page and the screen
        of one page load), the tests that share those values run one after another, in the file's order.

        Tried last, after pytest's own reordering: that one keeps module-scoped parameters together only
        where every test takes the same ones, and test_fits_screen's tests take different subsets of
        pages and screens, so its page loads were torn down and made again, 134 loads for 60 pairs.
        """
        start = 0
        while start < len(items):
            module = getattr(items[start], "module", None)
            end = start + 1
            while end < len(items) and getattr(items[end], "module", None) is module:
                end += 1
            names: tuple[str, ...] = getattr(module, "RUN_TOGETHER", ())
            if names:
                first_seen: dict[str, int] = {}
                keys = [(first_seen.setdefault(shared_load_key(item, names), len(first_seen)), item.location[1] or 0, i)
                        for i, item in enumerate(items[start:end])]
                order = [i for *_, i in sorted(keys)]
                items[start:end] = [items[start + i] for i in order]
            start = end


def once_per_run(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], str | None]) -> Path:
    """The folder ``name`` of this test run, filled by ``build(folder)`` once, whichever worker asks first.

    The run's temporary folder is shared by its pytest-xdist workers (each has
    a subfolder of it).  The first worker to take the lock builds; the others
    wait for the lock, then find the outcome beside the folder: ``name.done``,
    or ``name.failed`` with what went wrong (``build`` returns the message, or
    raises), which fails the fixture in every worker.
    """
    run = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        run = run.parent
    folder, done, failed = run / name, run / f"{name}.done", run / f"{name}.failed"
    with FileLock(run / f"{name}.lock", timeout=BUILD_TIMEOUT_S):
        if not (done.exists() or failed.exists()):
            folder.mkdir()
            try:
                problem = build(folder)
            except Exception:
                problem = traceback.format_exc()
            if problem:
                failed.write_text(problem)
            else:
                done.write_text("built\n")
    if failed.exists():
        pytest.fail(f"{name}: {failed.read_text()}", pytrace=False)
    return folder


def build_site(factory: pytest.TempPathFactory) -> Path:
    """``site_dir``'s build, once per run (see there); the cold copy's first when the figure cache is empty."""

    def build(folder: Path) -> str | None:
        if not any(CACHE_DIR.glob("*")):
            cold = build_cold_copy(factory)
            shutil.copytree(cold.repo / ".cache", REPO / ".cache", dirs_exist_ok=True)
        result = build_copy(REPO, folder / "site")
        return None if result.returncode == 0 else f"strict build of the repository failed:\n{result.stderr[-4000:]}"

    return once_per_run(factory, "site", build) / "site"


def build_cold_copy(factory: pytest.TempPathFactory) -> BuiltCopy:
    """``built_copy``'s build, once per run (see there)."""

    def build(folder: Path) -> str | None:
        built = BuiltCopy(repo=folder / "repo", site=folder / "site-cold")
        built.repo.mkdir()
        copy_repo(built.repo)
        assert not (built.repo / ".cache").exists()
        # Each record in an interpreter of its own, listing the modules it loaded: the cache keys' proof;
        # and each static figure drawn dark too, held to its recoloured SVG: the dark SVGs' proof.
        result = build_copy(built.repo, built.site, environment={MODULES_ENV: str(folder / RECORD_MODULES),
                                                                 PROOF_ENV: str(folder / DARK_PROOF)})
        return None if result.returncode == 0 else f"strict build of the copy failed:\n{result.stderr[-4000:]}"

    folder = once_per_run(factory, "copy", build)
    return BuiltCopy(repo=folder / "repo", site=folder / "site-cold")


def start_builds(session: pytest.Session) -> threading.Thread | None:
    """Start the builds the collected tests will wait for, in a thread of the first worker, at once: the site,
    the site at its address, the cold copy and its publication, each only if a collected test needs it.

    A build is a subprocess, so the thread mostly waits; meanwhile the tests
    that need no build run (the model layer, first where the layers are named
    in that order, as ``make check`` names them).  The fixtures then find the build done, or
    wait for its lock (``once_per_run``) as they would for another worker's.
    What goes wrong is left for the fixture to report, in every test that needs it.
    """
    if os.environ.get("PYTEST_XDIST_WORKER", "gw0") != "gw0" or session.config.option.collectonly:
        return None
    from publishing import build_published  # it imports this module: not at its top

    needed = {name for item in session.items for name in getattr(item, "fixturenames", ())}
    # In the order they wait for each other: the addressed build takes the site's caches, and publishing
    # copies the cold copy.  A fixture's names include those of the fixtures it asks for.
    wanted: list[tuple[str, Callable[[pytest.TempPathFactory], object]]] = [
        ("site_dir", build_site), ("addressed_site", build_addressed), ("built_copy", build_cold_copy),
        ("published", build_published)]
    builds = [build for fixture, build in wanted if fixture in needed]
    if not builds:
        return None
    factory: pytest.TempPathFactory = session.config._tmp_path_factory  # type: ignore[attr-defined]

    def run() -> None:
        for build in builds:
            try:
                build(factory)
            except BaseException:  # noqa: BLE001  (pytest.fail's outcome too: the fixture reports it)
                continue  # the next build may not need this one

    thread = threading.Thread(target=run, name="early builds", daemon=True)
    thread.start()
    return thread


def pytest_collection_finish(session: pytest.Session) -> None:
    """The builds start as soon as the tests are known (:func:`start_builds`)."""
    start_builds(session)


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as ``make site`` builds it from the repository as it is now, built once per test run.

    A strict build of the repository itself with its own caches (``.cache/``):
    warm, as the maintainer's next ``make site`` would be, so that one test file
    costs seconds, not a cold build.  In a fresh clone (no figure cache yet)
    the caches are first filled from ``built_copy``'s cold build, which the
    build layer makes anyway: the figures are computed once per run, not twice.
    """
    return build_site(tmp_path_factory)


@pytest.fixture(scope="session")
def site_url(site_dir: Path) -> Iterator[str]:
    """The built site served on localhost; the URL of its root."""
    with serving(site_dir) as url:
        yield url


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Debian's chromium headless shell (package chromium-headless-shell; ``make test`` installs it).

    The same chromium build as Debian's ``chromium``, without the full browser's
    window machinery: what Playwright itself runs headless tests on, in 0.7 to
    0.9 of the full browser's time here (CONTRIBUTING.md).  The benches that
    time what a reader waits for (Lighthouse, ``make bench``) run the full browser.
    """
    path = shutil.which(HEADLESS_SHELL)
    if path is None:
        pytest.fail(f"{HEADLESS_SHELL} is not installed: run `make test`, which installs Debian's package")
    return path


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any], chromium_path: str) -> dict[str, Any]:
    """pytest-playwright's launch options (``--headed``, ``--slowmo``) on Debian's chromium, never a download.

    pytest-playwright's ``browser`` fixture, one per worker for the whole run,
    is launched with these (each test opens its own context).
    """
    return {**browser_type_launch_args, "executable_path": chromium_path, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def opened(browser: Browser, site_url: str) -> Iterator[Callable[[str], Visit]]:
    """Each page of the served site opened once per test process.

    For the tests that look without changing anything, or that put back what
    they change (palette, print media, selected tabs), in any module: a page
    load costs chromium about a second of CPU.  Each test gets its page with
    nothing focused (``Visit.clear_focus``).  A test that plays with the
    figures, or needs a page as it first loads, opens a ``Visit`` of its own.
    """
    visits: dict[str, Visit] = {}

    def get(name: str) -> Visit:
        if name not in visits:
            visits[name] = Visit(browser, site_url, name)
        visits[name].clear_focus()  # where an earlier test's Tabs left it
        return visits[name]

    yield get
    for visit in visits.values():
        visit.close()


@pytest.fixture(scope="session")
def loaded(browser: Browser, site_url: str) -> Loaded:
    """``loaded(how, name)``: what the one fresh load of page ``name`` at a phone's or a desktop's size
    showed, loaded once per test process however many tests look at it (``fresh_loads``).
    """
    return fresh_loads(browser, site_url)


@pytest.fixture(scope="session")
def archive(site_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's built site packed as ``make archive`` packs it (``scripts/site_archive.py``)."""
    return pack(site_dir, VERSION, tmp_path_factory.mktemp("archive"), ARCHIVE_EPOCH)


@pytest.fixture(scope="session")
def unpacked(archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The archive unpacked, as a student would: the one folder it holds."""
    target = tmp_path_factory.mktemp("unpacked")
    with zipfile.ZipFile(archive) as zipped:
        zipped.extractall(target)
    return target / archive_folder(VERSION)


@pytest.fixture(scope="session")
def built_copy(tmp_path_factory: pytest.TempPathFactory) -> BuiltCopy:
    """A copy of the repository, built once per test run from an empty figure cache (which it then holds).

    Each record is built in a fresh interpreter, and the modules it loaded are
    listed in :data:`RECORD_MODULES` beside the copy (``figures.alone``).
    """
    return build_cold_copy(tmp_path_factory)


@pytest.fixture(scope="session")
def addressed_site(site_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built with ``SITE_URL`` = :data:`ADDRESS`, as it is published, once per test run.

    Built in a copy of the repository with the repository's caches, which
    ``site_dir``'s build has just filled (so it is warm); the build's log is
    ``build.log`` beside the site (``site/``) in the folder returned.
    """
    return build_addressed(tmp_path_factory)


def build_addressed(factory: pytest.TempPathFactory) -> Path:
    """``addressed_site``'s build, once per run (see there), after the site's."""
    build_site(factory)

    def build(folder: Path) -> str | None:
        repo = copy_repo(folder / "repo")
        shutil.copytree(REPO / ".cache", repo / ".cache", symlinks=True)
        result = build_copy(repo, folder / "site", site_url=ADDRESS)
        (folder / "build.log").write_text(result.stderr)
        return None if result.returncode == 0 else f"strict build with SITE_URL failed:\n{result.stderr[-4000:]}"

    return once_per_run(factory, "addressed", build)


@pytest.fixture(scope="session")
def addressed_site_url(addressed_site: Path) -> Iterator[str]:
    """The site built at :data:`ADDRESS`, served on localhost; the URL of its root."""
    with serving(addressed_site / "site") as url:
        yield url
