"""The built site in a real browser (Debian's Chromium via Playwright), offline.

Every request to a host other than 127.0.0.1 is blocked, as it would be for a reader without a
network; the pages must still load cleanly, render their math and find words in search. Each page
is loaded once per worker (tests/page_report.py: what the load records, and how axe runs on it).
"""

from __future__ import annotations

import json
import re
import zipfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest
import yaml
from conftest import toc_files
from page_report import (
    _THEME_JS,
    ARCHIVE,
    CHECKER_PAGES,
    CHROME_WIDTHS,
    DESKTOP,
    FIGURE_PAGES,
    FULL_AXE_PAGES,
    MATH_PAGES,
    NOTEBOOK_PAGES,
    PAGE_BUDGET,
    PAGES,
    PHONE,
    SEARCH_WIDTHS,
    TEMPLATE_RULES,
    grouped,
    os_colour_scheme,
    template,
)
from site_helpers import (
    HTML,
    ROOT,
    PageLoad,
)


@pytest.mark.parametrize("path", grouped(PAGES))
def test_page_loads_cleanly_offline(report, path):
    r = report(path)
    assert r.console_errors == []
    assert r.failed == []
    assert r.blocked == [], "a page asked another host for something on load"
    assert r.headings >= 1


@pytest.mark.parametrize("path", grouped(PAGES))
def test_page_weight_within_budget(report, path):
    r = report(path)
    largest = sorted(r.requests.items(), key=lambda item: -item[1])[:8]
    assert r.total_bytes <= PAGE_BUDGET, json.dumps(largest, indent=1)


@pytest.mark.parametrize("path", grouped(MATH_PAGES))
def test_math_renders(report, path):
    """Math is MathML written at build time; the browser lays it out (no script involved)."""
    math = report(path).math
    assert math, "the page source has math but the article shows none"
    unrendered = [m for m in math if m["display"] is None or "math" not in m["display"]]
    assert unrendered == []
    assert [m for m in math if m["width"] <= 0 or m["height"] <= 0] == []
    assert [m for m in math if m["errors"]] == []


def test_chapters_have_checker_lines_to_check():
    assert "notebooks/01_parameter_management.html" in CHECKER_PAGES


def test_some_page_has_math():
    assert "book/intro.html" in MATH_PAGES


def expected_launch_urls(notebook_page: str) -> dict[str, str]:
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    repo = config["repository"]
    owner_name = urlparse(repo["url"]).path.strip("/")
    branch = repo["branch"]
    # The Korean edition lives under ko/ on the site; its notebooks under notebooks/ko/.
    notebook = notebook_page.removeprefix("ko/").removesuffix(".html") + ".ipynb"
    # Colab opens the reader notebook, pushed by the publish workflow to its own branch.
    reader = "reader-notebooks"
    return {
        "colab": f"https://colab.research.google.com/github/{owner_name}/blob/{reader}/{notebook}",
        "binder": f"https://mybinder.org/v2/gh/{owner_name}/{branch}?urlpath=tree/{notebook}",
    }


@pytest.mark.parametrize("path", grouped(NOTEBOOK_PAGES))
def test_launch_buttons_point_at_this_notebook(report, path):
    r = report(path)
    expected = expected_launch_urls(path)
    assert expected["colab"] in r.hrefs
    assert expected["binder"] in r.hrefs
    assert any(Path(d).name == Path(path).stem + ".ipynb" for d in r.downloads)


@pytest.mark.parametrize("path", grouped(PAGES))
def test_no_serious_accessibility_violations(report, path):
    """axe finds nothing serious; the page ran the full rule set if it stands for its template,
    else every rule but the document-shell ones (which its template's page ran)."""
    r = report(path)
    assert r.axe_serious == [], json.dumps(r.axe_serious, indent=1)
    ran = set(r.axe_rules)
    if path in FULL_AXE_PAGES:
        assert set(TEMPLATE_RULES) <= ran, set(TEMPLATE_RULES) - ran
    else:
        assert not ran & set(TEMPLATE_RULES), ran & set(TEMPLATE_RULES)
    assert len(ran) > 60, sorted(ran)  # axe 4's default set: about 90 rules


