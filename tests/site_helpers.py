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

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / "_build" / "html"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
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
        deadline = time.monotonic() + 20
        while True:
            try:
                urllib.request.urlopen(base, timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("make serve did not come up") from None
                time.sleep(0.1)
        yield base
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=10)


def is_local(url: str) -> bool:
    parsed = urlparse(url)
    return parsed.scheme in {"data", "blob", "about"} or parsed.hostname == "127.0.0.1"


def site_pages() -> list[str]:
    """Every HTML page of the built site that a reader can reach, relative to its root."""
    skip = {"genindex.html", "index.html"}
    pages = [
        str(p.relative_to(HTML))
        for p in sorted(HTML.rglob("*.html"))
        if not str(p.relative_to(HTML)).startswith(("_static", "_sources"))
    ]
    return [p for p in pages if p not in skip]
