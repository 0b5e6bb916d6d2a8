"""``make publish-version`` run once per test run in a throwaway clone, for the tests of the published versions.

The clone is a copy of the working tree committed to a fresh git repository,
whose remote ``origin`` is a bare repository on disk; the copy starts from the
figure cache of the run's cold build, ``built_copy``.  Both layers use it: the
build layer reads the gh-pages branch, the browser layer serves it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import build_cold_copy, once_per_run
from repo_copy import NODE_PACKAGES
from repocopy import REPO, BuiltCopy

VENV = REPO / ".venv"
IDENTITY = {"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
            "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.invalid"}
PUBLISH_TIMEOUT_S = 600


def git(repo: Path, *args: str) -> str:
    env = dict(os.environ, **IDENTITY)
    return subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True,
                          check=True).stdout


@dataclass(frozen=True)
class Published:
    """The clone ``make publish-version`` ran in, its bare remote, and what was there before."""

    repo: Path
    origin: Path
    remote_refs_before: str
    head_before: str
    output: str

    def files(self) -> set[str]:
        return set(git(self.repo, "ls-tree", "-r", "--name-only", "gh-pages").splitlines())

    def read(self, path: str) -> str:
        return git(self.repo, "show", f"gh-pages:{path}")


def publish(folder: Path, copy: BuiltCopy) -> str | None:
    """Run ``make publish-version`` in a clone of ``copy`` in ``folder``; what went wrong, or None.

    The clone is the copy's working tree committed to a fresh repository, whose
    remote ``origin`` is a bare repository beside it.  What was there before
    and the target's output are written beside them, for ``Published``.
    """
    repo, origin = folder / "repo", folder / "origin.git"
    shutil.copytree(copy.repo, repo, symlinks=True)  # with its figure cache: a warm build
    git(repo, "init", "--quiet", "--initial-branch=main")
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "--message=The working tree, for make publish-version")
    subprocess.run(["git", "init", "--quiet", "--bare", str(origin)], check=True)
    git(repo, "remote", "add", "origin", origin.as_uri())
    git(repo, "push", "--quiet", "origin", "main")
    git(repo, "fetch", "--quiet", "origin")
    (folder / "remote-refs-before").write_text(git(origin, "for-each-ref"))
    (folder / "head-before").write_text(git(repo, "rev-parse", "main"))
    # The repository's environment, not one of the clone's own (its stamp is taken as up to date),
    # and the clone's model on the path, as in every build of a copy (repocopy.build_copy).  The npm
    # packages are the real tree's, linked (repo_copy.NODE_PACKAGES): their stamps are taken as up to
    # date too, or make, finding the copy's package files newer, would run npm ci in the real tree.
    env = dict(os.environ, **IDENTITY, PYTHONPATH=str(repo / "src"))
    stamps = [f"--old-file={packages}/.installed" for packages in NODE_PACKAGES]
    result = subprocess.run(
        ["make", f"--old-file={VENV}/.installed", *stamps, "publish-version", f"VENV={VENV}"],
        cwd=repo, env=env, capture_output=True, text=True, check=False, timeout=PUBLISH_TIMEOUT_S,
    )
    (folder / "output").write_text(result.stdout + result.stderr)
    if result.returncode != 0:
        return f"make publish-version failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return None


def build_published(factory: pytest.TempPathFactory) -> Path:
    """``published``'s run of ``make publish-version`` (see there), after the cold copy's build: its folder."""
    copy = build_cold_copy(factory)
    return once_per_run(factory, "publish", lambda target: publish(target, copy))


@pytest.fixture(scope="session")
def published(built_copy: BuiltCopy, tmp_path_factory: pytest.TempPathFactory) -> Published:
    """``make publish-version`` run once per test run, whichever pytest-xdist workers ask for it."""
    folder = build_published(tmp_path_factory)
    return Published(repo=folder / "repo", origin=folder / "origin.git",
                     remote_refs_before=(folder / "remote-refs-before").read_text(),
                     head_before=(folder / "head-before").read_text(), output=(folder / "output").read_text())
