"""The checked exercises: each checker accepts right answers and names the mistake in wrong ones.

Each chapter's checkers live in the book's package, ``inside_nn.exercises.chNN``; the notebook's cell
tagged ``exercise-checkers`` is one import line from that module. This file runs answers from
``tests/exercise_cases/chNN.py`` through them: at least three right answers that differ from the
page's reference, and the classic wrong answers, each of which must print the hint meant for it.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import functools
import importlib
import importlib.util
import io
import re
from pathlib import Path

import pytest
from conftest import NOTEBOOK_DIR, load_notebook, real_notebook_paths

from inside_nn.exercises import CHAPTERS, harness

CASES_DIR = Path(__file__).parent / "exercise_cases"
DEFINITIONS = (
    ast.Import,
    ast.ImportFrom,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
)
CHECK_CALL = re.compile(r"^\s*(check_\w+)\(")


def case_modules() -> list:
    modules = []
    for path in sorted(CASES_DIR.glob("ch*.py")):
        spec = importlib.util.spec_from_file_location(f"exercise_cases_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.STEM = path.stem
        modules.append(module)
    return modules


MODULES = case_modules()
ALL_CASES = [
    pytest.param(m.NOTEBOOK, check, answer, expect, id=f"{m.STEM}-{case_id}")
    for m in MODULES
    for case_id, check, answer, expect in m.CASES
]


def cell_source(cell: dict) -> str:
    """A code cell's Python, without IPython `%` and `!` lines."""
    lines = "".join(cell["source"]).splitlines()
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in lines)


def tagged(nb: dict, tag: str) -> list[dict]:
    return [c for c in nb["cells"] if tag in c.get("metadata", {}).get("tags", [])]


def checkers_module(notebook: str):
    """The package module that holds a chapter's checkers and references."""
    return importlib.import_module(f"inside_nn.exercises.{CHAPTERS[notebook]}")


@functools.cache
def _namespace_code(notebook: str) -> tuple:
    """What checker_namespace runs, compiled once per notebook: the install cell's imports and
    definitions, the setup cell whole, then the imports, functions and classes of the chapter's other
    cells before the exercises (the reader ran them; their computations are left out), then the
    checker cell (an import from the package)."""
    nb = load_notebook(NOTEBOOK_DIR / f"{notebook}.ipynb")
    (checkers,) = tagged(nb, "exercise-checkers")
    setup = next(c for c in nb["cells"] if c["cell_type"] == "code" and c["id"] != "book-package")
    code = []
    for cell in nb["cells"]:
        if cell is checkers:
            break
        if cell["cell_type"] != "code":
            continue
        source = "".join(
            line for line in cell_source(cell).splitlines(keepends=True) if not line.lstrip().startswith(("%", "!"))
        )
        tree = ast.parse(source)
        if cell is not setup:
            tree.body = [n for n in tree.body if isinstance(n, DEFINITIONS)]
        code.append(compile(tree, f"{notebook}:{cell['id']}", "exec"))
    code.append(compile(cell_source(checkers), f"{notebook}:checkers", "exec"))
    return tuple(code)


def checker_namespace(notebook: str) -> dict:
    """A fresh namespace as the reader's notebook has it at the exercises, and nothing else (see
    _namespace_code). An answer that uses a name the notebook never defines fails here as it would
    there."""
    namespace: dict = {"__name__": "__main__"}
    for code in _namespace_code(notebook):
        exec(code, namespace)  # noqa: S102
    return namespace


def run_check(namespace: dict, check: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(check, "check", "exec"), namespace)  # noqa: S102
    return out.getvalue()


# A third of every deadline: the endless-loop answers end in 3 s (the default 10 s) or 1 s (3 s), chapter 7's
# simulated rank left waiting in 0.6 s (2 s), and a right answer, which meets one small model per call, still
# has ample time on a loaded machine.
TEST_DEADLINE_SCALE = 0.3


@pytest.mark.parametrize(("notebook", "check", "answer", "expect"), ALL_CASES)
def test_checker_verdict(notebook, check, answer, expect, monkeypatch):
    monkeypatch.setattr(harness, "DEADLINE_SCALE", TEST_DEADLINE_SCALE)
    namespace = checker_namespace(notebook)
    exec(compile(answer, "answer", "exec"), namespace)  # noqa: S102
    printed = run_check(namespace, check)
    lines = printed.splitlines()
    assert len(lines) == 1, f"a checker prints exactly one line, got {printed!r}"
    (line,) = lines
    if expect.startswith("✓"):
        assert line.startswith("✓ correct"), line
    else:
        assert line.startswith("✗ "), line
        assert "not solved yet" not in line, line
    assert expect in line, line


@pytest.mark.parametrize("path", real_notebook_paths(), ids=lambda p: p.stem)
def test_every_checker_has_right_and_wrong_answers(path):
    nb = load_notebook(path)
    used = {
        CHECK_CALL.match(cell_source(c)).group(1)
        for c in tagged(nb, "exercise-check")
        if CHECK_CALL.match(cell_source(c))
    }
    assert len(used) >= 3, f"{path.stem}: {len(used)} checked exercises, want at least 3"
    cases = [(check, expect) for m in MODULES if m.NOTEBOOK == path.stem for _, check, _, expect in m.CASES]
    for name in sorted(used):
        mine = [expect for check, expect in cases if CHECK_CALL.match(check).group(1) == name]
        right = [e for e in mine if e.startswith("✓")]
        wrong = [e for e in mine if not e.startswith("✓")]
        assert len(right) >= 3, (
            f"{name}: needs three right answers in tests/exercise_cases, "
            f"written differently from the reference; has {len(right)}"
        )
        assert len(wrong) >= 6, (
            f"{name}: needs six wrong answers (mistakes a reader makes) in tests/exercise_cases; has {len(wrong)}"
        )


