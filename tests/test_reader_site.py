"""What the built site hands out as notebooks (book/_ext/reader_notebooks.py): its download buttons
and offline copy give the reader notebooks, its exercise and figure numbers are theirs, every link
of theirs leads to a page and anchor that exists, and its Colab buttons open the branch the publish
job fills. Run by `make verified`, after `make book` (tests/test_reader_notebooks.py: the rest)."""

from __future__ import annotations

import json
import re
import sys
import zipfile

import pytest
from conftest import ROOT
from test_reader_notebooks import (
    IDS,
    SOURCES,
    convert,
    converters,
    load,
    rn,
    text,
)

HTML = ROOT / "_build" / "html"
__all__ = ["converters"]  # the fixture, shared


@pytest.fixture(scope="module", autouse=True)
def built_site():
    assert (HTML / "index.html").exists(), "no site: run make book"


@pytest.mark.parametrize(("edition", "path"), SOURCES, ids=IDS)
def test_every_link_of_a_reader_notebook_leads_to_a_built_page_and_anchor(converters, edition, path):
    _, reader = convert(converters, edition, path)
    base = rn.site_url()
    for cell in reader["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for match in re.finditer(r"\]\((https?://[^)\s]+)\)|\b(?:href|src)=\"(https?://[^\"]+)\"", text(cell)):
            url = match.group(1) or match.group(2)
            if not url.startswith(base):
                continue
            page, _, anchor = url.removeprefix(base).partition("#")
            file = HTML / page
            assert file.is_file(), url
            if anchor:
                assert f'id="{anchor}"' in file.read_text(encoding="utf-8"), url


@pytest.mark.parametrize("edition", ["en", "ko"])
def test_exercise_and_figure_numbers_are_the_sites(converters, edition):
    words = rn.WORDS[edition]
    for target in converters[edition].labels.values():
        if target.text.startswith((words["exercise"], words["figure"])):
            page = (HTML / target.page).read_text(encoding="utf-8")
            number = re.escape(target.text)
            assert re.search(rf'caption-number">{number} ', page), (target, edition)


@pytest.mark.parametrize(("edition", "path"), SOURCES, ids=IDS)
def test_the_download_button_hands_out_the_reader_notebook(converters, edition, path):
    prefix = "ko/" if edition == "ko" else ""
    rel = path.relative_to(ROOT)
    download = HTML / f"{prefix}_sources" / rel
    page = HTML / prefix / rel.with_suffix(".html")
    assert f'href="{"../" * (len(rel.parts) - 1)}_sources/{rel.as_posix()}"' in (page.read_text(encoding="utf-8"))
    _, reader = convert(converters, edition, path)
    assert load(download) == reader
    with zipfile.ZipFile(HTML / "inside-nn-module.zip") as archive:
        offline = json.loads(archive.read(f"inside-nn-module/{rel.as_posix()}"))
        assert archive.getinfo(f"inside-nn-module/wheels/{_wheel()}")
    assert offline == reader


def _wheel() -> str:
    sys.path.insert(0, str(ROOT / "tools"))
    from wheel import wheel_name

    return wheel_name()


def test_colab_buttons_open_the_reader_branch():
    page = (HTML / "notebooks" / "01_parameter_management.html").read_text(encoding="utf-8")
    colab = re.findall(r'href="(https://colab\.research\.google\.com/[^"]+)"', page)
    assert colab and all(f"/blob/{rn.READER_BRANCH}/" in url for url in colab), colab
    workflow = (ROOT / ".github" / "workflows" / "publish.yml").read_text()
    assert f"HEAD:{rn.READER_BRANCH}" in workflow and "contents: write" in workflow