def test_every_template_has_a_page_with_the_full_axe_rule_set():
    assert {template(p) for p in PAGES} == {template(p) for p in FULL_AXE_PAGES}
    assert {kind for _, kind in map(template, FULL_AXE_PAGES)} >= {"notebooks", "book"}


@pytest.mark.parametrize("path", grouped(PAGES))
def test_no_empty_header_band(report, path):
    """The theme's top header shows something, or takes no room (at desktop and phone widths)."""
    for width, headers in report(path).header.items():
        empty = [h for h in headers if h["height"] > 1 and h["items"] == 0]
        assert empty == [], f"{width} px: an empty header band {empty}"


@pytest.mark.parametrize("path", grouped(PAGES))
def test_colour_mode_follows_the_os(report, path):
    """Until the reader picks a mode, the page is dark exactly when the OS asks for dark."""
    for width, theme in report(path).theme.items():
        assert theme == {
            "light": ["auto", "light"],
            "dark": ["auto", "dark"],
            "light again": ["auto", "light"],
        }, width


@pytest.mark.parametrize("path", grouped(CHECKER_PAGES))
def test_checker_lines_wrap_inside_their_box(report, path):
    """A checker's result line ("✗ not solved yet: ... replace its body") wraps; no sideways
    scrolling, at desktop and phone widths."""
    lines = report(path).checker_lines
    assert all(lines.values()), "no exercise-check output found on the page"
    for width, outputs in lines.items():
        wide = [o for o in outputs if o["scroll"] > o["box"] + 1]
        assert wide == [], f"{width} px: {wide}"


@pytest.mark.parametrize("path", grouped(PAGES))
def test_one_search_field_at_every_width(report, path):
    fields = report(path).search_fields
    assert {w: len(f) for w, f in fields.items()} == dict.fromkeys(SEARCH_WIDTHS, 1), fields


@pytest.mark.parametrize("path", grouped(PAGES))
def test_page_fits_a_phone(report, path):
    """Nothing (a long heading, its permalink, a table) makes a 390-px screen scroll sideways."""
    assert report(path).phone_width <= PHONE[0]


@pytest.mark.parametrize("path", grouped(FIGURE_PAGES))
def test_figures_are_sharp(report, path):
    """Every figure is SVG, or a PNG with at least 2 pixels per CSS pixel shown (HiDPI screens)."""
    figures = report(path).figures_light
    assert figures
    assert [f["src"] for f in figures if not f["complete"] or not f["natural"]] == []
    blurry = [f for f in figures if not urlparse(f["src"]).path.endswith(".svg") and f["natural"] < 2 * f["shown"]]
    assert blurry == [], json.dumps(blurry, indent=1)


@pytest.mark.parametrize("path", grouped(FIGURE_PAGES))
def test_figures_read_well_in_dark_mode(report, path):
    """In dark mode a figure keeps its own white background: no dimming filter, no grey frame."""
    white = {"rgb(255, 255, 255)", "rgba(0, 0, 0, 0)"}
    dark = report(path).figures_dark
    assert [f for f in dark if f["filter"] != "none" or f["background"] not in white] == []


