"""mkdocs-material's icons come from views of one SVG file when served, and from their data URIs on disk.

hooks/theme/icon_sprite.py says why: each data-URI icon costs the page load an
SVG document of its own.  Checked here: the sprite holds every icon of the
theme's sheet, drawn as it was; the site's sheet points each icon's
property at its view, only under ``:root.fpsum-served``; a served page
makes no data-URI SVG request (a page from disk still does) and draws every
icon exactly as the page from disk draws it from its data URI.
"""

from __future__ import annotations

import io
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import quote

import pytest
from mkdocs.exceptions import PluginError
from PIL import Image, ImageChops
from playwright.sync_api import Browser

from browsing import Visit, linked_sheets
from repocopy import REPO

sys.path.insert(0, str(REPO))
from hooks.theme.icon_sprite import SERVED, Icon, sprite, theme_icons, unescape_css  # noqa: E402

SVG_NS = "{http://www.w3.org/2000/svg}"
PHONE = {"width": 390, "height": 844}
RULE = re.compile(re.escape(f":root.{SERVED} {{") + r"(.*?)\}", re.S)
POINTER = re.compile(r'(--md-[\w-]+): url\("\.\./images/([^"#]+)#([^"]+)"\);')
EDGE_SMOOTHING = 64
"""How far (of 255) a pixel at an icon's edge may differ between the two ways of drawing it."""
THEME_PAGE = "in-practice.html"
"""A page with several of the theme's icons in its first screen (admonitions, the footer's arrows)."""

GRID_BOXES = (("24px", "24px", "contain"), ("40px", "20px", "contain"), ("40px", "20px", "100% 100%"))
"""Each icon in a square box, in a wide box (contain) and stretched over a wide box: a view shown in a box of
another shape than its own must show none of its neighbours in the sprite."""
GRID_SHEET = "assets/stylesheets/icon-grid.css"
"""Where a served page finds the grid's rules: beside the theme's sheet, whose rules use the properties too.
Chromium resolves a relative ``url()`` held in a property against the sheet that uses the property."""
GRID_JS = """([count, href]) => new Promise((done, failed) => {
  const grid = document.createElement("div");
  grid.id = "icon-grid";
  for (let i = 0; i < count; i++) {
    const box = document.createElement("span");
    box.className = `icon-${i}`;
    grid.append(box);
  }
  const link = Object.assign(document.createElement("link"), {rel: "stylesheet", href: href});
  link.addEventListener("load", () => done());
  link.addEventListener("error", () => failed(new Error(`${href} did not load`)));
  document.head.append(link);
  document.body.append(grid);
})"""


def grid_css(props: list[str]) -> str:
    """The rules of the icon grid: each property's icon in each of :data:`GRID_BOXES`, black on white."""
    rules = ["#icon-grid { position: fixed; left: 0; top: 0; z-index: 9999; background: #fff; padding: 4px;"
             " width: 380px; line-height: 0; }",
             "#icon-grid > span { display: inline-block; margin: 1px; background: #000;"
             " mask-repeat: no-repeat; mask-position: center; }"]
    boxes = [(prop, box) for prop in props for box in GRID_BOXES]
    rules += [f".icon-{i} {{ width: {w}; height: {h}; mask-size: {size}; mask-image: var({prop}); }}"
              for i, (prop, (w, h, size)) in enumerate(boxes)]
    return "\n".join(rules)


def site_icons(site_dir: Path) -> list[Icon]:
    """The icons of the theme's main sheet as the site publishes it."""
    main = linked_sheets(site_dir, "index.html")[0]
    return theme_icons((site_dir / main).read_text(encoding="utf-8"))


def served_pointers(site_dir: Path) -> dict[str, tuple[str, str]]:
    """The site's sheet's rules under ``:root.fpsum-served``: property -> (sprite file, view id)."""
    text = (site_dir / linked_sheets(site_dir, "index.html")[2]).read_text(encoding="utf-8")
    rules = RULE.findall(text)
    assert len(rules) == 1, f"{len(rules)} :root.{SERVED} rules in the site's sheet"
    return {prop: (name, view) for prop, name, view in POINTER.findall(rules[0])}


def test_css_escapes_are_undone() -> None:
    assert unescape_css(r"\3c !-- a \\ b \" \000041z") == '<!-- a \\ b " Az'


def test_a_data_uri_svg_outside_a_property_or_none_at_all_stops_the_build() -> None:
    svg = "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24'></svg>"
    icon = f'url("data:image/svg+xml;charset=utf-8,{svg}")'
    assert len(theme_icons(f":root{{--md-a-icon:{icon}}}")) == 1
    with pytest.raises(PluginError, match="1 of them"):
        theme_icons(f":root{{--md-a-icon:{icon}}}.b{{mask-image:{icon}}}")
    with pytest.raises(PluginError, match="0 data-URI"):
        theme_icons(":root{--md-a:1px}")


def test_an_icon_of_an_unknown_form_stops_the_build() -> None:
    with pytest.raises(PluginError, match="--md-x"):
        sprite([Icon("--md-x", "<svg xmlns='http://www.w3.org/2000/svg'><path d='M0 0h1'/></svg>")])


