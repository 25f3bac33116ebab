"""One load of each site page in Chromium, with everything the browser tests check on it.

Each page is loaded once per pytest-xdist worker, and every check of that page reads what that one
load saw (the load runs on first use; `--dist loadgroup` keeps a page's checks on one worker): the
checks of tests/test_site.py and the output widths of tests/test_site_width.py. Pages load one
after another in one warm tab per worker (cache off, so each load fetches every asset). The page
weight is checked because bytes are deterministic; times are only measured, by `make bench`.

Accessibility (axe): the full rule set runs on one page per template (edition x kind of page:
chapter, prose page, search page), untouched. Every other page runs the rules whose result can
differ between pages of one template (all but the document-shell rules in TEMPLATE_RULES), after
each run of identical syntax-highlighting spans is cut to its first span: a chapter's code is
thousands of spans of a few dozen token classes, and an identical span (same attributes, same
ancestors) has the same colours, so axe checks each combination once per page instead of once per
token. The template's page also runs the colour rules again in dark mode. Profiled: axe's
colour-contrast and its page-wide grid cost seconds per chapter, linear in the number of elements.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin

import pytest
from site_helpers import HTML, PageLoad, Tab, site_pages

PAGES = site_pages()
NOTEBOOK_PAGES = [p for p in PAGES if "notebooks" in p.split("/")]
MATH_PAGES = [p for p in PAGES if 'class="math' in (HTML / p).read_text(encoding="utf-8")]
# Output figures are copied to _images/ (icons and logos live in _static/).
FIGURE_PAGES = [p for p in PAGES if "_images/" in (HTML / p).read_text(encoding="utf-8")]
# Chapter pages with checked exercises (a stub chapter has none).
CHECKER_PAGES = [p for p in NOTEBOOK_PAGES if "tag_exercise-check" in (HTML / p).read_text(encoding="utf-8")]
AXE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text()


def template(path: str) -> tuple[str, str]:
    """The template a page is made from: its edition and its kind (chapter, prose page, or a page
    of its own such as search)."""
    parts = path.split("/")
    edition = "ko" if parts[0] == "ko" else "en"
    kind = next((p for p in parts if p in {"notebooks", "book"}), parts[-1])
    return edition, kind


# The smallest page of each template runs axe's full rule set on its untouched page (the shell the
# template's pages share is the same on each; axe's cost grows with the number of elements).
FULL_AXE_PAGES = sorted(
    min((p for p in PAGES if template(p) == kind), key=lambda p: ((HTML / p).stat().st_size, p))
    for kind in {template(p) for p in PAGES}
)
# Rules that only read the document shell every page of a template shares (head, lang, the main
# landmark and the skip link): run on FULL_AXE_PAGES, skipped on the others.
TEMPLATE_RULES = [
    "bypass",
    "document-title",
    "html-has-lang",
    "html-lang-valid",
    "html-xml-lang-mismatch",
    "landmark-one-main",
    "meta-refresh",
    "meta-viewport",
    "meta-viewport-large",
]
# Identical syntax-highlighting spans (same attributes, same chain of ancestors) become plain
# text after the first of them; returns how many spans were kept and cut.
_SAME_SPANS_JS = """() => {
  const seen = new Set(); let cut = 0;
  const chain = el => { const out = [];
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement)
      out.push(a.tagName + '.' + a.className);
    return out.join('<'); };
  for (const span of [...document.querySelectorAll('.highlight pre span')]) {
    if (span.children.length) continue;
    const key = [...span.attributes].map(a => a.name + '=' + a.value).join(' ') + '|' + chain(span);
    if (seen.has(key)) { span.replaceWith(span.textContent); cut++; } else seen.add(key);
  }
  return [seen.size, cut];
}"""

PAGE_BUDGET = 1_200_000  # bytes: the page and every asset it loads, uncompressed
PHONE = (390, 844)
LAPTOP = (1366, 900)  # where chapter outputs must fit their boxes (tests/test_site_width.py)
DESKTOP = (1280, 800)
SEARCH_WIDTHS = (390, 768, 1024, 1280, 1600)
CHROME_WIDTHS = (PHONE[0], DESKTOP[0])  # the page chrome is checked at both
ARCHIVE = HTML / "inside-nn-module.zip"


def grouped(paths: list[str]) -> list:
    """Parameters that keep every check of one page on the xdist worker that loaded it."""
    return [pytest.param(p, marks=pytest.mark.xdist_group(p), id=p) for p in paths]


# Figures: every image in a page's article that is not an icon or logo.
_FIGURES_JS = """() => [...document.querySelectorAll(
    '.bd-article .cell_output img, .bd-article figure img')].map(img => {
  const style = getComputedStyle(img);
  return {src: img.currentSrc || img.src, natural: img.naturalWidth, complete: img.complete,
          shown: img.getBoundingClientRect().width, filter: style.filter,
          background: style.backgroundColor};
})"""

_MATH_JS = """() => [...document.querySelectorAll('.bd-article .math')].map(el => {
  const math = el.querySelector('math');
  if (!math) return {source: el.textContent.slice(0, 60), display: null};
  const box = math.getBoundingClientRect();
  return {source: math.getAttribute('alttext'), display: getComputedStyle(math).display,
          width: box.width, height: box.height, errors: math.querySelectorAll('merror').length};
})"""

# What a reader can click to search: the header's button, a sidebar field, the search page's
# own field. Closed dialogs and display:none elements do not count.
_SEARCH_FIELDS_JS = """() => [...document.querySelectorAll(
    '.search-button__button, form.bd-search input[type=search]')].filter(el => {
  if (el.closest('dialog') && !el.closest('dialog').open) return false;
  const box = el.getBoundingClientRect();
  return box.width > 0 && box.height > 0 && el.checkVisibility({visibilityProperty: true});
}).map(el => el.className || el.tagName)"""


# The theme's top header: its height and what it shows (an empty band is a defect).
_HEADER_JS = """() => [...document.querySelectorAll('header.bd-header')].map(h => {
  const shown = [...h.querySelectorAll('*')].filter(el => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && el.checkVisibility({visibilityProperty: true})
      && (el.children.length === 0 || el.matches('button, a, input'));
  });
  return {height: h.getBoundingClientRect().height, items: shown.length};
})"""

# The result lines of checker cells (tag exercise-check): wider than their box means a reader
# scrolls sideways to read the hint.
_CHECKER_LINES_JS = """() => [...document.querySelectorAll(
    '.tag_exercise-check .cell_output pre')].map(pre => ({
  text: pre.textContent.trim().slice(0, 60), scroll: pre.scrollWidth, box: pre.clientWidth}))"""

# The section numbers a page shows: each sidebar entry's, its title's and its sections'.
_NUMBERS_JS = """() => {
  const number = el => el?.querySelector('.section-number')?.textContent.trim() ?? null;
  return {
    sidebar: [...document.querySelectorAll('nav.bd-links a.reference')].map(
      a => [a.href, a.textContent.trim().match(/^(\\d+(?:\\.\\d+)*\\.)\\s/)?.[1] ?? null]),
    title: number(document.querySelector('.bd-article h1')),
    sections: [...document.querySelectorAll('.bd-article :is(h2, h3, h4, h5, h6)')].map(number),
  };
}"""

# Everything a Korean page can show a reader, as text: its text nodes (shown now or on a click:
# menus, dialogs, collapsed solutions) and the attributes a browser shows or reads out (tooltips,
# labels, placeholders, alt text), except the parts matched by _NOT_READING_TEXT.
_READING_TEXT_JS = """notReading => {
  const parts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement && !node.parentElement.closest(notReading)) parts.push(node.textContent);
  }
  const shown = ['title', 'aria-label', 'placeholder', 'alt', 'data-bs-title', 'data-tooltip'];
  for (const el of document.body.querySelectorAll(shown.map(a => `[${a}]`).join(','))) {
    if (!el.closest(notReading)) parts.push(...shown.map(a => el.getAttribute(a) ?? ''));
  }
  return parts.join('\\n');
}"""
# What a Korean page may show in English, by where it stands: code, math and code output (the
# English code's, byte for byte); what is marked English (lang="en": the link to the English
# edition); print-only copies; bibliographic citations (authors and titles of works); the tables of
# contents' copies of headings (checked where they stand, with their code marked as code); and the
# glossary's article, whose subject is the English terms.
_NOT_READING_TEXT = (
    "code, pre, kbd, samp, math, script, style, noscript, template, "
    ".highlight, .cell_output, "
    "[lang='en'], "
    ".onlyprint, #jb-print-docs-body, "
    ".bibtex-citation, .citation, .citation-list, "
    ".page-toc a, .prev-next-title"
)
GLOSSARY = "ko/book/ko/glossary.html"

_THEME_JS = "[document.documentElement.dataset.mode, document.documentElement.dataset.theme]"


def os_colour_scheme(page, scheme: str) -> list[str]:
    """Set the OS colour scheme; the page's [mode, theme] once the media-query change has been
    handled (it is dispatched in the next rendering step: wait for two animation frames)."""
    page.emulate_media(color_scheme=scheme)
    page.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    return page.evaluate(_THEME_JS)


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


@dataclass
class PageReport:
    """Everything the checks need from one load of one page."""

    console_errors: list[str]
    failed: list[str]
    blocked: list[str]
    headings: int
    total_bytes: int
    requests: dict[str, int]
    math: list[dict]
    axe_serious: list[dict]
    hrefs: list[str]
    downloads: list[str]
    figures_light: list[dict]
    figures_dark: list[dict]
    search_fields: dict[int, list[str]] = field(default_factory=dict)
    phone_width: int = 0
    header: dict[int, list[dict]] = field(default_factory=dict)
    checker_lines: dict[int, list[dict]] = field(default_factory=dict)
    theme: dict[int, dict[str, list[str]]] = field(default_factory=dict)
    axe_rules: list[str] = field(default_factory=list)
    numbers: dict = field(default_factory=dict)
    reading_text: str = ""
    wide_outputs: list[dict] | None = None  # at LAPTOP's width, chapter pages only


def inspect(tab: Tab, base_url: str, path: str) -> PageReport:
    load = PageLoad(tab, urljoin(base_url, path))
    page = load.page
    try:
        report = PageReport(
            console_errors=load.console_errors,
            failed=load.failed,
            blocked=load.blocked,
            headings=page.locator("h1").count(),
            total_bytes=load.total_bytes,
            requests=dict(load.bodies),
            math=page.evaluate(_MATH_JS),
            axe_serious=[],
            hrefs=page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)"),
            downloads=page.eval_on_selector_all("a[href$='.ipynb']", "els => els.map(e => e.getAttribute('href'))"),
            figures_light=page.evaluate(_FIGURES_JS),
            figures_dark=[],
            numbers=page.evaluate(_NUMBERS_JS),
        )
        if template(path)[0] == "ko":
            report.reading_text = page.evaluate(
                _READING_TEXT_JS,
                _NOT_READING_TEXT + (", .bd-article" if path == GLOSSARY else ""),
            )
        # Every width once, the desktop one last: axe runs at it, as the page loaded.
        chapter = path in NOTEBOOK_PAGES
        widths = sorted(set(SEARCH_WIDTHS) | set(CHROME_WIDTHS) | ({LAPTOP[0]} if chapter else set()), reverse=True)
        widths.remove(DESKTOP[0])
        for width in [*widths, DESKTOP[0]]:
            height = {PHONE[0]: PHONE[1], LAPTOP[0]: LAPTOP[1]}.get(width, DESKTOP[1])
            page.set_viewport_size({"width": width, "height": height})
            if width == LAPTOP[0]:
                report.wide_outputs = page.evaluate(_WIDE_OUTPUTS_JS)
            if width in SEARCH_WIDTHS:
                report.search_fields[width] = page.evaluate(_SEARCH_FIELDS_JS)
            if width == PHONE[0]:
                report.phone_width = page.evaluate(
                    "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
                )
            if width in CHROME_WIDTHS:
                report.header[width] = page.evaluate(_HEADER_JS)
                report.checker_lines[width] = page.evaluate(_CHECKER_LINES_JS)
                theme = {"light": page.evaluate(_THEME_JS)}
                theme["dark"] = os_colour_scheme(page, "dark")
                if width == DESKTOP[0]:
                    report.figures_dark = page.evaluate(_FIGURES_JS)
                theme["light again"] = os_colour_scheme(page, "light")
                report.theme[width] = theme
        page.add_script_tag(content=AXE)
        options = {"resultTypes": ["violations"]}
        if path not in FULL_AXE_PAGES:
            page.evaluate(_SAME_SPANS_JS)
            options["rules"] = {rule: {"enabled": False} for rule in TEMPLATE_RULES}
        result = page.evaluate(
            "async options => { const r = await axe.run(document, options);"
            " return {violations: r.violations, rules: [...r.passes, ...r.violations,"
            " ...r.incomplete, ...r.inapplicable].map(x => x.id)}; }",
            options,
        )
        report.axe_rules = result["rules"]
        violations = result["violations"]
        if path in FULL_AXE_PAGES:
            # The colours again in dark mode (the OS asks for it), once per template.
            page.evaluate(_SAME_SPANS_JS)
            os_colour_scheme(page, "dark")
            dark = page.evaluate(
                "async () => (await axe.run(document, {resultTypes: ['violations'],"
                " runOnly: ['color-contrast', 'link-in-text-block']})).violations"
            )
            violations += [dict(v, id=v["id"] + " (dark)") for v in dark]
            os_colour_scheme(page, "light")
        report.axe_serious = [
            {
                "id": r["id"],
                "impact": r["impact"],
                "nodes": [n["target"] for n in r["nodes"][:3]],
            }
            for r in violations
            if r["impact"] in {"serious", "critical"}
        ]
        return report
    finally:
        load.close()


@contextmanager
def reports(browser, base_url: str) -> Iterator[Callable[[str], PageReport]]:
    """`get(path)`: the one load of that page in this worker's warm tab (the `report` fixture of
    tests/conftest.py)."""
    tab = Tab(browser, viewport=DESKTOP)
    seen: dict[str, PageReport] = {}

    def get(path: str) -> PageReport:
        if path not in seen:
            seen[path] = inspect(tab, base_url, path)
        return seen[path]

    try:
        yield get
    finally:
        tab.close()
