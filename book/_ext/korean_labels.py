"""The Korean edition's labels for sphinx-exercise and the theme, in the words of book/ko/glossary.md.

sphinx-exercise ships a Korean catalog that titles an exercise "연습" and a solution "해답"; the
book's style sheet says 연습 문제 and 풀이. The themes' Korean catalogs are partial or odd
(sphinx-book-theme: "By" -> "으로", "Launch" -> "시작하다"; pydata-sphinx-theme has none), so a Korean
reader saw "Back to top", "Skip to main content", "Color mode", "Live Code" and other English chrome.
This extension (loaded only by the Korean build, see book/ko/overrides.yml) puts the book's words in
front of those catalogs before anything reads them: sphinx-exercise makes its numfig format at
config-inited and its titles while the pages are parsed, and the HTML builder installs Sphinx's
translator into Jinja (every ``_()`` of the templates) when it starts, after config-inited.

What the catalogs cannot reach is rewritten where it is made: the launch buttons' tooltips ("Launch
on" + " Binder" cannot be ordered as Korean needs) in each page's context. The three theme
templates that hard-code English (the sidebar toggles' tooltips, the sidebar's landmark name) are
overridden in book/_templates with ``_()`` around the text, which is English in the English build.
"""

from __future__ import annotations

import gettext
import json
from pathlib import Path

from sphinx import locale

# sphinx-exercise (msgid -> the book's word); a solution's title is "<Solution to> <Exercise> <number>"
CATALOG = ("general", "exercise")
LABELS = {"Exercise": "연습 문제", "Solution": "풀이", "Solution to": "풀이:"}

# sphinx-book-theme's own catalog: its header buttons and byline
THEME_CATALOG = ("general", "booktheme")
THEME_LABELS = {
    "By": "지은이:",
    "Contents": "목차",
    "Copyright": "저작권",
    "Download this page": "이 페이지 내려받기",
    "Download notebook file": "노트북 파일(.ipynb) 내려받기",
    "Download source file": "소스 파일 내려받기",
    "Fullscreen mode": "전체 화면으로 보기",
    "Launch interactive content": "대화형으로 실행하기",
    "Live Code": "라이브 코드",
    "Launch Thebe": "이 페이지 안에서 코드 실행하기",
    "Print to PDF": "PDF로 인쇄",
    "Repository": "리포지토리",
    "Source repository": "소스 리포지토리",
    "Search": "검색",
    "logo": "로고",
    "next page": "다음 페이지",
    "previous page": "이전 페이지",
}

# Sphinx's own catalog, which pydata-sphinx-theme's templates and Sphinx's HTML writer use
SPHINX_CATALOG = ("general", "sphinx")
SPHINX_LABELS = {
    "Skip to main content": "본문으로 건너뛰기",
    "Back to top": "맨 위로",
    "Color mode": "색상 모드",
    "Light": "밝게",
    "Dark": "어둡게",
    "System Settings": "시스템 설정",
    "Site navigation": "사이트 탐색",
    "Section Navigation": "절 탐색",
    "On this page": "이 페이지의 목차",
    "Version warning": "버전 경고",
    "Announcement": "알림",
    "© Copyright %(copyright)s.": "저작권 © %(copyright)s.",
    "Copyright %(copyright)s": "저작권 %(copyright)s",
    "Breadcrumb": "현재 위치",
    "Home": "처음",
    "Search": "검색",
    "next": "다음",
    "previous": "이전",
    "next page": "다음 페이지",
    "previous page": "이전 페이지",
    "Link to this heading": "이 제목으로 바로 가는 링크",
    "Link to this equation": "이 수식으로 바로 가는 링크",
    "Link to this table": "이 표로 바로 가는 링크",
    "Link to this code": "이 코드로 바로 가는 링크",
    "Link to this image": "이 그림으로 바로 가는 링크",
    "Link to this definition": "이 정의로 바로 가는 링크",
    "Link to this term": "이 용어로 바로 가는 링크",
    "Link to this toctree": "이 목차로 바로 가는 링크",
    "Please activate JavaScript to enable the search functionality.": ("검색 기능을 쓰려면 JavaScript를 켜세요."),
    # hard-coded in sphinx-book-theme's templates; book/_templates wraps them in _()
    "Toggle primary sidebar": "목차 사이드바 열기/닫기",
    "Toggle secondary sidebar": "이 페이지의 목차 열기/닫기",
    "Main": "책 목차",
    "Page": "이 페이지",
}

