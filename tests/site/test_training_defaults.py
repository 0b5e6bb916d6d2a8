"""The training page's table of what the frameworks default to: cited facts, each read at a version it names.

Nothing here is computed by the model, so the tests hold the table to how it
cites: a source pinned to the version the row names, and the one claim the
paragraph above it makes about the rows.
"""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "training.md"


def defaults_rows() -> list[str]:
    """The rows of the page's framework-defaults table, as written in the Markdown."""
    section = PAGE.read_text(encoding="utf-8").split("{#framework-defaults}", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| framework")]


def test_each_framework_default_is_cited_at_the_version_it_names() -> None:
    """A row names the version read and links to the source at that tag, never a branch that moves."""
    rows = defaults_rows()
    assert len(rows) == 6
    for row in rows:
        links = re.findall(r"\]\((https://github\.com/[^)]+)\)", row)
        assert links, row
        for link in links:
            tag = link.split("/blob/", 1)[1].split("/", 1)[0]
            assert tag not in {"main", "master"} and tag.lstrip("v") in row, (tag, row)


def test_only_megatron_lm_s_scripts_reduce_bf16_gradients_in_fp32_by_default() -> None:
    """The paragraph above the table: of the six rows, one says FP32 in its reduced-in column."""
    in_fp32 = [row.split(" | ")[0] for row in defaults_rows() if row.split(" | ")[2].startswith("FP32")]
    assert in_fp32 == ["| Megatron-LM training scripts, core_v0.19.0"]
