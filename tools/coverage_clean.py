"""Drop the coverage data files that processes killed by the tests left unfinished.

Some tests kill a subprocess on purpose (`kill -9` during a save, a rank that hangs): coverage's
file for that process has no schema yet, and `coverage combine` would warn about it. Used by
`make checks` before it combines.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path


def usable(path: Path) -> bool:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            tables = {row[0] for row in db.execute("select name from sqlite_master")}
    except sqlite3.Error:
        return False
    return "coverage_schema" in tables


def main(folder: str) -> None:
    for path in sorted(Path(folder).glob(".coverage.*")):
        if not usable(path):
            path.unlink()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "_build/coverage")
