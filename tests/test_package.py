"""The book's package, inside_nn: one version everywhere, a first cell that installs exactly that version
only where it is missing, and a wheel that `make book` publishes and pip installs with nothing else."""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import subprocess
import sys
import zipfile

import pytest
import tomllib
from conftest import ROOT, load_notebook, real_notebook_paths
from wheel import build, wheel_name

import inside_nn
from inside_nn.inspect_module import BOOK

NOTEBOOKS = real_notebook_paths()
WHEEL_URL = BOOK + "wheels/"


def setup_cell(path) -> str:
    return "".join(next(c for c in load_notebook(path)["cells"] if c["cell_type"] == "code")["source"])


def test_one_version_installed_and_in_the_source():
    assert importlib.metadata.version("inside-nn") == inside_nn.__version__
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "inside_nn.__version__"}
    assert wheel_name() == f"inside_nn-{inside_nn.__version__}-py3-none-any.whl"


def test_the_installed_package_is_this_tree():
    assert importlib.util.find_spec("inside_nn").origin == str(ROOT / "inside_nn" / "__init__.py")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_first_cell_installs_this_version_from_the_site(path):
    source = setup_cell(path)
    assert f'BOOK_PACKAGE = "{wheel_name()}"' in source
    assert f'url = "{WHEEL_URL}" + BOOK_PACKAGE' in source
    assert "--retries 0 --timeout 15" in source  # offline: one clear error, not pip's retries
    comments = [line for line in source.splitlines() if line.lstrip().startswith("#")]
    assert all(len(line) <= 88 for line in comments), comments
    assert "make book" not in source  # a maintainer's command is no reader's business


class FakeIPython:
    """Records the magics a cell runs instead of running them."""

    def __init__(self):
        self.magics = []

    def run_line_magic(self, name, line):
        self.magics.append((name, line))


def run_install_cell(path, monkeypatch, *, version=None, missing=False, cwd=None) -> list:
    """Run the first cell up to its package import, with a recording get_ipython; return the magics."""
    import IPython

    source = setup_cell(path)
    head = source  # the first code cell only installs the package
    ipython = FakeIPython()
    monkeypatch.setattr(IPython, "get_ipython", lambda: ipython)
    if version is not None:
        monkeypatch.setattr(importlib.metadata, "version", lambda name: version)
    if missing:
        real = importlib.util.find_spec
        monkeypatch.setattr(
            importlib.util,
            "find_spec",
            lambda name, *a: None if name == "inside_nn" else real(name, *a),
        )
    if cwd is not None:
        monkeypatch.chdir(cwd)
    try:
        exec(compile(head, str(path), "exec"), {})  # noqa: S102
    except ModuleNotFoundError as error:
        ipython.magics.append(("raised", str(error)))
    return ipython.magics


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_install_cell_does_nothing_when_the_package_is_present(path, monkeypatch):
    assert run_install_cell(path, monkeypatch) == []


@pytest.mark.parametrize("path", NOTEBOOKS[:1], ids=lambda p: p.stem)
@pytest.mark.parametrize("case", ["missing", "other version"])
def test_the_install_cell_installs_the_wheel_when_missing_or_other(path, monkeypatch, case):
    magics = run_install_cell(
        path,
        monkeypatch,
        missing=case == "missing",
        version="0.0.1" if case == "other version" else None,
    )
    pip = f"install --quiet --no-deps --retries 0 --timeout 15 {WHEEL_URL}{wheel_name()}"
    assert magics[0] == ("pip", pip)
    if case == "missing":  # the install did not happen: one error that says where to get it
        assert magics[1][0] == "raised"
        assert WHEEL_URL in magics[1][1] and "wheels/ folder" in magics[1][1]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_the_install_cell_takes_the_offline_copys_wheel_first(path, monkeypatch, tmp_path, depth):
    """In the offline copy the notebook sits at notebooks/ (depth 1), notebooks/ko/ or
    _sources/notebooks/ (2), _sources/notebooks/ko/ (3); the wheel at wheels/ of its root."""
    wheel = tmp_path / "wheels" / wheel_name()
    wheel.parent.mkdir()
    wheel.write_bytes(b"")
    folder = tmp_path.joinpath(*["sub"] * depth)
    folder.mkdir(parents=True)
    magics = run_install_cell(path, monkeypatch, missing=True, cwd=folder)
    assert magics[0] == (
        "pip",
        f"install --quiet --no-deps --retries 0 --timeout 15 {wheel}",
    )


def test_the_wheel_is_reproducible_and_holds_the_package(tmp_path):
    first = build(tmp_path / "a").read_bytes()
    second = build(tmp_path / "b").read_bytes()
    assert first == second
    with zipfile.ZipFile(tmp_path / "a" / wheel_name()) as archive:
        names = set(archive.namelist())
        info = f"inside_nn-{inside_nn.__version__}.dist-info"
        entry_points = archive.read(f"{info}/entry_points.txt").decode()
        metadata = archive.read(f"{info}/METADATA").decode()
    sources = {
        p.relative_to(ROOT).as_posix() for p in (ROOT / "inside_nn").rglob("*.py") if "__pycache__" not in p.parts
    }
    assert sources <= names
    assert "inside-nn = inside_nn.cli:main" in entry_points
    assert "Name: inside-nn" in metadata and "Requires-Dist: torch>=2.6" in metadata


def test_the_wheel_tool_writes_outside_the_repository(tmp_path):
    """`python tools/wheel.py DIR` with DIR outside the checkout (the reviewer's crash) builds there."""
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "wheel.py"), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"wheel: {(tmp_path / 'out' / wheel_name()).resolve()}"
    assert (tmp_path / "out" / wheel_name()).read_bytes() == build(tmp_path / "again").read_bytes()


def test_the_package_imports_without_torch_for_help():
    """`inside-nn --help` must work in a fresh environment: the package root and the CLI import
    torch only when a command runs."""
    for name in ("__init__.py", "cli.py"):
        tree = ast.parse((ROOT / "inside_nn" / name).read_text())
        top = [
            n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom) and "torch" in ast.unparse(n).split()[1]
        ]
        assert top == [], name
