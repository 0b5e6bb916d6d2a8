"""HTML for figures: the numbered, captioned, downloadable wrapper, and static images that fit the screen.

Links inside a fragment start with ``contract.ROOT`` and the figure's number
is ``contract.FIGURE_NUMBER``; hooks/content/tokens.py resolves both for the page
that shows the figure (numbers count up within a page).
"""

from __future__ import annotations

from html import escape

from .contract import FIGURE_NUMBER, ROOT, FigureFiles
from .variants import NARROW_MEDIA, Sizes

OPEN_CLASS = "fpsum-figure__open"
"""The class of the link around a figure's ``<picture>`` (figures.css, assets/javascripts/figure_open.js)."""

MORE_SUMMARY = "How to read it"
"""The summary of the fold that holds the rest of a caption."""


def figure_html(figure_id: str, body: str, caption: str, downloads: dict[str, str], kind: str = "Figure",
                more: str = "") -> str:
    """A ``<figure id="fig-{figure_id}">``: the body, then the number (a permalink), caption and downloads.

    ``caption`` is HTML, short enough to read on a phone beside the figure;
    ``more`` (HTML, optional) is the rest, folded in a ``<details>`` below it
    that a reader opens with one tap or click, on every screen.  ``downloads``
    maps a label to a path from the site root.
    """
    links = " · ".join(
        f'<a href="{ROOT}{escape(path)}" download>{escape(label)}</a>' for label, path in downloads.items()
    )
    anchor = f"fig-{figure_id}"
    fold = (f'<details class="fpsum-figure__more"><summary>{MORE_SUMMARY}</summary>{more.strip()}</details>'
            if more.strip() else "")
    return (
        f'<figure class="fpsum-figure" id="{anchor}" data-kind="{kind}">\n'
        f"{body.strip()}\n"
        f'<figcaption><a class="fpsum-figure__number" href="#{anchor}" title="Link to this {kind.lower()}">'
        f"{kind} {FIGURE_NUMBER}.</a> {caption.strip()}{fold}"
        f'<span class="fpsum-downloads">Download: {links}</span></figcaption>\n'
        f"</figure>\n"
    )


def image_pair(files: FigureFiles, alt: str, sizes: Sizes) -> str:
    """The figure in both palettes, each a ``<picture>`` whose narrow layout a screen under
    ``variants.NARROW_MEDIA`` takes instead of the wide one, each a link that opens its palette's SVG.

    The link's address is the wide SVG of its palette; at the moment it is
    followed, assets/javascripts/figure_open.js sets it to the file the
    ``<picture>`` shows (:data:`OPEN_CLASS`), so a phone opens the narrow
    layout.  Without JavaScript a phone opens the wide one.  A dark SVG asks
    for a dark canvas (:func:`figures.mpl_dark.dark_svg`), so opened on its
    own its light text is not shown on white.  mkdocs-material hides the
    image of the other palette (``#only-light``, ``#only-dark``) and
    figures.css its link, so neither its file is fetched (the images load
    lazily) nor its link reached with the keyboard.
    """
    alt_text = escape(alt, quote=True)
    wide, narrow, _ = sizes.layouts()
    (width, height), (narrow_width, narrow_height) = wide.html_size, narrow.html_size
    pictures = []
    for name, src, narrow_src in (("light", files.svg, files.narrow_svg),
                                  ("dark", files.dark_svg, files.narrow_dark_svg)):
        pictures.append(
            f'<a class="{OPEN_CLASS} {OPEN_CLASS}--{name}" href="{ROOT}{src}" '
            f'title="Open the figure on its own, large">'
            f'<picture><source media="{NARROW_MEDIA}" srcset="{ROOT}{narrow_src}" width="{narrow_width}" '
            f'height="{narrow_height}">'
            f'<img src="{ROOT}{src}#only-{name}" alt="{alt_text}" width="{width}" height="{height}" '
            f'loading="lazy" decoding="async"></picture></a>'
        )
    return "\n".join(pictures)


def static_downloads(files: FigureFiles) -> dict[str, str]:
    """The downloads of a static figure: the wide SVG in both palettes, the slide PNG, the data."""
    return {"SVG": files.svg, "SVG (dark)": files.dark_svg, "PNG (1920 × 1080)": files.png, "CSV data": files.csv}


def static_fragment(figure_id: str, sizes: Sizes, alt: str, caption: str, more: str = "") -> dict[str, bytes]:
    """The page fragment of a static figure drawn at ``sizes``: its pictures, caption (and the fold
    ``more``, see :func:`figure_html`), the usual downloads.
    """
    files = FigureFiles.of(figure_id)
    body = image_pair(files, alt, sizes)
    html = figure_html(figure_id, body, caption, static_downloads(files), more=more)
    return {files.fragment: html.encode()}

