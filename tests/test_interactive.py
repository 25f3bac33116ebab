"""Running a chapter, in Debian's Chromium and a real kernel, offline.

- `make lab`: JupyterLab from .venv on 127.0.0.1 opens a chapter and runs its first cells.
- `make live`: the Live Code button of a chapter page starts a kernel on the local Jupyter
  server, and a cell run in the page shows its output there; a kernel that dies is reported.
- The Live Code button of the published site, with no server at the address it names (a port
  where nothing listens) or with no internet for Binder, says so in the page.

Every request to another host is blocked. Whatever a test starts it stops, and then checks
that no process of what it started (Jupyter servers, kernels) is left.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import psutil
import pytest
import yaml
from conftest import load_notebook, real_notebook_paths
from playwright.sync_api import Error as PlaywrightError
from site_helpers import HTML, ROOT, free_port, is_local, served_site

CHAPTER = real_notebook_paths()[0]
PAGE = f"notebooks/{CHAPTER.stem}.html"
TOKEN = "interactive-test-token"
START = 90_000  # ms: a loaded 2-core machine can take this long to start a kernel
RUN = 90_000  # ms: the setup cell imports torch


class Started:
    """A command in a session of its own, its output, and what it left behind when stopped."""

    def __init__(self, command: list[str], env: dict[str, str], ready: str):
        self.lines: list[str] = []
        self.match: re.Match | None = None
        self.leftovers: list[str] = []
        self._ready = re.compile(ready)
        self._seen = threading.Event()
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.append(line)
            if self.match is None and (match := self._ready.search(line)):
                self.match = match
                self._seen.set()
        self._seen.set()

    def wait_ready(self, timeout: float = 90) -> re.Match:
        self._seen.wait(timeout)
        assert self.match, "did not start:\n" + "".join(self.lines[-30:])
        return self.match

    def stop(self):
        """SIGTERM to the command's process group; then whatever of its tree is still alive."""
        try:
            tree = [psutil.Process(self.process.pid)]
            tree += tree[0].children(recursive=True)
        except psutil.NoSuchProcess:
            tree = []
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=30)
        _, alive = psutil.wait_procs(tree, timeout=45)  # a busy 2-core CI machine
        self.leftovers = [f"{p.pid} {' '.join(_cmdline(p))}" for p in alive]
        for process in alive:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.kill()
        self._reader.join(timeout=10)
        self.process.stdout.close()


def _cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:
        return ["?"]


@contextlib.contextmanager
def started(command: list[str], ready: str, tmp: Path) -> Iterator[Started]:
    # Jupyter's configuration, data and runtime files in a temporary folder: the reader's own
    # settings neither change the test nor get changed by it.
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=str(tmp / "config"),
        JUPYTER_DATA_DIR=str(tmp / "data"),
        JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
        IPYTHONDIR=str(tmp / "ipython"),
        JUPYTER_TOKEN=TOKEN,
    )
    run = Started(command, env, ready)
    try:
        yield run
    finally:
        run.stop()


class Offline:
    """A browser page for which every host but 127.0.0.1 is unreachable (inside Chromium: see
    CHROMIUM_ARGS in tools/browser.py), with every URL it asked for."""

    def __init__(self, browser):
        self.context = browser.new_context()
        self.blocked: list[str] = []
        self.requested: list[str] = []
        self.page = self.context.new_page()
        self.page.on("request", self._request)

    def _request(self, request):
        self.requested.append(request.url)
        if not is_local(request.url):
            self.blocked.append(request.url)


@pytest.fixture
def offline(browser):
    pages = []

    def open_page() -> Offline:
        pages.append(Offline(browser))
        return pages[-1]

    yield open_page
    for page in pages:
        page.context.close()


def first_text_output(nb: dict) -> tuple[int, str]:
    """Index (among all cells) of the first code cell with a stable text output, and its first line."""
    for i, cell in enumerate(nb["cells"]):
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] != "code" or "nbval-ignore-output" in tags:
            continue
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain")
            if text:
                return i, "".join(text).strip().splitlines()[0]
    raise AssertionError(f"{CHAPTER.name} has no code cell with a text output")


