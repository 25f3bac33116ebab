"""Run a notebook's functions on several ranks at once: chapter 7's launcher (07_buffers_and_ddp.ipynb).

    from inside_nn.launch import run_on_ranks, source_of

    def entry(rank, world_size, device):  # defined in a notebook cell
        ...
        return {"rank": rank}  # anything JSON can hold

    results = run_on_ranks(source_of(entry), "entry")  # one result per rank, in rank order

`source_of` takes the source of functions and classes defined in notebook cells (the ranks are other
processes: what they run travels as text). `run_on_ranks` starts `torchrun --standalone` with `nproc`
ranks, runs `entry(rank, world_size, device)` from that source on each, and returns the results; a
failing rank's error is raised in the caller, and a warning given on a rank is repeated there. To run
many jobs on ranks started once, `ranks = start_ranks(nproc)`, `run_on_ranks(..., ranks=ranks)` for each
job, and `stop_ranks(ranks)` at the end; `start_ranks(preamble=...)` adds source (helpers that every job
uses) to the rank script.

What makes it safe to use from a notebook:

- `--standalone` picks a free port and a fresh run id, so that launches at the same time cannot collide.
- The rank script is `RANK_IMPORTS`, the preamble, and a call of `serve_jobs`: nothing else of the
  caller's state reaches the ranks. Each job runs in a fresh copy of that script's namespace.
- `serve_jobs` starts a watchdog thread that ends the rank if `torchrun` (its parent) or the caller
  disappears, starts the process group (NCCL on one GPU per rank for `device_type="cuda"`, else gloo on
  the CPU), then runs job 0, 1, ...: for job n it waits for `job<n>.json` (source and entry, written by
  the caller), runs the entry, and writes its result and warnings to `job<n>.rank<r>.json`, or its
  error, with a time stamp, to `job<n>.rank<r>.error`. The caller raises the earliest error: the cause
  (later ones are its echoes). An empty job ends the ranks.
- Every job has a timeout, counted from the moment the ranks are ready. When it expires, or a job fails,
  the caller sends SIGTERM to `torchrun`, which stops its ranks, and SIGKILL if it lingers; `torchrun`
  runs in a session of its own, so no signal reaches the caller.

tests/test_ddp_cleanup.py runs a failing and a hanging rank and checks that the errors arrive in time
and that no process survives.
"""

from __future__ import annotations

import inspect
import json
import linecache
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import warnings
from pathlib import Path

import torch
import torch.distributed as dist

__all__ = [
    "RANK_IMPORTS",
    "STARTUP_TIMEOUT_S",
    "run_on_ranks",
    "serve_jobs",
    "source_of",
    "start_ranks",
    "stop_ranks",
]

# Starting torch in every process can take long on a loaded machine.
STARTUP_TIMEOUT_S = 300.0

# What every job's source can use without importing it.
RANK_IMPORTS = """
import inspect
import json
import os
import threading
import time
import warnings
from contextlib import nullcontext
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.join import Join
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset
"""


def source_of(*objects) -> str:
    """The source of notebook functions and classes, to be pasted into a rank script."""
    sources = []
    for obj in objects:
        # Before Python 3.13, inspect.getsource cannot find a class defined in a cell.
        if inspect.isclass(obj):
            code = next(f.__code__ for f in vars(obj).values() if inspect.isfunction(f))
            lines = linecache.getlines(code.co_filename)
            header = f"class {obj.__name__}"
            first = max(i for i in range(code.co_firstlineno) if lines[i].startswith(header))
            sources.append("".join(inspect.getblock(lines[first:])))
        else:
            sources.append(textwrap.dedent(inspect.getsource(obj)))
    return "\n\n".join(sources)


# --- What runs on every rank ----------------------------------------------------------------------


