"""Exercise checkers for "Buffers, plain tensor attributes and DistributedDataParallel"
(07_buffers_and_ddp.ipynb): each `check_*` runs a reader's answer beside `_reference_*`, the
solution the page shows, and prints one line.

Every call of an answer goes through `harness.attempt` (two simulated ranks run inside one call,
each in its own thread, whose grad mode is checked too): global state it leaves changed, a stub or
an endless loop end the check with one line. Batches come in float32, float64 and bfloat16, with
empty ones, NaN and inf; state dicts come from `inside_nn.zoo`'s real architectures.
"""

# Names a reader's answer may use as if the notebook had imported them (the checker cell imports
# this module's checkers; the tests run answers beside this module's names).
import contextlib
import copy
import functools
import threading
from collections import OrderedDict

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

from inside_nn import pick_device, zoo
from inside_nn.exercises import harness
from inside_nn.exercises.harness import Wrong, attempt, checker
from inside_nn.exercises.simulated_devices import SimulatedDevices, device_of

device = pick_device()


class _FakeWork:
    """What all_reduce(..., async_op=True) returns: the result lands in the tensor at wait()."""

    def __init__(self, tensor, result):
        self._tensor, self._result, self.waited = tensor, result, False

    def wait(self, timeout=None):
        if not self.waited:
            with torch.no_grad():
                self._tensor.copy_(self._result)
            self.waited = True
        return True

    def is_completed(self):
        return self.waited


def _fake_all_reduces(timeout_s=2.0, backend="gloo"):
    """Two thread 'ranks' whose all_reduce behaves like torch.distributed.all_reduce of torch 2.6-2.15.

    It honours op= (SUM, AVG, PRODUCT, MIN, MAX; AVG as NCCL computes it, gloo refuses it), async_op=True
    (the result lands at .wait(), as with a real Work object), and group= None or dist.group.WORLD; any
    other group, or an op it does not know, is refused with a clear error. Every call is logged per rank.
    With backend "nccl" (the ranks' tensors on simulated GPUs), a tensor on the CPU is refused, as a
    process group with NCCL alone refuses it.
    """
    slots, barrier, log = (
        [None, None],
        threading.Barrier(2, timeout=timeout_s * harness.DEADLINE_SCALE),  # a rank left waiting: a deadline too
        [[], []],
    )
    combine = {
        dist.ReduceOp.SUM: lambda a, b: a + b,
        dist.ReduceOp.AVG: lambda a, b: (a + b) / 2,
        dist.ReduceOp.PRODUCT: lambda a, b: a * b,
        dist.ReduceOp.MIN: torch.minimum,
        dist.ReduceOp.MAX: torch.maximum,
    }

    def make(rank):
        def all_reduce(tensor, op=dist.ReduceOp.SUM, group=None, async_op=False):
            if group not in (None, dist.group.WORLD):
                raise ValueError("this checker simulates the default group only: pass group=None")
            if op not in combine:
                raise ValueError(f"this checker's all_reduce does not support op={op}")
            if backend == "nccl" and device_of(tensor).type == "cpu":
                raise RuntimeError("No backend type associated with device type cpu")
            slots[rank] = tensor.detach().clone()
            barrier.wait()
            result = combine[op](slots[0], slots[1]).to(tensor.dtype)
            barrier.wait()
            work = _FakeWork(tensor, result) if async_op else None
            log[rank].append((op, tuple(tensor.shape), tensor.dtype, work))
            if async_op:
                return work
            with torch.no_grad():
                tensor.copy_(result)
            return None

        return all_reduce

    return [make(0), make(1)], barrier, log


class _Leak(Exception):
    """The answer left its rank's thread in another grad or inference mode."""


