"""`make bench`: measure the book's budgets and print them as a table.

Budgets (from the design card): all notebooks verified in <= 60 s wall with 2 workers, a clean
site build from stored outputs in <= 30 s, a no-op rebuild in <= 5 s, and every page <= 2.5 MB
uncompressed with all the assets the browser loads for it. Each notebook's own execution time
is listed too. Nothing here fails a build: the figures are for people to read.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).parent))
from execute_notebooks import run as run_notebook
from site_helpers import (
    CHROMIUM,
    CHROMIUM_ARGS,
    HTML,
    ROOT,
    is_local,
    served_site,
    site_pages,
)

BIN = ROOT / ".venv" / "bin"
JB = [
    str(BIN / "jupyter-book"),
    "build",
    ".",
    "--builder",
    "html",
    "-n",
    "-W",
    "--keep-going",
]


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        command,
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def notebook_seconds() -> dict[str, float]:
    seconds = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        seconds[path.name] = run_notebook(nb, path, timeout=600)  # not written back
    return seconds


def _record_size(bodies: list[int], request) -> None:
    response = request.response()
    if response is not None and response.status < 300:
        bodies.append(len(response.body()))


def page_bytes() -> dict[str, int]:
    from playwright.sync_api import sync_playwright

    sizes = {}
    with served_site() as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS
        )
        for page_path in site_pages():
            context = browser.new_context()
            context.route(
                "**/*",
                lambda route: (
                    route.continue_() if is_local(route.request.url) else route.abort()
                ),
            )
            page = context.new_page()
            bodies: list[int] = []
            page.on("requestfinished", partial(_record_size, bodies))
            page.goto(base + page_path, wait_until="load")
            page.wait_for_load_state("networkidle")
            sizes[page_path] = sum(bodies)
            context.close()
        browser.close()
    return sizes


def row(name: str, value: str, budget: str, ok: bool | None) -> str:
    verdict = "" if ok is None else ("ok" if ok else "OVER")
    return f"| {name} | {value} | {budget} | {verdict} |"


def main() -> int:
    env_note = f"{os.cpu_count()} CPUs visible"
    nbval = timed(["make", "-s", "nbval"])
    shutil.rmtree(HTML.parent, ignore_errors=True)
    clean = timed(JB)
    noop = timed(JB)
    sizes = page_bytes()
    per_notebook = notebook_seconds()

    lines = [
        f"Budgets ({env_note})",
        "",
        "| measure | value | budget | |",
        "| --- | --- | --- | --- |",
        row(
            "nbval, all notebooks, 2 workers", f"{nbval:.1f} s", "<= 60 s", nbval <= 60
        ),
        row("clean site build", f"{clean:.1f} s", "<= 30 s", clean <= 30),
        row("no-op rebuild", f"{noop:.1f} s", "<= 5 s", noop <= 5),
    ]
    for page, size in sizes.items():
        lines.append(
            row(f"page {page}", f"{size / 1e6:.2f} MB", "<= 2.5 MB", size <= 2.5e6)
        )
    for name, seconds in per_notebook.items():
        lines.append(row(f"execute {name} (1 kernel)", f"{seconds:.1f} s", "", None))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