def write_atomically(path: Path, text: str) -> None:
    """Write text to path so that a reader sees the whole file or none of it."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text)
    os.replace(partial, path)


def exit_if_orphaned() -> None:  # pragma: no cover (a rank's watchdog thread)
    """End this rank if torchrun (its parent) or the caller's process disappears."""
    parent, kernel = os.getppid(), int(os.environ["BOOK_KERNEL_PID"])
    while os.getppid() == parent:
        if os.name == "posix":
            try:
                os.kill(kernel, 0)  # signal 0 only asks whether the process exists
            except ProcessLookupError:
                break
        time.sleep(0.2)
    os._exit(1)


def rank_device() -> tuple[torch.device, str]:
    """This rank's device and backend: its own GPU with NCCL, or the CPU with gloo."""
    if os.environ["BOOK_DDP_DEVICE"] == "cuda":
        return torch.device("cuda", int(os.environ["LOCAL_RANK"])), "nccl"
    return torch.device("cpu"), "gloo"


def run_job(number, source, entry, rank, world_size, device, work, namespace) -> None:
    """Run entry(rank, world_size, device) from source; write its result or its error."""
    namespace = dict(namespace)  # the script's imports and preamble, fresh per job
    try:
        exec(compile(source, f"<job {number}>", "exec"), namespace)  # noqa: S102 (the caller's own code)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = namespace[entry](rank, world_size, device)
    except BaseException as error:
        failure = {
            "time": time.time(),
            "text": f"rank {rank}: {type(error).__name__}: {error}",
        }
        write_atomically(work / f"job{number}.rank{rank}.error", json.dumps(failure))
        raise  # this rank ends, and torchrun stops the others
    said = [f"{type(w.message).__name__}: {w.message}" for w in caught]
    write_atomically(
        work / f"job{number}.rank{rank}.json",
        json.dumps({"result": result, "warnings": said}),
    )


def serve_jobs(namespace: dict) -> None:
    """What every rank runs: start the group, then run job0, job1, ... until an empty one.

    `namespace` is the rank script's globals (its imports and preamble): each job runs in a copy.
    """
    threading.Thread(target=exit_if_orphaned, daemon=True).start()
    rank, world_size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    work, (device, backend) = Path(os.environ["BOOK_RESULT_DIR"]), rank_device()
    dist.init_process_group(backend)
    write_atomically(work / f"rank{rank}.ready", "")
    number = 0
    while True:
        job = work / f"job{number}.json"
        while not job.exists():
            time.sleep(0.02)
        source, entry = json.loads(job.read_text())
        if entry is None:
            break
        run_job(number, source, entry, rank, world_size, device, work, namespace)
        number += 1
    dist.destroy_process_group()


# --- What runs in the caller ----------------------------------------------------------------------


def rank_script(preamble: str = "") -> str:
    """The program every rank runs: the imports, the preamble, the call of serve_jobs."""
    serve = "import inside_nn.launch\n\ninside_nn.launch.serve_jobs(globals())\n"
    return f"{RANK_IMPORTS}\n\n{preamble}\n\n{serve}"