def _on_two_ranks(add_batch_over_ranks, trackers, batches, backend="gloo"):
    """One call `attempt` can run: every step of both ranks, rank r in thread r, with rank r's
    tracker and batches. Returns (each rank's failure, each rank's log of all_reduce calls).
    With backend "nccl", rank r runs inside a simulation of cuda:r (`SimulatedDevices`)."""

    @functools.wraps(add_batch_over_ranks, updated=())
    def ranks():
        all_reduces, barrier, log = _fake_all_reduces(backend=backend)
        failures = [None, None]

        def run(rank):
            try:
                with SimulatedDevices() if backend == "nccl" else contextlib.nullcontext():
                    _steps(rank)
            except threading.BrokenBarrierError as error:
                failures[rank] = error
            except BaseException as error:  # noqa: BLE001 (the reader's own, reported)
                failures[rank] = error
                barrier.abort()

        def _steps(rank):
            for x in batches[rank]:
                modes = torch.is_grad_enabled(), torch.is_inference_mode_enabled()
                add_batch_over_ranks(trackers[rank], x, all_reduces[rank])
                if (
                    torch.is_grad_enabled(),
                    torch.is_inference_mode_enabled(),
                ) != modes:
                    raise _Leak

        threads = [  # daemons: a rank stuck in the answer cannot keep the process alive
            threading.Thread(target=run, args=(rank,), daemon=True) for rank in range(2)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for failure in failures:
            if isinstance(failure, NotImplementedError):
                raise failure
        return failures, log

    return ranks


def _reference_add_batch_over_ranks(tracker, x, all_reduce):
    """Add the sum and the size of every rank's batch x to tracker.total and tracker.count."""
    with torch.no_grad():
        # The sums in the total's own dtype; the row count as an integer, exact whatever x's
        # dtype (a bfloat16 tensor holds 602 as 600).
        total = x.sum(dim=0, dtype=tracker.total.dtype)
        count = torch.tensor(len(x), device=x.device)
        all_reduce(total)
        all_reduce(count)
        tracker.total += total
        tracker.count += count


class _Case:
    """Per-rank batches (per step), whether they require grad, the trackers' start and dtypes; `backend`
    "nccl" puts rank r's batches and tracker on a simulated cuda:r; `count_first` registers `count` before
    `total` (the statement names the buffers; their order is not given)."""

    def __init__(self, what, batches, start=0.0, dtype=torch.float32, grad=False, backend="gloo", count_first=False):
        self.what, self.start, self.dtype = what, start, dtype
        self.backend, self.count_first = backend, count_first
        self.features = batches[0][0].shape[1]
        self.batches = [[x.requires_grad_() if grad and x.is_floating_point() else x for x in rank] for rank in batches]
        self.x_dtype = batches[0][0].dtype
        self._place(self.batches)

    def _place(self, per_rank):
        """Tag rank r's tensors as on cuda:r (backend "nccl")."""
        if self.backend == "nccl":
            for rank, tensors in enumerate(per_rank):
                for t in tensors:
                    t._sim_device = torch.device("cuda", rank)

    def trackers(self):
        trackers = [nn.Module() for _ in range(2)]
        for tracker in trackers:
            total = torch.full((self.features,), self.start, dtype=self.dtype)
            count = torch.tensor(self.start * 4, dtype=self.dtype)
            for name, tensor in [("count", count), ("total", total)][:: 1 if self.count_first else -1]:
                tracker.register_buffer(name, tensor)
        self._place([list(t.buffers()) for t in trackers])
        return trackers


def _statistic_cases():
    """Batches of different sizes per rank, in float32, float64 and bfloat16; empty batches, NaN
    and inf; a resumed tracker; a zoo model's hidden states."""
    gen = torch.Generator().manual_seed(7)

    def batches(features, sizes, dtype=torch.float32):
        return [[(torch.randn(n, features, generator=gen) + 1).to(dtype) for n in rank] for rank in sizes]

    def sizes(per_rank):
        return f"batch sizes {per_rank[0]} and {per_rank[1]}"

    for features, per_rank, grad, start in [
        (3, ([2, 4, 1], [5, 3, 6]), True, 0.0),
        (1, ([1], [7]), False, 0.0),
        (4, ([3, 3], [1, 2]), True, 2.5),
        (2, ([6, 1, 1, 2], [1, 4, 2, 2]), False, 0.0),
    ]:
        yield _Case(
            f"{features} features, {sizes(per_rank)}",
            batches(features, per_rank),
            start,
            grad=grad,
        )
    yield _Case(
        f"bfloat16 inputs, 2 features, {sizes(([300], [302]))}",
        batches(2, ([300], [302]), torch.bfloat16),
    )
    yield _Case(
        f"float64 inputs and trackers, {sizes(([3, 5], [4, 2]))}",
        batches(3, ([3, 5], [4, 2]), torch.float64),
        dtype=torch.float64,
    )
    yield _Case(
        f"empty batches, {sizes(([0, 4], [5, 2]))}",
        batches(3, ([0, 4], [5, 2])),
        grad=True,
    )
    special = batches(3, ([4], [3]))
    special[0][0][1, 0], special[1][0][2, 2] = float("nan"), float("inf")
    yield _Case("a NaN and an inf in the batches", special)
    hidden = zoo.inputs("moe", seed=3)[0].flatten(0, 1)  # (16, 16): tokens x features
    yield _Case(
        "a MoE block's hidden states in bfloat16, 16 features, 9 and 7 tokens",
        [[hidden[:9].to(torch.bfloat16)], [hidden[9:].to(torch.bfloat16)]],
    )
    yield _Case(
        f"two GPUs with NCCL (rank r on cuda:r), 3 features, {sizes(([2, 3], [4, 1]))}",
        batches(3, ([2, 3], [4, 1])),
        backend="nccl",
    )
    yield _Case(
        f"a tracker that registered `count` before `total`, 2 features, {sizes(([3], [2]))}",
        batches(2, ([3], [2])),
        count_first=True,
    )


def _raised_hint(case, error):
    """What an error on a case built for one trap means."""
    if case.backend == "nccl" and "device type cpu" in str(error):
        return (
            " (NCCL reduces tensors on the GPU only: make the count where the batch is, "
            "torch.tensor(len(x), device=x.device))"
        )
    if case.count_first:
        return (
            " (use the buffers by the names the statement gives, tracker.total and tracker.count, not by their order)"
        )
    return ""


def _count_hint(case, count, expected_count):
    start = case.start * 4
    rows = expected_count - start
    recounted = start
    for x0, x1 in zip(*case.batches):  # the counts if each step reduced the running totals
        recounted = 2 * recounted + len(x0) + len(x1)
    hint = "add the number of rows of every rank's batch"
    if count == recounted:
        hint = "you all_reduce the running totals, so earlier batches are counted again; reduce only this batch's sum and count"
    elif count == start + rows * case.features:
        hint = "you counted elements (x.numel()), not rows: count len(x)"
    elif count == start + rows / 2:
        hint = "the count is half: ReduceOp.AVG (or dividing by the world size) averages; the totals need ReduceOp.SUM"
    elif case.x_dtype == torch.bfloat16 and abs(count - expected_count) <= 8:
        hint = (
            "the count went through a bfloat16 tensor, which holds only 8 bits of an integer "
            "(602 becomes 600): count in an integer (or float32) tensor of its own"
        )
    return hint


def _tolerance(dtype):
    """How far a total may stray from the reference's: summing in bfloat16 rounds to 3 digits."""
    return 2e-2 if dtype in (torch.bfloat16, torch.float16) else 1e-4


def _check_rank_tracker(on, case, rank, got, want):
    """One rank's tracker after the update: buffers, shapes, dtypes, count and total as the reference's."""
    if set(dict(got.named_buffers())) != {"total", "count"}:
        raise Wrong(
            "✗ total and count must stay registered buffers of tracker (assign with tracker.total = ... or update in place)"
        )
    if (got.count.shape, got.total.shape) != (
        want.count.shape,
        want.total.shape,
    ):
        raise Wrong(
            f"✗ {on} total has shape {tuple(got.total.shape)} and count {tuple(got.count.shape)}; expected {tuple(want.total.shape)} and {tuple(want.count.shape)}"
        )
    if (got.total.dtype, got.count.dtype) != (
        want.total.dtype,
        want.count.dtype,
    ):
        raise Wrong(
            f"✗ {on} total and count became {got.total.dtype} and {got.count.dtype}; expected {want.total.dtype} for both: add in place, or cast back to the buffer's dtype"
        )
    count, expected_count = float(got.count), float(want.count)
    if count != expected_count:
        raise Wrong(
            f"✗ {on} rank {rank}'s count is {count:g}; expected {expected_count:g}: {_count_hint(case, count, expected_count)}"
        )
    tolerance = _tolerance(case.x_dtype)
    if not torch.allclose(got.total, want.total, rtol=tolerance, atol=tolerance, equal_nan=True):
        hint = (
            "add the per-feature sum of all rows (x.sum(dim=0), summed over ranks); "
            "averaging the ranks' means weights a small batch like a large one"
        )
        if torch.isnan(got.total).any() and not torch.isnan(want.total).any():
            hint = "an empty batch has no mean (it is NaN): add its sum, which is zero"
        elif torch.isnan(want.total).any():
            hint = "a NaN or inf in the batch belongs in the total, as in any sum"
        raise Wrong(
            f"✗ {on} count is right but rank {rank}'s total is {[round(v, 4) for v in got.total.tolist()]}; expected {[round(v, 4) for v in want.total.tolist()]}: {hint}"
        )


@checker
def check_add_batch_over_ranks(add_batch_over_ranks):
    """Two simulated ranks (threads) with batches of different sizes and dtypes; compared with the reference."""
    for case in _statistic_cases():
        expected = case.trackers()
        _on_two_ranks(_reference_add_batch_over_ranks, expected, case.batches, case.backend)()
        trackers = case.trackers()
        inputs_before = [[x.detach().clone() for x in rank] for rank in case.batches]
        (failures, log), _ = attempt(_on_two_ranks(add_batch_over_ranks, trackers, case.batches, case.backend))
        on = f"on {case.what}"
        if any(isinstance(f, _Leak) for f in failures):
            raise Wrong(
                "✗ add_batch_over_ranks changed global state that the caller owns: grad mode; "
                "leave process-wide settings as you found them (use a context manager or a local generator)"
            )
        own = [f for f in failures if f is not None and not isinstance(f, threading.BrokenBarrierError)]
        if own:
            raise Wrong(f"✗ {on} your function raised {type(own[0]).__name__}: {own[0]}{_raised_hint(case, own[0])}")
        if any(failures) or len(log[0]) != len(log[1]):
            raise Wrong(
                f"✗ {on} the ranks called all_reduce {len(log[0])} and {len(log[1])} times; in a real job the extra call hangs: call it the same number of times on every rank"
            )
        if not log[0]:
            raise Wrong(
                "✗ each rank added only its own batch (all_reduce was never called): a buffer is not shared, DDP only copies rank 0's; all_reduce the batch's sum and count, then add them"
            )
        if any(work is not None and not work.waited for rank in log for *_, work in rank):
            raise Wrong(
                f"✗ {on} all_reduce(..., async_op=True) was never waited for: its result is only in the tensor after work.wait()"
            )
        if any(t.total.is_inference() or t.count.is_inference() for t in trackers):
            raise Wrong(
                f"✗ {on} total or count is now an inference tensor (torch.inference_mode()): a later in-place update or load_state_dict fails; use torch.no_grad()"
            )
        if any(t.total.requires_grad or t.count.requires_grad for t in trackers):
            raise Wrong(
                f"✗ {on} (inputs that require grad) total or count now requires grad: the update keeps every step's graph alive; do it under torch.no_grad() or from x.detach()"
            )
        if any(
            not _same(x.detach(), b) for rank, before in zip(case.batches, inputs_before) for x, b in zip(rank, before)
        ):
            raise Wrong(
                f"✗ {on} your function changed the batch x in place: the model still needs it; reduce a new tensor"
            )
        for rank in range(2):
            _check_rank_tracker(on, case, rank, trackers[rank], expected[rank])
    return (
        "✓ correct: on two simulated ranks, total and count match the reference for batches of "
        "different sizes and dtypes (an exact count from bfloat16 inputs too), with no autograd history left behind"
    )


def _same(a, b):
    return a.dtype == b.dtype and (
        torch.equal(a, b)
        or bool(torch.equal(a.isnan(), b.isnan()) and torch.equal(a.nan_to_num(0.0), b.nan_to_num(0.0)))
    )


class _reference_TrainOnlyMean(nn.Module):
    """A running mean of the inputs that only training forwards update."""

    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features))

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.running_mean.lerp_(x.mean(dim=0), 0.1)
        return x


