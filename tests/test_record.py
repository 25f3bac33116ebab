"""The verified record: every recorded run matches the notebook it describes, and the site shows it.

The records in book/records/ are written by `make record` (strict nbval on the pinned torch),
`make compat` (lax nbval on another release) and tools/record.py (a run made elsewhere, a GPU say);
book/_ext/verified.py renders them under every chapter title and on the status page.
"""

from __future__ import annotations

import json
import re

import pytest
from bs4 import BeautifulSoup
from conftest import ROOT, real_notebook_paths
from record import RECORD_GLOB, notebook_hash, record_name

RECORDS = sorted((ROOT / "book" / "records").glob(RECORD_GLOB))
HTML = ROOT / "_build" / "html"
CHAPTERS = [p.stem for p in real_notebook_paths()]


def pinned_torch() -> str:
    text = (ROOT / "requirements.txt").read_text()
    return re.search(r"^torch==(\S+)", text, flags=re.MULTILINE).group(1)


def compat_releases() -> list[str]:
    text = (ROOT / "Makefile").read_text()
    return re.search(r"^COMPAT_RELEASES := (.+)$", text, flags=re.MULTILINE).group(1).split()


def load(path):
    return json.loads(path.read_text())


def rerun_command(env: dict, stem: str) -> str:
    nb = f"NB=notebooks/{stem}.ipynb"
    if env["device"] == "cpu" and env["mode"] == "strict" and env["torch"] == pinned_torch():
        return f"make record {nb}"
    if env["device"] == "cpu" and env["mode"] == "lax":
        return f"make compat TORCH={env['torch']} {nb}"
    return "rerun it on that device (tools/gpu_run.sh) and add it with tools/record.py"


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.stem)
def test_record_is_well_formed(path):
    record = load(path)
    env = record["environment"]
    assert env["mode"] in {"strict", "lax"} and env["torch"] and env["device"]
    assert path.name == record_name(env), "records are named after their environment"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", record["date"])
    for stem, entry in record["notebooks"].items():
        assert set(entry) >= {
            "result",
            "cells",
            "failed_cells",
            "seconds",
            "date",
            "hash",
        }, stem
        assert (entry["result"] == "pass") == (not entry["failed_cells"]), stem


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.stem)
def test_record_is_not_older_than_its_notebooks(path):
    record = load(path)
    stale = []
    for stem, entry in record["notebooks"].items():
        notebook = ROOT / "notebooks" / f"{stem}.ipynb"
        if not notebook.exists():
            stale.append(f"{stem}: the notebook is gone; delete its entry")
        elif notebook_hash(notebook) != entry["hash"]:
            stale.append(
                f"{stem}: changed since this run of {entry['date']}; {rerun_command(record['environment'], stem)}"
            )
    assert not stale, f"{path.relative_to(ROOT)} is older than:\n" + "\n".join(stale)


def required_environments() -> list[tuple[str, str]]:
    """(record file, how to make it): strict on the pinned torch, lax at both ends of the range."""
    strict = {"mode": "strict", "torch": pinned_torch(), "device": "cpu"}
    wanted = [(record_name(strict), "make record")]
    for release in compat_releases():
        lax = {"mode": "lax", "torch": release, "device": "cpu"}
        wanted.append((record_name(lax), f"make compat TORCH={release}"))
    return wanted


@pytest.mark.parametrize("name,command", required_environments())
def test_every_chapter_is_recorded_passing(name, command):
    path = ROOT / "book" / "records" / name
    assert path.exists(), f"no record {name}: run `{command}`"
    notebooks = load(path)["notebooks"]
    missing = [stem for stem in CHAPTERS if stem not in notebooks]
    assert not missing, f"{name} lacks {missing}: run `{command}`"
    failing = {stem: notebooks[stem]["failed_cells"] for stem in CHAPTERS if notebooks[stem]["result"] != "pass"}
    assert not failing, f"{name}: cells fail in {failing}"


def built(page: str) -> BeautifulSoup:
    path = HTML / page
    assert path.exists(), f"build the site first (make book): no {page}"
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def box_under_title(soup: BeautifulSoup):
    """The verified-record box when it comes right after the page's title (the section's h1)."""
    box = soup.find("div", class_="verified-record")
    if box is None:
        return None
    title = box.find_previous_sibling()
    return box if title is not None and title.name == "h1" else None


@pytest.mark.parametrize("stem", CHAPTERS)
def test_chapter_page_shows_its_record_under_the_title(stem):
    box = box_under_title(built(f"notebooks/{stem}.html"))
    assert box is not None, f"{stem}: no verified record right under the title"
    text = " ".join(box.get_text().split())
    strict = ROOT / "book" / "records" / f"cpu-strict-torch-{pinned_torch()}.json"
    if strict.exists() and stem in load(strict)["notebooks"]:
        entry = load(strict)["notebooks"][stem]
        oldest, newest = (".".join(r.split(".")[:2]) for r in (compat_releases()[0], compat_releases()[-1]))
        assert text.startswith(f"Checked with torch {oldest} to {newest} on the CPU"), f"{stem}: {text}"
        assert f"(outputs as printed by {pinned_torch()})" in text, f"{stem}: {text}"
        assert entry["date"] in text, f"{stem}: {text}"
    assert box.find("a", href=re.compile(r"book/status\.html$")), f"{stem}: no status link"


def test_status_page_lists_every_chapter_and_environment():
    table = built("book/status.html").find("table", class_="verified-status")
    assert table is not None, "book/status.html has no verified-status table"
    header = [" ".join(th.get_text().split()) for th in table.find("thead").find_all("th")]
    assert len(header) == len(RECORDS) + 1
    for path in RECORDS:
        env = load(path)["environment"]
        assert any(f"torch {env['torch']}" in h for h in header), (path.name, header)
    rows = table.find("tbody").find_all("tr")
    assert len(rows) == len(list((ROOT / "notebooks").glob("*.ipynb")))
    for row in rows:
        cells = [" ".join(td.get_text().split()) for td in row.find_all("td")]
        assert all(re.fullmatch(r"✓( \d+\.\d s)?|✗.*|changed since|—", c) for c in cells[1:])


def test_translated_chapter_pages_show_the_record_too():
    pages = sorted((HTML / "ko" / "notebooks" / "ko").glob("*.html"))
    if not pages:
        pytest.skip("no Korean edition in this build")
    missing = [p.name for p in pages if box_under_title(built(str(p.relative_to(HTML)))) is None]
    assert not missing, missing
