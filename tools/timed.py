"""Run a command and print how long it took: `make test` prints each stage's time this way.

    python tools/timed.py LABEL [--versus OTHER] -- COMMAND...

Prints "LABEL: 12.3 s" when COMMAND ends (with "(1.6x OTHER)" when OTHER's time was printed
earlier in the same `make` run), keeps the seconds in _build/times/LABEL, and exits with
COMMAND's status. The times are for people to read (the budgets are measured by `make bench`);
nothing fails on them.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

TIMES = Path(__file__).resolve().parent.parent / "_build" / "times"


def slug(label: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in label)


def main(argv: list[str]) -> int:
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1 :]
    label, versus = options[0], None
    if "--versus" in options:
        versus = options[options.index("--versus") + 1]
    start = time.perf_counter()
    status = subprocess.call(command)
    seconds = time.perf_counter() - start
    TIMES.mkdir(parents=True, exist_ok=True)
    (TIMES / slug(label)).write_text(f"{seconds:.1f}\n")
    line = f"{label}: {seconds:.1f} s"
    other = TIMES / slug(versus) if versus else None
    if other is not None and other.exists():
        base = float(other.read_text())
        if base > 0:
            line += f" ({seconds / base:.1f}x {versus})"
    print(f"[time] {line}", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
