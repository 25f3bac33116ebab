"""Run a command and print how long it took: `make test` prints each stage's time this way.

    python tools/timed.py LABEL [--versus OTHER] -- COMMAND...

When COMMAND ends, prints "[time] LABEL: 41.3 s wall, 60.2 s CPU", followed, with --versus, by
how many times OTHER's figures (kept from earlier in the same `make` run) these are. The CPU
seconds (COMMAND and every process it started and waited for, the browser included) are the
figure a busy machine changes least: on shared cores, wall time measures the neighbours too.
Keeps the figures in _build/times/LABEL and exits with COMMAND's status. The times are for
people to read (the budgets are measured by `make bench`); nothing fails on them.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

TIMES = Path(__file__).resolve().parent.parent / "_build" / "times"


def slug(label: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in label)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str]) -> int:
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1 :]
    label, versus = options[0], None
    if "--versus" in options:
        versus = options[options.index("--versus") + 1]
    start, cpu_start = time.perf_counter(), children_cpu()
    status = subprocess.call(command)
    wall, cpu = time.perf_counter() - start, children_cpu() - cpu_start
    TIMES.mkdir(parents=True, exist_ok=True)
    (TIMES / slug(label)).write_text(f"{wall:.1f} {cpu:.1f}\n")
    line = f"{label}: {wall:.1f} s wall, {cpu:.1f} s CPU"
    other = TIMES / slug(versus) if versus else None
    if other is not None and other.exists():
        base_wall, base_cpu = map(float, other.read_text().split())
        if base_wall > 0 and base_cpu > 0:
            line += f" ({wall / base_wall:.1f}x the wall time and {cpu / base_cpu:.1f}x the CPU time of {versus})"
    print(f"[time] {line}", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