# Sphinx's search page messages, which its Korean catalog (_static/translations.js) words in -십시오
# and about "categories" this site does not have; rewritten there at build-finished.
SEARCH_LABELS = {
    "Your search did not match any documents. Please make sure that all words are spelled "
    "correctly and that you've selected enough categories.": (
        "검색어와 일치하는 페이지가 없습니다. 철자를 확인하거나 다른 낱말로 찾아보세요."
    ),
    "Search finished, found ${resultCount} page(s) matching the search query.": (
        "검색을 마쳤습니다. 검색어와 일치하는 페이지가 ${resultCount}개 있습니다."
    ),
    "Please activate JavaScript to enable the search functionality.": (
        SPHINX_LABELS["Please activate JavaScript to enable the search functionality."]
    ),
}

# The launch buttons' tooltips, composed in Python as translation("Launch on") + " Binder"
BUTTON_LABELS = {
    "Launch on Binder": "Binder에서 실행하기",
    "Launch on Colab": "Colab에서 실행하기",
    "Launch on JupyterHub": "JupyterHub에서 실행하기",
    "Launch on Deepnote": "Deepnote에서 실행하기",
}

ALL_LABELS = {**LABELS, **THEME_LABELS, **SPHINX_LABELS, **BUTTON_LABELS}


class BookLabels(gettext.NullTranslations):
    def __init__(self, labels: dict[str, str]):
        super().__init__()
        self.labels = labels

    def gettext(self, message: str) -> str:
        if message in self.labels:
            return self.labels[message]
        return super().gettext(message)


def _put_labels_first(app, config) -> None:
    if config.language != "ko":
        return
    for catalog, words in (
        (CATALOG, LABELS),
        (THEME_CATALOG, THEME_LABELS),
        (SPHINX_CATALOG, SPHINX_LABELS),
    ):
        labels = BookLabels(words)
        previous = locale.translators.get(catalog)
        if previous is not None and not isinstance(previous, BookLabels):
            labels.add_fallback(previous)
        locale.translators[catalog] = labels
        if catalog == SPHINX_CATALOG:
            # the HTML builder gives Jinja app.translator when it starts (after this event)
            app.translator = labels


def _korean_buttons(app, pagename, templatename, context, doctree):
    if app.config.language != "ko":
        return

    def walk(buttons):
        for button in buttons or []:
            for key in ("tooltip", "text", "label"):
                if isinstance(button.get(key), str):
                    button[key] = BUTTON_LABELS.get(button[key], button[key])
            walk(button.get("buttons"))

    walk(context.get("header_buttons"))


def _korean_html_built(app, exception) -> bool:
    """Whether a build-finished hook has a Korean HTML site to rewrite."""
    return exception is None and app.config.language == "ko" and app.builder.format == "html"


def _korean_toggle_buttons(app, exception):
    """sphinx-togglebutton writes its button's name into its script ("Toggle hidden content")."""
    if not _korean_html_built(app, exception):
        return
    script = Path(app.outdir) / "_static" / "togglebutton.js"
    if script.exists():
        text = script.read_text(encoding="utf-8")
        korean = text.replace('aria-label="Toggle hidden content"', 'aria-label="숨긴 내용 펼치기/접기"')
        if korean != text:
            script.write_text(korean, encoding="utf-8")


def _korean_search_messages(app, exception):
    """Sphinx's search page reads its messages from _static/translations.js (Documentation.gettext),
    which the catalogs above do not reach: the book's words replace the Korean catalog's there."""
    if not _korean_html_built(app, exception):
        return
    script = Path(app.outdir) / "_static" / "translations.js"
    if not script.exists():
        return
    text = script.read_text(encoding="utf-8")
    start = text.index("Documentation.addTranslations(") + len("Documentation.addTranslations(")
    end = text.rindex(");")
    catalog = json.loads(text[start:end])
    # the catalog also holds older spellings of a message, wrapped across lines
    for key in catalog["messages"]:
        if " ".join(key.split()) in SEARCH_LABELS:
            catalog["messages"][key] = SEARCH_LABELS[" ".join(key.split())]
    catalog["messages"].update(SEARCH_LABELS)
    korean = text[:start] + json.dumps(catalog, ensure_ascii=False) + text[end:]
    if korean != text:
        script.write_text(korean, encoding="utf-8")


def setup(app):
    # before sphinx-exercise's own config-inited handler (default priority 500) builds numfig_format
    app.connect("config-inited", _put_labels_first, priority=100)
    # after sphinx-book-theme's handlers have made the page's header buttons
    app.connect("html-page-context", _korean_buttons, priority=900)
    app.connect("build-finished", _korean_toggle_buttons)
    app.connect("build-finished", _korean_search_messages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
