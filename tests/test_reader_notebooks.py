"""The reader notebooks (book/_ext/reader_notebooks.py): what JupyterLab, Colab, Binder and a
downloaded notebook show. No raw MyST, solutions collapsed but runnable, the source's code and
outputs, links that lead to real sections of the site; and the site's downloads, the offline copy
and `make lab` hand these out. What the built site hands out is
tests/test_reader_site.py's, run after the build."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import reader_notebooks as rn

BASE = rn.site_url()
SOURCES = rn.sources()
IDS = [f"{e}-{p.stem}" for e, p in SOURCES]

# What only MyST understands, as JupyterLab and Colab would show it (the review's myst_in_md.py).
MYST = {
    "directive": re.compile(r"^\s*(:{3,}|`{3,})\{", re.MULTILINE),
    "role": re.compile(r"\{[\w:.-]+\}`"),
    "target": re.compile(r"^\([\w.-]+\)=\s*$", re.MULTILINE),
    "option": re.compile(r"^:(label|class|name|language):", re.MULTILINE),
    "solution marker": re.compile(r"solution-(start|end)"),
}
LINK = re.compile(r"\]\((https?://[^)\s]+)\)")


@pytest.fixture(scope="module")
def converters():
    return {e: rn.Converter(e) for e in ("en", "ko")}


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def convert(converters, edition, path) -> tuple[dict, dict]:
    source = load(path)
    return source, converters[edition].convert(source)


def text(cell) -> str:
    return "".join(cell["source"])


def solution_cells(notebook: dict) -> set[str]:
    """The ids of the code cells inside a solution (between solution-start and solution-end)."""
    inside, ids = False, set()
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown" and "{solution-start}" in text(cell):
            inside = True
        elif cell["cell_type"] == "markdown" and "{solution-end}" in text(cell):
            inside = False
        elif inside and cell["cell_type"] == "code":
            ids.add(cell["id"])
    return ids


@pytest.mark.parametrize(("edition", "path"), SOURCES, ids=IDS)
def test_no_myst_syntax_is_left(converters, edition, path):
    _, reader = convert(converters, edition, path)
    found = [
        (cell["id"], kind, match.group(0))
        for cell in reader["cells"]
        if cell["cell_type"] == "markdown"
        for kind, pattern in MYST.items()
        for match in pattern.finditer(text(cell))
    ]
    assert found == []


@pytest.mark.parametrize(("edition", "path"), SOURCES, ids=IDS)
def test_code_and_outputs_are_the_sources(converters, edition, path):
    """Every code cell is there, in order, with its outputs; a solution cell only gains a title line
    and loses its outputs (its answer: Colab shows a folded cell's outputs)."""
    source, reader = convert(converters, edition, path)
    solutions = solution_cells(source)
    before = [c for c in source["cells"] if c["cell_type"] == "code"]
    after = [c for c in reader["cells"] if c["cell_type"] == "code"]
    assert [c["id"] for c in after] == [c["id"] for c in before]
    for old, new in zip(before, after, strict=True):
        code = text(new)
        if code.startswith("#@title"):
            code = code.split("\n", 1)[1]
        assert code == text(old), old["id"]
        if old["id"] in solutions:
            assert new["outputs"] == [] and new["execution_count"] is None, old["id"]
            continue
        assert new["outputs"] == old["outputs"], old["id"]
        assert new.get("execution_count") == old.get("execution_count")


@pytest.mark.parametrize(("edition", "path"), SOURCES, ids=IDS)
def test_every_solution_is_collapsed_and_runs_unchanged(converters, edition, path):
    source, reader = convert(converters, edition, path)
    solutions = solution_cells(source)
    assert solutions, "a chapter without exercises?"
    cells = {c["id"]: c for c in reader["cells"]}
    originals = {c["id"]: c for c in source["cells"]}
    titles = []
    for cell_id in solutions:
        cell = cells[cell_id]
        jupyter = cell["metadata"]["jupyter"]
        assert jupyter["source_hidden"], cell_id
        assert cell["metadata"]["cellView"] == "form", cell_id  # Colab shows only the title
        title, code = text(cell).split("\n", 1)
        assert re.fullmatch(r"#@title \S.*", title), title
        titles.append(title)
        assert code == text(originals[cell_id])
        compile(code, cell_id, "exec") if "%" not in code else None  # still Python
    # two cells of one solution are told apart (part i of n), so no two folded titles look alike
    assert len(set(titles)) == len(titles), titles
    # the rest stays open, except the setup machinery (hide-input), hidden as on the site
    for cell in reader["cells"]:
        if cell["cell_type"] != "code" or cell["id"] in solutions:
            continue
        hidden = cell["metadata"].get("jupyter", {}).get("source_hidden", False)
        assert hidden == ("hide-input" in cell["metadata"].get("tags", [])), cell["id"]
        assert "cellView" not in cell["metadata"]


@pytest.mark.parametrize(("edition", "path"), SOURCES, ids=IDS)
def test_exercises_are_numbered_headings(converters, edition, path):
    source, reader = convert(converters, edition, path)
    count = sum(text(c).count("{exercise}") for c in source["cells"])
    word = rn.WORDS[edition]["exercise"]
    headings = [
        m.group(1) for c in reader["cells"] for m in re.finditer(rf"^### {word} (\d+\.\d+)", text(c), re.MULTILINE)
    ]
    assert len(headings) == count > 0
    chapter = next(i for i, stems in enumerate(rn.numbered_chapters(), start=1) if path.stem in stems)
    assert {h.split(".")[0] for h in headings} == {str(chapter)}


def links(reader: dict) -> list[str]:
    return [m.group(1) for c in reader["cells"] if c["cell_type"] == "markdown" for m in LINK.finditer(text(c))]


@pytest.mark.parametrize(("edition", "path"), SOURCES, ids=IDS)
def test_every_link_is_absolute(converters, edition, path):
    """Colab and a lone download have no neighbouring files: every link names its host."""
    _, reader = convert(converters, edition, path)
    urls = [
        m.group(1) or m.group(2)
        for c in reader["cells"]
        if c["cell_type"] == "markdown"
        for m in re.finditer(r"\]\(([^)\s]+)\)|\b(?:href|src)=\"([^\"]+)\"", text(c))
    ]
    relative = [url for url in urls if not re.match(r"https?://", url)]
    assert relative == []


@pytest.mark.parametrize(("edition", "path"), SOURCES, ids=IDS)
def test_every_link_to_the_site_leads_to_a_page_and_anchor(converters, edition, path):
    """Against the label map read from the notebooks (tests/test_reader_site.py: the built pages)."""
    _, reader = convert(converters, edition, path)
    targets = {(t.page, t.anchor) for t in converters[edition].labels.values()}
    ours = [url for url in links(reader) if url.startswith(BASE)]
    if path.stem.startswith("07"):
        assert len(ours) > 30  # chapter 7's many {ref}s
    for url in ours:
        page, _, anchor = url.removeprefix(BASE).partition("#")
        if anchor:
            assert (page, anchor) in targets, url
        if edition == "ko":
            assert page.startswith("ko/"), url
        else:
            assert not page.startswith("ko/"), url


def test_a_link_to_a_missing_label_fails(converters):
    with pytest.raises(KeyError):
        converters["en"].roles("{ref}`nowhere <no-such-label>`")


def test_binder_converts_a_plain_checkout_in_place(tmp_path):
    """`.binder/postBuild` in a copy holding only what the repository tracks (no _build, no venv)."""
    for name in (
        "_config.yml",
        "_toc.yml",
        "book/references.bib",
        "book/_ext/reader_notebooks.py",
        ".binder/postBuild",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks")
    subprocess.run(["bash", ".binder/postBuild"], cwd=tmp_path, check=True, capture_output=True)
    expected = rn.Converter("en").convert(load(ROOT / "notebooks" / "01_parameter_management.ipynb"))
    assert load(tmp_path / "notebooks" / "01_parameter_management.ipynb") == expected
    korean = load(tmp_path / "notebooks" / "ko" / "07_buffers_and_ddp.ipynb")
    assert any(f"{BASE}ko/notebooks/ko/" in u for u in links(korean))


def test_make_lab_opens_the_reader_notebooks():
    makefile = (ROOT / "Makefile").read_text()
    assert "LAB_DIR ?= _build/reader/notebooks" in makefile
    assert "--ServerApp.root_dir=$(LAB_DIR)" in makefile
    assert urlparse(BASE).netloc.endswith("github.io")