_STEPS = [
    ("train", True),
    ("eval", True),
    ("eval", False),
    ("train", False),
    ("train", True),
]


def _mean_cases():
    """(features, dtype the module is cast to, inputs per step): float32, float64, bfloat16, and a
    zoo model's hidden states."""
    gen = torch.Generator().manual_seed(3)

    def inputs(features, dtype):
        return [(torch.randn(6, features, generator=gen) + 2).to(dtype) for _ in _STEPS]

    yield 3, torch.float32, inputs(3, torch.float32)
    yield 1, torch.float64, inputs(1, torch.float64)
    yield 5, torch.bfloat16, inputs(5, torch.bfloat16)
    hidden = zoo.inputs("moe", seed=4)[0]  # (2, 8, 16): one step per 8-token slice
    yield (
        hidden.shape[-1],
        torch.float32,
        [hidden[i % 2] + 1 for i in range(len(_STEPS))],
    )


def _check_registered(module, reference):
    buffers = dict(module.named_buffers())
    if isinstance(getattr(module, "running_mean", None), nn.Parameter):
        raise Wrong(
            "✗ running_mean is an nn.Parameter: parameters() lists it, so optimizers get it and DDP never syncs it; register it with self.register_buffer"
        )
    if "running_mean" not in buffers:
        where = "a plain attribute" if isinstance(getattr(module, "running_mean", None), torch.Tensor) else "missing"
        raise Wrong(
            f"✗ running_mean is {where}, not a registered buffer: use self.register_buffer('running_mean', torch.zeros(features)) so it is saved, moved and cast"
        )
    if "running_mean" not in module.state_dict():
        raise Wrong(
            "✗ running_mean is registered with persistent=False, so checkpoints lose it: register it as a persistent buffer"
        )
    if module.running_mean.dtype != reference.running_mean.dtype:
        raise Wrong(
            f"✗ running_mean is {module.running_mean.dtype}; expected {reference.running_mean.dtype}, torch.zeros(features)'s default (module.to(...) casts it when the reader asks)"
        )
    if not torch.equal(module.running_mean, reference.running_mean):
        raise Wrong(
            f"✗ with {len(reference.running_mean)} features running_mean starts as {module.running_mean.tolist()}; expected zeros of shape ({len(reference.running_mean)},)"
        )