def test_the_sprite_holds_every_icon_of_the_theme_drawn_as_it_was(site_dir: Path) -> None:
    """Each view frames a nested ``<svg>`` of the icon's own size and viewBox, holding the icon's drawing."""
    icons = site_icons(site_dir)
    assert len(icons) >= 30, f"only {len(icons)} icons read from mkdocs-material's sheet"
    pointers = served_pointers(site_dir)
    assert set(pointers) == {icon.prop for icon in icons}, "properties without a view, or views of no property"
    names = {name for name, _ in pointers.values()}
    assert len(names) == 1, f"the icons point at several files: {names}"
    root = ET.parse(site_dir / "assets/images" / names.pop()).getroot()
    views = {view.get("id"): view.get("viewBox") for view in root.iter(f"{SVG_NS}view")}
    drawings = {(s.get("x"), s.get("y"), s.get("width"), s.get("height")): s for s in root.findall(f"{SVG_NS}svg")}
    boxes = []
    for icon in icons:
        view = pointers[icon.prop][1]
        assert view in views, f"{icon.prop}: no view {view!r} in the sprite"
        x, y, width, height = views[view].split()
        own = ET.fromstring(icon.svg)
        assert own.get("viewBox").split()[2:] == [width, height], f"{icon.prop}: the view's size is not the icon's"
        drawing = drawings.get((x, y, width, height))
        assert drawing is not None, f"{icon.prop}: nothing drawn where its view looks"
        assert drawing.get("viewBox") == own.get("viewBox"), f"{icon.prop}: drawn in another viewBox"
        assert [ET.tostring(child) for child in drawing] == [ET.tostring(child) for child in own], icon.prop
        boxes.append((float(x), float(y), float(width), float(height)))
    # No two different drawings within twice the largest icon of each other, in either direction.
    largest = max(max(w, h) for _, _, w, h in boxes)
    places = sorted({(x, y) for x, y, _, _ in boxes})
    for (x1, y1), (x2, y2) in zip(places, places[1:], strict=False):
        assert x2 - x1 >= 2 * largest and y2 - y1 >= 2 * largest, f"drawings at {(x1, y1)} and {(x2, y2)} too close"


def theme_loads(browser: Browser, base: str, props: list[str]) -> tuple[list[str], bool, bytes]:
    """A fresh load of :data:`THEME_PAGE` at a phone's size from ``base``: the URLs it requested (data URIs
    included: chromium's own record), whether ``<html>`` has the class, and a picture of the icons of the
    properties ``props``, each in three boxes.
    """
    visit = Visit(browser, base, viewport=PHONE)
    try:
        session = visit.context.new_cdp_session(visit.page)
        urls: list[str] = []
        session.on("Network.requestWillBeSent", lambda event: urls.append(event["request"]["url"]))
        session.send("Network.enable")
        visit.goto(THEME_PAGE, start_theme=False)
        visit.page.wait_for_load_state("networkidle")
        served = visit.page.evaluate(f"document.documentElement.classList.contains({SERVED!r})")
        loaded = list(urls)  # the page's own requests, before the grid's
        css = grid_css(props)
        if base.startswith("file:"):  # no routes from disk; its properties hold data URIs, which need no base
            href = "data:text/css;charset=utf-8," + quote(css)
        else:
            href = base + GRID_SHEET
            visit.page.route(href, lambda route: route.fulfill(body=css, content_type="text/css"))
        visit.page.evaluate(GRID_JS, [len(props) * len(GRID_BOXES), href])
        grid = visit.page.locator("#icon-grid")
        visit.page.wait_for_load_state("networkidle")
        visit.page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        picture = grid.screenshot()
        session.detach()
        return loaded, served, picture
    finally:
        visit.close()


@pytest.mark.browser
def test_a_served_page_draws_its_icons_from_the_sprite_and_a_page_from_disk_from_data_uris(
        browser: Browser, site_url: str, site_dir: Path) -> None:
    props = [icon.prop for icon in site_icons(site_dir)]
    served_urls, served_class, served_picture = theme_loads(browser, site_url, props)
    disk_urls, disk_class, disk_picture = theme_loads(browser, site_dir.as_uri() + "/", props)
    assert served_class and not disk_class, f"class {SERVED}: served {served_class}, from disk {disk_class}"
    data_svgs = [url[:80] for url in served_urls if url.startswith("data:image/svg+xml")]
    assert data_svgs == [], f"a served page still asks for data-URI icons: {data_svgs}"
    sprites = [url for url in served_urls if re.search(r"/assets/images/icons\.[0-9a-f]{8}\.svg$", url)]
    assert len(sprites) == 1, f"the sprite was requested {len(sprites)} times: {sprites}"
    assert any(url.startswith("data:image/svg+xml") for url in disk_urls), "from disk no data-URI icon was drawn"
    served_image = Image.open(io.BytesIO(served_picture)).convert("RGB")
    disk_image = Image.open(io.BytesIO(disk_picture)).convert("RGB")
    assert served_image.size == disk_image.size
    inked = sum(1 for pixel in served_image.get_flattened_data() if pixel != (255, 255, 255))
    assert inked > 0.1 * served_image.size[0] * served_image.size[1], f"the icons drew {inked} pixels: masks empty?"
    # The same drawing but for the smoothing of an edge: an icon of another shape than its box (Font Awesome's
    # 320 x 512 one in a wide box) gets its edges smoothed a little differently. A neighbour showing, another
    # icon or an empty mask differ by the whole range.
    differences = [max(pixel) for pixel in ImageChops.difference(served_image, disk_image).get_flattened_data()]
    changed = sum(1 for d in differences if d)
    assert max(differences) <= EDGE_SMOOTHING and changed <= 0.005 * len(differences), \
        (f"icons drawn from the sprite differ from their data URIs' in {changed} pixels, "
         f"by up to {max(differences)} of 255")
