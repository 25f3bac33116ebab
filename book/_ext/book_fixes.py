"""Small fixes to the Jupyter Book 1 HTML output.

sphinx-thebe registers its inline configuration script twice under Jupyter Book 1.0.4
(``const THEBE_JS_URL`` then throws "has already been declared" in every browser console).
Dropping exact duplicates of inline scripts keeps the live-code button and a clean console.
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


def setup(app):
    app.connect("html-page-context", _drop_duplicate_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