@pytest.mark.xdist_group("colour-toggle")
@pytest.mark.parametrize("width", CHROME_WIDTHS)
def test_the_readers_pick_wins_over_the_os(browser, base_url, width):
    """The toggle sets the mode, it outlasts a change of the OS setting and a move to another
    page, and its third click gives the page back to the OS."""
    # Two chapters, the lightest (any two show the pick outlasting a move; a heavy one only costs CPU).
    english = [p for p in NOTEBOOK_PAGES if not p.startswith("ko/")]
    pages = sorted(english, key=lambda p: ((HTML / p).stat().st_size, p))[:2]
    load = PageLoad(
        browser,
        urljoin(base_url, pages[0]),
        viewport=(width, DESKTOP[1]),
        color_scheme="dark",
    )
    page = load.page
    try:
        assert page.evaluate(_THEME_JS) == ["auto", "dark"]
        toggle = page.locator(".theme-switch-button:visible").first
        toggle.click()
        assert page.evaluate(_THEME_JS) == ["light", "light"]
        assert os_colour_scheme(page, "light") == ["light", "light"]
        assert os_colour_scheme(page, "dark") == ["light", "light"]
        page.goto(urljoin(base_url, pages[1]), wait_until="load")
        assert page.evaluate(_THEME_JS) == ["light", "light"]
        toggle = page.locator(".theme-switch-button:visible").first
        toggle.click()
        assert page.evaluate(_THEME_JS) == ["dark", "dark"]
        toggle.click()
        assert page.evaluate(_THEME_JS) == ["auto", "dark"]
        assert os_colour_scheme(page, "light") == ["auto", "light"]
        assert load.console_errors == []
    finally:
        load.close()


def test_ctrl_k_search_finds_a_chapter_word(browser, base_url):
    """Ctrl+K opens the search dialog on any page; its results page lists the chapter, with
    snippets taken from the chapter's text, and the query is not hidden under the icon."""
    load = PageLoad(browser, urljoin(base_url, "book/intro.html"))
    page = load.page
    try:
        page.keyboard.press("Control+k")
        field = page.locator("#pst-search-dialog input[type=search]")
        field.wait_for(state="visible")
        assert field.evaluate("el => el === document.activeElement")
        field.fill("tied")
        with page.expect_navigation():
            field.press("Enter")
        page.wait_for_selector("#search-results li p", timeout=15_000)
        links = page.eval_on_selector_all("#search-results li a", "els => els.map(e => e.getAttribute('href'))")
        assert any("01_parameter_management" in link for link in links), links
        snippets = page.eval_on_selector_all("#search-results li p", "els => els.map(e => e.textContent.trim())")
        assert [s for s in snippets if ".ipynb" in s[:40] or ".pdf" in s[:40]] == []
        gap = page.evaluate(
            """() => {
              const input = document.querySelector('.bd-search-container form.bd-search input');
              const icon = document.querySelector('.bd-search-container form.bd-search i');
              const text = input.getBoundingClientRect().left
                + parseFloat(getComputedStyle(input).paddingLeft);
              return text - icon.getBoundingClientRect().right;
            }"""
        )
        assert gap >= 0, "the magnifier covers the start of the query"
        assert load.console_errors == []
    finally:
        load.close()


@pytest.mark.xdist_group("offline-archive")
def test_offline_archive_opens_from_disk(browser, tmp_path):
    """The archive linked from the intro unpacks into a site that works from file://."""
    assert ARCHIVE.exists(), "make book writes the offline archive"
    with zipfile.ZipFile(ARCHIVE) as archive:
        names = archive.namelist()
        archive.extractall(tmp_path)
    top = tmp_path / "inside-nn-module"
    assert any(n.endswith("notebooks/01_parameter_management.ipynb") for n in names)
    for path in ["book/intro.html", "notebooks/01_parameter_management.html"]:
        load = PageLoad(browser, (top / path).as_uri())
        try:
            page = load.page
            assert load.console_errors == []
            assert load.failed == []
            assert page.locator("h1").count() >= 1
            assert page.locator(".bd-article math").count() >= 1
            # The theme's stylesheet applied: the sidebar is laid out as a column, not unstyled.
            assert page.evaluate("getComputedStyle(document.querySelector('.bd-sidebar-primary')).display") in {
                "flex",
                "block",
            }
            assert page.evaluate("getComputedStyle(document.body).fontFamily") != "Times"
        finally:
            load.close()
    load = PageLoad(browser, (top / "search.html").as_uri() + "?q=tied")
    try:
        load.page.wait_for_selector("#search-results li a", timeout=15_000)
        assert load.console_errors == []
    finally:
        load.close()


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.hrefs.append(attrs["href"])


def parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def broken_links(root: Path, pages: list[str]) -> list[str]:
    """Links among `pages` (relative to `root`) whose file or #anchor does not exist."""
    broken = []
    parsed: dict[Path, _Links] = {}

    def parsed_file(file: Path) -> _Links:
        if file not in parsed:
            parsed[file] = parse(file)
        return parsed[file]

    for page in pages:
        source = (root / page).resolve()
        for href in parsed_file(source).hrefs:
            target = urlparse(href)
            if target.scheme or href.startswith(("mailto:", "//", "javascript:")):
                continue
            path = unquote(target.path)
            file = (source.parent / path).resolve() if path else source
            if not file.exists():
                broken.append(f"{page}: {href} (no such file)")
                continue
            if target.fragment and file.suffix == ".html" and unquote(target.fragment) not in parsed_file(file).ids:
                broken.append(f"{page}: {href} (no such anchor)")
    return broken


def test_every_internal_link_and_anchor_resolves():
    assert broken_links(HTML, [*PAGES, "genindex.html"]) == []


def test_link_check_reports_missing_files_and_anchors(tmp_path):
    (tmp_path / "a.html").write_text('<a href="b.html#here">ok</a><a href="b.html#gone">x</a><a href="c.html">y</a>')
    (tmp_path / "b.html").write_text('<p id="here"></p>')
    assert broken_links(tmp_path, ["a.html"]) == [
        "a.html: b.html#gone (no such anchor)",
        "a.html: c.html (no such file)",
    ]


def test_every_toc_entry_was_built():
    for entry in toc_files():
        assert f"{entry}.html" in PAGES, f"{entry} has no page in _build/html"


def test_intro_links_the_offline_archive():
    hrefs = parse(HTML / "book" / "intro.html").hrefs
    assert "../inside-nn-module.zip" in hrefs


@pytest.mark.xdist_group("korean-search")
@pytest.mark.parametrize(
    ("query", "chapter"),
    [
        ("텐서", "01_parameter_management"),
        ("버퍼", "07_buffers_and_ddp"),
        ("초기화", "02_parameter_initialization"),
        ("버퍼를", "07_buffers_and_ddp"),
    ],
)
def test_korean_search_finds_words_with_or_without_particles(browser, base_url, query, chapter):
    """The Korean index strips particles (텐서를 → 텐서), in Python and in the browser alike."""
    load = PageLoad(browser, urljoin(base_url, f"ko/search.html?q={query}"))
    try:
        load.page.wait_for_selector("#search-results li a", timeout=15_000)
        links = load.page.eval_on_selector_all("#search-results li a", "els => els.map(e => e.getAttribute('href'))")
        assert any(f"notebooks/ko/{chapter}" in link for link in links), links
        assert all("/ko/" in urljoin(base_url + "ko/", link) for link in links), links
        assert load.console_errors == []
    finally:
        load.close()


def test_korean_index_holds_stems_not_inflected_words():
    index = (HTML / "ko" / "searchindex.js").read_text(encoding="utf-8")
    terms = json.loads(index[index.index("(") + 1 : index.rindex(")")])["terms"]
    assert {"텐서", "버퍼", "초기화"} <= terms.keys()
    assert "텐서를" not in terms and "버퍼는" not in terms


EDITION_PAGES = [p for p in PAGES if p.endswith(".html") and "search" not in p]


def test_every_page_links_the_same_page_in_the_other_edition():
    missing, wrong = [], []
    for page in EDITION_PAGES:
        source = HTML / page
        hrefs = [href for href in parse_switch(source.read_text(encoding="utf-8")) if href is not None]
        if len(hrefs) != 1:
            missing.append(page)
            continue
        target = (source.parent / hrefs[0]).resolve().relative_to(HTML.resolve())
        korean = page.startswith("ko/")
        expected = (
            page.removeprefix("ko/").replace("/ko/", "/", 1)
            if korean
            else "ko/" + page.replace("notebooks/", "notebooks/ko/").replace("book/", "book/ko/")
        )
        if (HTML / expected).exists() and str(target) != expected:
            wrong.append(f"{page} -> {target}, expected {expected}")
        if not (HTML / target).exists():
            wrong.append(f"{page} -> {target} (no such page)")
    assert missing == [] and wrong == [], (missing, wrong)


