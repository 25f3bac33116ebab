"""Chapter 7's launcher: a failing or hanging rank ends the call in bounded time, and no process survives.

The test runs the notebook's own code: its setup cell and then every code cell tagged ``ddp-launcher``, in
notebook order. The launcher pastes some of those functions into the rank script with ``inspect.getsource``,
so each cell's source is registered in ``linecache`` under a name of its own, as Jupyter does for its cells.

The test starts two launches at the same time (which also shows that concurrent ``--standalone`` launches do
not collide): in one, rank 1 raises while rank 0 waits for it in a barrier; in the other, rank 1 hangs after
rank 0 has finished. ``run_on_ranks`` without ``ranks=`` starts ranks of its own and stops them afterwards;
its timeout counts from the moment the ranks are ready, so the time torch takes to start on a loaded machine
is allowed for separately. Every process the launches start carries a unique token in its environment, so
that survivors are found wherever they were re-parented.
"""

from __future__ import annotations

import json
import linecache
import threading
import time
import uuid
from pathlib import Path

import psutil

NOTEBOOK = (
    Path(__file__).resolve().parent.parent / "notebooks" / "07_buffers_and_ddp.ipynb"
)
TOKEN_VARIABLE = "DDP_CLEANUP_TEST_TOKEN"
FAIL_TIMEOUT_S = 120.0  # generous: a failing rank must end the launch long before this
HANG_TIMEOUT_S = 20.0
STARTUP_ALLOWANCE_S = (
    60.0  # starting torch in three processes on a loaded 2-core machine
)
STOP_GRACE_S = (
    15.0  # the launcher waits up to 10 s for torchrun to stop its ranks, then kills it
)

FAILING_RANK = """
def rank_one_fails(rank, world_size, device):
    import torch.distributed as dist

    if rank == 1:
        raise ValueError("rank 1 refuses to continue")
    dist.barrier()  # rank 0 waits here for a partner that has died
    return {"rank": rank}
"""

HANGING_RANK = """
def rank_one_hangs(rank, world_size, device):
    import time

    import torch.distributed as dist

    dist.barrier()
    if rank == 1:
        time.sleep(3600)
    return {"rank": rank}
"""


def launcher_namespace() -> dict:
    """Run the notebook's setup cell and its ddp-launcher cells; return the names they define."""
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    code = [cell for cell in nb["cells"] if cell["cell_type"] == "code"]
    tagged = [
        c for c in code if "ddp-launcher" in c.get("metadata", {}).get("tags", [])
    ]
    assert tagged, "the launcher's code cells must carry the ddp-launcher tag"
    namespace: dict = {"__name__": "chapter_7_launcher"}
    for number, cell in enumerate([code[0], *tagged]):
        lines = "".join(cell["source"]).splitlines(keepends=True)
        # IPython's `%` lines (the setup cell's %config) are not Python; keep the line numbers.
        source = "".join(
            "\n" if ln.lstrip().startswith(("%", "!")) else ln for ln in lines
        )
        filename = f"<{NOTEBOOK.name}: launcher cell {number}>"
        lines = source.splitlines(keepends=True)
        linecache.cache[filename] = (len(source), None, lines, filename)
        exec(compile(source, filename, "exec"), namespace)  # noqa: S102 (the book's own code)
    assert "run_on_ranks" in namespace, "no ddp-launcher cell defines run_on_ranks"
    return namespace


def processes_with_token(token: str) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter():
        try:
            if process.environ().get(TOKEN_VARIABLE) == token:
                found.append(process)
        except psutil.Error:  # gone, a zombie, or not ours to read
            continue
    return found


def test_failing_and_hanging_ranks_end_in_time_and_leave_nothing(monkeypatch):
    token = uuid.uuid4().hex
    monkeypatch.setenv(TOKEN_VARIABLE, token)
    run_on_ranks = launcher_namespace()["run_on_ranks"]
    outcomes: dict[str, tuple[object, float]] = {}

    def attempt(name: str, source: str, entry: str, timeout_s: float) -> None:
        start = time.monotonic()
        try:
            outcome: object = run_on_ranks(source, entry, timeout_s=timeout_s)
        except (RuntimeError, TimeoutError) as error:  # the outcomes under test
            outcome = error
        outcomes[name] = (outcome, time.monotonic() - start)

    launches = [
        threading.Thread(
            target=attempt,
            args=("fails", FAILING_RANK, "rank_one_fails", FAIL_TIMEOUT_S),
        ),
        threading.Thread(
            target=attempt,
            args=("hangs", HANGING_RANK, "rank_one_hangs", HANG_TIMEOUT_S),
        ),
    ]
    for launch in launches:
        launch.start()
    for launch in launches:
        launch.join(timeout=FAIL_TIMEOUT_S + STARTUP_ALLOWANCE_S + STOP_GRACE_S)
    assert not any(launch.is_alive() for launch in launches), "a launch never returned"

    # The failing rank's own error reaches the caller, well before the timeout.
    error, elapsed = outcomes["fails"]
    assert isinstance(error, RuntimeError), error
    assert str(error) == "rank 1: ValueError: rank 1 refuses to continue"
    assert elapsed < STARTUP_ALLOWANCE_S + FAIL_TIMEOUT_S / 4, elapsed

    # The hanging launch ends at its timeout, names the rank without a result, and is bounded.
    error, elapsed = outcomes["hangs"]
    assert isinstance(error, TimeoutError), error
    assert str(error).startswith("ranks [1] gave no result"), error
    bound = HANG_TIMEOUT_S + STARTUP_ALLOWANCE_S + STOP_GRACE_S
    assert HANG_TIMEOUT_S <= elapsed < bound, elapsed

    # Nothing the launches started is still running, under this process or re-parented elsewhere.
    assert processes_with_token(token) == []
    assert psutil.Process().children(recursive=True) == []
