"""Build the book's package, inside_nn, as a wheel: `python tools/wheel.py OUTDIR` (run by `make book`).

The wheel is published with the site, at `wheels/<name>`, which is the URL each notebook's first cell
installs from on Colab. It is written here rather than by a build backend so that it is byte for byte
the same for the same sources (fixed timestamps and order), needs nothing beyond the standard library,
and takes milliseconds: `make book` rebuilds it only when it would differ. The metadata comes from
pyproject.toml; `pip install --no-deps` of the result gives what an editable install gives.
"""

from __future__ import annotations

import base64
import hashlib
import re
import sys
import zipfile
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
EPOCH = (1980, 1, 1, 0, 0, 0)


def version() -> str:
    text = (ROOT / "inside_nn" / "__init__.py").read_text(encoding="utf-8")
    return re.search(r'^__version__ = "([^"]+)"', text, flags=re.MULTILINE).group(1)


def wheel_name() -> str:
    return f"inside_nn-{version()}-py3-none-any.whl"


def _metadata(project: dict) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {version()}",
        f"Summary: {project['description']}",
        f"Requires-Python: {project['requires-python']}",
    ]
    lines += [f"Requires-Dist: {dep}" for dep in project.get("dependencies", [])]
    return "\n".join(lines) + "\n"


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"{name},sha256={digest.decode()},{len(data)}"


def build(outdir: Path) -> Path:
    """Write the wheel into outdir (replacing it only when its bytes change); return its path."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = f"inside_nn-{version()}.dist-info"
    files = {
        p.relative_to(ROOT).as_posix(): p.read_bytes()
        for p in sorted((ROOT / "inside_nn").rglob("*.py"))
        if "__pycache__" not in p.parts
    }
    scripts = project.get("scripts", {})
    files[f"{info}/METADATA"] = _metadata(project).encode()
    files[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: inside-nn tools/wheel.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    files[f"{info}/entry_points.txt"] = (
        "[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in scripts.items())
    ).encode()
    record = [_record_line(name, data) for name, data in files.items()]
    files[f"{info}/RECORD"] = ("\n".join(record + [f"{info}/RECORD,,"]) + "\n").encode()
    outdir.mkdir(parents=True, exist_ok=True)
    target = outdir / wheel_name()
    partial = target.with_suffix(".partial")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            entry = zipfile.ZipInfo(name, date_time=EPOCH)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data)
    if target.exists() and target.read_bytes() == partial.read_bytes():
        partial.unlink()
    else:
        partial.replace(target)
    return target


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python tools/wheel.py OUTDIR")
    built = build(Path(sys.argv[1]).resolve())
    print(f"wheel: {built.relative_to(ROOT) if built.is_relative_to(ROOT) else built}")