def parse_switch(html: str) -> list[str | None]:
    start = html.find('<nav class="edition-switch"')
    if start < 0:
        return []
    nav = html[start : html.index("</nav>", start)]
    return [nav.split('href="', 1)[1].split('"', 1)[0]] if 'href="' in nav else [None]


class _Text(HTMLParser):
    """A page's reading text, without code, math or scripts."""

    SKIP = frozenset({"code", "pre", "script", "style", "math", "kbd"})

    def __init__(self):
        super().__init__()
        self.depth = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.depth += tag in self.SKIP

    def handle_endtag(self, tag):
        self.depth -= tag in self.SKIP

    def handle_data(self, data):
        if not self.depth:
            self.parts.append(data)


STRAY_EMPHASIS = re.compile(r"\*\*|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])")


def test_no_emphasis_marker_is_left_unrendered():
    """Korean particles right after `**code**` or a bracket stop Markdown from closing the
    emphasis (CommonMark's flanking rules), which leaves literal asterisks on the page."""
    stray = {}
    for page in PAGES:
        parser = _Text()
        parser.feed((HTML / page).read_text(encoding="utf-8"))
        text = "".join(parser.parts)
        hits = [text[max(0, m.start() - 25) : m.end() + 25] for m in STRAY_EMPHASIS.finditer(text)]
        if hits:
            stray[page] = hits[:3]
    assert stray == {}


# --- The Korean edition in Korean -----------------------------------------------------------------

KOREAN_PAGES = [p for p in PAGES if template(p)[0] == "ko"]
# Names of things, written in Latin letters as the glossary says (book/ko/glossary.md, "영어를 그대로
# 두는 경우"): products, projects, libraries, models, algorithms, people, formats and abbreviations;
# and `meta`, the device, where a link text cannot set it in code font (the status table's titles).
NAMES = set(
    re.split(
        r"\s+",
        """PyTorch Python CUDA Colab Binder Jupyter JupyterLab Thebe GitHub NumPy safetensors gloo NCCL
    cuDNN cuBLAS torch torchvision torchtitan timm tutorials-kr Hugging Face Apple Intel NVIDIA Mac
    macOS Windows Linux Ampere GPU CPU MPS XPU HPU TF DDP FSDP EMA MLP LLM ViT Vision Transformer
    Swin BEiT DeiT ResNet RoPE LayerNorm ReLU tanh Xavier Kaiming Adam AdamW Adagrad SGD NaN CI API
    ID URL JSON TCP RAM ANSI MathML Claude Gemini ImageNet README Ctrl Shift Enter TF32
    DistributedDataParallel Join dtype zip LLaMA BERT LoRA RMSNorm accelerate meta XLA DARTS NFS FUSE
    s3fs gcsfuse inode OOM RMS Opus RNN GRU LSTM GAN TCN QR locuslab cos sin""",
    )
)
NAME_PATTERN = re.compile(
    r"(?:b?float|u?int)\d+|GPT-[\w-]+|ResNet-\d+|CRC(?:-\d+)?|SHA-\d+|ViT-\w+|d2l(?:-ko)?|"
    # model numbers of cards and APIs (A100, T4, FSDP2), advisories (CVE-2025-32434, GHSA-...)
    r"[A-Z]+\d+\w*|(?:CVE|GHSA)-[\w-]+|Claude-\d+|"
    # PyTorch's own subsystems, named as they are (the glossary keeps autograd); the name leaky ReLU
    r"autograd|autocast|leaky|"
    # units, and a single letter (a variable of the text: k rows, k = 256)
    r"ms|µs|s|[KMG]i?B|[GT]FLOP|[A-Za-z]"
)
# A quotation keeps its source's words: chapter 7's appendix quotes the forum's answers as written
# (“… ddp를 사용중인데 …”, “PyTorch의 Profiler를 …”), in the typographic quotes the Korean edition uses.
QUOTED = re.compile(r"“[^”]*”")
# A product's edition after its name (Gemini Pro) is part of the name.
EDITIONS = re.compile(r"\bGemini Pro\b")
# An English term in parentheses right after its Korean one, as the glossary asks for at first use:
# 영속 버퍼(persistent buffer), “딥러닝 계산”(Builders' Guide).
KOREAN_GLOSS = re.compile(r"([\uac00-\ud7a3*’”\"])\s*\([A-Za-z][^()]*\)")
# Addresses and file names (https://..., inspect_module.py, .ipynb), issue numbers (owner/repo#1, repo#1),
# and code names where no code font can mark them (a link's text, the site's title): nn.Module,
# state_dict, the titles of works (Dive into Deep Learning).
NOT_WORDS = re.compile(
    r"\bDive into Deep Learning\b|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?|\w*_\w*|"
    r"https?://\S+|[\w./-]*\.(?:py|ipynb|md|pdf|zip|json|pt|html|js|svg|png)(?![A-Za-z0-9])"
    r"|[\w.-]+(?:/[\w.-]+)?#\d+"
)