@checker
def check_train_only_mean(TrainOnlyMean):
    """Compared with the reference over widths, dtypes (the module cast to float64 and bfloat16)
    and sequences of train/eval and grad/no_grad forwards."""
    for features, dtype, xs in _mean_cases():
        module, error = attempt(TrainOnlyMean, features)
        if error is not None:
            raise Wrong(f"✗ TrainOnlyMean({features}) raised {type(error).__name__}: {error}")
        reference = _reference_TrainOnlyMean(features)
        _check_registered(module, reference)
        moved = module.to(dtype)
        if moved is not module or module.running_mean.dtype != dtype:
            raise Wrong(f"✗ module.to({dtype}) did not cast running_mean: register it as a buffer")
        reference.to(dtype)
        tolerance = 2e-2 if dtype == torch.bfloat16 else 1e-5
        for (mode, grad), x in zip(_STEPS, xs):
            x = x.clone().requires_grad_(grad)
            x_before = x.detach().clone()
            for m in (reference, module):
                m.train(mode == "train")
            with torch.set_grad_enabled(grad):
                reference(x)
                out, error = attempt(module, x)
            where = f"with {features} features in {str(dtype)[6:]}, {'an' if mode[0] in 'aeiou' else 'a'} {mode} forward with gradients {'on' if grad else 'off'}"
            if error is not None:
                raise Wrong(f"✗ {where} raised {type(error).__name__}: {error}"[:240])
            if module.training != (mode == "train"):
                raise Wrong(f"✗ {where} changed the module's train/eval flag: leave it to the caller")
            running = module.running_mean
            if running.requires_grad or running.grad_fn is not None:
                raise Wrong(
                    "✗ the update recorded autograd history (running_mean requires grad): update it under torch.no_grad() or from x.detach()"
                )
            if running.is_inference():
                raise Wrong(
                    "✗ running_mean is now an inference tensor (torch.inference_mode()): a later in-place update or load_state_dict fails; use torch.no_grad()"
                )
            if not torch.equal(x.detach(), x_before):
                raise Wrong("✗ forward changed its input x in place: leave x as it is")
            if not (isinstance(out, torch.Tensor) and torch.equal(out, x_before)):
                raise Wrong("✗ forward must return its input x unchanged")
            if out is not x and out.requires_grad != x.requires_grad:
                raise Wrong(
                    "✗ forward returned x cut from autograd (x.detach(), or a forward under torch.no_grad()): return x itself, so gradients flow through"
                )
            if running.dtype != dtype:
                raise Wrong(f"✗ {where} turned running_mean into {running.dtype}: keep the buffer's dtype")
            if torch.allclose(
                running.float(),
                reference.running_mean.float(),
                rtol=tolerance,
                atol=tolerance,
            ):
                continue
            if mode == "eval":
                raise Wrong(
                    f"✗ {where} changed running_mean: guard the update with `if self.training:`, not with the gradient mode"
                )
            if not grad:
                raise Wrong(
                    f"✗ {where} did not update running_mean: guard on self.training, not on torch.is_grad_enabled()"
                )
            if not running.any():
                raise Wrong(f"✗ {where} left running_mean at zero: update it when self.training is True")
            raise Wrong(
                f"✗ {where} gave running_mean {[round(v, 4) for v in running.tolist()][:5]}; expected {[round(v, 4) for v in reference.running_mean.tolist()][:5]}: move 10% of the way, running_mean = 0.9 * running_mean + 0.1 * x.mean(dim=0)"
            )
    return (
        "✓ correct: running_mean is a buffer, training forwards (with or without no_grad) update it with momentum 0.1, "
        "evaluation forwards leave it, in float32, float64 and bfloat16, no autograd history"
    )


