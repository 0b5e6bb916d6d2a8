"""The site serves the ``fpsum`` wheel, and every ``fpsum`` command it shows runs with it (issue 39).

The wheel is installed into a fresh virtual environment with pip, offline
and without its dependencies; NumPy and ml_dtypes are then made importable
from this test's own environment (the lock's versions), which is what pip
would fetch.  The commands are read from the built pages: every line of a
code block or inline code that runs ``fpsum`` (``fpsum sum ...``,
``.venv/bin/fpsum ...``, ``printf ... | fpsum ...``), with its continuation
lines joined.  A command that names ``data.txt`` or ``pairs.txt`` reads the
reader's own numbers: the test writes a few there, and gives a few on the
input of those that name no file.
"""

from __future__ import annotations

import hashlib
import html
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy
import pytest

from figures import wheel
from htmlscan import Page

CODE = re.compile(r"<code[^>]*>(.*?)</code>", re.S)
PRE = re.compile(r"<pre[^>]*>(.*?)</pre>", re.S)
SUBCOMMAND = re.compile(r"(?:\.venv/bin/)?fpsum [a-z]+")
COMMAND = re.compile(r"(?:^|\|\s*)(?:\.venv/bin/)?fpsum\s+[a-z]")
"""A shell line that runs fpsum with a subcommand: not ``fpsum/textbook.py``, ``fpsum.exact`` or the bare name."""
WHEEL = wheel.wheel_name(wheel.records()[0].params)
INSTALL = f".venv/bin/pip install ./{WHEEL}"


def shown_commands(site: Path) -> list[str]:
    """Every ``fpsum`` command line the built pages show, once each, in page order.

    Every such line of a code block; in the prose's inline code, those with
    more than a subcommand (the prose names ``fpsum sum``, a subcommand, and
    shows ``fpsum sum --format bf16 --method sumk --folds 3``, a command).
    """
    commands: list[str] = []
    for page in sorted(site.glob("*.html")):
        source = page.read_text(encoding="utf-8")
        blocks = PRE.findall(source)
        inline = CODE.findall(PRE.sub("", source))
        for code, whole in [(code, True) for code in blocks] + [(code, False) for code in inline]:
            text = re.sub(r"\\\n\s*", " ", html.unescape(re.sub(r"<[^>]+>", "", code)))
            for line in text.splitlines():
                line = line.strip()
                if (COMMAND.search(line) and not line.startswith("#") and line not in commands
                        and (whole or not SUBCOMMAND.fullmatch(line))):
                    commands.append(line)
    return commands


