"""Helpers for the tests that open the built site in Debian's chromium (Playwright).

The pages are discovered, never listed: ``doc_pages()`` finds every page the
site builds from ``docs/`` (at collection time, so each page is a test case of
its own), and the tests check that the built sitemap lists the same pages.
A ``Visit`` is one page in a browser context as fresh as a new one (see
``ContextPool``) that records every console error, every request and every
failed response, so a test can assert that nothing went wrong and nothing left
the site.
"""

from __future__ import annotations

import functools
import html
import http.server
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from mkdocs.utils import yaml_load
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Locator, Page, Request, Response
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from gzip_server import QuietServer, running
from htmlscan import Page as HtmlPage
from repocopy import REPO

DOCS = REPO / "docs"
NOT_FOUND_PAGE = "404.html"
LOCAL_HOSTS = ("127.0.0.1", "localhost")
# Without the background-networking flags chromium tries to reach Google at start-up.
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 900}
SETTLE_TIMEOUT_MS = 30_000

# mkdocs-material's script has started: hooks/theme/theme_loader.js loads it on the reader's first move.
THEME_RUNNING_JS = "() => document.documentElement.getAttribute('data-fpsum-theme') === 'running'"
# race.js has set up every race: its buttons work (its drawing may wait in a template until it is near the view).
ALL_RACES_READY_JS = "() => document.querySelectorAll('.race:not([data-race-ready])').length === 0"
# The text a reader sees in the article, outside code: no TeX may be left in it.
VISIBLE_PROSE_JS = """() => {
  const article = document.querySelector('article') || document.body;
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  const parts = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest('pre, code, script, style, mjx-assistive-mml')) continue;
    if (parent.checkVisibility && !parent.checkVisibility()) continue;
    parts.push(node.textContent);
  }
  return parts.join(' ');
}"""
# Every formula is drawn: its SVG has a box on screen (or is in a part of the page not shown: a folded
# answer, a tab not selected), and every glyph it uses finds its outline in the page.
# A long display formula holds two drawings, its wide and its narrow form, one of them shown (math.css).
FORMULAS_DRAWN_JS = """() => [...document.querySelectorAll('.arithmatex')].every(f => {
  const svgs = [...f.querySelectorAll(':scope > mjx-container > svg')];
  if (!svgs.length) return false;
  const uses = svgs.flatMap(svg => [...svg.querySelectorAll('use')]);
  const found = uses.every(u => document.getElementById((u.getAttribute('xlink:href') || '').slice(1)));
  const svg = svgs.find(s => s.parentElement.checkVisibility()) || svgs[0];
  const box = svg.getBoundingClientRect();
  return found && (!f.checkVisibility() || (box.width > 0 && box.height > 0));
})"""
TEX_LEFT = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\\[A-Za-z]{2,}")
# mkdocs-material's search is ready: its web worker has indexed the site, and the (empty) search shows
# its placeholder in place of "Initializing search".  From disk there is no search: browsers refuse
# to start a worker for a file:// page.
SEARCH_READY_JS = """() => {
  const meta = document.querySelector('.md-search-result__meta');
  const config = document.getElementById('__config');
  if (!meta || !config || location.protocol === 'file:') return true;
  return meta.textContent.trim() === JSON.parse(config.textContent).translations['search.result.placeholder'];
}"""
# Blur the focused element and close the search, as mkdocs-material's own toggle does (checked, then "change").
CLEAR_FOCUS_JS = """() => {
  if (document.activeElement) document.activeElement.blur();
  const search = document.getElementById('__search');
  if (search && search.checked) { search.checked = false; search.dispatchEvent(new Event('change')); }
}"""
# Starts counting `count` rendered animation frames down in window.__framesLeft (let_frames_pass waits for 0).
FRAMES_JS = """(count) => {
  window.__framesLeft = count;
  const next = () => { if (--window.__framesLeft > 0) requestAnimationFrame(next); };
  requestAnimationFrame(next);
}"""
FRAMES_TIMEOUT_MS = 30_000


def doc_pages() -> list[str]:
    """Every page the site builds from ``docs/``, as its path in the site (``index.html``, ``a/b.html``)."""
    pages = set()
    for source in DOCS.rglob("*.md"):
        rel = source.relative_to(DOCS)
        if any(part.startswith(".") for part in rel.parts):
            continue
        if rel.name.lower() == "readme.md" and not (source.parent / "index.md").exists():
            rel = rel.with_name("index.md")
        pages.add(rel.with_suffix(".html").as_posix())
    return sorted(pages)


