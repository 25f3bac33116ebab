"""The offline copy of the book: one zip of the built site and the notebooks, for reading from disk.

`make book` runs this after both editions are built:

    python book/_ext/offline_archive.py _build/html

It writes ``_build/html/inside-nn-module.zip`` (linked from the intro page), holding the folder
``inside-nn-module/`` with the whole site (both editions) and every notebook of the repository
next to its page (``notebooks/*.ipynb``, ``notebooks/ko/*.ipynb``), as the reader notebooks that the
pages' download buttons hand out (``book/_ext/reader_notebooks.py``: no raw MyST, solutions
collapsed); their first cell installs the book's package from the copy's ``wheels/`` folder. Unpacked, ``index.html``
opens in a browser from disk: every link of the site is relative, math is MathML, and the search
page finds words without fetching anything (see book/_static/book-search.js).

Source maps, build bookkeeping and assets no page loads from disk are left out; entries carry a fixed date, so the same site
gives the same bytes, and an unchanged site is not zipped again.
"""

from __future__ import annotations

import hashlib
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
NAME = "inside-nn-module"
ARCHIVE = f"{NAME}.zip"
SKIP_SUFFIXES = {".map", ".zip"}
SKIP_NAMES = {".buildinfo", "objects.inv", ".offline-archive.key"}
# Assets no page loads from disk: the theme's untrimmed stylesheet and icon fonts (pages use
# book-theme.css and its cut-down fonts), its all-icons script, a MathJax copy left by older
# builds, and Thebe, which only live code loads, and live code needs a kernel on the network.
SKIP_ASSETS = (
    "_static/styles/pydata-sphinx-theme.css",
    "_static/scripts/fontawesome.js",
    "_static/vendor/fontawesome/",
    "_static/mathjax/",
    "_static/thebe/",
)


def members(html: Path) -> list[tuple[Path, str]]:
    """(file on disk, name in the archive) for every file of the offline copy, sorted."""
    files = []
    for path in sorted(html.rglob("*")):
        rel = path.relative_to(html)
        if not path.is_file() or path.suffix in SKIP_SUFFIXES or path.name in SKIP_NAMES:
            continue
        if any(part.startswith(".") for part in rel.parts):
            continue
        edition_rel = rel.as_posix().removeprefix("ko/")
        if edition_rel.startswith(SKIP_ASSETS):
            continue
        files.append((path, f"{NAME}/{rel.as_posix()}"))
    for notebook in sorted((ROOT / "notebooks").rglob("*.ipynb")):
        rel = notebook.relative_to(ROOT)
        if ".ipynb_checkpoints" not in rel.parts:
            edition = "ko/" if rel.parent.name == "ko" else ""
            reader = html / f"{edition}_sources" / rel
            files.append((reader, f"{NAME}/{rel.as_posix()}"))
    return files


def write(html: Path) -> Path:
    target = html / ARCHIVE
    entries = members(html)
    key = hashlib.sha256()
    for path, name in entries:
        stat = path.stat()
        key.update(f"{name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    stamp = html / ".offline-archive.key"
    if target.exists() and stamp.exists() and stamp.read_text() == key.hexdigest():
        return target
    partial = target.with_suffix(".zip.part")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for path, name in entries:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, path.read_bytes())
    partial.replace(target)
    stamp.write_text(key.hexdigest())
    return target


if __name__ == "__main__":
    html = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "_build" / "html"
    archive = write(html)
    print(
        f"offline copy: {archive.relative_to(Path.cwd()) if archive.is_relative_to(Path.cwd()) else archive} ({archive.stat().st_size / 1e6:.1f} MB)"
    )
