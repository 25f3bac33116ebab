"""Nothing a chapter prints is wider than its box, in either edition, on a 1366-px laptop screen.

A code output is the book's evidence: a line cut at the box's edge, to be read by scrolling
sideways, hides the end of the sentence that matters (a report's finding, a loader's verdict). So
on every chapter page, English and Korean, no line of a code output may be wider than its box in the
font the page shows it in, wrapping aside (a URL alone on its line, an error's message and a
checker's result excepted: the page wraps those), and no element of an output may scroll sideways. Code *inputs* may scroll: they are code to
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

# Every code output line wider than its box, measured in the font the page renders it in (so a
# Hangul character, twice as wide as a Latin one, counts as the reader sees it), as if nothing wrapped:
# book.css lets output text wrap so that what may be longer never scrolls (a URL on a line of its
# own, torch's one-line error message, a checker's one-sentence result), and this test holds every
# other line to the box. Plus any element of an output that scrolls sideways all the same.
_WIDE_OUTPUTS_JS = """() => {
  const canvas = document.createElement('canvas').getContext('2d');
  const url = /^\\s*(see )?https?:\\/\\/\\S+$/;
  const wide = [];
  for (const out of document.querySelectorAll('.bd-article .cell_output')) {
    const checker = out.closest('.tag_exercise-check') !== null;
    for (const pre of out.querySelectorAll('pre')) {
      if (checker || pre.closest('.traceback')) continue;
      const style = getComputedStyle(pre);
      canvas.font = `${style.fontSize} ${style.fontFamily}`;
      const room = pre.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      for (const line of pre.textContent.split('\\n')) {
        const px = canvas.measureText(line).width;
        if (px > room + 1 && !url.test(line))
          wide.push({over_px: Math.round(px - room), chars: line.length, line: line.slice(0, 60)});
      }
    }
    for (const e of [out, ...out.querySelectorAll('*')]) {
      if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
        wide.push({over_px: e.scrollWidth - e.clientWidth, scrolls: e.tagName});
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
    assert wide == [], f"{len(wide)} output line(s) wider than their box at {LAPTOP[0]} px: {wide}"
