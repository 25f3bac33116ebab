"""Structure of the notebooks: what every chapter promises before any cell is run."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest
from conftest import (
    ROOT,
    is_stub,
    load_notebook,
    notebook_paths,
    real_notebook_paths,
    toc_files,
)
from test_launch import NOTEBOOK_PACKAGES

MAX_NOTEBOOK_BYTES = 1_000_000
MACHINE_PATH = re.compile(r"(/tmp/|/root/|/home/|/work/|/Users/|/private/var/|[A-Z]:\\)")
TRACEBACK_MARK = "Traceback (most recent call last)"

ALL = notebook_paths()
REAL = real_notebook_paths()


def ids(paths: list[Path]) -> list[str]:
    return [p.stem for p in paths]


def code_cells(nb: dict) -> list[tuple[int, dict]]:
    return [(i, c) for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code" and "".join(c["source"]).strip()]


def text_of(output: dict) -> str:
    parts = [
        "".join(output.get("text", "")),
        "".join(output.get("data", {}).get("text/plain", "")),
    ]
    parts += output.get("traceback", [])
    return "\n".join(parts)


def test_toc_and_notebooks_agree():
    in_toc = {f for f in toc_files() if f.startswith("notebooks/")}
    on_disk = {f"notebooks/{p.stem}" for p in ALL}
    assert in_toc == on_disk


def test_every_toc_entry_exists():
    for entry in toc_files():
        matches = list(ROOT.glob(entry + ".*"))
        assert matches, f"_toc.yml lists {entry}, which does not exist"


def test_stubs_say_so():
    for path in ALL:
        nb = load_notebook(path)
        if is_stub(nb):
            assert "in preparation" in "".join(nb["cells"][0]["source"]).lower()


@pytest.mark.parametrize("path", ALL, ids=ids(ALL))
def test_notebook_is_small(path):
    assert path.stat().st_size <= MAX_NOTEBOOK_BYTES


@pytest.mark.parametrize("path", ALL, ids=ids(ALL))
def test_single_title(path):
    nb = load_notebook(path)
    titles = [
        line
        for c in nb["cells"]
        if c["cell_type"] == "markdown"
        for line in "".join(c["source"]).splitlines()
        if line.startswith("# ")
    ]
    assert len(titles) == 1, titles


@pytest.mark.parametrize("path", REAL, ids=ids(REAL))
def test_opens_with_goals_and_prerequisites(path):
    first = "".join(load_notebook(path)["cells"][0]["source"])
    assert first.startswith("# ")
    assert "## What you will learn" in first
    assert "## Prerequisites" in first


@pytest.mark.parametrize("path", REAL, ids=ids(REAL))
def test_ends_with_summary_and_exercises(path):
    headings = [
        line.strip()
        for c in load_notebook(path)["cells"]
        if c["cell_type"] == "markdown"
        for line in "".join(c["source"]).splitlines()
        if line.startswith("## ")
    ]
    assert "## Summary" in headings
    assert "## Exercises" in headings
    assert headings.index("## Summary") < headings.index("## Exercises")


@pytest.mark.parametrize("path", REAL, ids=ids(REAL))
def test_exercises_have_executed_solutions(path):
    nb = load_notebook(path)
    cells = nb["cells"]
    starts = [i for i, c in enumerate(cells) if "{solution-start}" in "".join(c["source"])]
    assert starts, "no {solution-start} in the notebook"
    for start in starts:
        end = next(i for i in range(start, len(cells)) if "{solution-end}" in "".join(cells[i]["source"]))
        solution_code = [c for c in cells[start:end] if c["cell_type"] == "code"]
        assert solution_code, f"solution at cell {start} has no code cell"
        assert all(c["execution_count"] for c in solution_code)


@pytest.mark.parametrize("path", REAL, ids=ids(REAL))
def test_code_cells_executed_in_order(path):
    counts = [c["execution_count"] for _, c in code_cells(load_notebook(path))]
    assert counts, "a real chapter has code"
    assert None not in counts, "some code cells were never executed"
    assert counts == list(range(1, len(counts) + 1)), counts


@pytest.mark.parametrize("path", REAL, ids=ids(REAL))
def test_stored_outputs_are_clean(path):
    for i, cell in code_cells(load_notebook(path)):
        tags = cell.get("metadata", {}).get("tags", [])
        for output in cell.get("outputs", []):
            text = text_of(output)
            assert not MACHINE_PATH.search(text), f"cell {i}: machine path in output"
            if "raises-exception" in tags:
                continue
            assert output.get("name") != "stderr", f"cell {i}: stderr: {text[:200]}"
            assert output["output_type"] != "error", f"cell {i}: error output"
            assert TRACEBACK_MARK not in text, f"cell {i}: traceback in output"


@pytest.mark.parametrize("path", REAL, ids=ids(REAL))
def test_raises_exception_cells_do_raise(path):
    for i, cell in code_cells(load_notebook(path)):
        if "raises-exception" in cell.get("metadata", {}).get("tags", []):
            kinds = [o["output_type"] for o in cell.get("outputs", [])]
            assert "error" in kinds, f"cell {i} is tagged raises-exception but did not"


# What Colab preinstalls: declared once, in tests/test_launch.py, which holds Binder to it too.
INSTALLED = NOTEBOOK_PACKAGES


def repo_module_names() -> set[str]:
    """Names a notebook could import only from this repository (its root or notebooks/); the book's
    package, inside_nn, is installed (the notebook's first cell installs it where it is missing)."""
    modules = [*ROOT.glob("*.py"), *(ROOT / "notebooks").glob("*.py")]
    folders = {p.name for p in ROOT.iterdir() if p.is_dir()} - {"inside_nn"}
    return {p.stem for p in modules} | folders


def python_source(cell: dict) -> str:
    lines = "".join(cell["source"]).splitlines()
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in lines)