@pytest.fixture(scope="module")
def installed(site_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding ``.venv``, a fresh environment with the site's wheel installed, as the cite page says."""
    folder = tmp_path_factory.mktemp("reader")
    (folder / WHEEL).write_bytes((site_dir / wheel.DOWNLOADS_DIR / WHEEL).read_bytes())
    subprocess.run([sys.executable, "-m", "venv", str(folder / ".venv")], check=True)
    # Offline and alone: pip must not see this environment's packages (nor uninstall the model's editable copy).
    subprocess.run(INSTALL.split() + ["--no-index", "--no-deps", "--quiet"], cwd=folder, check=True, env=_env(folder))
    purelib = subprocess.run([".venv/bin/python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             cwd=folder, capture_output=True, text=True, check=True, env=_env(folder)).stdout.strip()
    # What pip would fetch: the lock's NumPy and ml_dtypes, from this environment; after the install, last on the path.
    (Path(purelib) / "lock-dependencies.pth").write_text(str(Path(numpy.__file__).resolve().parents[1]) + "\n")
    (folder / "data.txt").write_text("0.1\n0.2\n0.3\n")
    (folder / "pairs.txt").write_text("0.1 2\n0.25 -3\n1e-3 7\n")
    return folder


def _env(folder: Path) -> dict[str, str]:
    """A reader's shell: the environment's bin first on PATH, no PYTHONPATH (which would reach src/)."""
    return {"PATH": f"{folder / '.venv' / 'bin'}:/usr/bin:/bin", "HOME": str(folder), "LANG": "C.UTF-8"}


def test_the_site_serves_the_wheel_its_pages_install(site_dir: Path) -> None:
    """The cite and teaching pages link the wheel and show the one pip line that installs it; the file is a wheel
    of the package as it is in src/, with the ``fpsum`` command.
    """
    data = (site_dir / wheel.DOWNLOADS_DIR / WHEEL).read_bytes()
    for name in ("cite.html", "teaching.html"):
        source = (site_dir / name).read_text(encoding="utf-8")
        page = Page(source)
        assert [a for a in page.find("a") if a.get("href") == f"{wheel.DOWNLOADS_DIR}/{WHEEL}"], name
        shown = html.unescape(re.sub(r"<[^>]+>", "", source))
        assert shown.count(INSTALL) == 1, f"{name}: the install line"
    with zipfile.ZipFile(site_dir / wheel.DOWNLOADS_DIR / WHEEL) as archive:
        names = archive.namelist()
        assert archive.read("fpsum/cli.py") == (wheel.PACKAGE / "cli.py").read_bytes()
        assert "console_scripts" in archive.read("fpsum-0.1.0.dist-info/entry_points.txt").decode()
    assert {f"fpsum/{p.relative_to(wheel.PACKAGE).as_posix()}" for p in wheel.package_files()} <= set(names)
    cite = (site_dir / "cite.html").read_text(encoding="utf-8")
    assert hashlib.sha256(data).hexdigest() in cite, "the cite page gives the wheel's SHA-256"


def test_two_builds_give_the_same_wheel(site_dir: Path) -> None:
    """The site's wheel (a cold build of a copy of the repository, in another process, at another time) has the
    same bytes as one built here now; every entry carries the fixed date, whatever the files' own dates.
    """
    served = (site_dir / wheel.DOWNLOADS_DIR / WHEEL).read_bytes()
    assert wheel.wheel_bytes(wheel.records()[0].params) == served
    with zipfile.ZipFile(site_dir / wheel.DOWNLOADS_DIR / WHEEL) as archive:
        assert {info.date_time for info in archive.infolist()} == {wheel.ZIP_EPOCH}


def test_the_wheel_installs_the_model_and_its_command(installed: Path) -> None:
    """The environment imports fpsum from the wheel, not from src/, and pip finds its requirements met."""
    found = subprocess.run([".venv/bin/python", "-c", "import fpsum; print(fpsum.__file__, fpsum.__version__)"],
                           cwd=installed, capture_output=True, text=True, check=True, env=_env(installed)).stdout
    location, version = found.split()
    assert Path(location).is_relative_to(installed / ".venv") and version == "0.1.0"
    subprocess.run([".venv/bin/python", "-m", "pip", "check"], cwd=installed, check=True, env=_env(installed),
                   capture_output=True)


def test_every_fpsum_command_the_site_shows_runs_with_the_wheel(site_dir: Path, installed: Path) -> None:
    """Each command exits 0 and prints something, in a fresh environment holding the wheel and its requirements."""
    commands = shown_commands(site_dir)
    assert len(commands) >= 20 and any(c.startswith(".venv/bin/fpsum") for c in commands)
    assert any("| fpsum" in c for c in commands)
    failures = []
    for command in commands:
        stdin = "0.5 2\n0.25 -4\n" if " dot" in command else "0.5\n0.25\n"
        result = subprocess.run(["bash", "-c", command], cwd=installed, input=stdin, capture_output=True, text=True,
                                env=_env(installed), timeout=600)
        if result.returncode != 0 or not result.stdout.strip():
            failures.append(f"{command}\n  exit {result.returncode}: {result.stderr.strip()[-300:]}")
    assert not failures, "\n".join(failures)
