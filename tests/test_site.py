"""The built site in a real browser (Debian's Chromium via Playwright), offline.

Every request to a host other than 127.0.0.1 is blocked, as it would be for a reader without a
network; the pages must still load cleanly, render their math and find words in search.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest
import yaml
from conftest import toc_files
from playwright.sync_api import sync_playwright
from site_helpers import (
    CHROMIUM,
    CHROMIUM_ARGS,
    HTML,
    ROOT,
    is_local,
    served_site,
    site_pages,
)

PAGES = site_pages()
NOTEBOOK_PAGES = [p for p in PAGES if p.startswith("notebooks/")]
MATH_PAGES = [
    p for p in PAGES if 'class="math' in (HTML / p).read_text(encoding="utf-8")
]
AXE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text()


@pytest.fixture(scope="module")
def base_url():
    assert (HTML / "index.html").exists(), "build the site first: make book"
    with served_site() as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


class Visit:
    """One page load with everything that went wrong on the way."""

    def __init__(self, browser, url: str):
        self.context = browser.new_context()
        self.blocked: list[str] = []
        self.failed: list[str] = []
        self.console_errors: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.console_errors.append(str(exc)))
        self.page.on("requestfailed", self._failed)
        self.page.on("response", self._response)
        self.page.goto(url, wait_until="load")
        self.page.wait_for_load_state("networkidle")

    def _route(self, route):
        if is_local(route.request.url):
            route.continue_()
        else:
            self.blocked.append(route.request.url)
            route.abort()

    def _console(self, message):
        if message.type == "error":
            self.console_errors.append(message.text)

    def _failed(self, request):
        if is_local(request.url):
            self.failed.append(f"{request.url}: {request.failure}")

    def _response(self, response):
        if is_local(response.url) and response.status >= 400:
            self.failed.append(f"{response.url}: HTTP {response.status}")

    def close(self):
        self.context.close()


@pytest.fixture
def visit(browser, base_url):
    opened = []

    def open_page(path: str) -> Visit:
        opened.append(Visit(browser, urljoin(base_url, path)))
        return opened[-1]

    yield open_page
    for v in opened:
        v.close()


@pytest.mark.parametrize("path", PAGES)
def test_page_loads_cleanly_offline(visit, path):
    v = visit(path)
    assert v.console_errors == []
    assert v.failed == []
    assert v.blocked == [], "a page asked another host for something on load"
    assert v.page.locator("h1").count() >= 1


@pytest.mark.parametrize("path", MATH_PAGES)
def test_math_renders(visit, path):
    v = visit(path)
    sources = v.page.locator(".math").count()
    assert sources > 0
    v.page.wait_for_function(
        "document.querySelectorAll('.math mjx-container').length"
        " === document.querySelectorAll('.math').length",
        timeout=15_000,
    )
    assert v.page.locator("mjx-container mjx-math").count() >= sources
    assert v.page.locator("mjx-merror").count() == 0


def test_some_page_has_math():
    assert "book/intro.html" in MATH_PAGES


def expected_launch_urls(notebook_page: str) -> dict[str, str]:
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    repo = config["repository"]
    owner_name = urlparse(repo["url"]).path.strip("/")
    branch = repo["branch"]
    notebook = notebook_page.removesuffix(".html") + ".ipynb"
    return {
        "colab": f"https://colab.research.google.com/github/{owner_name}/blob/{branch}/{notebook}",
        "binder": f"https://mybinder.org/v2/gh/{owner_name}/{branch}?urlpath=tree/{notebook}",
    }


@pytest.mark.parametrize("path", NOTEBOOK_PAGES)
def test_launch_buttons_point_at_this_notebook(visit, path):
    v = visit(path)
    hrefs = v.page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    expected = expected_launch_urls(path)
    assert expected["colab"] in hrefs
    assert expected["binder"] in hrefs
    download = v.page.eval_on_selector_all(
        "a[href$='.ipynb']", "els => els.map(e => e.getAttribute('href'))"
    )
    assert any(Path(d).name == Path(path).stem + ".ipynb" for d in download)


def test_search_finds_a_chapter_word(visit):
    v = visit("search.html?q=tied")
    v.page.wait_for_selector("#search-results li", timeout=15_000)
    links = v.page.eval_on_selector_all(
        "#search-results li a", "els => els.map(e => e.getAttribute('href'))"
    )
    assert any("01_parameter_management" in link for link in links), links


@pytest.mark.parametrize("path", PAGES)
def test_no_serious_accessibility_violations(visit, path):
    v = visit(path)
    v.page.add_script_tag(content=AXE)
    result = v.page.evaluate("async () => await axe.run(document)")
    serious = [
        {
            "id": r["id"],
            "impact": r["impact"],
            "nodes": [n["target"] for n in r["nodes"][:3]],
        }
        for r in result["violations"]
        if r["impact"] in {"serious", "critical"}
    ]
    assert serious == [], json.dumps(serious, indent=1)


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.hrefs.append(attrs["href"])


def parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def broken_links(root: Path, pages: list[str]) -> list[str]:
    """Links among `pages` (relative to `root`) whose file or #anchor does not exist."""
    broken = []
    parsed = {}
    for page in pages:
        source = root / page
        for href in parse(source).hrefs:
            target = urlparse(href)
            if target.scheme or href.startswith(("mailto:", "//", "javascript:")):
                continue
            path = unquote(target.path)
            file = (source.parent / path).resolve() if path else source
            if not file.exists():
                broken.append(f"{page}: {href} (no such file)")
                continue
            if target.fragment and file.suffix == ".html":
                ids = parsed.setdefault(file, parse(file).ids)
                if unquote(target.fragment) not in ids:
                    broken.append(f"{page}: {href} (no such anchor)")
    return broken


def test_every_internal_link_and_anchor_resolves():
    assert broken_links(HTML, [*PAGES, "genindex.html"]) == []


def test_link_check_reports_missing_files_and_anchors(tmp_path):
    (tmp_path / "a.html").write_text(
        '<a href="b.html#here">ok</a><a href="b.html#gone">x</a><a href="c.html">y</a>'
    )
    (tmp_path / "b.html").write_text('<p id="here"></p>')
    assert broken_links(tmp_path, ["a.html"]) == [
        "a.html: b.html#gone (no such anchor)",
        "a.html: c.html (no such file)",
    ]


def test_every_toc_entry_was_built():
    for entry in toc_files():
        assert f"{entry}.html" in PAGES, f"{entry} has no page in _build/html"
