"""The English and Korean editions link to each other, page for page.

Both editions are built from the same sources (the Korean one from ``notebooks/ko`` and
``book/ko``, see ``tools/korean.py``) and published side by side: English at the site root,
Korean under ``ko/``. Each page gets a language switcher that leads to the same page in the other
edition (or to the other edition's front page where it has no counterpart), and a matching
``<link rel="alternate" hreflang>``.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

# Pages that exist in one edition only lead to the other edition's front page.
FRONT = {"en": "book/intro", "ko": "book/ko/intro"}
LABEL = {"en": "English", "ko": "한국어"}


def counterpart(pagename: str, edition: str, srcdir: Path) -> str:
    """The same page's name in the other edition's build (its front page if it has none)."""
    path = PurePosixPath(pagename)
    if edition == "en":
        other = path.parent / "ko" / path.name
        if list(srcdir.glob(f"{other}.*")):
            return str(other)
        return FRONT["ko"]
    other = path.parent.parent / path.name
    if path.parent.name == "ko" and list(srcdir.glob(f"{other}.*")):
        return str(other)
    return FRONT["en"]


def switch_href(pagename: str, edition: str, srcdir: Path) -> str:
    """A relative link from this page to its counterpart (Korean site root = English root + ko/)."""
    depth = len(PurePosixPath(pagename).parts) - 1
    target = counterpart(pagename, edition, srcdir) + ".html"
    if edition == "en":
        return "../" * depth + "ko/" + target
    return "../" * (depth + 1) + target


def _add_switcher(app, pagename, templatename, context, doctree):
    edition = app.config.book_edition
    other = "ko" if edition == "en" else "en"
    href = switch_href(pagename, edition, Path(app.srcdir))
    context["metatags"] = context.get("metatags", "") + (f'\n<link rel="alternate" hreflang="{other}" href="{href}">')
    body = context.get("body")
    if body is not None and doctree is not None:
        nav = (
            f'<nav class="edition-switch" aria-label="{"언어" if edition == "ko" else "Language"}">'
            f'<a href="{href}" hreflang="{other}" lang="{other}">{LABEL[other]}</a></nav>'
        )
        context["body"] = nav + body


def setup(app):
    app.add_config_value("book_edition", "en", "html")
    app.connect("html-page-context", _add_switcher)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
