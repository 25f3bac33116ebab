"""`make bench`: measure the book's budgets and print them as a table.

Budgets (from the design card): `make test` in <= 150 s on 2 quiet cores; all notebooks verified in <= 60 s wall with 2 workers; a clean
site build from stored outputs in <= 30 s and a no-op rebuild in <= 5 s (the English edition,
built into a temporary folder, so _build is left alone); every page <= 1.2 MB uncompressed with
all the assets the browser loads for it (Chromium, every other host blocked, as in
tests/test_site.py, which also asserts it); and a median DOMContentLoaded <= 0.5 s from localhost
(each page's median of three loads, then the median over pages); and the browser tests (the
pytest run `make site` makes, 2 workers) in at most 2x the time of the strict nbval run measured
just before them. Each notebook's own execution time is listed too. Nothing here fails a build: the figures are for people to read, and times
depend on the machine (the CPU count is printed, and the load average, since other work on the
same cores slows every figure).

    python tools/bench.py            # everything (what `make bench` runs, after `make book`), `make test` first
    python tools/bench.py --site     # only the builds and the pages
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).parent))
from browser import CHROMIUM_ARGS
from execute_notebooks import run as run_notebook
from site_helpers import (
    CHROMIUM,
    HTML,
    ROOT,
    PageLoad,
    Tab,
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
    """Wall seconds of COMMAND; if it fails, its last lines are printed and the error raised."""
    start = time.perf_counter()
    done = subprocess.run(command, check=False, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode:
        print("\n".join(done.stdout.splitlines()[-60:]), file=sys.stderr)
        done.check_returncode()
    return time.perf_counter() - start


def notebook_seconds() -> dict[str, float]:
    seconds = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        seconds[path.name] = run_notebook(nb, path, timeout=600)  # not written back
    return seconds


# The browser tests as `make site` runs them, the site already built (the Makefile keeps the one list).
BROWSER_TESTS = ["make", "-s", "site-tests"]
PAGE_BUDGET = 1.2e6
DCL_BUDGET = 500.0  # ms, median over pages
LOADS = 3


def page_figures(html: Path = HTML) -> dict[str, tuple[int, float]]:
    """Every page's bytes (with all its assets) and median DOMContentLoaded (ms) of LOADS loads."""
    from playwright.sync_api import sync_playwright

    figures = {}
    with served_site() as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        tab = Tab(browser)  # one warm tab, its cache off: every load fetches every asset
        for page_path in site_pages(html):
            sizes, times = [], []
            for _ in range(LOADS):
                load = PageLoad(tab, base + page_path)
                sizes.append(load.total_bytes)
                times.append(load.dom_content_loaded_ms())
                load.close()
            figures[page_path] = (max(sizes), statistics.median(times))
        browser.close()
    return figures


INSPECT_BUDGET = 2.0  # seconds for chapter 8's inspect_module on a 10 M-parameter model
INSPECT_MODEL = """
import time
torch.manual_seed(0)
vocab, dim = 16000, 256
embed = nn.Embedding(vocab, dim)
layer = nn.TransformerEncoderLayer(dim, 4, 4 * dim, batch_first=True)
stack = nn.TransformerEncoder(layer, 8, enable_nested_tensor=False)
head = nn.Linear(dim, vocab, bias=False)
head.weight = embed.weight


class TiedLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed, self.stack, self.head = embed, stack, head

    def forward(self, tokens):
        return self.head(self.stack(self.embed(tokens)))


model = TiedLM()
count = sum(p.numel() for p in model.parameters())
start = time.perf_counter()
inspect_module(model)
bare = time.perf_counter() - start
tokens = torch.randint(0, vocab, (2, 64))
start = time.perf_counter()
inspect_module(model, tokens)
full = time.perf_counter() - start
print(count, bare, full)
"""


def inspect_seconds() -> tuple[int, float, float]:
    """(parameters, seconds without inputs, seconds with a batch of tokens) for chapter 8's
    inspect_module on a tied Transformer language model of about 10 M parameters, in a fresh CPU
    process running the published script's code."""
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    from inspect_download import script_text

    code = script_text(ROOT).replace('if __name__ == "__main__":', "if False:")
    out = subprocess.run(
        [str(BIN / "python"), "-c", code + INSPECT_MODEL],
        cwd=ROOT,
        env={**os.environ, "CUDA_VISIBLE_DEVICES": ""},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return int(out[0]), float(out[1]), float(out[2])


def row(name: str, value: str, budget: str, ok: bool | None) -> str:
    verdict = "" if ok is None else ("ok" if ok else "OVER")
    return f"| {name} | {value} | {budget} | {verdict} |"


def main(argv: list[str]) -> int:
    site_only = "--site" in argv
    env_note = f"{os.cpu_count()} CPUs visible, load average {os.getloadavg()[0]:.1f}"
    lines = [
        f"Budgets ({env_note})",
        "",
        "| measure | value | budget | |",
        "| --- | --- | --- | --- |",
    ]
    if not site_only:
        whole = timed(["make", "-s", "test"])
        lines.append(row("make test (the book built)", f"{whole:.1f} s", "<= 150 s", whole <= 150))
        nbval = timed(["make", "-s", "nbval"])
        lines.append(
            row(
                "nbval, all notebooks, 2 workers",
                f"{nbval:.1f} s",
                "<= 60 s",
                nbval <= 60,
            )
        )
        browser_tests = timed(BROWSER_TESTS)
        lines.append(
            row(
                "browser tests, 2 workers",
                f"{browser_tests:.1f} s ({browser_tests / nbval:.1f}x nbval)",
                "<= 2x nbval",
                browser_tests <= 2 * nbval,
            )
        )
    with tempfile.TemporaryDirectory(prefix="book-bench-") as out:
        build = [*JB, "--path-output", out]
        clean = timed(build)
        noop = timed(build)
    lines.append(row("clean site build (English)", f"{clean:.1f} s", "<= 30 s", clean <= 30))
    lines.append(row("no-op rebuild", f"{noop:.1f} s", "<= 5 s", noop <= 5))
    figures = page_figures()
    dcl = statistics.median(t for _, t in figures.values())
    lines.append(
        row(
            "median DOMContentLoaded",
            f"{dcl:.0f} ms",
            f"<= {DCL_BUDGET:.0f} ms",
            dcl <= DCL_BUDGET,
        )
    )
    heaviest = max(size for size, _ in figures.values())
    lines.append(
        row(
            "heaviest page",
            f"{heaviest / 1e6:.2f} MB",
            "<= 1.2 MB",
            heaviest <= PAGE_BUDGET,
        )
    )
    for page, (size, ms) in figures.items():
        lines.append(
            row(
                f"page {page}",
                f"{size / 1e6:.2f} MB, DCL {ms:.0f} ms",
                "<= 1.2 MB",
                size <= PAGE_BUDGET,
            )
        )
    if not site_only:
        count, bare, full = inspect_seconds()
        for label, seconds in (("", bare), (", with example_inputs", full)):
            lines.append(
                row(
                    f"inspect_module, {count / 1e6:.1f} M parameters{label}",
                    f"{seconds:.2f} s",
                    f"<= {INSPECT_BUDGET:.0f} s",
                    seconds <= INSPECT_BUDGET,
                )
            )
        for name, seconds in notebook_seconds().items():
            lines.append(row(f"execute {name} (1 kernel)", f"{seconds:.1f} s", "", None))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
