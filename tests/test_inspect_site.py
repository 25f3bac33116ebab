"""Chapter 8 on the built site: the downloadable script is published in both editions, and every link a
finding carries leads to a section that exists (the report's links point at the English edition)."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT
from test_inspect import DOWNLOAD, load_inspect

SITE = ROOT / "_build" / "html"


def _sections() -> dict[str, str]:
    """Where each inspector's findings link (each prints BOOK + SECTIONS[kind]), ddp_check's included."""
    from inside_nn.ddp_check import SECTIONS as DDP
    from inside_nn.inspect_checkpoint import SECTIONS as CHECKPOINT

    module = {f"inspect_module: {k}": v for k, v in load_inspect()["SECTIONS"].items()}
    return (
        module
        | {f"inspect_checkpoint: {k}": v for k, v in CHECKPOINT.items()}
        | {f"ddp_check: {k}": v for k, v in DDP.items()}
    )


@pytest.mark.parametrize("folder", ["notebooks", "ko/notebooks/ko"])
def test_the_script_is_published_next_to_the_page_in_both_editions(folder):
    published = SITE / folder / "inspect_module.py"
    assert published.read_text(encoding="utf-8") == DOWNLOAD.script_text(ROOT)


@pytest.mark.parametrize("edition", ["en", "ko"])
@pytest.mark.parametrize(("kind", "target"), sorted(_sections().items()))
def test_each_finding_links_to_a_section_that_exists(kind, target, edition):
    """The same anchor names the section in both editions (book/_ext/korean_anchors.py)."""
    page, _, anchor = target.partition("#")
    if edition == "ko":
        page = "ko/" + page.replace("notebooks/", "notebooks/ko/")
    html = (SITE / page).read_text(encoding="utf-8")
    assert anchor, f"{kind}: link to a section"
    assert re.search(rf'id="{re.escape(anchor)}"', html), f"{kind}: no section #{anchor} in {page}"


@pytest.mark.parametrize("folder", ["notebooks", "ko/notebooks/ko"])
def test_the_page_links_the_download(folder):
    html = (SITE / folder / "08_inspect_your_model.html").read_text(encoding="utf-8")
    assert 'href="inspect_module.py"' in html