def start_torchrun(script: Path, nproc: int, log, device_type: str) -> subprocess.Popen:
    """Start torchrun on script in a session of its own; its output goes to log."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += [f"--nproc-per-node={nproc}", str(script)]
    env = {
        **os.environ,
        "BOOK_RESULT_DIR": str(script.parent),
        "BOOK_DDP_DEVICE": device_type,
        "BOOK_KERNEL_PID": str(os.getpid()),
    }
    return subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=script.parent,
        start_new_session=True,
    )


def start_ranks(nproc: int = 2, preamble: str = "", device_type: str = "cpu") -> dict:
    """Start nproc ranks under torchrun; they wait for jobs in a temporary directory.

    `preamble`: source that every job can use (helpers), after RANK_IMPORTS. `device_type`: "cuda"
    for one GPU per rank with NCCL (needs nproc GPUs), else "cpu" with gloo.
    """
    work_dir = tempfile.TemporaryDirectory()
    work = Path(work_dir.name)
    (work / "rank_script.py").write_text(rank_script(preamble))
    log = open(work / "torchrun.log", "w")  # noqa: SIM115 (open while the ranks run; stop_ranks closes it)
    launcher = start_torchrun(work / "rank_script.py", nproc, log, device_type)
    return {
        "nproc": nproc,
        "work": work,
        "work_dir": work_dir,
        "log": log,
        "launcher": launcher,
        "jobs": 0,
    }


def stop_launch(launcher: subprocess.Popen, grace_s: float = 10.0) -> None:
    """SIGTERM torchrun, which stops its ranks; SIGKILL it if it lingers."""
    launcher.terminate()
    try:
        launcher.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        launcher.kill()
        launcher.wait()


def stop_ranks(ranks: dict, politely: bool = True) -> None:
    """End the ranks (with the empty job if politely, else SIGTERM) and remove their files."""
    launcher = ranks["launcher"]
    if politely and launcher.poll() is None:
        write_atomically(ranks["work"] / f"job{ranks['jobs']}.json", json.dumps([None, None]))
        try:
            launcher.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
    if launcher.poll() is None:
        stop_launch(launcher)
    ranks["log"].close()
    ranks["work_dir"].cleanup()


def wait_until(condition, launcher, timeout_s: float) -> str:
    """Poll condition() until it holds ("done"), torchrun ends ("ended") or time runs out."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if launcher.poll() is not None:
            return "ended"
        if time.monotonic() > deadline:
            return "timeout"
        time.sleep(0.02)
    return "done"


def failure_of(ranks: dict, number: int, outcome: str, timeout_s: float) -> Exception:
    """The exception a failed job raises: the earliest rank error, a timeout, or torchrun's log."""
    work = ranks["work"]
    failures = [json.loads(path.read_text()) for path in work.glob(f"job{number}.rank*.error")]
    if failures:  # the earliest failure is the cause; later ones are its echoes
        return RuntimeError(min(failures, key=lambda failure: failure["time"])["text"])
    if outcome == "timeout":
        missing = [r for r in range(ranks["nproc"]) if not (work / f"job{number}.rank{r}.json").exists()]
        return TimeoutError(f"ranks {missing} gave no result within {timeout_s} s; all processes were stopped")
    return RuntimeError(
        f"torchrun exited with {ranks['launcher'].poll()}:\n{(work / 'torchrun.log').read_text()[-3000:]}"
    )


def run_on_ranks(source, entry, nproc=2, timeout_s=300.0, ranks=None) -> list:
    """Run entry(rank, world_size, device) from source on each rank; results in rank order.

    Uses `ranks` from start_ranks, or starts and stops ranks of its own. A failure or a timeout
    stops the ranks and raises; a warning given on a rank is repeated here, so none goes unseen.
    """
    own, ranks = ranks is None, ranks or start_ranks(nproc)
    work, launcher, number = ranks["work"], ranks["launcher"], ranks["jobs"]
    ranks["jobs"] = number + 1
    try:
        ready = [work / f"rank{r}.ready" for r in range(ranks["nproc"])]
        outcome = wait_until(lambda: all(p.exists() for p in ready), launcher, STARTUP_TIMEOUT_S)
        results = [work / f"job{number}.rank{r}.json" for r in range(ranks["nproc"])]
        if outcome == "done":
            write_atomically(work / f"job{number}.json", json.dumps([source, entry]))

            def failed() -> bool:
                return any(work.glob(f"job{number}.rank*.error"))

            outcome = wait_until(
                lambda: failed() or all(p.exists() for p in results),
                launcher,
                timeout_s,
            )
            outcome = "failed" if failed() else outcome
        if outcome != "done":
            raise failure_of(ranks, number, outcome, timeout_s)
        reports = [json.loads(path.read_text()) for path in results]
    except BaseException:  # a failure, a timeout, or the reader's interrupt
        stop_ranks(ranks, politely=False)
        raise
    if own:
        stop_ranks(ranks)
    for rank, report in enumerate(reports):
        for said in report["warnings"]:
            warnings.warn(f"rank {rank}: {said}", RuntimeWarning, stacklevel=2)
    return [report["result"] for report in reports]
