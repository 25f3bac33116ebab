"""Serving the built site and driving Debian's Chromium over it (shared by the site tests and the benchmark)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

from browser import chromium_executable
from playwright.sync_api import Error as PlaywrightError

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / "_build" / "html"
CHROMIUM = chromium_executable()  # None: Playwright's managed browser


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def served_site() -> Iterator[str]:
    """`make serve` on a free port of 127.0.0.1; yields the base URL and stops the server."""
    port = free_port()
    server = subprocess.Popen(
        ["make", "-s", "serve", f"PORT={port}"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}/"
    try:
        _wait_for(base, server)
        yield base
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=10)


def is_local(url: str) -> bool:
    parsed = urlparse(url)
    return parsed.scheme in {"data", "blob", "about", "file"} or parsed.hostname == "127.0.0.1"


def site_pages(html: Path = HTML) -> list[str]:
    """Every HTML page of the built site that a reader can reach, relative to its root.

    Both editions count (the Korean one under ko/); asset folders (``_static``, ``_sources``, any
    name starting with ``_`` or ``.``), the generated index and the redirecting index.html do not.
    """
    pages = []
    for path in sorted(html.rglob("*.html")):
        parts = path.relative_to(html).parts
        if any(part.startswith(("_", ".")) for part in parts):
            continue
        if parts[-1] in {"genindex.html", "index.html"}:
            continue
        pages.append("/".join(parts))
    return pages


def _wait_for(base: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 20
    while True:
        try:
            urllib.request.urlopen(base, timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError(f"no server came up at {base}") from None
            time.sleep(0.1)


class Tab:
    """One warm browser tab (a context and its page) that loads page after page.

    A fresh context per page costs a new renderer and a cold start; this tab is made once per
    test process and reused. Its HTTP cache is off, so every load fetches (and weighs) every
    asset, as a first visit does. Other hosts are unreachable inside Chromium
    (`CHROMIUM_ARGS`); a request to one is recorded as blocked.
    """

    def __init__(self, browser, *, viewport=(1280, 800), color_scheme="light"):
        self.viewport = viewport
        self.color_scheme = color_scheme
        self.context = browser.new_context(
            viewport={"width": viewport[0], "height": viewport[1]},
            color_scheme=color_scheme,
        )
        self.page = self.context.new_page()
        cdp = self.context.new_cdp_session(self.page)
        cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
        self.current: PageLoad | None = None
        page = self.page
        page.on("console", lambda message: self.current and self.current._console(message))
        page.on(
            "pageerror",
            lambda exc: self.current and self.current.console_errors.append(str(exc)),
        )
        page.on("request", lambda request: self.current and self.current._started(request))
        page.on(
            "requestfailed",
            lambda request: self.current and self.current._failed(request),
        )
        page.on(
            "requestfinished",
            lambda request: self.current and self.current._finished(request),
        )
        page.on(
            "response",
            lambda response: self.current and self.current._response(response),
        )

    def load(self, url: str) -> PageLoad:
        return PageLoad(self, url)

    def close(self):
        self.context.close()


class PageLoad:
    """One page load, every other host unreachable, with what went wrong on the way and how many
    bytes the page and all its assets weigh.

    `PageLoad(tab, url)` loads in a warm `Tab` (its viewport and colour scheme reset first);
    `PageLoad(browser, url)` opens a tab of its own, closed by `close()`.
    """

    def __init__(self, target, url: str, *, viewport=(1280, 800), color_scheme="light"):
        self._own = not isinstance(target, Tab)
        tab = Tab(target, viewport=viewport, color_scheme=color_scheme) if self._own else target
        self.tab = tab
        self.context = tab.context
        self.page = tab.page
        self.blocked: list[str] = []
        self.failed: list[str] = []
        self.console_errors: list[str] = []
        self.bodies: dict[str, int] = {}
        self.in_flight: set = set()
        if not self._own:
            tab.current = None
            self.page.set_viewport_size({"width": tab.viewport[0], "height": tab.viewport[1]})
            self.page.emulate_media(color_scheme=tab.color_scheme)
        tab.current = self
        self.page.goto(url, wait_until="load")
        self._settle()

    def _settle(self, quiet_ms: int = 100, limit_ms: int = 10_000) -> None:
        """Wait until no request has been in flight for `quiet_ms` (Playwright's "networkidle"
        waits a fixed 500 ms after the last one, which is most of a small page's load)."""
        quiet = waited = 0
        while quiet < quiet_ms and waited < limit_ms:
            self.page.wait_for_timeout(25)
            waited += 25
            quiet = quiet + 25 if not self.in_flight else 0

    @property
    def total_bytes(self) -> int:
        return sum(self.bodies.values())

    def dom_content_loaded_ms(self) -> float:
        return self.page.evaluate("performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd")

    def _console(self, message):
        if message.type == "error":
            self.console_errors.append(message.text)

    def _started(self, request):
        self.in_flight.add(request)
        if not is_local(request.url):
            self.blocked.append(request.url)

    def _failed(self, request):
        self.in_flight.discard(request)
        if is_local(request.url):
            self.failed.append(f"{request.url}: {request.failure}")

    def _finished(self, request):
        self.in_flight.discard(request)

    def _response(self, response):
        """Status and size from the response's headers: no round trip to the browser per asset."""
        if not is_local(response.url) or not response.url.startswith("http"):
            return
        if response.status >= 400:
            self.failed.append(f"{response.url}: HTTP {response.status}")
        elif response.status < 300:
            length = response.headers.get("content-length")
            if length is None:
                try:
                    length = len(response.body())
                except PlaywrightError:  # a redirect's page, navigated away from
                    length = 0
            self.bodies[response.url] = int(length)

    def close(self):
        if self.tab.current is self:
            self.tab.current = None
        if self._own:
            self.tab.close()