@pytest.mark.parametrize("path", REAL, ids=ids(REAL))
def test_standalone_imports(path):
    """Colab runs a notebook on its own: it may import only installed packages."""
    local = repo_module_names()
    stdlib = set(sys.stdlib_module_names)
    for i, cell in code_cells(load_notebook(path)):
        source = python_source(cell)
        assert "sys.path" not in source, f"cell {i} edits sys.path"
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                assert node.level == 0, f"cell {i}: relative import"
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top not in local, f"cell {i} imports {top} from the repository"
                assert top in stdlib or top in INSTALLED, f"cell {i}: {top}?"


@pytest.mark.parametrize("path", REAL, ids=ids(REAL))
def test_has_device_helper_and_seed(path):
    # code cell 0 installs the package; cell 1 sets up the chapter
    setup = "".join(code_cells(load_notebook(path))[1][1]["source"])
    assert "torch.manual_seed(" in setup
    assert "from inside_nn import pick_device" in setup
    assert "device = pick_device()" in setup


def _in_solution_dropdown(cells: list[dict]) -> set[int]:
    """Indices of the cells between a {solution-start} and its {solution-end}."""
    inside, flagged = False, set()
    for i, cell in enumerate(cells):
        text = "".join(cell["source"])
        if "{solution-start}" in text:
            inside = True
        elif "{solution-end}" in text:
            inside = False
        elif inside:
            flagged.add(i)
    return flagged


@pytest.mark.parametrize("path", REAL, ids=ids(REAL))
def test_no_code_cell_is_longer_than_40_lines(path):
    """Machinery lives in the package: Colab and JupyterLab show every cell in full, whatever its
    tags. Only reference solutions, inside their dropdowns, may be longer."""
    cells = load_notebook(path)["cells"]
    allowed = _in_solution_dropdown(cells)
    long = {
        i: len("".join(c["source"]).splitlines())
        for i, c in enumerate(cells)
        if c["cell_type"] == "code" and i not in allowed
    }
    assert {i: n for i, n in long.items() if n > 40} == {}


@pytest.mark.parametrize("path", REAL, ids=ids(REAL))
def test_figures_are_captioned(path):
    for i, cell in code_cells(load_notebook(path)):
        has_image = any("image/png" in o.get("data", {}) for o in cell.get("outputs", []))
        if has_image:
            figure = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
            assert figure.get("caption") and figure.get("name"), f"cell {i}: no caption"