GUIDE_PAGES = frozenset({"index.html", "playground.html", "teaching.html", "cite.html"})
"""The nav's pages that guide rather than teach a topic: the home page, the playground, the instructors' and the
citation pages.  Every other page in the nav is a topic page (:func:`topic_pages`)."""


def nav_pages() -> list[str]:
    """The pages of ``mkdocs.yml``'s nav, in its order, as paths in the site (``formats.html``)."""
    config = yaml_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))  # mkdocs's loader: it knows !ENV

    def walk(entries: list[Any]) -> Iterator[str]:
        for entry in entries:
            target = next(iter(entry.values())) if isinstance(entry, dict) else entry
            if isinstance(target, list):
                yield from walk(target)
            elif isinstance(target, str) and target.endswith(".md"):
                yield target.removesuffix(".md") + ".html"

    return list(walk(config["nav"]))


def topic_pages() -> list[str]:
    """The pages that teach a topic, in the nav's order: each has the two boxes and the Concept, Maths and Code
    sections.  The nav is their one owner: every page of it but :data:`GUIDE_PAGES`.
    """
    return [page for page in nav_pages() if page not in GUIDE_PAGES]


def sitemap_pages(site_dir: Path, address: str) -> list[str]:
    """The pages the sitemap of a site built at ``address`` (``SITE_URL``) lists, as paths in the site."""
    namespace = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    root = ET.parse(site_dir / "sitemap.xml").getroot()
    pages = []
    for loc in root.iterfind("s:url/s:loc", namespace):
        url = (loc.text or "").strip()
        assert url.startswith(address), f"{url} is not under the site's address {address}"
        pages.append(url.removeprefix(address) or "index.html")
    return sorted(pages)


def all_pages() -> list[str]:
    """Every page a reader can land on: the site's pages and its 404 page."""
    return doc_pages() + [NOT_FOUND_PAGE]


def built_html(site_dir: Path, page: str) -> str:
    return (site_dir / page).read_text(encoding="utf-8")


def linked_sheets(site_dir: Path, page: str) -> list[str]:
    """The style sheets the built ``page``'s head links, in order, as site paths (404.html's from ``./``)."""
    head = HtmlPage(built_html(site_dir, page).split("</head>", 1)[0])
    return [re.sub(r"^(\.{1,2}/|/)+", "", attrs["href"]) for attrs in head.find("link", rel="stylesheet")]


def linked_css(site_dir: Path, page: str) -> str:
    """The text of every style sheet the built ``page`` links, in order: the rules it gets."""
    return "".join((site_dir / href).read_text(encoding="utf-8") for href in linked_sheets(site_dir, page))


def title_of(site_dir: Path, page: str) -> str:
    """The text of the built ``page``'s first heading, as a reader sees it (in the browser: :data:`TITLE_JS`)."""
    heading = built_html(site_dir, page).split("<h1", 1)[1].split(">", 1)[1].split("<", 1)[0]
    return html.unescape(heading).strip()


TITLE_JS = "() => (document.querySelector('article h1')?.firstChild?.textContent ?? '').trim()"
"""The text of the first heading of the page the browser shows, as :func:`title_of` reads it from the build."""


FORMULA = re.compile(r'class="arithmatex[ "]')
"""A formula's element in the built HTML."""


def formula_count(site_dir: Path, page: str) -> int:
    """How many formulas the built ``page`` holds, inline and display."""
    return len(FORMULA.findall(built_html(site_dir, page)))


def narrow_forms(site_dir: Path, page: str) -> int:
    """How many display formulas of the built ``page`` also carry a narrow form (hooks/content/formula_forms.py)."""
    return built_html(site_dir, page).count('class="MathJax fpsum-narrow"')


def has_formulas(site_dir: Path, page: str) -> bool:
    return formula_count(site_dir, page) > 0


def has_races(site_dir: Path, page: str) -> bool:
    return 'class="race"' in built_html(site_dir, page)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    served: list[str] | None = None

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        if self.served is not None:
            self.served.append(f"{int(code)} {self.path}")

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def serving(directory: Path, served: list[str] | None = None) -> Iterator[str]:
    """``directory`` served on localhost, as a static host would, until the block ends; the URL of its root.

    Each request answered is appended to ``served``, if given, as its status and path (``200 /index.html``;
    ``304`` for a file the browser had, and asked whether it changed).
    """
    handler = type("Handler", (_QuietHandler,), {"served": served})
    with running(QuietServer(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))) as url:
        yield url


