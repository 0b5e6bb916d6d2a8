"""A copy of the repository to build in, for the tests and the bench: neither may touch the real tree or its cache."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NODE_PACKAGES = ("tools/mathjax/node_modules", "tools/bundler/node_modules")
"""Installed npm packages (ignored, installed by ``make``) that a build runs: linked, not copied."""


def copy_repo(target: Path, source: Path = REPO) -> Path:
    """The repository ``source`` as it is now (tracked and untracked files, not ignored ones) copied to ``target``.

    The figure and formula caches (``.cache/``, ignored) are not copied: a build in the copy starts cold.
    The npm packages a build runs (:data:`NODE_PACKAGES`: MathJax, esbuild) are the real tree's, linked: the
    copy's build draws its formulas and bundles the playground with them.  A file deleted in the working tree
    but still in the index is skipped.
    """
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=source, capture_output=True, check=True).stdout.decode()
    for name in filter(None, listed.split("\0")):
        if (source / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / name, target / name)
    for packages in NODE_PACKAGES:
        if (source / packages).is_dir():
            (target / packages).symlink_to((source / packages).resolve(), target_is_directory=True)
    return target
