"""The built site where readers open it: a phone, a tablet, a laptop.

The site-navigation button (the hamburger, `.primary-toggle`) and the page-contents button
(`.secondary-toggle`) are tapped on a 390-px phone (touch, mobile viewport) and an 820-px tablet,
in both editions, on the intro and on a chapter: the drawer must come on screen, visible, with
its links, and go away again when the reader taps beside it. On a desktop the hamburger
collapses and restores the sidebar, and between 992 and 1200 px the contents button opens the
contents. Every page has one button of each kind: both themes' scripts bind only the first
(pydata-sphinx-theme#2451, sphinx-book-theme#988), which is why a hidden copy used to come first
and leave every button dead.

Also what the first screen of a phone shows (a chapter title that takes a fraction of it and
breaks between words, in Korean too), the intro's links to every chapter page of the toc in both
editions, and figures whose alt text says what they show rather than naming their file.

One browser (the session's `browser`), one served site, one tab per width.
"""

from __future__ import annotations

import contextlib
import html
import re
from html.parser import HTMLParser
from pathlib import PurePosixPath
from urllib.parse import urljoin, urlparse

import pytest
from conftest import toc_files
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from site_helpers import HTML, site_pages

INTROS = {"en": "book/intro.html", "ko": "ko/book/ko/intro.html"}
# The intros and a chapter (the lightest) of each edition.
DRAWER_PAGES = [
    INTROS["en"],
    "notebooks/03_lazy_modules.html",
    INTROS["ko"],
    "ko/notebooks/ko/03_lazy_modules.html",
]
# Long titles: DistributedDataParallel, and the Korean title that broke inside a word.
TITLE_PAGES = [
    "notebooks/07_buffers_and_ddp.html",
    "ko/notebooks/ko/02_parameter_initialization.html",
    "ko/notebooks/ko/07_buffers_and_ddp.html",
]
PHONE = (390, 844)
TABLET = (820, 1180)
DESKTOP = (1366, 900)
NARROW_DESKTOP = (1100, 800)


_NO_TRANSITIONS = """*, *::before, *::after, ::backdrop {
  transition-duration: 0s !important; transition-delay: 0s !important;
  animation-duration: 0s !important; animation-delay: 0s !important; }"""


class Device:
    """One tab of a given size (touch and a mobile viewport below 992 px), its console errors
    gathered over every page it loads."""

    def __init__(self, browser, size: tuple[int, int], base: str):
        touch = size[0] < 992
        self.size = size
        self.base = base
        self.context = browser.new_context(
            viewport={"width": size[0], "height": size[1]},
            is_mobile=touch,
            has_touch=touch,
        )
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on(
            "console",
            lambda m: m.type == "error" and self.errors.append(f"{m.text}"),
        )
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def open(self, path: str):
        self.page.goto(urljoin(self.base, path), wait_until="load")
        # Drawers slide and the sidebar fades in 0.2 to 0.4 s: where they end up is what is
        # checked, so the transitions are cut to nothing rather than waited for.
        self.page.add_style_tag(content=_NO_TRANSITIONS)
        return self.page

    def press(self, selector: str) -> None:
        """Tap (touch devices) or click the one visible element `selector` matches."""
        button = self.page.locator(f"{selector}:visible")
        assert button.count() == 1, f"{button.count()} visible {selector}"
        if self.size[0] < 992:
            button.tap()
        else:
            button.click()


@pytest.fixture(scope="module")
def device(browser, base_url):
    made: dict[tuple[int, int], Device] = {}

    def get(size: tuple[int, int]) -> Device:
        if size not in made:
            made[size] = Device(browser, size, base_url)
        made[size].errors.clear()
        return made[size]

    yield get
    for each in made.values():
        each.context.close()


# Where a panel is: its box, whether it is visible and inside the viewport, and whether its first
# link is too (an open <dialog> that is empty, or a sidebar slid off-screen, fails this).
_PANEL_JS = """sel => {
  const el = document.querySelector(sel);
  if (!el) return null;
  const box = el.getBoundingClientRect();
  const W = window.innerWidth, H = window.innerHeight;
  const inside = b => b.width > 0 && b.height > 0 && b.left >= -1 && b.right <= W + 1
    && b.top >= -1 && b.top < H;
  const link = [...el.querySelectorAll('a[href]')].find(a => a.getBoundingClientRect().width > 0);
  return {
    open: el.open === undefined ? null : el.open,
    box: [Math.round(box.left), Math.round(box.top), Math.round(box.width), Math.round(box.height)],
    shown: el.checkVisibility({visibilityProperty: true, opacityProperty: true}) && inside(box),
    link_shown: !!link && link.checkVisibility({visibilityProperty: true}) &&
      inside(link.getBoundingClientRect()),
  };
}"""