def english_words(text: str) -> dict[str, str]:
    """English words of a Korean text a reader did not ask for: every Latin-letter word that is not a
    name, a unit, a gloss or an address; each with the text around it."""
    text = EDITIONS.sub(" ", QUOTED.sub(" ", text))
    text = NOT_WORDS.sub(" ", KOREAN_GLOSS.sub(r"\1 ", text))
    found = {}
    for m in re.finditer(r"(?<![A-Za-z0-9_.-])[A-Za-z][A-Za-z0-9_'’-]*", text):
        word = m.group().rstrip("-'’")
        if word in NAMES or NAME_PATTERN.fullmatch(word):
            continue
        found.setdefault(word, " ".join(text[max(0, m.start() - 30) : m.end() + 30].split()))
    return found


def test_english_words_are_found_in_korean_text():
    assert set(english_words("맨 위로 Back to top. Search this book...")) == {
        "Back",
        "to",
        "top",
        "Search",
        "this",
        "book",
    }
    assert (
        english_words(
            "*영속 버퍼*(persistent buffer)는 PyTorch와 CUDA에서 bfloat16, GPT-4, 5 ms, k개로 "
            "inspect_module.py와 .ipynb, https://pytorch.org/docs/, pytorch/pytorch#155588을 봅니다."
        )
        == {}
    )
    assert set(english_words("라이브 코드: Live Code")) == {"Live", "Code"}
    # a quotation keeps its source's words; the same word outside it is found
    assert set(english_words("Gemini Pro: “ddp를 쓰는데 forward가” 그리고 forward")) == {"forward"}


@pytest.mark.parametrize("path", grouped(KOREAN_PAGES))
def test_a_korean_page_shows_no_english_the_reader_did_not_ask_for(report, path):
    """Chrome (theme, copy button, launch menu), prose, notes and tooltips of a Korean page are Korean,
    outside code, names and the allow-list above (the words of _NOT_READING_TEXT stay English for the
    reasons given there)."""
    text = report(path).reading_text
    assert len(text) > 200, "the page's text was not read"
    assert english_words(text) == {}


def _messages(script: str) -> dict:
    start = script.index("/* messages */") + len("/* messages */")
    return json.loads(script[start : script.index("/* end messages */", start)])


def test_live_code_speaks_the_page_s_language():
    """Every live-code message (book/_static/live-code.js) has a Korean form, which Korean pages show
    (<html lang="ko">), with the same placeholders; the loader's own message too (live_code.py)."""
    messages = _messages((ROOT / "book" / "_static" / "live-code.js").read_text(encoding="utf-8"))
    korean_only = {key for key in messages["ko"] if key.startswith("status_")}
    assert set(messages["ko"]) - korean_only == set(messages["en"]) and len(messages["en"]) >= 15
    for key, english in messages["en"].items():
        korean = messages["ko"][key]
        assert set(re.findall(r"\{\w+\}", korean)) == set(re.findall(r"\{\w+\}", english)), key
        words = english_words(re.sub(r"`[^`]*`|\{\w+\}", " ", korean))
        assert words == {}, (key, words)
    loader = (ROOT / "book" / "_ext" / "live_code.py").read_text(encoding="utf-8")
    assert "라이브 코드를 쓸 수 없습니다" in loader


