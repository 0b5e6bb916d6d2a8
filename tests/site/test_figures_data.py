"""The data behind the figures: each CSV has the columns it claims and matches the model."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
import yaml

import fpsum
from figures import formats_table, site_info, snippets
from figures.build import registry
from fpsum.formats import BF16, E4M3, E5M2, FP16, Format, get_format
from fpsum.inputs import make_inputs
from fpsum.methods import running_totals
from fpsum.race import RACE_METHODS, run_race
from fpsum.sweep import run_sweep
from htmlscan import bibtex_fields

REPO = Path(__file__).resolve().parents[2]


def read_csv(site_dir: Path, name: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO((site_dir / "figures" / name).read_text())))


@pytest.mark.parametrize(("fmt", "kind"), [("fp16", "uniform"), ("bf16", "ones"), ("fp16", "normal")])
def test_race_csv_is_the_models_race(site_dir: Path, fmt: str, kind: str) -> None:
    rows = read_csv(site_dir, f"race-{fmt}-{kind}.csv")
    assert list(rows[0]) == ["inputs_added", "exact", "naive", "wide", "kahan", "pairwise"]
    race = run_race(get_format(fmt), kind)  # type: ignore[arg-type]
    assert [int(r["inputs_added"]) for r in rows] == race.steps.tolist()
    for method in RACE_METHODS:
        assert np.array_equal([float(r[method]) for r in rows], race.totals[method])
    # Independently: the exact running total of the stored inputs at every sampled count.
    values = make_inputs(kind, race.n, get_format(fmt), 0).astype(np.float64)  # type: ignore[arg-type]
    for r in rows[:: max(1, len(rows) // 20)]:
        assert float(r["exact"]) == pytest.approx(float(np.sum(values[: int(r["inputs_added"])])), rel=1e-12)


def test_error_vs_n_csv_matches_a_fresh_sweep(site_dir: Path) -> None:
    rows = read_csv(site_dir, "error-vs-n.csv")
    assert list(rows[0]) == ["format", "method", "n", "trials", "p10", "median", "p90", "exact_fraction"]
    params = next(record for record in registry() if record.id == "error-vs-n").params
    sweep = run_sweep(FP16, ("naive", "kahan"), params.n_max, params.trials, params.seed,
                            per_octave=params.per_octave)
    for method in ("naive", "kahan"):
        mine = [r for r in rows if r["format"] == "fp16" and r["method"] == method]
        assert [int(r["n"]) for r in mine] == sweep.ns.tolist()
        assert np.array_equal([float(r["median"]) for r in mine], np.median(sweep.errors[method], axis=0))
    # The stall: FP16 naive relative error at the largest n is about 1 - 2048 / (n / 2).
    last = next(r for r in rows if r["format"] == "fp16" and r["method"] == "naive" and int(r["n"]) == params.n_max)
    assert float(last["median"]) == pytest.approx(1 - 2048 / (params.n_max / 2), abs=0.01)


def test_fp32_sweep_shows_its_own_stall(site_dir: Path) -> None:
    rows = read_csv(site_dir, "error-vs-n-fp32.csv")
    naive = {int(r["n"]): float(r["median"]) for r in rows if r["method"] == "naive"}
    assert max(naive) >= 2**25
    beyond = naive[max(naive)]
    stalled_expected = 1 - 2.0**24 / (max(naive) / 2)
    assert beyond == pytest.approx(stalled_expected, abs=0.02)
    assert naive[2**20] < 1e-3


def test_formats_table_csv_is_the_model(site_dir: Path) -> None:
    rows = {r["format"]: r for r in read_csv(site_dir, "formats-table.csv")}
    assert set(rows) == {"fp16", "bf16", "fp32", "e4m3", "e5m2"}
    for name, row in rows.items():
        fmt = get_format(name)
        assert int(row["precision"]) == fmt.precision and float(row["max_finite"]) == fmt.max_finite
        assert float(row["stall_point"]) == 2.0**fmt.precision
        assert 1.6 * fmt.stall_point < float(row["mean_uniform_inputs_to_stall"]) < 2.4 * fmt.stall_point


@pytest.mark.parametrize("block", [7, 1 << 16])
@pytest.mark.parametrize("fmt", [FP16, BF16, E4M3, E5M2], ids=lambda f: f.name)
def test_inputs_to_stall_is_the_first_count_of_one_pass(fmt: Format, block: int,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Drawn and summed a block at a time, stopping at the stall: the first count at which the one-pass
    naive sum of the whole draw reaches 2**p.
    """
    monkeypatch.setattr(formats_table, "STALL_BLOCK", block)
    n = int(4 * fmt.stall_point)
    for seed in range(3):
        running = running_totals("naive", make_inputs("uniform", n, fmt, seed), fmt)
        assert formats_table.inputs_to_stall(fmt, seed) == int(np.argmax(running >= fmt.stall_point)) + 1


