"""The figure cache: an entry is whole or absent, and a builder cannot write outside the site."""

from __future__ import annotations

from pathlib import Path

import pytest

from figures import cache
from figures.cache import Built, lookup, store


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setattr(cache, "CACHE_DIR", folder)
    return folder


def test_a_stored_entry_reads_back_and_leaves_no_temporary_files(cache_dir: Path) -> None:
    built = Built(files={"figures/a.svg": b"<svg/>", "figures/deep/b.csv": b"x\n1\n"}, numbers={"a.n": "1,024"})
    store("k1", "a", built)
    assert lookup("k1") == built
    assert not [p for p in cache_dir.rglob("*") if p.name.endswith(".tmp")]
    store("k1", "a", built)  # storing the same entry again (another build did it too) changes nothing
    assert lookup("k1") == built


def test_an_entry_without_its_done_marker_is_a_miss(cache_dir: Path) -> None:
    store("k2", "b", Built(files={"figures/b.svg": b"<svg/>"}))
    (cache_dir / "k2" / "done").unlink()
    assert lookup("k2") is None
    assert lookup("never-stored") is None


@pytest.mark.parametrize("name", ["../escape.svg", "/etc/passwd", "figures/../../x"])
def test_a_file_outside_the_site_is_refused_and_nothing_is_written(cache_dir: Path, name: str) -> None:
    with pytest.raises(ValueError, match="outside the site"):
        store("k3", "bad", Built(files={"figures/ok.svg": b"<svg/>", name: b"x"}))
    assert not (cache_dir / "k3").exists()
