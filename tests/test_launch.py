"""Where a chapter runs besides this repository's .venv: Colab and Binder.

Colab preinstalls torch, NumPy, matplotlib, safetensors and IPython, so a notebook may import
those, the standard library and the book's own package, inside_nn, which its first cell installs
where it is missing: NOTEBOOK_PACKAGES below, the one declaration of that set
(tests/test_structure.py checks each notebook against it too). Binder builds its image from
.binder/: exactly the packages the notebooks import, at the root pins, torch as the CPU build,
the book's package from the repository, plus a kernel; no Jupyter Book, Playwright, linters or
pytest.
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import re
import sys
from pathlib import Path

from conftest import NOTEBOOK_DIR, ROOT

# Import names a notebook may use besides the standard library: what Colab preinstalls, and the book's
# package.
COLAB = {"torch", "numpy", "matplotlib", "safetensors", "IPython"}
BOOK_PACKAGE = "inside_nn"
NOTEBOOK_PACKAGES = COLAB | {BOOK_PACKAGE}
# Binder gets IPython with the kernel, and the book's package from the repository itself (`.`).
WITH_THE_KERNEL = {"IPython"}
KERNEL = "ipykernel"
BINDER = ROOT / ".binder"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
TOOLCHAIN = {"jupyter-book", "playwright", "pytest", "ruff", "codespell", "nbval"}


def notebooks() -> list[Path]:
    """Every notebook a reader can open, translations included."""
    return sorted(p for p in NOTEBOOK_DIR.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def cell_imports(source: str) -> set[str]:
    """Top-level module names imported by a code cell (IPython's % and ! lines dropped)."""
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    names = set()
    for node in ast.walk(ast.parse("\n".join(lines))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def third_party_imports() -> dict[str, list[str]]:
    """Each imported name outside the standard library, with the notebooks importing it."""
    found: dict[str, list[str]] = {}
    for path in notebooks():
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] != "code":
                continue
            for name in cell_imports("".join(cell["source"])):
                if name not in sys.stdlib_module_names:
                    found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def distribution(import_name: str) -> str:
    """The distribution that provides an import name, in this environment."""
    providers = importlib.metadata.packages_distributions().get(import_name, [])
    assert len(providers) == 1, f"{import_name}: provided by {providers}"
    return normalise(providers[0])


def requirement_lines(path: Path) -> tuple[list[str], dict[str, str]]:
    """A requirements file's pip options and its `name==version` pins."""
    options, pins = [], {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        if line.startswith("-") or line == ".":
            options.append(line)
            continue
        assert "==" in line, f"{path.name}: not an exact pin: {line}"
        name, version = line.split("==")
        pins[normalise(name)] = version.strip()
    return options, pins


def test_notebooks_import_only_what_colab_preinstalls():
    imports = third_party_imports()
    extra = {name: paths for name, paths in imports.items() if name not in NOTEBOOK_PACKAGES}
    assert extra == {}, f"not preinstalled on Colab: {extra}"
    assert "torch" in imports


def test_binder_installs_the_notebooks_imports_and_a_kernel():
    options, pins = requirement_lines(BINDER / "requirements.txt")
    imported = set(third_party_imports()) - WITH_THE_KERNEL - {BOOK_PACKAGE}
    expected = {distribution(name) for name in imported} | {KERNEL}
    assert set(pins) == expected
    assert not set(pins) & TOOLCHAIN
    assert "." in options, "Binder must install the book's package from the repository"


def test_binder_pins_are_the_root_pins_with_cpu_torch():
    options, pins = requirement_lines(BINDER / "requirements.txt")
    _, root = requirement_lines(ROOT / "requirements.txt")
    assert options == [f"--extra-index-url {TORCH_CPU_INDEX}", "."]
    assert pins["torch"] == root["torch"] + "+cpu"
    for name, version in pins.items():
        if name != "torch":
            assert version == root[name], name


def test_binder_python_is_the_venvs():
    wanted = f"python-{sys.version_info.major}.{sys.version_info.minor}"
    assert (BINDER / "runtime.txt").read_text().strip() == wanted
