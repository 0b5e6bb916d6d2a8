"""What a page's head makes the browser wait for before it paints: three style sheets, no script.

Each style sheet linked in the head, and each script loaded there without
``async`` or ``defer``, holds back the first paint until it has arrived
(on a phone's network, a round trip or more each).  The site's own sheets
reach a page joined into one (``hooks/content/one_stylesheet.py``), named by its
text's hash, and the offline plugin's shim loads, from disk only, just
before mkdocs-material's bundle (``hooks/theme/theme_loader.js``, tested in
``test_theme_start``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import yaml
from mkdocs.exceptions import PluginError

from browsing import all_pages, built_html, linked_sheets
from htmlscan import Page
from repocopy import REPO

sys.path.insert(0, str(REPO))
from hooks.content.one_stylesheet import FOLDER, join, joined_name  # noqa: E402

PAGES = all_pages()
THEME_SHEETS = (re.compile(r"assets/stylesheets/main\.[0-9a-f]{8}\.min\.css$"),
                re.compile(r"assets/stylesheets/palette\.[0-9a-f]{8}\.min\.css$"))
JOINED = re.compile(r"assets/stylesheets/extra\.[0-9a-f]{8}\.css$")
GENERATED_FIRST = "looks.css"
"""tokens.py puts the generated sheet of the method looks before mkdocs.yml's sheets."""


class _Loader(yaml.SafeLoader):
    """mkdocs.yml's own tags (``!ENV``) read as nothing: only its plain lists matter here."""


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)


def listed_sheets() -> list[str]:
    """mkdocs.yml's ``extra_css``, in its order."""
    config = yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)  # noqa: S506 (safe loader)
    return list(config["extra_css"])


def head_of(html: str) -> Page:
    return Page(html.split("</head>", 1)[0])


@pytest.mark.parametrize("page", PAGES)
def test_a_page_head_waits_for_three_style_sheets_and_no_script(site_dir: Path, page: str) -> None:
    sheets = linked_sheets(site_dir, page)
    assert len(sheets) == 3, f"{page} links {len(sheets)} style sheets: {sheets}"
    for href, pattern in zip(sheets, (*THEME_SHEETS, JOINED), strict=True):
        assert pattern.search(href), f"{page}: {href} where {pattern.pattern} was expected"
    blocking = [attrs["src"] for attrs in head_of(built_html(site_dir, page)).find("script")
                if "src" in attrs and "async" not in attrs and "defer" not in attrs
                and attrs.get("type", "text/javascript") in ("text/javascript", "module")]
    assert blocking == [], f"{page}: scripts in the head hold back the first paint: {blocking}"


def test_the_joined_sheet_holds_every_part_in_order_and_only_it_is_published(site_dir: Path) -> None:
    href = linked_sheets(site_dir, "index.html")[2]
    sheet = site_dir / href
    text = sheet.read_text(encoding="utf-8")
    assert sheet.relative_to(site_dir).as_posix() == joined_name(text), "the name is not its text's hash"
    assert {linked_sheets(site_dir, page)[2] for page in PAGES} == {href}
    parts = [GENERATED_FIRST] + [Path(path).name for path in listed_sheets()]
    heads = [f"/* ---- {name} ---- */\n" for name in parts]
    starts = [text.find(head) for head in heads]
    assert -1 not in starts and starts == sorted(starts) and starts[0] == 0, dict(zip(parts, starts, strict=True))
    for path, start in zip(listed_sheets(), starts[1:], strict=True):
        source = (REPO / "docs" / path).read_text(encoding="utf-8").rstrip()
        assert text.find(source) == start + len(f"/* ---- {Path(path).name} ---- */\n"), f"{path} not joined whole"
    assert "--look-naive:" in text[:starts[1]], "the looks' generated colours are not first"
    published = {p.name for p in (site_dir / FOLDER).glob("*.css")}
    assert published.isdisjoint(parts), f"parts published on their own: {published & set(parts)}"


def test_joining_keeps_order_and_names_each_part() -> None:
    text = join([(f"{FOLDER}/b.css", "b { x: 1 }\n\n"), (f"{FOLDER}/a.css", "a { y: 2 }")])
    assert text == "/* ---- b.css ---- */\nb { x: 1 }\n\n/* ---- a.css ---- */\na { y: 2 }\n"
    assert joined_name(text) != joined_name(text + " "), "an edit must give a new name"


@pytest.mark.parametrize("rule", ['@import "x.css";', '@charset "utf-8";', "@namespace svg url(x);"])
def test_a_rule_only_valid_at_the_top_stops_the_build(rule: str) -> None:
    with pytest.raises(PluginError, match=rf"{FOLDER}/late\.css holds an {rule.split()[0]} rule"):
        join([(f"{FOLDER}/first.css", "a {}"), (f"{FOLDER}/late.css", rule)])


def test_a_part_from_another_folder_stops_the_build() -> None:
    with pytest.raises(PluginError, match=r"assets/other/x\.css is not in assets/stylesheets/"):
        join([("assets/other/x.css", "a { background: url(y.png) }")])


@pytest.mark.parametrize("addressed", [False, True], ids=["no site_url", "site_url"])
def test_the_sheets_addresses_are_made_absolute_only_for_instant_navigation(site_dir: Path, addressed: bool,
                                                                            request: pytest.FixtureRequest) -> None:
    """Setting a sheet's address costs the head main-thread time before the first paint: only where instant
    navigation (on only with ``site_url``: hooks/theme/address.py) needs the addresses absolute.
    """
    site = request.getfixturevalue("addressed_site") / "site" if addressed else site_dir
    head = built_html(site, "index.html").split("</head>", 1)[0]
    assert ("link.href = link.href" in head) == addressed
