"""HTML for a static figure: the light and dark SVG, a caption and its downloads."""

from __future__ import annotations

from html import escape


def static_figure_html(figure_id: str, stem: str, alt: str, caption: str, downloads: dict[str, str]) -> str:
    """A ``<figure>`` showing ``@root@/{stem}-light.svg`` or ``-dark.svg`` with the palette.

    mkdocs-material hides an image whose address ends in ``#only-dark`` in
    the light palette and vice versa.  ``downloads`` maps a label to a path
    from the site root.  Paths use ``@root@``, which hooks/figures.py
    rewrites for the page that shows the figure.
    """
    links = " · ".join(
        f'<a href="@root@/{escape(path)}" download>{escape(label)}</a>' for label, path in downloads.items()
    )
    alt_text = escape(alt, quote=True)
    return (
        f'<figure class="fpsum-figure" id="{figure_id}">\n'
        f'<img src="@root@/{stem}-light.svg#only-light" alt="{alt_text}" width="1000" height="440" loading="lazy">\n'
        f'<img src="@root@/{stem}-dark.svg#only-dark" alt="{alt_text}" width="1000" height="440" loading="lazy">\n'
        f"<figcaption>{caption}<br><span class=\"fpsum-downloads\">Download: {links}</span></figcaption>\n"
        f"</figure>\n"
    )