def origin_of(url: str) -> str | None:
    """The origin whose storage a page at ``url`` uses (``file://`` for every file), or None (``data:``, ``about:``)."""
    parts = urlsplit(url)
    if parts.scheme == "file":
        return "file://"
    if parts.scheme in ("http", "https"):
        return f"{parts.scheme}://{parts.netloc}"
    return None


class ContextPool:
    """Browser contexts that closed visits gave back, wiped clean and handed to the next visit with the same options.

    A page in a new context costs chromium about 0.6 s more CPU than one in a
    context that keeps a page of the same site open: the new page then shares
    that page's renderer process instead of starting one, and the browser
    tests open more than a hundred pages.  So each context keeps its first visit's page,
    emptied (``about:blank``), and a context is only reused once its visit is
    closed: no two visits ever share one.  Before its next page opens it is
    wiped of what the last visit left, the HTTP cache (the renderer's memory
    cache too) and, for each origin that visit reached, its cookies and storage
    (local, session, IndexedDB, cache storage).  The next page makes the same
    requests as in a new context and finds nothing remembered (the palette,
    the selected tabs).
    """

    def __init__(self) -> None:
        self._idle: dict[tuple[Browser, str], list[tuple[BrowserContext, set[str]]]] = {}
        self._kept: set[BrowserContext] = set()  # the contexts whose emptied page keeps their renderer

    @staticmethod
    def _key(browser: Browser, options: dict[str, Any]) -> tuple[Browser, str]:
        return browser, repr(sorted(options.items()))

    def open_page(self, browser: Browser, options: dict[str, Any]) -> tuple[BrowserContext, Page]:
        """A page in a context made with ``options``: an idle one wiped clean, or a new one."""
        idle = self._idle.get(self._key(browser, options), [])
        if not (idle and browser.is_connected()):
            context = browser.new_context(**options)
            return context, context.new_page()
        context, origins = idle.pop()
        page = context.new_page()
        session = context.new_cdp_session(page)
        session.send("Network.clearBrowserCache")
        for origin in sorted(origins):
            session.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        session.detach()
        return context, page

    def give_back(self, browser: Browser, options: dict[str, Any], page: Page, origins: set[str]) -> None:
        """Take back the context of ``page``, a visit's, for reuse; ``origins`` are those the visit reached.

        The page is closed or, the first time, kept as the context's emptied page.
        """
        context = page.context
        context.unroute_all(behavior="ignoreErrors")
        if context in self._kept or page.is_closed():
            page.close()
        else:
            page.goto("about:blank")
            self._kept.add(context)
        self._idle.setdefault(self._key(browser, options), []).append((context, origins))


CONTEXTS = ContextPool()
"""The browser contexts of this test process's visits."""


