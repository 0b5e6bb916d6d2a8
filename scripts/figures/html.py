"""HTML for figures: the numbered, captioned, downloadable wrapper, and static image pairs.

Links inside a fragment start with ``contract.ROOT`` and the figure's number
is ``contract.FIGURE_NUMBER``; hooks/tokens.py resolves both for the page
that shows the figure (numbers count up within a page).
"""

from __future__ import annotations

from html import escape

from .contract import FIGURE_NUMBER, ROOT, FigureFiles


def figure_html(figure_id: str, body: str, caption: str, downloads: dict[str, str], kind: str = "Figure") -> str:
    """A ``<figure id="fig-{figure_id}">``: the body, then the number (a permalink), caption and downloads.

    ``caption`` is HTML; ``downloads`` maps a label to a path from the site root.
    """
    links = " · ".join(
        f'<a href="{ROOT}{escape(path)}" download>{escape(label)}</a>' for label, path in downloads.items()
    )
    anchor = f"fig-{figure_id}"
    return (
        f'<figure class="fpsum-figure" id="{anchor}" data-kind="{kind}">\n'
        f"{body.strip()}\n"
        f'<figcaption><a class="fpsum-figure__number" href="#{anchor}" title="Link to this {kind.lower()}">'
        f"{kind} {FIGURE_NUMBER}.</a> {caption}"
        f'<span class="fpsum-downloads">Download: {links}</span></figcaption>\n'
        f"</figure>\n"
    )


def image_pair(files: FigureFiles, alt: str, width: int, height: int) -> str:
    """The light and dark SVG of a static figure; mkdocs-material shows the one for the palette."""
    alt_text = escape(alt, quote=True)
    return "\n".join(
        f'<img src="{ROOT}{src}#only-{name}" alt="{alt_text}" width="{width}" height="{height}" '
        f'loading="lazy" decoding="async">'
        for name, src in (("light", files.svg), ("dark", files.dark_svg))
    )


def static_downloads(files: FigureFiles) -> dict[str, str]:
    """The downloads of a static figure: both SVGs, the slide PNG, the data."""
    return {"SVG": files.svg, "SVG (dark)": files.dark_svg, "PNG (1920 px)": files.png, "CSV data": files.csv}


def static_fragment(figure_id: str, size: tuple[float, float], alt: str, caption: str) -> dict[str, bytes]:
    """The page fragment of a static figure drawn at ``size`` inches: image pair, caption, the usual downloads."""
    files = FigureFiles.of(figure_id)
    body = image_pair(files, alt, round(size[0] * 100), round(size[1] * 100))
    html = figure_html(figure_id, body, caption, static_downloads(files))
    return {files.fragment: html.encode()}