def _reference_strip_ddp_prefix(state_dict):
    """The same entries, without the leading 'module.' that DDP's wrapper adds to each key."""
    result = OrderedDict(state_dict)
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict(state_dict._metadata)
    consume_prefix_in_state_dict_if_present(result, "module.")
    return result


class _HasSubmodule(nn.Module):
    def __init__(self):
        super().__init__()
        self.submodule = nn.Linear(2, 2)
        self.register_buffer("steps", torch.ones(1))


class _Wrapper(nn.Module):
    """Names its model `module`, as DistributedDataParallel does."""

    def __init__(self, module):
        super().__init__()
        self.module = module


class _Named(nn.Module):
    """Keeps `module` under `name`, as torch.compile's OptimizedModule keeps `_orig_mod`."""

    def __init__(self, name, module):
        super().__init__()
        self.add_module(name, module)


def _linear_norm():
    return nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))


def _module_list():
    """A child named `module_list`: it starts with "module", not with "module."."""
    model = nn.Module()
    model.module_list = nn.ModuleList([nn.Linear(2, 2), nn.LayerNorm(2)])
    return model


def _prefix_cases():
    """(description, a state_dict() with its _metadata, a model class that must load the result, or None)."""
    torch.manual_seed(5)
    yield (
        "a DDP state_dict of a model with a `submodule`",
        _Wrapper(_HasSubmodule()).state_dict(),
        _HasSubmodule,
    )
    yield (
        "a DDP state_dict of Linear + BatchNorm1d",
        _Wrapper(_linear_norm()).state_dict(),
        _linear_norm,
    )
    yield (
        "a state_dict saved from ddp_model.module (no prefix)",
        _HasSubmodule().state_dict(),
        _HasSubmodule,
    )
    yield (
        "a DDP state_dict of a bare BatchNorm1d (whose own _metadata version is 2)",
        _Wrapper(nn.BatchNorm1d(3)).state_dict(),
        lambda: nn.BatchNorm1d(3),
    )
    yield (
        "a DDP state_dict of GPT-2 (embeddings, a tied lm_head)",
        _Wrapper(zoo.build("gpt2")).state_dict(),
        lambda: zoo.build("gpt2"),
    )
    yield (
        "a DDP state_dict of BERT in bfloat16 (embeddings.*, encoder.*)",
        _Wrapper(zoo.build("bert").to(torch.bfloat16)).state_dict(),
        lambda: zoo.build("bert").to(torch.bfloat16),
    )
    yield (
        "a LLaMA state_dict saved from ddp_model.module (no prefix)",
        zoo.build("llama").state_dict(),
        lambda: zoo.build("llama"),
    )
    yield (
        "a model with a child `module_list` (no prefix)",
        _module_list().state_dict(),
        _module_list,
    )
    yield (
        "a DDP state_dict of a model with a child `module_list`",
        _Wrapper(_module_list()).state_dict(),
        _module_list,
    )
    yield (
        "a torch.compile'd model's state_dict (_orig_mod., no DDP prefix)",
        _Named("_orig_mod", _linear_norm()).state_dict(),
        lambda: _Named("_orig_mod", _linear_norm()),
    )
    inner = nn.Module()
    inner.module = nn.Linear(2, 1)  # a model whose own child is called `module`
    yield (
        "keys 'module.module.weight' (a child named `module`, wrapped by DDP)",
        _Wrapper(inner).state_dict(),
        None,
    )
    plain = {"module." + k: v for k, v in nn.Linear(2, 2).state_dict().items()}
    yield "a plain dict with the prefix (no _metadata)", plain, None
    yield "an empty state_dict", {}, None


