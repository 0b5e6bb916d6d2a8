"""`make archive`: the built site as one zip file an instructor can hand out.

Unpacked, the zip holds one folder, ``accumulation-error-site-<version>/``, and
that folder's ``index.html`` opens in a browser straight from disk: every page,
figure and formula, and the search (mkdocs-material's offline plugin, see
``mkdocs.yml``).  The version is the one cited, CITATION.cff's; the Makefile
passes it.

The zip is reproducible: the same site packs to the same bytes (entries in
sorted order, every date the last commit's, ``SOURCE_DATE_EPOCH``, and the same
permissions on every file), so two archives of one version can be compared.
"""

from __future__ import annotations

import argparse
import os
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STEM = "accumulation-error-site"
ZIP_EPOCH = 315532800  # 1980-01-01 UTC, the earliest date a zip entry can hold
FILE_MODE = 0o100644  # a regular file, readable by all


def archive_folder(version: str) -> str:
    """The one folder the archive unpacks into, ``accumulation-error-site-<version>``."""
    return f"{STEM}-{version}"


def pack(site: Path, version: str, out_dir: Path, epoch: int) -> Path:
    """Zip the built ``site`` into ``out_dir/accumulation-error-site-<version>.zip``; its path.

    Every file of ``site`` goes in, under the archive's one folder, dated
    ``epoch`` (seconds since 1970, UTC; dates before 1980 are 1980).  The zip
    is written beside its final name and then renamed: an interrupted run
    leaves no half archive under that name.
    """
    if not (site / "index.html").is_file():
        raise FileNotFoundError(f"no built site in {site} (no index.html): run `make site` first")
    folder = archive_folder(version)
    date = time.gmtime(max(epoch, ZIP_EPOCH))[:6]
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{folder}.zip"
    partial = target.with_name(target.name + ".part")
    files = sorted((path.relative_to(site).as_posix(), path) for path in site.rglob("*") if path.is_file())
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, path in files:
            entry = zipfile.ZipInfo(f"{folder}/{name}", date_time=date)
            entry.create_system = 3  # unix: the permissions below are honoured
            entry.external_attr = FILE_MODE << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, path.read_bytes(), compresslevel=9)
    partial.replace(target)
    return target


def main(argv: list[str] | None = None) -> int:
    """Pack the built site as ``make archive`` does; print where the archive went and its size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--site", type=Path, default=REPO / "site", help="the built site (default: site/)")
    parser.add_argument("--out", type=Path, default=REPO / "dist", help="where the zip goes (default: dist/)")
    parser.add_argument("--version", required=True, help="the site's version (CITATION.cff's), in the name")
    args = parser.parse_args(argv)
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH") or 0)
    target = pack(args.site, args.version, args.out, epoch)
    print(f"{target} ({target.stat().st_size / 2**20:.1f} MiB): unpacked, "
          f"{archive_folder(args.version)}/index.html opens in a browser from disk.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
