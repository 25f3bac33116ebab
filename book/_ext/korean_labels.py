"""The Korean edition's labels for sphinx-exercise and the theme, in the words of book/ko/glossary.md.

sphinx-exercise ships a Korean catalog that titles an exercise "연습" and a solution "해답"; the
book's style sheet says 연습 문제 and 풀이. sphinx-book-theme has no Korean catalog, so its byline
reads "By <author>". This extension (loaded only by the Korean build, see book/ko/overrides.yml)
puts the book's words in front of those catalogs, before the extensions read them (sphinx-exercise
makes its numfig format at config-inited and its titles while the pages are parsed).
"""

from __future__ import annotations

import gettext

from sphinx import locale

CATALOG = ("general", "exercise")
# msgid -> the book's word; a solution's title is "<Solution to> <Exercise> <number>"
LABELS = {"Exercise": "연습 문제", "Solution": "풀이", "Solution to": "풀이:"}
THEME_CATALOG = ("general", "booktheme")
THEME_LABELS = {"By": "지은이:"}


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
    for catalog, words in ((CATALOG, LABELS), (THEME_CATALOG, THEME_LABELS)):
        labels = BookLabels(words)
        previous = locale.translators.get(catalog)
        if previous is not None and not isinstance(previous, BookLabels):
            labels.add_fallback(previous)
        locale.translators[catalog] = labels


def setup(app):
    # before sphinx-exercise's own config-inited handler (default priority 500) builds numfig_format
    app.connect("config-inited", _put_labels_first, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
