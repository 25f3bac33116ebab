"""What the search index holds and how the search page ranks it, in both editions.

- The index holds what a page shows. Code that myst-nb folds away (a cell tagged ``hide-input``:
  every chapter's setup cell, plotting code, chapter 7's launch machinery) is left out of it, as
  book/_static/book-search.js leaves it out of the snippets; otherwise "importlib" or "pip" would
  find every chapter, each with a snippet that cannot show the word.
- The ranking is book/_ext/search_scorer.js (``html_search_scorer`` in _config.yml). It breaks ties
  by the book's reading order, which the search page carries as JSON in ``#book-order``
  (book/_templates/layout.html), taken here from the toctrees.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes

ROOT = Path(__file__).resolve().parents[2]


def reading_order(env) -> list[str]:
    """Every document in the toctrees, depth first from the root: the order the sidebar lists."""
    order: list[str] = []

    def walk(docname: str) -> None:
        if docname in order:
            return
        order.append(docname)
        for child in env.toctree_includes.get(docname, []):
            walk(child)

    walk(env.config.root_doc)
    return order


def folded(doctree: nodes.document) -> list[nodes.Element]:
    """What a reader sees only after opening a myst-nb toggle (its summary is not text)."""
    from myst_nb.sphinx_ import HideCodeCellNode

    return list(doctree.findall(HideCodeCellNode))


def _index_what_shows(app) -> None:
    builder = app.builder
    index_page = getattr(builder, "index_page", None)
    if index_page is None:
        return

    def index_shown(pagename: str, doctree: nodes.document, title: str) -> None:
        # The doctree is written to HTML after it is indexed: take the folded parts out for the
        # indexer only and put them back where they were.
        removed = []
        for node in folded(doctree):
            parent = node.parent
            removed.append((parent, parent.index(node), node))
            parent.remove(node)
        try:
            index_page(pagename, doctree, title)
        finally:
            for parent, at, node in reversed(removed):
                parent.insert(at, node)

    builder.index_page = index_shown


def _scorer_from_root(app, config) -> None:
    # Sphinx opens html_search_scorer relative to the working directory; the book's path is
    # relative to the repository, wherever the build runs from.
    scorer = config.html_search_scorer
    if scorer and not Path(scorer).is_absolute():
        config.html_search_scorer = str(ROOT / scorer)


def _book_order(app, pagename, templatename, context, doctree) -> None:
    if pagename == "search":
        context["book_order"] = reading_order(app.env)


def setup(app):
    app.connect("config-inited", _scorer_from_root)
    app.connect("builder-inited", _index_what_shows)
    app.connect("html-page-context", _book_order)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
