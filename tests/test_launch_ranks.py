"""inside_nn.launch on ranks that stay up, as chapter 7's `on_two_ranks` uses it.

One pair of ranks runs two jobs: the source of a class and of a function defined here (shipped as
text by `source_of`, as the notebook ships its cells' code), helpers from the preamble, a collective,
and a warning given on a rank, which the caller must see again. Then the ranks end politely, so that
the rank side's code (`serve_jobs`, `run_job`) ends normally too. A preamble that fails makes torchrun
exit before any rank is ready: the caller gets torchrun's log. tests/test_ddp_cleanup.py tests failing
and hanging ranks.
"""

from __future__ import annotations

import psutil
import pytest

from inside_nn.launch import (
    rank_script,
    run_on_ranks,
    source_of,
    start_ranks,
    stop_ranks,
)

PREAMBLE = '''
def doubled(x):
    """A helper every job can call."""
    return 2 * x
'''


class Counter:
    """A class defined in a test module: source_of finds its source through linecache."""

    def __init__(self, start):
        self.value = start

    def add(self, amount):
        self.value += amount
        return self.value


def sum_over_ranks(rank, world_size, device):
    """Each rank adds its doubled rank to a Counter, then all-reduces it."""
    total = torch.tensor([float(Counter(10).add(doubled(rank)))])  # noqa: F821 (the rank's imports)
    dist.all_reduce(total)  # noqa: F821
    return {
        "rank": rank,
        "world_size": world_size,
        "device": str(device),
        "sum": total.item(),
    }


def warns_on_rank_1(rank, world_size, device):
    if rank == 1:
        warnings.warn("only on rank 1", UserWarning, stacklevel=1)  # noqa: F821
    return rank


def test_source_of_pastes_classes_and_functions():
    source = source_of(Counter, sum_over_ranks)
    assert source.startswith("class Counter:\n")
    assert "\n\ndef sum_over_ranks(rank, world_size, device):\n" in source
    namespace: dict = {}
    exec(compile(source, "<pasted>", "exec"), namespace)  # noqa: S102
    assert namespace["Counter"](1).add(2) == 3


def test_the_rank_script_is_imports_preamble_and_the_call():
    script = rank_script(PREAMBLE)
    assert "import torch.distributed as dist" in script
    assert script.index("def doubled") < script.index("serve_jobs(globals())")
    compile(script, "<rank script>", "exec")


def test_jobs_on_ranks_that_stay_up_then_end_politely():
    ranks = start_ranks(2, preamble=PREAMBLE)
    try:
        source = source_of(Counter, sum_over_ranks)
        results = run_on_ranks(source, "sum_over_ranks", ranks=ranks, timeout_s=120)
        assert results == [{"rank": r, "world_size": 2, "device": "cpu", "sum": 10.0 + 10.0 + 2.0} for r in range(2)]
        with pytest.warns(RuntimeWarning, match="rank 1: UserWarning: only on rank 1"):
            ranks_seen = run_on_ranks(
                source_of(warns_on_rank_1),
                "warns_on_rank_1",
                ranks=ranks,
                timeout_s=120,
            )
        assert ranks_seen == [0, 1]
        assert ranks["jobs"] == 2
    finally:
        launcher = ranks["launcher"]
        stop_ranks(ranks)
    assert launcher.returncode == 0, "the ranks did not end on the empty job"
    assert not ranks["work"].exists()
    assert psutil.Process().children(recursive=True) == []


def test_ranks_that_never_start_give_torchruns_log():
    ranks = start_ranks(2, preamble="raise SystemExit('the preamble fails')")
    with pytest.raises(RuntimeError, match="torchrun exited with") as error:
        run_on_ranks("", "nothing", ranks=ranks, timeout_s=60)
    assert "the preamble fails" in str(error.value)
    assert ranks["launcher"].poll() is not None
    assert psutil.Process().children(recursive=True) == []


def rank_and_world(rank, world_size, device):
    return [rank, world_size]


def test_run_on_ranks_alone_starts_and_stops_ranks_of_its_own():
    """The module's own example: no start_ranks, no preamble; the ranks end with the call."""
    results = run_on_ranks(source_of(rank_and_world), "rank_and_world", timeout_s=120)
    assert results == [[0, 2], [1, 2]]
    assert psutil.Process().children(recursive=True) == []
