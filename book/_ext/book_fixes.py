"""Small fixes to the Jupyter Book 1 HTML output.

sphinx-thebe registers its inline configuration script twice under Jupyter Book 1.0.4
(``const THEBE_JS_URL`` then throws "has already been declared" in every browser console).
Dropping exact duplicates of inline scripts keeps the live-code button and a clean console.

docutils gives the bibliography's container ``role="list"`` around entries that are not list
items, which accessibility checkers rightly flag; the role is removed.
"""

from __future__ import annotations


def _drop_duplicate_scripts(app, pagename, templatename, context, doctree):
    seen = set()
    unique = []
    for script in context.get("script_files", []):
        key = (getattr(script, "filename", None) or "", repr(getattr(script, "attributes", {})))
        if key in seen:
            continue
        seen.add(key)
        unique.append(script)
    context["script_files"] = unique


def _fix_citation_list_role(app, pagename, templatename, context, doctree):
    # docutils marks the bibliography as role="list" but its entries as role="doc-biblioentry";
    # a list must contain list items (axe: aria-required-children), so drop the list role.
    body = context.get("body")
    if body:
        context["body"] = body.replace('<div role="list" class="citation-list">', '<div class="citation-list">')


def setup(app):
    app.connect("html-page-context", _drop_duplicate_scripts, priority=900)
    app.connect("html-page-context", _fix_citation_list_role, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