def _strip_difference(stripped, expected, keys_before):
    """The hint for the first way the keys or values of `stripped` differ from `expected`, or None."""
    keys = list(stripped)
    if sorted(keys) != sorted(expected):
        extra = sorted(set(keys) - set(expected))[:2]
        missing = sorted(set(expected) - set(keys))[:2]
        hint = "str.replace('module.', '') also cuts 'module.' out of names like 'submodule.weight'; remove only a leading 'module.'"
        if any(k.startswith("module.") for k in keys) and all(k.startswith("module.") for k in keys_before):
            hint = "some keys still start with 'module.': remove that prefix from every key"
        if any(not k.startswith("module.") for k in keys_before):
            hint = "a key without the prefix came back changed: strip 'module.' only where a key starts with it"
        if any(k.startswith("module_") for k in keys_before):
            hint = "'module_list.' does not start with 'module.': compare the whole prefix, dot included"
        stripped_chars = {e.lstrip("module.") for e in expected} | {("module." + e).lstrip("module.") for e in expected}
        if any(k in stripped_chars for k in extra):
            hint = "str.lstrip('module.') strips characters, not a prefix: use str.removeprefix('module.')"
        if "module.module.weight" in keys_before:
            hint = "remove the prefix once: DDP adds one 'module.', and the model's own child keeps its name"
        return f"you returned keys such as {extra}; expected {missing}: {hint}"
    for key, want in expected.items():
        got = stripped[key]
        if not isinstance(got, torch.Tensor) or (
            got.dtype,
            got.shape,
            got.requires_grad,
        ) != (want.dtype, want.shape, want.requires_grad):
            return f"{key!r} is not the tensor you were given (its dtype, shape or requires_grad changed): keep every value as it is"
        if not torch.equal(got, want):
            return "the keys are right but some values changed: keep every tensor as it is"
    return None


