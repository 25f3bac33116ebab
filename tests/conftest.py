"""Shared facts about the book for the tests: where things are and which notebooks are real."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"


def toc_files() -> list[str]:
    """Every `file:` entry of _toc.yml, in reading order, without suffix."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [entry["file"] for entry in part.get("chapters", [])]
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
        chromium = playwright.chromium.launch(
            executable_path=chromium_executable(), args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


def pytest_collection_finish(session):
    """Browser tests without a browser: stop once, saying what to do, not one traceback per test."""
    if any(_drives_a_browser(item) for item in session.items):
        from browser import missing_browser

        problem = missing_browser()
        if problem:
            pytest.exit(problem, returncode=pytest.ExitCode.USAGE_ERROR)
