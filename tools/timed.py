"""Run a command and print how long it took: `make test` prints each stage's time this way.

    python tools/timed.py LABEL [--versus OTHER] -- COMMAND...

When COMMAND ends, prints "[time] LABEL: 41.3 s wall, 60.2 s CPU", followed, with --versus, by
how many times OTHER's figures (kept from earlier in the same `make` run) these are. The CPU
seconds (COMMAND and every process under it) are the figure a busy machine changes least: on shared
cores, wall time measures the neighbours too. Processes whose parent exits without waiting for them
(Chromium's renderers, which the browser tests' driver leaves to the system) would be counted by
no one: on Linux this process becomes their reaper (PR_SET_CHILD_SUBREAPER), so they are waited
for here and their CPU counted.
Keeps the figures in _build/times/LABEL and exits with COMMAND's status. The times are for
people to read (the budgets are measured by `make bench`); nothing fails on them.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

# TIMED_DIR: where the figures are kept (a test keeps its own apart).
TIMES = Path(os.environ.get("TIMED_DIR") or Path(__file__).resolve().parent.parent / "_build" / "times")


def slug(label: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in label)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def become_reaper() -> bool:
    """Orphaned descendants are re-parented to this process (Linux); False elsewhere."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def reap_while_running(command: subprocess.Popen, stop: threading.Event) -> None:
    """Reap each orphan as it exits (a zombie left for the end would look alive to a test that
    waits for what it started to go away), never COMMAND itself: its own wait() reaps it."""
    while not stop.is_set():
        try:
            exited = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            exited = None
        if exited is not None and exited.si_pid != command.pid:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(exited.si_pid, 0)
            continue
        stop.wait(0.05)


def reap_orphans(patience: float = 10.0) -> int:
    """Wait for the orphans re-parented here (their CPU then counts); how many still ran after
    `patience` seconds (not counted, and named by the caller as a leak)."""
    deadline = time.monotonic() + patience
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return 0
        if pid == 0:
            if time.monotonic() > deadline:
                return sum(1 for proc in Path("/proc").glob("[0-9]*") if _ppid(proc) == os.getpid())
            time.sleep(0.05)


def _ppid(proc: Path) -> int:
    try:
        return int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def main(argv: list[str]) -> int:
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1 :]
    label, versus = options[0], None
    if "--versus" in options:
        versus = options[options.index("--versus") + 1]
    reaper = become_reaper()
    start, cpu_start = time.perf_counter(), children_cpu()
    with subprocess.Popen(command) as process:
        stop = threading.Event()
        reaping = threading.Thread(target=reap_while_running, args=(process, stop), daemon=True)
        if reaper:
            reaping.start()
        status = process.wait()
        stop.set()
        if reaper:
            reaping.join()
    wall = time.perf_counter() - start
    leaked = reap_orphans() if reaper else 0
    cpu = children_cpu() - cpu_start
    TIMES.mkdir(parents=True, exist_ok=True)
    (TIMES / slug(label)).write_text(f"{wall:.1f} {cpu:.1f}\n")
    line = f"{label}: {wall:.1f} s wall, {cpu:.1f} s CPU"
    other = TIMES / slug(versus) if versus else None
    if other is not None and other.exists():
        base_wall, base_cpu = map(float, other.read_text().split())
        if base_wall > 0 and base_cpu > 0:
            line += f" ({wall / base_wall:.1f}x the wall time and {cpu / base_cpu:.1f}x the CPU time of {versus})"
    if leaked:
        line += f"; {leaked} of its processes were still running 10 s after it ended"
    print(f"[time] {line}", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