def panel(page, selector: str) -> dict:
    return page.evaluate(_PANEL_JS, selector)


def settle(page, selector: str, want: bool) -> dict:
    """The panel once it is (or is not) shown: drawers slide in and the sidebar fades out."""
    with contextlib.suppress(PlaywrightTimeout):  # the caller's assertion says where it is
        page.wait_for_function(
            f"sel => ({_PANEL_JS})(sel)?.shown === {str(want).lower()}",
            arg=selector,
            timeout=2000,
        )
    return panel(page, selector)


@pytest.mark.parametrize("size", [PHONE, TABLET], ids=["phone", "tablet"])
@pytest.mark.parametrize("path", DRAWER_PAGES)
def test_drawers_open_on_screen_and_close(device, path, size):
    dev = device(size)
    page = dev.open(path)
    width, height = size
    for which, beside in (("primary", width - 10), ("secondary", 10)):
        drawer = f"#pst-{which}-sidebar-modal"
        for attempt in ("first", "again"):  # a drawer closed once opens again
            dev.press(f"button.{which}-toggle")
            opened = settle(page, drawer, True)
            assert opened["open"] and opened["shown"] and opened["link_shown"], (
                f"{which} drawer after the {attempt} tap: {opened}"
            )
            page.touchscreen.tap(beside, height // 2)  # the backdrop beside the drawer
            closed = settle(page, drawer, False)
            assert not closed["open"] and not closed["shown"], f"{which} drawer after a tap beside it: {closed}"
            sidebar = settle(page, f"#pst-{which}-sidebar", False)
            assert not sidebar["shown"], f"{which} sidebar left on screen: {sidebar}"
    assert dev.errors == []


@pytest.mark.parametrize("path", [INTROS["en"], INTROS["ko"]])
def test_desktop_hamburger_collapses_and_restores_the_sidebar(device, path):
    dev = device(DESKTOP)
    page = dev.open(path)
    sidebar = "#pst-primary-sidebar"
    assert panel(page, sidebar)["shown"]
    article = page.locator(".bd-article").bounding_box()["width"]
    dev.press("button.primary-toggle")
    hidden = settle(page, sidebar, False)
    assert not hidden["shown"], hidden
    wider = page.locator(".bd-article").bounding_box()["width"]
    assert wider > article, "the article did not take the sidebar's room"
    dev.press("button.primary-toggle")
    shown = settle(page, sidebar, True)
    assert shown["shown"] and shown["link_shown"], shown
    assert not panel(page, "#pst-primary-sidebar-modal")["open"]
    assert dev.errors == []


@pytest.mark.parametrize("path", [DRAWER_PAGES[1], DRAWER_PAGES[3]])
def test_contents_button_opens_the_contents_below_1200_px(device, path):
    """From 992 px the chapter list is a sidebar, but the page's contents still hide until 1200."""
    dev = device(NARROW_DESKTOP)
    page = dev.open(path)
    drawer = "#pst-secondary-sidebar-modal"
    assert not panel(page, "#pst-secondary-sidebar")["shown"]
    dev.press("button.secondary-toggle")
    opened = settle(page, drawer, True)
    assert opened["open"] and opened["shown"] and opened["link_shown"], opened
    page.keyboard.press("Escape")
    closed = settle(page, drawer, False)
    assert not closed["open"] and not closed["shown"], closed
    assert dev.errors == []


def test_one_toggle_of_each_kind_per_page():
    """Both themes' scripts bind the first `.primary-toggle` and `.secondary-toggle` only, so a
    second (hidden) copy before the visible one leaves the visible one dead."""
    toggle = re.compile(r'<button class="[^"]*\b(primary|secondary)-toggle\b')
    counts = {}
    for path in site_pages():
        found = toggle.findall((HTML / path).read_text(encoding="utf-8"))
        counts[path] = (found.count("primary"), found.count("secondary"))
    wrong = {p: c for p, c in counts.items() if c[0] != 1 or c[1] > 1}
    assert wrong == {}, "pages with other than one toggle of a kind: " + str(wrong)


# --- The first screen of a phone -------------------------------------------------------------------

# The words of the title (its permalink aside) that the browser laid out over two lines.
_SPLIT_WORDS_JS = """h => {
  const split = [];
  const walker = document.createTreeWalker(h, NodeFilter.SHOW_TEXT);
  for (let node; (node = walker.nextNode()); ) {
    if (node.parentElement.closest('a.headerlink')) continue;
    for (const m of node.data.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const lines = new Set([...range.getClientRects()].filter(r => r.width > 0)
        .map(r => Math.round(r.top)));
      if (lines.size > 1) split.push(m[0]);
    }
  }
  return split;
}"""


@pytest.mark.parametrize("path", TITLE_PAGES)
def test_chapter_title_fits_the_first_screen_of_a_phone(device, path):
    dev = device(PHONE)
    page = dev.open(path)
    title = page.locator(".bd-article h1").first
    box = title.bounding_box()
    assert box["height"] <= 0.2 * PHONE[1], f"the title takes {box['height']:.0f} px of a {PHONE[1]}-px screen"
    assert box["x"] + box["width"] <= PHONE[0]
    assert title.evaluate(_SPLIT_WORDS_JS) == [], "a word of the title breaks over two lines"
    assert dev.errors == []


def test_korean_words_break_only_between_words():
    """Hangul may break between any two syllables; Korean typesetting breaks between words."""
    css = (HTML / "_static" / "book.css").read_text(encoding="utf-8")
    rule = re.search(r'html\[lang="ko"\] \.bd-article :is\(([^)]*)\)[^{]*\{([^}]*)\}', css)
    assert rule, "no keep-all rule for the Korean article"
    assert {"p", "li", "h1", "h2", "h3"} <= {s.strip() for s in rule.group(1).split(",")}
    assert "word-break: keep-all" in rule.group(2)


# --- The intro's chapter list ---------------------------------------------------------------------


class _Links(HTMLParser):
    """The links of the first ordered list in the article, with their text, and every <img>."""

    def __init__(self):
        super().__init__()
        self.depth = 0
        self.done = False
        self.links: list[list[str]] = []
        self.images: list[dict] = []
        self._in_link = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs)
        if tag == "ol" and not self.done:
            self.depth += 1
        if tag == "a" and self.depth and attrs.get("href"):
            self.links.append([attrs["href"], ""])
            self._in_link = True

    def handle_endtag(self, tag):
        if tag == "ol" and self.depth:
            self.depth -= 1
            self.done = self.depth == 0
        if tag == "a":
            self._in_link = False

    def handle_data(self, data):
        if self._in_link:
            self.links[-1][1] += data