class Visit:
    """One page in a browser context of its own, as fresh as a new one, with console errors, requests
    and failures recorded.

    ``base`` is the site root the page belongs to (``http://127.0.0.1:port/``
    or ``file:///.../site/``): any request outside it is recorded in ``outside``.
    """

    def __init__(self, browser: Browser, base: str, page: str = "", *,
                 reduced_motion: Literal["reduce", "no-preference"] = "no-preference",
                 viewport: dict[str, int] | None = None, **context_options: Any) -> None:
        self.base = base
        self._browser = browser
        self._options = {"viewport": viewport or VIEWPORT, "reduced_motion": reduced_motion, **context_options}
        self.context, self.page = CONTEXTS.open_page(browser, self._options)
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.outside: list[str] = []
        self.failed: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))
        self.context.on("request", self._request)
        self.context.on("requestfailed", self._request_failed)
        self.context.on("response", self._response)
        if page:
            self.goto(page)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text}")

    def _request(self, request: Request) -> None:
        url = request.url
        self.requests.append(url)
        if url.startswith(("data:", "blob:", "about:")):
            return
        if self.base.startswith("file:"):
            inside = url.startswith(self.base)
        else:
            inside = urlsplit(url).hostname in LOCAL_HOSTS
        if not inside:
            self.outside.append(url)

    def _request_failed(self, request: Request) -> None:
        self.failed.append(f"{request.url} ({request.failure})")

    def _response(self, response: Response) -> None:
        if response.status >= 400 and not response.url.endswith(NOT_FOUND_PAGE):
            self.failed.append(f"{response.url} (HTTP {response.status})")

    def goto(self, page: str, *, start_theme: bool = True) -> None:
        """Open ``page`` and wait until its races are set up (its formulas are in its HTML, drawn).

        Then, unless ``start_theme`` is false, start mkdocs-material's script as a reader's first
        move does, and wait until it runs (:meth:`start_theme`): the page as a reader uses it.
        """
        self.page.goto(self.base + page, wait_until="load")
        self.page.wait_for_function(ALL_RACES_READY_JS)
        if start_theme:
            self.start_theme()

    def start_theme(self) -> None:
        """A reader's first move, a turn of the mouse wheel by nothing (it scrolls nothing), starts
        mkdocs-material's script (hooks/theme/theme_loader.js); wait until it runs.
        """
        self.page.mouse.wheel(0, 0)
        self.page.wait_for_function(THEME_RUNNING_JS, timeout=SETTLE_TIMEOUT_MS)

    def settle(self) -> None:
        """Until the page has nothing left to load or run, so that even a late error has been recorded.

        The search index built (the search worker is done), and no request in
        flight for 500 ms (images, the search index).
        """
        self.page.wait_for_function(SEARCH_READY_JS, timeout=SETTLE_TIMEOUT_MS)
        self.page.wait_for_load_state("networkidle")

    def clear_focus(self) -> None:
        """Nothing focused, as on arrival: a keyboard test leaves the focus where its Tabs ended, and
        focus on the search field opens mkdocs-material's search over the page (closed here too).
        """
        self.page.evaluate(CLEAR_FOCUS_JS)

    def tex_left(self) -> list[str]:
        """TeX a reader can see in the article (outside code): there should be none."""
        return TEX_LEFT.findall(self.page.evaluate(VISIBLE_PROSE_JS))

    def problems(self) -> list[str]:
        """Console errors, failed requests and requests that left the site, so far."""
        return self.errors + self.failed + [f"request outside the site: {url}" for url in self.outside]

    def close(self) -> None:
        """Close the page; its context goes back to be wiped and reused (routes set on it removed)."""
        self.context.remove_listener("request", self._request)
        self.context.remove_listener("requestfailed", self._request_failed)
        self.context.remove_listener("response", self._response)
        origins = {origin for origin in map(origin_of, [self.base, *self.requests]) if origin}
        CONTEXTS.give_back(self._browser, self._options, self.page, origins)


def wait_until(page: Page, predicate: str, arg: Any = None, *, message: str, timeout_ms: float = 10_000) -> None:
    """Until the JavaScript ``predicate`` (function of ``arg``, or expression) holds; else fail with ``message``."""
    try:
        page.wait_for_function(predicate, arg=arg, timeout=timeout_ms)
    except PlaywrightTimeout:
        raise AssertionError(f"{message} (still not after {timeout_ms / 1000:g} s)") from None


def wait_for_clock(svg: Locator, past: float, *, message: str) -> None:
    """Until the animation clock of the SVG ``svg`` has run past ``past`` seconds; else fail with ``message``."""
    wait_until(svg.page, "([svg, past]) => svg.getCurrentTime() > past", [svg.element_handle(), past], message=message)


RESTART_FROM_S = 1000.0
"""Where :func:`assert_restarts` sets a race's clock first: far on, so that going back is plain to see."""


def assert_restarts(svg: Locator, restart: Callable[[], None], *, message: str) -> None:
    """``restart()`` (a click, a key) takes the race drawn in ``svg`` back to its start, however slow the machine.

    The clock is first set :data:`RESTART_FROM_S` on.  Restarted, it shows no
    more than the page's animation timeline (``document.timeline``) has run
    since ``restart`` began, and 0.05 s for rounding; not restarted, far more.
    A race's clock (SMIL) runs on that timeline, which moves once a frame, to
    the frame's time: on a busy machine a frame can come a few tenths of a
    second after the last, and a restart in between starts the clock from the
    last frame's time, so that the next frame finds it further on than the
    wall-clock time since the restart (0.42 s against 0.24 s, seen under
    load).  Measured on the timeline, the lag cancels out.  (Comparing with
    the clock just before would assume the two readings are less apart than
    it had run.)
    """
    began_ms = svg.evaluate("(s, t) => { s.setCurrentTime(t); return document.timeline.currentTime; }",
                            RESTART_FROM_S)
    restart()
    after, now_ms = svg.evaluate("s => [s.getCurrentTime(), document.timeline.currentTime]")
    since = (now_ms - began_ms) / 1000
    assert after <= since + 0.05, (f"{message}: the clock reads {after:.2f} s, {since:.2f} s of the page's "
                                    "timeline after the restart began")


