"""HTML for figures: the numbered, captioned, downloadable wrapper, and static image pairs.

Paths are written from the site root as ``@root@/...`` and the figure's
number as ``@number@``; hooks/figures.py fills both in for the page that
shows the figure (numbers count up within a page).
"""

from __future__ import annotations

from html import escape

FRAGMENTS = "_fragments"  # inlined into pages by hooks/figures.py, never published as files


def fragment_path(figure_id: str) -> str:
    """Where a figure's page fragment is handed to the hook."""
    return f"{FRAGMENTS}/{figure_id}.html"


def figure_html(figure_id: str, body: str, caption: str, downloads: dict[str, str], kind: str = "Figure") -> str:
    """A ``<figure id="fig-{figure_id}">``: the body, then the number (a permalink), caption and downloads.

    ``caption`` is HTML; ``downloads`` maps a label to a path from the site root.
    """
    links = " · ".join(
        f'<a href="@root@/{escape(path)}" download>{escape(label)}</a>' for label, path in downloads.items()
    )
    anchor = f"fig-{figure_id}"
    return (
        f'<figure class="fpsum-figure" id="{anchor}" data-kind="{kind}">\n'
        f"{body.strip()}\n"
        f'<figcaption><a class="fpsum-figure__number" href="#{anchor}" title="Link to this {kind.lower()}">'
        f"{kind} @number@.</a> {caption}"
        f'<span class="fpsum-downloads">Download: {links}</span></figcaption>\n'
        f"</figure>\n"
    )


def image_pair(stem: str, alt: str, width: int, height: int) -> str:
    """The light and dark SVG of a static figure; mkdocs-material shows the one for the palette."""
    alt_text = escape(alt, quote=True)
    return "\n".join(
        f'<img src="@root@/{stem}-{name}.svg#only-{name}" alt="{alt_text}" width="{width}" height="{height}" '
        f'loading="lazy" decoding="async">'
        for name in ("light", "dark")
    )


def static_downloads(stem: str, csv: bool = True) -> dict[str, str]:
    """The usual downloads of a static figure: both SVGs, the slide PNG, the data."""
    links = {"SVG": f"{stem}-light.svg", "SVG (dark)": f"{stem}-dark.svg", "PNG (1920 px)": f"{stem}.png"}
    if csv:
        links["CSV data"] = f"{stem}.csv"
    return links


def static_fragment(figure_id: str, stem: str, size: tuple[float, float], alt: str, caption: str) -> dict[str, bytes]:
    """The page fragment of a static figure drawn at ``size`` inches: image pair, caption, the usual downloads."""
    body = image_pair(stem, alt, round(size[0] * 100), round(size[1] * 100))
    html = figure_html(figure_id, body, caption, static_downloads(stem))
    return {fragment_path(figure_id): html.encode()}