@pytest.mark.parametrize("path", real_notebook_paths(), ids=lambda p: p.stem)
def test_stub_fails_and_reference_passes_in_stored_outputs(path):
    """Stub, check (stored: not solved yet), solution dropdown, the same check (stored: ✓)."""
    cells = load_notebook(path)["cells"]
    stubs = [i for i, c in enumerate(cells) if "exercise-stub" in c.get("metadata", {}).get("tags", [])]
    assert len(stubs) >= 3, f"{path.stem}: {len(stubs)} exercise stubs, want at least 3"

    def code_after(i: int) -> int:
        return next(j for j in range(i + 1, len(cells)) if cells[j]["cell_type"] == "code")

    def stored(cell: dict) -> str:
        return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))

    for stub in stubs:
        assert "NotImplementedError" in "".join(cells[stub]["source"]), f"cell {stub}: stub body"
        check = code_after(stub)
        tags = cells[check].get("metadata", {}).get("tags", [])
        assert "exercise-check" in tags, f"cell {check}: the stub is not followed by its check"
        assert stored(cells[check]).startswith("✗ not solved yet"), f"cell {check}: {stored(cells[check])!r}"
        start = next(j for j in range(check, len(cells)) if "{solution-start}" in "".join(cells[j]["source"]))
        end = next(j for j in range(start, len(cells)) if "{solution-end}" in "".join(cells[j]["source"]))
        again = [j for j in range(start, end) if "exercise-check" in cells[j].get("metadata", {}).get("tags", [])]
        assert again, f"cell {check}: no check after the reference solution"
        assert cells[again[-1]]["source"] == cells[check]["source"], f"cell {again[-1]}: not the same check"
        assert stored(cells[again[-1]]).startswith("✓ correct"), f"cell {again[-1]}: {stored(cells[again[-1]])!r}"
        assert any(cells[j]["cell_type"] == "code" and j < again[-1] for j in range(start, end)), (
            f"cell {start}: the dropdown has no reference solution"
        )


@pytest.mark.parametrize("path", real_notebook_paths(), ids=lambda p: p.stem)
def test_the_checker_cell_imports_the_chapters_checkers(path):
    """One import from the chapter's package module, of every check_* the page calls."""
    nb = load_notebook(path)
    (cell,) = tagged(nb, "exercise-checkers")
    (node,) = ast.parse(cell_source(cell)).body
    assert isinstance(node, ast.ImportFrom), path.stem
    assert node.module == f"inside_nn.exercises.{CHAPTERS[path.stem]}", path.stem
    imported = {alias.name for alias in node.names}
    called = {
        CHECK_CALL.match(cell_source(c)).group(1)
        for c in tagged(nb, "exercise-check")
        if CHECK_CALL.match(cell_source(c))
    }
    assert imported == called, path.stem
    module = checkers_module(path.stem)
    assert all(callable(getattr(module, name)) for name in imported), path.stem


def _definitions(source: str) -> dict[str, ast.AST]:
    """Top-level functions and classes of a cell, by name."""
    return {
        node.name: node
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }


def _shape(node: ast.AST, name: str) -> str:
    """The definition's AST, named `name`, without docstring-independent positions."""
    node = copy.deepcopy(node)
    old = node.name
    node.name = name
    for inner in ast.walk(node):  # a recursive reference calls itself by its own name
        if isinstance(inner, ast.Name) and inner.id == old:
            inner.id = name
    return ast.dump(node, include_attributes=False)


@pytest.mark.parametrize("path", real_notebook_paths(), ids=lambda p: p.stem)
def test_the_solution_shown_is_the_reference_the_checker_uses(path):
    """Every answer a check call passes, defined in the solution dropdown, is `_reference_<name>` in the
    chapter's checker module, line for line: the reader sees the code the checker compares against."""
    nb = load_notebook(path)
    cells = nb["cells"]
    module_file = Path(checkers_module(path.stem).__file__)
    references = _definitions(module_file.read_text(encoding="utf-8"))
    starts = [i for i, c in enumerate(cells) if "{solution-start}" in "".join(c["source"])]
    compared = 0
    for start in starts:
        end = next(j for j in range(start, len(cells)) if "{solution-end}" in "".join(cells[j]["source"]))
        shown: dict[str, ast.AST] = {}
        calls = []
        for cell in cells[start:end]:
            if cell["cell_type"] != "code":
                continue
            if "exercise-check" in cell.get("metadata", {}).get("tags", []):
                calls.append(ast.parse(cell_source(cell)))
            else:
                shown.update(_definitions(cell_source(cell)))
        for tree in calls:
            for call in ast.walk(tree):
                if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
                    continue
                if not call.func.id.startswith("check_"):
                    continue
                for arg in call.args:
                    if isinstance(arg, ast.Name) and arg.id in shown:
                        ref = f"_reference_{arg.id}"
                        assert ref in references, f"{path.stem}: {module_file.name} has no {ref}"
                        assert _shape(references[ref], arg.id) == _shape(shown[arg.id], arg.id), (
                            f"{path.stem}: the solution shown for {arg.id} is not {ref}"
                        )
                        compared += 1
    assert compared >= 3, f"{path.stem}: {compared} references compared with the solutions shown"