def let_frames_pass(page: Page, count: int = 12) -> None:
    """Let the page render ``count`` animation frames (12 take about 200 ms at 60 Hz), doing nothing else.

    For the checks that something does *not* change (a paused clock, a figure
    that must stand still): no event marks "nothing happened", so time has to
    pass.  It is counted in rendered frames, the only moments an animation can
    show a change.  The wait has a timeout: a page that renders no frames (its scripts switched off,
    where no requestAnimationFrame callback ever runs) fails the test instead of hanging it.
    """
    page.evaluate(FRAMES_JS, count)
    wait_until(page, "() => window.__framesLeft <= 0", message=f"{count} animation frames never passed",
               timeout_ms=FRAMES_TIMEOUT_MS)


def show(target: Locator) -> None:
    """Make the element visible: select the content tabs that hold it, then scroll it into view.

    A race is then drawn (race.js draws it near the view); this waits for that.
    """
    target.evaluate(
        """(target) => {
          const blocks = [];
          for (let block = target.closest('.tabbed-block'); block;
               block = block.parentElement.closest('.tabbed-block')) {
            blocks.unshift(block);
          }
          for (const block of blocks) {
            const content = block.parentElement;               // .tabbed-content
            const set = content.parentElement;                 // .tabbed-set
            const index = [...content.children].indexOf(block);
            const inputs = [...set.children].filter(c => c.matches('input'));
            const labels = set.querySelectorAll(':scope > .tabbed-labels > label');
            if (!inputs[index].checked) labels[index].click();
          }
        }"""
    )
    target.scroll_into_view_if_needed()
    if target.evaluate("t => t.matches('.race')"):  # near the view, race.js draws it
        target.page.wait_for_function("race => race.hasAttribute('data-race-drawn')", arg=target.element_handle())


def draw_every_race(page: Page) -> None:
    """Bring each race near the view as a reader would (race.js draws it then), then go back to the top.

    Selects the content tabs that hold each race on the way, and the first tab of every set at the end.
    Returns once the page's CSS transitions are over: scrolling back swaps mkdocs-material's header
    title with a fade, and half-faded text would fail a contrast check.  An animation that runs on a
    box's scroll position (a table's scroll cue, layout.css) never ends, and is not waited for.
    """
    for race in page.locator(".race").all():
        show(race)
    first_tabs(page)
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_function("document.getAnimations()"
                           ".every(a => a.playState !== 'running' || !(a.timeline instanceof DocumentTimeline))")


def draw_every_block(page: Page) -> None:
    """Draw every block of the page, as a reader who scrolled through it has seen them all, until
    :func:`skip_blocks_again`.

    Off screen a block is skipped (``content-visibility`` in layout.css): it has no layout of its own to
    check, and hit tests (which axe's contrast check makes to find what lies behind a text) pass through it.
    """
    page.evaluate("""() => {
      const style = document.createElement('style');
      style.id = 'test-draw-every-block';
      style.textContent = '* { content-visibility: visible !important; }';
      document.head.appendChild(style);
      document.documentElement.getBoundingClientRect();  // lays the page out now, scripts on or off
    }""")


def skip_blocks_again(page: Page) -> None:
    """Undo :func:`draw_every_block`: blocks off screen are skipped again, for the next test of a shared page."""
    page.evaluate("document.getElementById('test-draw-every-block')?.remove()")


def first_tabs(page: Page) -> None:
    """Select the first tab of every set of content tabs, as the page first shows them."""
    page.evaluate(
        """() => document.querySelectorAll('.tabbed-set').forEach(set => {
          const first = set.querySelector(':scope > input');
          if (first && !first.checked) set.querySelector(':scope > .tabbed-labels > label').click();
        })"""
    )


def set_scheme(page: Page, scheme: str) -> None:
    """Switch the palette with its toggle until the page shows ``scheme`` (default or slate)."""
    if page.evaluate("document.body.getAttribute('data-md-color-scheme')") != scheme:
        page.locator('[data-md-component="palette"] label:visible').click()
        page.wait_for_function(f"document.body.getAttribute('data-md-color-scheme') === '{scheme}'")
