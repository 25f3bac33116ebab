"""The built Korean edition: every section has the anchor of the English section it translates, so a
link to a section works in both editions and survives a section added above it."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT

SITE = ROOT / "_build" / "html"
SECTION = re.compile(
    r"<section\b[^>]*?\bid=\"([^\"]+)\"[^>]*>\s*(?:<span[^>]*></span>\s*)*<h[1-6]",
    re.DOTALL,
)
PAGES = sorted(p.relative_to(SITE).as_posix() for p in (SITE / "notebooks").glob("*.html")) + [
    "book/intro.html",
]


def korean(page: str) -> str:
    return "ko/" + page.replace("notebooks/", "notebooks/ko/").replace("book/", "book/ko/")


def section_ids(page: str) -> list[str]:
    return SECTION.findall((SITE / page).read_text(encoding="utf-8"))


def test_the_pattern_reads_the_sections_of_a_page():
    ids = section_ids("notebooks/01_parameter_management.html")
    assert ids[:3] == ["parameter-management", "what-you-will-learn", "prerequisites"]
    assert "summary" in ids and "exercises" in ids


@pytest.mark.parametrize("page", PAGES)
def test_korean_sections_have_the_english_anchors(page):
    english, translated = section_ids(page), section_ids(korean(page))
    assert len(english) > 1
    assert translated == english


def test_no_korean_section_has_an_opaque_anchor():
    opaque = [
        f"{path.relative_to(SITE)}#{anchor}"
        for path in sorted((SITE / "ko").rglob("*.html"))
        for anchor in SECTION.findall(path.read_text(encoding="utf-8"))
        if re.fullmatch(r"id\d+", anchor)
    ]
    assert opaque == []
