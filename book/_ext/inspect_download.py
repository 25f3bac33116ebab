"""Publishes `inspect_module.py`, the download of chapter 8, next to the chapter's page in each edition.

The file is generated from the notebook cell tagged ``inspect-module`` in
``notebooks/08_inspect_your_model.ipynb``, so the page and the download are one source: the cell's
code, then the two lines that make it a command (``python inspect_module.py file.py:build_model``),
which cannot live in the cell because a notebook's ``__name__`` is ``"__main__"`` too.
"""

from __future__ import annotations

import json
from pathlib import Path

NOTEBOOK = "notebooks/08_inspect_your_model.ipynb"
TAG = "inspect-module"
NAME = "inspect_module.py"
FOOTER = '\n\n\nif __name__ == "__main__":\n    raise SystemExit(main())\n'


def script_text(root: Path) -> str:
    """The download's text: the tagged cell, then the command-line entry point."""
    cells = json.loads((root / NOTEBOOK).read_text(encoding="utf-8"))["cells"]
    (cell,) = [c for c in cells if TAG in c.get("metadata", {}).get("tags", [])]
    return "".join(cell["source"]).rstrip("\n") + FOOTER


def _write(app, exception) -> None:
    """Next to every page built from the chapter (English `notebooks/`, Korean `notebooks/ko/`), so the page's
    link is the same relative `inspect_module.py` in both editions."""
    if exception is not None or app.builder.format != "html":
        return
    text = script_text(Path(app.srcdir))
    stem = Path(NOTEBOOK).stem
    for docname in app.env.found_docs:
        if Path(docname).name == stem:
            target = Path(app.outdir) / Path(docname).parent / NAME
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                target.write_text(text, encoding="utf-8")


def setup(app):
    app.connect("build-finished", _write)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