def _metadata_difference(stripped, expected):
    """The hint for a missing or wrongly renamed `_metadata`, or None."""
    want, got = (
        getattr(expected, "_metadata", None),
        getattr(stripped, "_metadata", None),
    )
    if not want:
        return (
            None if not got else "the argument has no _metadata, but your result has one: copy it only where it exists"
        )
    if got is None:
        return "your result has no `_metadata` (each module's version, chapter 5): copy it and rename its keys too"
    if dict(got) != dict(want):
        return f"_metadata has keys {sorted(got)[:4]}; expected {sorted(want)[:4]}: rename them like the keys ('module' becomes '', 'module.x' becomes 'x')"
    return None


@checker
def check_strip_ddp_prefix(strip_ddp_prefix):
    """Compared with the reference (keys, values, _metadata, the argument left unchanged) over real
    state_dict()s, zoo models among them, which the plain model must load with strict=True."""
    metadata_hints = []  # reported only once every case has the right keys and values
    for case, state_dict, model_class in _prefix_cases():
        keys = list(state_dict)
        values = [state_dict[k] for k in keys]
        metadata = copy.deepcopy(getattr(state_dict, "_metadata", None))
        expected = _reference_strip_ddp_prefix(state_dict)
        stripped, error = attempt(strip_ddp_prefix, state_dict, seconds=3)
        if error is not None:
            raise Wrong(f"✗ on {case} strip_ddp_prefix raised {type(error).__name__}: {error}"[:240])
        if stripped is None:
            raise Wrong(
                "✗ strip_ddp_prefix returned None: return the new state_dict (consume_prefix_in_state_dict_if_present works in place and returns nothing)"
            )
        if not hasattr(stripped, "keys") or not hasattr(stripped, "__getitem__"):
            raise Wrong(f"✗ on {case} strip_ddp_prefix returned a {type(stripped).__name__}: return the new state_dict")
        hint = _strip_difference(stripped, expected, keys)
        if hint is None and (
            list(state_dict) != keys
            or any(state_dict[k] is not v for k, v in zip(keys, values))
            or getattr(state_dict, "_metadata", None) != metadata
        ):
            hint = "the state_dict you were given was changed in place (its keys or its _metadata): copy both first"
        if hint:
            raise Wrong(f"✗ on {case} {hint}"[:300])
        metadata_hints.append((case, _metadata_difference(stripped, expected)))
        if model_class is not None and metadata_hints[-1][1] is None:
            try:
                model_class().load_state_dict(stripped)
            except Exception as error:  # noqa: BLE001 (the answer's result is at fault)
                raise Wrong(
                    f"✗ on {case} the plain model cannot load your result: {type(error).__name__}: {str(error)[:120]}"
                ) from None
    for case, hint in metadata_hints:
        if hint:
            raise Wrong(f"✗ on {case} {hint}")
    return (
        "✓ correct: 'module.' is removed once, only where a key starts with it, from the keys and from "
        "_metadata of zoo models' state dicts; your argument is left unchanged"
    )
