"""Chapter 7's launcher: a failing or hanging rank ends the call in bounded time, and no process survives.

The launcher is the book's package, ``inside_nn.launch``; chapter 7's ``on_two_ranks`` keeps its ranks
up between calls. The rank script imports the launcher from the installed package and runs the job's
source, which the caller ships as text (``source_of`` uses ``inspect.getsource``, as the notebook does).

The test starts two launches at the same time (which also shows that concurrent ``--standalone`` launches do
not collide): in one, rank 1 raises while rank 0 waits for it in a barrier; in the other, rank 1 hangs after
rank 0 has finished. ``run_on_ranks`` without ``ranks=`` starts ranks of its own and stops them afterwards;
its timeout counts from the moment the ranks are ready, so the time torch takes to start on a loaded machine
is allowed for separately. Every process the launches start carries a unique token in its environment, so
that survivors are found wherever they were re-parented.
"""

from __future__ import annotations

import threading
import time
import uuid

import psutil

from inside_nn.launch import run_on_ranks

TOKEN_VARIABLE = "DDP_CLEANUP_TEST_TOKEN"
FAIL_TIMEOUT_S = 120.0  # generous: a failing rank must end the launch long before this
HANG_TIMEOUT_S = 20.0
STARTUP_ALLOWANCE_S = 60.0  # starting torch in three processes on a loaded 2-core machine
STOP_GRACE_S = 15.0  # the launcher waits up to 10 s for torchrun to stop its ranks, then kills it

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
