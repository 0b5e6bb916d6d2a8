"""The teaching page's gallery: every record of the registry that has downloads, with a link to each.

It is made from what the build made, after every record is built
(:func:`figures.build.build_all` calls :func:`gallery_files`): each record
of the registry, in its order, with each of its files that
:class:`figures.contract.FigureFiles` names and the build wrote.  So a new
figure joins the gallery by being a record, and a file a figure does not
have (a race has no dark or narrow SVG, a table only its CSV) is not listed.
A record with none of these files (a set of numbers) is left out.  The
fragment is placed like a figure's, by ``{{ figure figure-gallery }}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape

from .contract import ROOT, FigureFiles

GALLERY_ID = "figure-gallery"
"""The fragment's name (``_fragments/figure-gallery.html``): no record may have it."""

DOWNLOADS = (("svg", "SVG"), ("dark_svg", "SVG, dark"), ("narrow_svg", "narrow SVG"),
             ("narrow_dark_svg", "narrow SVG, dark"), ("png", "PNG slide"), ("csv", "CSV"))
"""The files of a record the gallery lists, as :class:`FigureFiles` fields, with their labels, in this order."""


def downloads(record_id: str, files: Mapping[str, bytes]) -> dict[str, str]:
    """Label -> site path of each of :data:`DOWNLOADS` that ``files`` holds for ``record_id`` (maybe none)."""
    paths = FigureFiles.of(record_id)
    found = ((label, str(getattr(paths, field))) for field, label in DOWNLOADS)
    return {label: path for label, path in found if path in files}


def gallery_html(record_ids: Iterable[str], files: Mapping[str, bytes]) -> str:
    """A list, one item per record with downloads: its id, then a link to each of its files.

    ``ValueError`` if a record is called :data:`GALLERY_ID`, whose fragment
    this would overwrite, or if no record has a download (a gallery of
    nothing is a broken build).
    """
    items = []
    for record_id in record_ids:
        if record_id == GALLERY_ID:
            raise ValueError(f"a record may not be called {GALLERY_ID!r}: the gallery's fragment has that name")
        found = downloads(record_id, files)
        if found:
            links = " · ".join(f'<a href="{ROOT}{escape(path)}" download>{escape(label)}</a>'
                               for label, path in found.items())
            items.append(f'<li id="gallery-{record_id}"><code>{record_id}</code>: {links}</li>')
    if not items:
        raise ValueError("no record has a download: the gallery would be empty")
    return '<ul class="fpsum-gallery">\n' + "\n".join(items) + "\n</ul>\n"


def gallery_files(record_ids: Iterable[str], files: Mapping[str, bytes]) -> dict[str, bytes]:
    """The gallery's fragment, to add to the build's files."""
    return {FigureFiles.of(GALLERY_ID).fragment: gallery_html(record_ids, files).encode()}
