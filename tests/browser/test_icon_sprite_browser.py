"""mkdocs-material's icons in chromium: from the sprite when served, from their data URIs on disk."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path
from urllib.parse import quote

from PIL import Image, ImageChops
from playwright.sync_api import Browser

from browsing import Visit
from repocopy import REPO
from site_icons import site_icons

sys.path.insert(0, str(REPO))
from hooks.theme.icon_sprite import SERVED

PHONE = {"width": 390, "height": 844}


EDGE_SMOOTHING = 64


THEME_PAGE = "in-practice.html"


GRID_BOXES = (("24px", "24px", "contain"), ("40px", "20px", "contain"), ("40px", "20px", "100% 100%"))


GRID_SHEET = "assets/stylesheets/icon-grid.css"


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
