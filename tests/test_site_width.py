"""Nothing a chapter prints is wider than its box, in either edition, on a 1366-px laptop screen.

A code output is the book's evidence: a line cut at the box's edge, to be read by scrolling
sideways, hides the end of the sentence that matters (a report's finding, a loader's verdict). So
on every chapter page, English and Korean, no element of a code output may scroll sideways
(scrollWidth > clientWidth, 1 px of rounding allowed). Code *inputs* may scroll: they are code to
copy and run, and wrapping them would change what they show; the notebooks keep them short.

One warm tab loads the pages one after another (no settling wait: the outputs are static HTML,
laid out by the time `load` fires). tests/test_output_width.py holds the same rule without a
browser, on the text stored in the notebooks.
"""

from __future__ import annotations

from urllib.parse import urljoin

import pytest
from site_helpers import HTML, Tab, served_site, site_pages

LAPTOP = (1366, 900)
CHAPTER_PAGES = [p for p in site_pages() if "notebooks" in p.split("/")]

# Every element inside a code output that scrolls sideways: the output's first line, how much wider
# its content is than its box, and the longest line it shows.
_WIDE_OUTPUTS_JS = """() => {
  const wide = [];
  for (const out of document.querySelectorAll('.bd-article .cell_output')) {
    let over = 0;
    for (const e of [out, ...out.querySelectorAll('*')]) {
      if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
        over = Math.max(over, e.scrollWidth - e.clientWidth);
    }
    if (over > 0) {
      const lines = out.innerText.split('\\n');
      wide.push({over_px: over,
                 longest: Math.max(...lines.map(l => l.length)), first: lines[0].slice(0, 60)});
    }
  }
  return wide;
}"""


@pytest.fixture(scope="module")
def laptop(browser):
    """`laptop(path)`: the too-wide outputs of one chapter page, loaded in one warm 1366-px tab."""
    assert (HTML / "index.html").exists(), "build the site first: make book"
    with served_site() as base:
        tab = Tab(browser, viewport=LAPTOP)
        try:

            def wide_outputs(path: str) -> list[dict]:
                tab.page.goto(urljoin(base, path), wait_until="load")
                return tab.page.evaluate(_WIDE_OUTPUTS_JS)

            yield wide_outputs
        finally:
            tab.close()


def test_both_editions_have_chapter_pages():
    assert len(CHAPTER_PAGES) >= 2
    assert any(p.startswith("ko/") for p in CHAPTER_PAGES)
    assert any(not p.startswith("ko/") for p in CHAPTER_PAGES)


@pytest.mark.parametrize("path", CHAPTER_PAGES)
def test_no_code_output_is_wider_than_its_box(laptop, path):
    wide = laptop(path)
    assert wide == [], (
        f"{len(wide)} output(s) scroll sideways at {LAPTOP[0]} px: {wide}"
    )
