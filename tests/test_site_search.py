"""Search on the built site, both editions: what ranks first, what the snippets show, what the index
holds (book/_ext/search_scorer.js, book/_ext/book_search.py, book/_static/book-search.js,
book/_ext/korean_search.py).

The expectations come from the built pages themselves (their titles, headings and text) and from
the toc, not from lists of URLs.
"""

from __future__ import annotations

import json
import re
import sys
from functools import cache
from urllib.parse import quote, urljoin

import pytest
from bs4 import BeautifulSoup
from conftest import ROOT, toc_files
from site_helpers import HTML, Tab
from sphinx.search.en import SearchEnglish

sys.path.insert(0, str(ROOT / "book" / "_ext"))
from korean_search import strip_particle

# What a search snippet and the index leave out of a page (book/_static/book-search.js): the
# article's buttons, the print-only toc, prev/next, and what myst-nb folds away (details.hide).
NOT_TEXT = (
    ".bd-header-article, #jb-print-docs-body, .prev-next-area, .bd-footer-article, "
    ".verified-record, .edition-switch, details.hide, .headerlink"
)
HANGUL_WORD = re.compile(r"[\uac00-\ud7a3]+")


def edition_page(page: str, edition: str) -> str:
    """A toc entry's page in an edition: notebooks/x -> notebooks/ko/x, book/x -> book/ko/x."""
    if edition == "en":
        return page
    folder, name = page.rsplit("/", 1)
    return f"{folder}/ko/{name}"


def reading_order(edition: str) -> list[str]:
    pages = [edition_page(p, edition) for p in toc_files()]
    if edition == "ko":
        pages.append("book/ko/glossary")
    return pages


@cache
def page_parts(page: str, edition: str) -> tuple[str, str, list[str]]:
    """A built page's text (what the index and the snippets read), title and section titles."""
    prefix = "ko/" if edition == "ko" else ""
    html = (HTML / f"{prefix}{page}.html").read_text(encoding="utf-8")
    main = BeautifulSoup(html, "html.parser").select_one("[role=main]")
    for element in main.select(NOT_TEXT):
        element.decompose()
    titles = [h.get_text(" ").strip() for h in main.select("h1, h2, h3, h4, h5, h6")]
    return main.get_text(" "), titles[0], titles[1:]


def main_text(page: str, edition: str) -> str:
    return page_parts(page, edition)[0]


def headings(page: str, edition: str) -> tuple[str, list[str]]:
    return page_parts(page, edition)[1:]


