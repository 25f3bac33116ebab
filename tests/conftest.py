"""Shared facts about the book for the tests: where things are and which notebooks are real."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
TOOLS = ROOT / "tools"
# The book's tools (tools/: the Korean edition, the record, the browser, the site server) are what the
# tests check, so the tests import them by module name (`from korean import ...`).
if str(TOOLS) not in sys.path:
    sys.path.insert(0, str(TOOLS))


def toc_files() -> list[str]:
    """Every `file:` entry of _toc.yml, in reading order, without suffix."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(entries: list[dict]) -> None:
        for entry in entries:
            files.append(entry["file"])
            walk(entry.get("sections", []))

    for part in toc.get("parts", []):
        walk(part.get("chapters", []))
    return files


def notebook_paths() -> list[Path]:
    return sorted(NOTEBOOK_DIR.glob("*.ipynb"))


def load_notebook(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def is_stub(nb: dict) -> bool:
    """A chapter not yet written carries `"book": {"stub": true}` in its metadata."""
    return bool(nb.get("metadata", {}).get("book", {}).get("stub", False))


def real_notebook_paths() -> list[Path]:
    return [p for p in notebook_paths() if not is_stub(load_notebook(p))]


def _drives_a_browser(item) -> bool:
    return "browser" in getattr(item, "fixturenames", ())


@pytest.fixture(scope="session")
def browser():
    """One Chromium per test process, shared by every browser test (two sync Playwright sessions
    cannot run in one process)."""
    from browser import CHROMIUM_ARGS, chromium_executable
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def base_url():
    """The built site, served on 127.0.0.1 for this test process."""
    from site_helpers import HTML, served_site

    assert (HTML / "index.html").exists(), "build the site first: make book"
    with served_site() as url:
        yield url


@pytest.fixture(scope="session")
def report(browser, base_url):
    """`report(path)`: the one load of a site page on this worker, with everything the browser
    tests check on it (tests/page_report.py)."""
    from page_report import reports

    with reports(browser, base_url) as get:
        yield get


def pytest_collection_finish(session):
    """Browser tests without a browser: stop once, saying what to do, not one traceback per test."""
    if any(_drives_a_browser(item) for item in session.items):
        from browser import missing_browser

        problem = missing_browser()
        if problem:
            pytest.exit(problem, returncode=pytest.ExitCode.USAGE_ERROR)


def page_of(nodeid: str) -> str | None:
    """The site page a browser check is about: its parametrization id when that is a page path."""
    if not nodeid.endswith("]"):
        return None
    param = nodeid[nodeid.rfind("[") + 1 : -1]
    return param if param.endswith(".html") else None


def pytest_xdist_make_scheduler(config, log):
    """`--dist loadgroup`, with every check of one site page on one worker, so each page loads
    once. The tests mark their pages with `xdist_group`, but pytest-xdist 3.8 under pytest 9.2
    ignores those marks (it renames node ids, which pytest 9.2 no longer lets it do:
    pytest-dev/pytest-xdist#1386), so the controller groups by the page in each node id."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class PageGroups(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            if scope != nodeid:  # xdist's own "@group" suffix, where it works
                return scope
            page = page_of(nodeid)
            return f"page {page}" if page else nodeid

    return PageGroups(config, log)