def parsed(path: str, whole: bool = False) -> _Links:
    """The page from its article on (the sidebars' lists come before it), or all of it."""
    links = _Links()
    text = (HTML / path).read_text(encoding="utf-8")
    links.feed(text if whole else text[text.index('<article class="bd-article"') :])
    return links


def page_title(path: str) -> str:
    """A page's title as its <title> gives it ("3.1. Building on the meta device — Inside
    nn.Module"), without the book's name and the section number."""
    text = (HTML / path).read_text(encoding="utf-8")
    title = html.unescape(re.search(r"<title>(.*?)</title>", text, re.DOTALL).group(1))
    return re.sub(r"^[\d.]+\s+", "", title.rsplit(" — ", 1)[0]).strip()


def chapter_pages(edition: str) -> list[str]:
    pages = [f"{f}.html" for f in toc_files() if f.startswith("notebooks/")]
    if edition == "ko":
        pages = [p.replace("notebooks/", "ko/notebooks/ko/") for p in pages]
    return pages


@pytest.mark.parametrize("edition", INTROS)
def test_intro_links_every_chapter_page(edition):
    """The intro's list of chapters links every chapter page of _toc.yml, in its order, each by
    the page's own title."""
    intro = INTROS[edition]
    links = parsed(intro).links
    targets = [str(PurePosixPath(urlparse(urljoin(f"/{intro}", href)).path).relative_to("/")) for href, _ in links]
    assert targets == chapter_pages(edition)
    for (_, text), target in zip(links, targets, strict=True):
        assert " ".join(text.split()) == page_title(target), target


# --- Figures ----------------------------------------------------------------------------------------

_FILE_NAME = re.compile(r"(^|/)[^/\s]+\.(png|svg|jpe?g|gif|webp)$|_images/", re.IGNORECASE)


def test_every_image_has_alt_text_that_is_not_its_file():
    bad = {}
    for path in site_pages():
        for image in parsed(path, whole=True).images:
            alt = (image.get("alt") or "").strip()
            if not alt or _FILE_NAME.search(alt):
                bad.setdefault(path, []).append(image.get("src"))
    assert bad == {}, f"images without a description: {bad}"


def test_figure_alt_text_is_its_caption_in_the_page_s_language():
    figures = [p for p in site_pages() if "<figure" in (HTML / p).read_text(encoding="utf-8")]
    assert {p.startswith("ko/") for p in figures} == {True, False}
    for path in figures:
        text = (HTML / path).read_text(encoding="utf-8")
        for alt, caption in re.findall(
            r'<figure[^>]*>.*?<img alt="([^"]*)".*?<span class="caption-text">(.*?)</span>',
            text,
            re.DOTALL,
        ):
            plain = " ".join(html.unescape(re.sub(r"<[^>]+>", "", caption)).split())
            assert html.unescape(alt) == plain, path