def index(edition: str) -> dict:
    prefix = "ko/" if edition == "ko" else ""
    text = (HTML / f"{prefix}searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])


def indexed_pages(idx: dict, word: str) -> set[str]:
    files = set()
    for table in ("terms", "titleterms"):
        found = idx[table].get(word, [])
        files |= {found} if isinstance(found, int) else set(found)
    return {idx["docnames"][f] for f in files}


# -- the index ---------------------------------------------------------------------------------


@pytest.mark.parametrize("edition", ["en", "ko"])
def test_the_index_leaves_out_the_folded_setup_code(edition):
    """A word of the folded setup cell finds only pages that show it: not every chapter."""
    idx = index(edition)
    for word in ["importlib", "get_ipython", "run_line_magic", "find_spec"]:
        shown = {p for p in idx["docnames"] if word in main_text(p, edition).lower()}
        assert indexed_pages(idx, word) <= shown, word


NOUNS = [
    "런타임",
    "버퍼",
    "텐서",
    "매개변수",
    "체크포인트",
    "초기화",
    "장치",
    "모델",
    "계층",
]


def pages_with_a_word_starting(edition: str, noun: str) -> set[str]:
    return {
        page
        for page in reading_order(edition)
        if any(w.startswith(noun) for w in HANGUL_WORD.findall(main_text(page, edition)))
    }


@pytest.mark.parametrize("noun", NOUNS)
def test_the_korean_index_finds_a_noun_on_every_page_that_has_it(noun):
    """런타임이면, 버퍼뿐입니다, 가속기에서나: whatever follows the noun, its page is indexed under it."""
    expected = pages_with_a_word_starting("ko", noun)
    assert expected, noun
    assert expected <= indexed_pages(index("ko"), noun)


def test_the_korean_index_holds_stems_only():
    terms = index("ko")["terms"]
    # (an incremental build keeps the words of an older index, mapped to no page)
    hangul = [t for t, pages in terms.items() if HANGUL_WORD.fullmatch(t) and pages != []]
    assert {t: strip_particle(t) for t in hangul if strip_particle(t) != t} == {}


# -- the search page ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def search(browser, base_url):
    """search(edition, query) -> [(page, anchor, snippet)], in the order the page lists them."""
    tab = Tab(browser)

    def run(edition: str, query: str) -> list[tuple[str, str, str]]:
        prefix = "ko/" if edition == "ko" else ""
        url = urljoin(base_url, f"{prefix}search.html?q={quote(query)}")
        tab.page.goto(url, wait_until="load")
        tab.page.wait_for_function(
            """() => {
              const status = document.querySelector('#search-results p.search-summary');
              const items = document.querySelectorAll('#search-results ul.search li');
              return status && /\\d/.test(status.innerText)
                && [...items].every(li => li.querySelector('p.context'));
            }""",
            timeout=15_000,
        )
        found = tab.page.eval_on_selector_all(
            "#search-results ul.search li",
            """items => items.map(li => [
                 li.querySelector('a').href, li.querySelector('p.context').textContent])""",
        )
        base = urljoin(base_url, prefix)
        results = []
        for href, snippet in found:
            path, _, anchor = href.removeprefix(base).partition("#")
            results.append((path.removesuffix(".html"), anchor, snippet))
        return results

    yield run
    tab.close()


def pages_in_order(results) -> list[str]:
    """Each page once, where it first appears."""
    return list(dict.fromkeys(page for page, _, _ in results))


ENGLISH = SearchEnglish({})


def stems(text: str) -> set[str]:
    """The words of a text as the index holds them (Korean: book/_ext/korean_search.py)."""
    return {
        strip_particle(w) if HANGUL_WORD.fullmatch(w) else ENGLISH.stem(w) for w in re.findall(r"\w+", text.lower())
    }


def level(page: str, edition: str, word: str) -> int:
    """2: the page's title holds the word, 1: a section title does, 0: only the text. A title
    holds it when one of its words, stemmed, is or contains the word's stem (buffers, register_buffer
    and buffer all hold "buffer")."""
    (stem,) = stems(word)
    title, sections = headings(page, edition)
    if any(stem in w for w in stems(title)):
        return 2
    return 1 if any(stem in w for w in stems(" ".join(sections))) else 0


RANKED = [
    ("en", "buffer"),
    ("en", "buffers"),
    ("en", "DistributedDataParallel"),
    ("en", "parameter"),
    ("en", "initialization"),
    ("en", "lazy"),
    ("en", "checkpoint"),
    ("en", "GPU"),
    ("ko", "버퍼"),
    ("ko", "초기화"),
    ("ko", "체크포인트"),
]


@pytest.mark.xdist_group("search")
@pytest.mark.parametrize(("edition", "word"), RANKED)
def test_a_page_titled_with_the_word_ranks_first(search, edition, word):
    """Pages whose title holds the word come first, in reading order; then pages with the word in
    a section title; then the rest."""
    pages = pages_in_order(search(edition, word))
    titled = [p for p in reading_order(edition) if level(p, edition, word) == 2]
    assert titled, f"no page of the {edition} toc has {word!r} in its title"
    assert pages[: len(titled)] == titled
    levels = [level(p, edition, word) for p in pages]
    assert levels == sorted(levels, reverse=True), list(zip(pages, levels))


@pytest.mark.xdist_group("search")
@pytest.mark.parametrize(
    ("edition", "word", "chrome"),
    [
        ("en", "runtime", ["Show code cell", "Hide code cell", "importlib"]),
        ("ko", "런타임", ["코드 보기", "코드 숨기기", "importlib"]),
    ],
)
def test_snippets_show_the_word_not_the_folded_setup_cell(search, edition, word, chrome):
    results = search(edition, word)
    assert len(results) >= 5
    for page, _, snippet in results:
        assert [c for c in chrome if c in snippet] == [], (page, snippet)
        assert word in snippet.lower(), (page, snippet)
    # each link is listed once
    links = [(page, anchor) for page, anchor, _ in results]
    assert len(links) == len(set(links))


@pytest.mark.xdist_group("search")
def test_korean_search_finds_every_page_that_has_the_word(search):
    """런타임 finds the pages that say 런타임, 런타임이면, 런타임을, 런타임이든 ... all of them."""
    expected = pages_with_a_word_starting("ko", "런타임")
    assert len(expected) >= 5
    assert set(pages_in_order(search("ko", "런타임"))) == expected


@pytest.mark.xdist_group("search")
def test_the_browser_stems_korean_as_the_index_does(search, browser, base_url):
    """The JS stemmer (language_data.js) and the Python one strip the same endings."""
    words = sorted(
        {
            w
            for page in reading_order("ko")
            for w in HANGUL_WORD.findall(main_text(page, "ko"))
            if any(w.startswith(n) for n in NOUNS)
        }
    )
    tab = Tab(browser)
    try:
        tab.page.goto(urljoin(base_url, "ko/search.html"), wait_until="load")
        stems = tab.page.evaluate(
            "words => { const s = new Stemmer(); return words.map(w => s.stemWord(w)); }",
            words,
        )
    finally:
        tab.close()
    assert dict(zip(words, stems)) == {w: strip_particle(w) for w in words}