def test_blocked_csv_block_one_is_naive(site_dir: Path) -> None:
    rows = read_csv(site_dir, "blocked.csv")
    assert list(rows[0]) == ["block", "trials", "p10", "median", "p90", "bound"]
    blocks = [int(r["block"]) for r in rows]
    assert blocks == [2**k for k in range(len(blocks))]
    n = blocks[-1]
    for r in rows:
        b = int(r["block"])
        assert float(r["bound"]) == pytest.approx((b + n / b) * FP16.unit_roundoff)


def code_blocks(html: str) -> list[str]:
    """The text of every <code> block, tags stripped and entities decoded."""
    import html as html_lib

    return [html_lib.unescape(re.sub(r"<[^>]+>", "", b)) for b in re.findall(r"<code>(.*?)</code>", html, re.S)]


def test_snippet_outputs_on_the_page_are_what_running_them_prints(site_dir: Path) -> None:
    blocks = code_blocks((site_dir / "formats.html").read_text())
    for path in snippets.SnippetParams().files:
        source = path.read_text().strip()
        shown = [i for i, b in enumerate(blocks) if b.strip() == source]
        assert shown, f"the formats page does not show {path.name} as it is"
        printed = snippets.run_snippet(path)
        assert blocks[shown[0] + 1].strip() == printed, f"{path.name} prints {printed!r}, the page shows otherwise"


# The library calls the prose quotes (library.*) and the snippet that makes the same call (snippets.*).
SAME_CALL = {"fp16_sum": "numpy_fp16_sum", "fp16_cumsum": "numpy_fp16_cumsum", "bf16_sum": "ml_dtypes_bf16_sum",
             "bf16_sum_fp32": "bf16_sum_fp32"}


@pytest.mark.parametrize(("quoted", "snippet"), SAME_CALL.items())
def test_numbers_quoted_in_prose_are_what_the_shown_snippets_print(site_dir: Path, quoted: str, snippet: str) -> None:
    """Two pages tell the same story (one in prose, one as a program and its output): they must agree."""
    numbers = json.loads((site_dir / "data" / "numbers.json").read_text())
    printed = float(numbers[f"snippets.{snippet}"])
    assert printed == float(numbers[f"library.{quoted}"].replace(",", "")), (quoted, snippet)


def test_bibtex_and_citation_cff_agree(site_dir: Path) -> None:
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text())
    html = (site_dir / "cite.html").read_text()
    fields = bibtex_fields(site_dir)
    assert fields["title"].strip("{}") == cff["title"]
    assert fields["version"] == cff["version"] == fpsum.__version__
    assert fields["year"] == str(cff["date-released"])[:4]
    assert fields.get("url") == site_info.site_url_of_the_build()  # mkdocs's site_url, or none: test_citation.py
    assert fields["author"].strip("{}") == cff["authors"][0]["name"]
    shown = site_info.bibtex(site_info.read_citation(), site_info.site_url_of_the_build(),
                             site_info.source_commit(REPO))  # site_dir is built from the repository
    assert shown in re.sub(r"<[^>]+>", "", html).replace("&amp;", "&")


def test_compact_svg_paths_move_no_vertex_more_than_half_a_hundredth_of_a_point() -> None:
    """The static figures' SVGs round path coordinates; the drawing must stay where matplotlib put it."""
    import matplotlib.pyplot as plt

    from figures.mpl_files import DECIMAL, PATH_DATA, RC, compact_path_data

    with plt.rc_context(RC):
        fig, ax = plt.subplots(figsize=(4, 3))
        xs = np.linspace(0, 1, 2000)
        ax.plot(xs, np.cumsum(np.random.default_rng(0).standard_normal(xs.size)))  # noisy: little to simplify
        ax.plot(xs[::100], xs[::100] ** 2, "o", markersize=2)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None})
        plt.close(fig)
    original = buffer.getvalue().decode()
    compact = compact_path_data(original)
    before, after = PATH_DATA.findall(original), PATH_DATA.findall(compact)
    assert len(before) == len(after) > 3
    for old, new in zip(before, after):
        old_numbers = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", old)]
        new_numbers = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", new)]
        assert re.sub(r"[-\d.\s]", "", old) == re.sub(r"[-\d.\s]", "", new)  # the same commands
        assert np.allclose(old_numbers, new_numbers, rtol=0, atol=0.005 + 1e-9)
        assert all(len(x.split(".")[1]) <= 2 for x in DECIMAL.findall(new))
    assert sum(map(len, after)) < 0.7 * sum(map(len, before))
    assert PATH_DATA.sub("", compact) == PATH_DATA.sub("", original)  # nothing but path data changes
