"""Publishes `inspect_module.py`, the download of chapter 8, next to the chapter's page in each edition.

The download is the package's module `inside_nn/inspect_module.py`, byte for byte: one file that needs only
torch, which the chapter imports (`from inside_nn.inspect_module import inspect_module`) and which ends in the
two lines that make it a command (``python inspect_module.py file.py:build_model``).
"""

from __future__ import annotations

from pathlib import Path

MODULE = "inside_nn/inspect_module.py"
NOTEBOOK = "notebooks/08_inspect_your_model.ipynb"
NAME = "inspect_module.py"


def script_bytes(root: Path) -> bytes:
    """The download: the module file as it is in the repository."""
    return (Path(root) / MODULE).read_bytes()


def script_text(root: Path) -> str:
    """The download's text (the module file, decoded)."""
    return script_bytes(root).decode("utf-8")


def _write(app, exception) -> None:
    """Next to every page built from the chapter (English `notebooks/`, Korean `notebooks/ko/`), so the page's
    link is the same relative `inspect_module.py` in both editions."""
    if exception is not None or app.builder.format != "html":
        return
    data = script_bytes(Path(app.srcdir))
    stem = Path(NOTEBOOK).stem
    for docname in app.env.found_docs:
        if Path(docname).name == stem:
            target = Path(app.outdir) / Path(docname).parent / NAME
            if not target.exists() or target.read_bytes() != data:
                target.write_bytes(data)


def setup(app):
    app.connect("build-finished", _write)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