def test_live_code_names_thebe_s_startup_stages_in_korean():
    """Thebe's status news is English debug text ("Server reachable"); a Korean page names the stage
    (the status Thebe reports: server launching/ready, session and kernel starting/ready) in Korean
    and never shows Thebe's message."""
    script = (ROOT / "book" / "_static" / "live-code.js").read_text(encoding="utf-8")
    thebe = (ROOT / "book" / "_static" / "thebe" / "index.js").read_text(encoding="utf-8")
    stages = set(re.findall(r'e\.(?:launching|ready|starting)="([\w-]+)"', thebe))
    assert stages == {"launching", "server-ready", "starting", "ready"}
    korean = _messages(script)["ko"]
    for stage in stages:
        assert re.fullmatch(r"[가-힣 ]+", korean[f"status_{stage}"]), stage
    handler = script[script.index('thebe.on("status"') :]
    handler = handler[: handler.index("});")]
    assert "news(data)" in handler and "data.message" not in handler
    assert 'LANGUAGE === "en" ? data?.message : MESSAGES.ko[`status_${data?.status}`]' in script


def test_the_copy_button_speaks_korean():
    script = (HTML / "ko" / "_static" / "copybutton.js").read_text(encoding="utf-8")
    assert "'ko': {" in script and "'copy': '복사'" in script


def test_live_code_names_thebe_s_cell_buttons_in_the_page_s_language():
    """Thebe's cell buttons ("run", "restart", "restart & run all", ...) are renamed by live-code.js
    from its messages: one name and one tooltip for every button Thebe makes."""
    thebe = (ROOT / "book" / "_static" / "thebe" / "index.js").read_text(encoding="utf-8")
    made = {name: (text, title) for name, text, title in re.findall(r'\(g,"(\w+)","([^"]+)","([^"]+)"', thebe)}
    assert set(made) == {"run", "runall", "restart", "restartall"}
    script = (ROOT / "book" / "_static" / "live-code.js").read_text(encoding="utf-8")
    messages = _messages(script)
    assert "nameCellButtons" in script and "watchCellButtons();" in script
    for name, (text, title) in made.items():
        assert messages["en"][f"button_{name}"] == text
        assert messages["en"][f"button_{name}_title"] == title
        assert re.search("[가-힣]", messages["ko"][f"button_{name}"]), name
        assert re.search("[가-힣]", messages["ko"][f"button_{name}_title"]), name


