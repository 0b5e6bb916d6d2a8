"""A small HTML reader for the site tests: tags with their attributes, and visible text."""

from __future__ import annotations

import html as html_lib
import re
from html.parser import HTMLParser
from pathlib import Path

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Page(HTMLParser):
    """Every start tag as (name, attrs), and the text outside script/style/code/math."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.prose: list[str] = []
        self._skip: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        self.tags.append((tag, values))
        if tag in VOID:
            return
        classes = values.get("class", "").split()
        if self._skip or tag in ("script", "style", "code", "pre", "svg") or "arithmatex" in classes:
            self._skip.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if self._skip and self._skip[-1] == tag:
            self._skip.pop()

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.prose.append(data)

    def find(self, tag: str, **wanted: str) -> list[dict[str, str]]:
        """Attributes of every ``tag`` whose attributes include ``wanted`` (class: one of the classes)."""
        found = []
        for name, attrs in self.tags:
            if name != tag:
                continue
            ok = True
            for key, value in wanted.items():
                key = key.rstrip("_")
                if key == "class":
                    ok &= value in attrs.get("class", "").split()
                else:
                    ok &= attrs.get(key) == value
            if ok:
                found.append(attrs)
        return found

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.prose).split())


def bibtex_fields(site: Path) -> dict[str, str]:
    """The fields of the BibTeX entry shown on the built cite page, one pair of braces around a value removed.

    A value the entry wraps over lines (to fit a phone's 60 columns) is read back as one line, as BibTeX reads it.
    """
    text = html_lib.unescape(re.sub(r"<[^>]+>", "", (site / "cite.html").read_text(encoding="utf-8")))
    entry = re.search(r"@software\{.*?\n\}", text, re.S)
    assert entry, "the cite page shows a BibTeX entry"
    unwrapped = re.sub(r"\n[ \t]+(?![ \t]|\w+\s*= )", " ", entry.group(0))
    return {key: value[1:-1] for key, value in re.findall(r"^\s*(\w+)\s*= (\{.*\}),?$", unwrapped, re.M)}
