"""Builds of a copy of the repository (repo_copy.copy_repo), for tests that must not touch the real tree."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


ADDRESS = "https://mirror.example.org/accumulation/"
"""The address of the tests' published build (``addressed_site`` in conftest.py): a test address, which no build
a reader gets names."""


def build_copy(repo: Path, target: Path, site_url: str | None = None,
               environment: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of the repository ``repo`` (a copy, or the repository itself), with its own model
    on the path and its own caches.

    Built at the address ``site_url`` (``SITE_URL``), or, for None, without one as ``make site`` builds
    it by default, whatever ``SITE_URL`` the tests' own environment holds; ``environment`` adds variables.
    """
    env = dict(os.environ, SOURCE_DATE_EPOCH=os.environ.get("SOURCE_DATE_EPOCH", "1700000000"),
               PYTHONPATH=str(repo / "src"), NO_MKDOCS_2_WARNING="1", DISABLE_MKDOCS_2_WARNING="true")
    env.pop("SITE_URL", None)
    if site_url is not None:
        env["SITE_URL"] = site_url
    env |= environment or {}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(target)],
        cwd=repo, env=env, capture_output=True, text=True, check=False,
    )


@dataclass(frozen=True)
class BuiltCopy:
    """A copy of the repository and the site its first (cold: empty figure cache) build made."""

    repo: Path
    site: Path
