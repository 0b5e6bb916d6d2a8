"""Every figure's smallest text, as chromium draws it: at least 11 CSS px, and only the files the screen needs.

For a static figure the image the browser chose (``currentSrc``: the narrow or
the wide layout, light or dark) is loaded into the page as an SVG at the width
the image is shown, and the browser gives each drawn text's font size (text and
tspan, each its own size) times the scale its transforms and the viewBox give it
(``getScreenCTM``).  A race is an inline SVG: its texts are measured where they
are.  On a phone no wide layout may be fetched, and no file of the other palette.
Used by ``test_fits_screen`` (each screen, light) and ``test_figure_text`` (dark).
"""

from __future__ import annotations

import re
from pathlib import Path

from browsing import DOCS, Visit, doc_pages, show
from figures.gallery import GALLERY_ID

MIN_TEXT_PX = 11.0
"""The issue's floor, in CSS px (written here, not imported from the builders it tests)."""


def _source(page: str) -> Path:
    return DOCS / Path(page).with_suffix(".md")


FIGURE_PAGES = [page for page in doc_pages()
                if re.search(rf"\{{\{{ figure (?!{GALLERY_ID}\b)", _source(page).read_text(encoding="utf-8"))]
"""The pages that place a figure (or table), from their Markdown; the teaching page's gallery, placed the same
way, is a list of files, not a figure."""

# The smallest drawn text of one SVG element tree, in CSS px: each text or tspan that holds text of its
# own and is drawn (no ancestor with display none: checkVisibility does not see that inside an SVG, and
# a race hides its other layout so), its computed font size times the scale from its user units to the
# screen.
SMALLEST_IN_SVG_JS = """() => {
const drawn = (el) => {
  if (getComputedStyle(el).visibility === 'hidden') return false;
  for (let e = el; e; e = e.parentElement) if (getComputedStyle(e).display === 'none') return false;
  return true;
};
window.__smallestInSvg = (svg) => {
  let smallest = null;
  for (const el of svg.querySelectorAll('text, tspan')) {
    const own = [...el.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
    if (!own || !drawn(el)) continue;
    const m = el.getScreenCTM();
    if (!m) continue;
    const px = parseFloat(getComputedStyle(el).fontSize) * Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
    if (smallest === null || px < smallest.px) smallest = {px, text: el.textContent.trim()};
  }
  return smallest;
};
}"""

# For one <figure>: the smallest text of the image it shows (its SVG loaded at the image's shown width)
# or of its inline race SVG; null for a figure with neither (a table).
FIGURE_TEXT_JS = """
async (figure) => {
  const race = figure.querySelector('.race > svg');
  if (race) {
    const smallest = window.__smallestInSvg(race);
    return smallest && {...smallest, src: 'inline race', width: race.getBoundingClientRect().width};
  }
  const img = [...figure.querySelectorAll('img')].find(i => i.checkVisibility());
  if (!img) return null;
  const src = img.currentSrc;
  const width = img.getBoundingClientRect().width;
  const text = await (await fetch(src)).text();
  const drawn = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
  const svg = document.importNode(drawn, true);
  const [, , boxWidth, boxHeight] = svg.getAttribute('viewBox').split(/[ ,]+/).map(Number);
  svg.setAttribute('width', `${width}px`);
  svg.setAttribute('height', `${width * boxHeight / boxWidth}px`);
  const holder = document.createElement('div');
  holder.style.cssText = 'position: absolute; left: 0; top: 0; opacity: 0; pointer-events: none;';
  holder.appendChild(svg);
  document.body.appendChild(holder);
  try {
    const smallest = window.__smallestInSvg(svg);
    return smallest && {...smallest, src, width};
  } finally {
    holder.remove();
  }
}
"""

FIGURE_SVG = re.compile(r"/figures/([a-z0-9-]+?)(-narrow)?(-dark)?\.svg$")



def figure_text_problems(visit: Visit, site_dir: Path, phone: bool, scheme: str) -> list[str]:
    """What is wrong with the figures of the page open in ``visit``, shown in palette ``scheme``.

    Each figure is shown (its content tab selected, scrolled to, a race drawn) and its smallest text
    measured: one under :data:`MIN_TEXT_PX` is a problem, as is a page that places a figure and shows
    none, an SVG of the other palette fetched, on a phone (``phone``) a wide layout fetched where a
    narrow one exists, and any console error or failed request.
    """
    page = visit.page
    page.evaluate(SMALLEST_IN_SVG_JS)
    measured, problems = 0, []
    for figure in page.locator("figure.fpsum-figure").all():
        if figure.locator("img, .race").count() == 0:
            continue  # a table
        race = figure.locator(".race")
        show(race if race.count() else figure)  # a race is drawn once near the view: show waits for it
        image = figure.locator("img:visible")
        if image.count():
            image.first.scroll_into_view_if_needed()
            page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.first.element_handle())
        found = figure.evaluate(FIGURE_TEXT_JS)
        if found is None:
            problems.append(f"{figure.get_attribute('id')}: no drawn text found")
            continue
        measured += 1
        if found["px"] < MIN_TEXT_PX:
            problems.append(f"{figure.get_attribute('id')}: {found['text']!r} at {found['px']:.2f} px, under "
                            f"{MIN_TEXT_PX} ({found['src']} shown {found['width']:.0f} px wide)")
    if not measured:
        problems.append("the page places a figure, and none was measured")
    fetched = [FIGURE_SVG.search(url.split("#")[0]) for url in visit.requests]
    svgs = [(match[1], bool(match[2]), bool(match[3])) for match in fetched if match]
    if phone:
        wide = sorted({figure_id for figure_id, narrow, _ in svgs
                       if not narrow and (site_dir / "figures" / f"{figure_id}-narrow.svg").exists()})
        if wide:
            problems.append(f"a phone fetched the wide layout of {wide}")
    other = sorted({figure_id for figure_id, _, is_dark in svgs if is_dark != (scheme == "slate")})
    if other:
        problems.append(f"the {scheme} palette fetched the other palette's SVG of {other}")
    return problems + visit.problems()
