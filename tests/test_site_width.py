"""Nothing a chapter prints is wider than its box, in either edition, on a 1366-px laptop screen.

A code output is the book's evidence: a line cut at the box's edge, to be read by scrolling
sideways, hides the end of the sentence that matters (a report's finding, a loader's verdict). So
on every chapter page, English and Korean, no line of a code output may be wider than its box in the
font the page shows it in, wrapping aside (a URL alone on its line, an error's message and a
checker's result excepted: the page wraps those), and no element of an output may scroll sideways. Code *inputs* may scroll: they are code to
copy and run, and wrapping them would change what they show; the notebooks keep them short.

The widths are measured in the one load of each page the other browser checks read
(tests/page_report.py), with the window at 1366 px. tests/test_output_width.py holds the same rule without a
browser, on the text stored in the notebooks.
"""

from __future__ import annotations

import pytest
from page_report import LAPTOP, NOTEBOOK_PAGES


def test_both_editions_have_chapter_pages():
    assert len(NOTEBOOK_PAGES) >= 2
    assert any(p.startswith("ko/") for p in NOTEBOOK_PAGES)
    assert any(not p.startswith("ko/") for p in NOTEBOOK_PAGES)


@pytest.mark.parametrize("path", NOTEBOOK_PAGES)
def test_no_code_output_is_wider_than_its_box(report, path):
    wide = report(path).wide_outputs
    assert wide is not None, f"the page's load measured no outputs at {LAPTOP[0]} px"
    assert wide == [], f"{len(wide)} output line(s) wider than their box at {LAPTOP[0]} px: {wide}"