def _search_messages(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    start = text.index("Documentation.addTranslations(") + len("Documentation.addTranslations(")
    return json.loads(text[start : text.rindex(");")])["messages"]


NO_MATCH = (
    "Your search did not match any documents. Please make sure that all words are spelled "
    "correctly and that you've selected enough categories."
)


def test_the_search_page_s_messages_fit_this_site():
    """Sphinx's no-match message asks for "categories" this site lacks, in Korean with -십시오, which
    the style sheet (book/ko/glossary.md) bans; both editions say it in the book's words."""
    korean = _search_messages(HTML / "ko" / "_static" / "translations.js")
    assert korean[NO_MATCH] == "검색어와 일치하는 페이지가 없습니다. 철자를 확인하거나 다른 낱말로 찾아보세요."
    found = korean["Search finished, found ${resultCount} page(s) matching the search query."]
    assert "${resultCount}개" in found and "십시오" not in found
    english = (HTML / "search.html").read_text(encoding="utf-8")
    assert "No page matches your search. Check the spelling, or try other words." in english
    assert NO_MATCH in english  # as the key Sphinx looks it up by
    banned = {k: v for k, v in korean.items() if isinstance(v, str) and re.search("십시오|카테고리", v)}
    assert banned == {}


def test_the_print_contents_landmark_speaks_korean():
    """sphinx-book-theme's print-only contents (<nav aria-label="Page">) is named in Korean."""
    pages = sorted((HTML / "ko").rglob("*.html"))
    named = [p for p in pages if 'aria-label="이 페이지"' in p.read_text(encoding="utf-8")]
    assert len(named) >= 10
    english = [str(p) for p in pages if 'aria-label="Page"' in p.read_text(encoding="utf-8")]
    assert english == []
    assert 'aria-label="Page"' in (HTML / "book" / "intro.html").read_text(encoding="utf-8")


# --- Section numbers ------------------------------------------------------------------------------


def toc_numbers() -> tuple[dict[str, str | None], set[str]]:
    """The number of every page of _toc.yml, as the book numbers them: chapters of a numbered part
    1, 2, ..., a chapter's `sections:` pages 5.1, 5.2, ...; None elsewhere. Also: the chapters that
    have such pages (their own headings go unnumbered, so that 5.1 names one thing)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    numbers: dict[str, str | None] = {toc["root"]: None}
    with_sections: set[str] = set()
    chapter = 0
    for part in toc["parts"]:
        for entry in part["chapters"]:
            number = None
            if part.get("numbered"):
                chapter += 1
                number = str(chapter)
            numbers[entry["file"]] = number
            for index, sub in enumerate(entry.get("sections", []), 1):
                numbers[sub["file"]] = f"{number}.{index}" if number else None
                with_sections.add(entry["file"])
    return numbers, with_sections


def toc_file(page: str) -> str:
    """The _toc.yml file of a built page of either edition."""
    return page.removeprefix("ko/").replace("/ko/", "/", 1).removesuffix(".html")


def test_toc_numbers_follow_the_book():
    numbers, with_sections = toc_numbers()
    assert numbers["notebooks/05_file_io"] == "5"
    assert numbers["notebooks/05_checkpoints_that_survive"] == "5.1"
    assert numbers["notebooks/03_lazy_modules"] == "3"
    assert numbers["notebooks/03_meta_device"] == "3.1"
    assert numbers["notebooks/06_gpus"] == "6" and numbers["book/status"] is None
    assert with_sections == {"notebooks/03_lazy_modules", "notebooks/05_file_io"}


@pytest.mark.parametrize("path", grouped(PAGES))
def test_section_numbers_are_the_toc_s(report, base_url, path):
    """The sidebar numbers every page as _toc.yml orders them (5.1, not 5.11, for chapter 5's second
    page), the title carries the page's number, and its sections number under it."""
    numbers, with_sections = toc_numbers()
    shown = report(path).numbers
    sidebar = {
        toc_file(urlparse(href).path.removeprefix(urlparse(base_url).path)): number for href, number in shown["sidebar"]
    }
    expected = {f: (f"{n}." if n else None) for f, n in numbers.items() if f in sidebar}
    assert {f: sidebar[f] for f in expected} == expected
    assert {f for f, n in numbers.items() if n} <= set(sidebar), "a numbered page is missing"
    own = numbers.get(toc_file(path))
    assert shown["title"] == (f"{own}." if own else None)
    if own and toc_file(path) not in with_sections:
        assert shown["sections"] and all(
            s and re.fullmatch(rf"{re.escape(own)}(\.\d+)+\.", s) for s in shown["sections"]
        ), shown["sections"]
    else:
        assert all(s is None for s in shown["sections"]), shown["sections"]


@pytest.mark.parametrize("page", ["book/status.html", "ko/book/ko/status.html"])
def test_the_status_table_lists_pages_in_book_order(page):
    html = (HTML / page).read_text(encoding="utf-8")
    table = html[html.index("verified-status") : html.index("</table>")]
    rows = [Path(h).stem for h in re.findall(r'href="([^"#]+\.html)"', table)]
    order = [Path(f).name for f, n in toc_numbers()[0].items() if f.startswith("notebooks/")]
    assert rows == order