@contextlib.contextmanager
def taken_port() -> Iterator[int]:
    """A port of 127.0.0.1 that something else listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def test_make_lab_runs_the_first_cells_of_a_chapter(offline, tmp_path):
    index, expected = first_text_output(load_notebook(CHAPTER))
    with taken_port() as port:
        command = ["make", "-s", "lab", f"PORT={port}", "LAB_ARGS=--no-browser"]
        with started(command, r"http://127\.0\.0\.1:(\d+)/lab", tmp_path) as lab:
            lab_port = lab.wait_ready()[1]
            # The requested port is taken: JupyterLab says so and takes another.
            assert f"The port {port} is already in use" in "".join(lab.lines)
            assert int(lab_port) != port
            view = offline()
            page = view.page
            page.goto(f"http://127.0.0.1:{lab_port}/lab/tree/{CHAPTER.name}?token={TOKEN}")
            # The kernel is up when the status bar says so; then the toolbar's "run this cell
            # and select the next" button, once per cell down to the first text output.
            page.wait_for_function(
                "document.getElementById('jp-main-statusbar')?.innerText.includes('Idle')",
                timeout=START,
            )
            cells = page.locator(".jp-Notebook .jp-Cell")
            cells.first.click()
            run = page.locator(".jp-NotebookPanel-toolbar jp-button[data-command='notebook:run-cell-and-select-next']")
            for _ in range(index + 1):
                run.click()
            output = cells.nth(index).locator(".jp-OutputArea-output")
            try:
                output.filter(has_text=expected).first.wait_for(timeout=RUN)
            except PlaywrightError:
                shown = [cells.nth(i).inner_text() for i in range(index + 1)]
                raise AssertionError(f"no {expected!r} in cell {index}: {shown}") from None
            assert view.blocked == []
    assert lab.leftovers == [], "still running after make lab stopped"


def test_live_code_runs_a_cell_on_the_local_server(offline, tmp_path):
    assert (HTML / "_static" / "live-code.json").exists(), "build the site: make book"
    with (
        taken_port() as port,
        started(
            ["make", "-s", "live", f"PORT={port}"],
            r"Live code: open (http://127\.0\.0\.1:\d+/)",
            tmp_path,
        ) as live,
    ):
        base = live.wait_ready()[1]
        # The requested port is taken: make live says so and serves the site on another.
        assert f"Port {port} is taken" in "".join(live.lines)
        view = offline()
        page = view.page
        page.goto(base + PAGE, wait_until="load")
        assert not any("/_static/thebe/" in url or "/live-code" in url for url in view.requested), (
            "live code must load on click only"
        )
        # The first cell whose page shows a text output: run the cells up to it, live.
        cells = page.locator("article .cell:has(.cell_input pre)")
        texts = cells.evaluate_all("els => els.map(e => e.querySelector('.cell_output')?.innerText.trim() ?? '')")
        index = next(i for i, text in enumerate(texts) if text)
        expected = texts[index].splitlines()[-1]

        page.click("button[aria-label='Launch interactive content']")
        page.click(".btn-launch-thebe")
        status = page.locator(".live-code-status")
        page.wait_for_selector(
            ".live-code-status[data-state=ready], .live-code-status[data-state=failed]",
            timeout=START,
        )
        assert status.get_attribute("data-state") == "ready", status.inner_text()
        for i in range(index + 1):
            run_cell(cells.nth(i))
        live_output = cells.nth(index).locator(".cell_output .jp-RenderedText")
        live_output.filter(has_text=expected).first.wait_for(timeout=RUN)

        # A kernel that dies is said in the page (Jupyter restarts it: the variables are gone).
        cells.nth(0).locator(".CodeMirror").evaluate("el => el.CodeMirror.setValue('import os\\nos._exit(1)')")
        run_cell(cells.nth(0))
        page.wait_for_function(
            "document.querySelector('.live-code-status').innerText.includes('kernel')"
            " && /restarted|died/.test(document.querySelector('.live-code-status').innerText)",
            timeout=START,
        )

        assert any(url.startswith(base + "_static/thebe/index.js") for url in view.requested)
        assert view.blocked == [], "live code asked another host for something"
    assert live.leftovers == [], "still running after make live stopped"


def run_cell(cell):
    """Click a cell's run button as a reader would: a hidden input (tag hide-input) is shown first."""
    hidden = cell.locator("details:not([open]) > summary")
    if hidden.count():
        hidden.first.click()
    cell.locator(".thebe-run-button").click()


@pytest.fixture(scope="module")
def published_site():
    """The built site as `make serve` serves it: its live-code.json names no local server."""
    assert (HTML / "_static" / "live-code.json").exists(), "build the site: make book"
    with served_site() as url:
        yield url


@pytest.mark.parametrize("case", ["dead-server", "offline-binder"])
def test_live_code_without_a_kernel_says_so(offline, published_site, case):
    view = offline()
    page = view.page
    if case == "dead-server":
        nothing_there = f"http://127.0.0.1:{free_port()}/"

        def dead_server(route):
            response = route.fetch()
            settings = response.json()
            settings["server"] = {"baseUrl": nothing_there, "token": "none"}
            route.fulfill(response=response, json=settings)

        view.context.route("**/_static/live-code.json", dead_server)
    page.goto(published_site + PAGE, wait_until="load")
    page.click("button[aria-label='Launch interactive content']")
    page.click(".btn-launch-thebe")
    page.wait_for_selector(".live-code-status[data-state=failed]", timeout=START)
    said = page.locator(".live-code-status").inner_text()
    # `make live` is shown as code, not as backticks, and "the README" is a link to its section.
    assert "`" not in said, said
    assert page.locator(".live-code-status code").first.inner_text() == "make live"
    readme = page.locator(".live-code-status a").first.get_attribute("href")
    assert readme.endswith("#reading-and-running-a-chapter"), readme
    if case == "dead-server":
        assert nothing_there in said and "make live" in said, said
        assert view.blocked == []
    else:
        assert "Binder" in said and "internet" in said, said
        # It asked Binder for the repository and branch of _config.yml, as the Binder button does.
        config = yaml.safe_load((ROOT / "_config.yml").read_text())
        repo = urlparse(config["repository"]["url"]).path.strip("/")
        binder = config["launch_buttons"]["binderhub_url"].rstrip("/")
        build = f"{binder}/build/gh/{repo}/{config['repository']['branch']}"
        assert view.blocked and set(view.blocked) == {build}, view.blocked
    # A cell's run button, clicked now, says why nothing runs rather than doing nothing.
    page.locator(".thebe-cell .thebe-run-button:visible").first.click()
    note = page.locator(".live-code-cell-note").first.inner_text()
    assert "no kernel" in note, note
