"""Serving the built site and driving Debian's Chromium over it (shared by the site tests and the benchmark)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
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
# Flags that keep Chromium from phoning home on a closed network (and work as root).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


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
    return (
        parsed.scheme in {"data", "blob", "about", "file"}
        or parsed.hostname == "127.0.0.1"
    )


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


@contextlib.contextmanager
def served_directory(directory: Path) -> Iterator[str]:
    """A static server for any built site (the benchmark's clean build lives in a temporary folder)."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=directory,
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


class PageLoad:
    """One page load in a fresh browser context, every request to another host blocked, with what
    went wrong on the way and how many bytes the page and all its assets weigh."""

    def __init__(
        self, browser, url: str, *, viewport=(1280, 800), color_scheme="light"
    ):
        self.context = browser.new_context(
            viewport={"width": viewport[0], "height": viewport[1]},
            color_scheme=color_scheme,
        )
        self.blocked: list[str] = []
        self.failed: list[str] = []
        self.console_errors: list[str] = []
        self.bodies: dict[str, int] = {}
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.console_errors.append(str(exc)))
        self.pending = 0
        self.page.on("request", self._started)
        self.page.on("requestfailed", self._failed)
        self.page.on("requestfinished", self._finished)
        self.page.goto(url, wait_until="load")
        self._settle()

    def _settle(self, quiet_ms: int = 100, limit_ms: int = 10_000) -> None:
        """Wait until no request has been in flight for `quiet_ms` (Playwright's "networkidle"
        waits a fixed 500 ms after the last one, which is most of a small page's load)."""
        quiet = waited = 0
        while quiet < quiet_ms and waited < limit_ms:
            self.page.wait_for_timeout(25)
            waited += 25
            quiet = quiet + 25 if self.pending == 0 else 0

    @property
    def total_bytes(self) -> int:
        return sum(self.bodies.values())

    def dom_content_loaded_ms(self) -> float:
        return self.page.evaluate(
            "performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd"
        )

    def _route(self, route):
        if is_local(route.request.url):
            route.continue_()
        else:
            self.blocked.append(route.request.url)
            route.abort()

    def _console(self, message):
        if message.type == "error":
            self.console_errors.append(message.text)

    def _started(self, request):
        self.pending += 1

    def _failed(self, request):
        self.pending -= 1
        if is_local(request.url):
            self.failed.append(f"{request.url}: {request.failure}")

    def _finished(self, request):
        self.pending -= 1
        response = request.response()
        if response is None or not is_local(request.url):
            return
        if response.status >= 400:
            self.failed.append(f"{request.url}: HTTP {response.status}")
        elif response.status < 300:
            try:
                self.bodies[request.url] = len(response.body())
            except PlaywrightError:  # a redirect's page, navigated away from
                self.bodies[request.url] = int(
                    response.headers.get("content-length", 0)
                )

    def close(self):
        self.context.close()
