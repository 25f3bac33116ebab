"""Answers that tests/test_exercises.py runs through chapter 07's checkers."""

NOTEBOOK = "07_buffers_and_ddp"
CASES = [
    # id, the check call, the answer's source, and what the single printed line must contain.
    # Right answers: expect "✓ correct". Wrong answers: expect the hint text (the line must start with "✗").
    #
    # check_add_batch_over_ranks: a statistic that is correct across ranks.
    (
        "global-two-reductions",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    batch_sum = x.detach().sum(dim=0)
    batch_count = torch.tensor(float(x.shape[0]))
    all_reduce(batch_sum)
    all_reduce(batch_count)
    tracker.total = tracker.total + batch_sum
    tracker.count = tracker.count + batch_count
""",
        "NCCL reduces tensors on the GPU only",  # issue 37: a CPU tensor in an NCCL collective
    ),
    (
        "global-stacked-inplace",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        increment = torch.zeros(x.shape[1] + 1)
        increment[:-1] = x.sum(0)
        increment[-1] = len(x)
        all_reduce(increment)
        tracker.total.add_(increment[:-1])
        tracker.count.add_(increment[-1])
""",
        "NCCL reduces tensors on the GPU only",  # issue 37: a CPU tensor in an NCCL collective
    ),
    (
        "global-local-buffer-only",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    # "It is a registered buffer, so DDP keeps it in sync": no reduction at all.
    with torch.no_grad():
        tracker.total += x.sum(dim=0)
        tracker.count += len(x)
""",
        "all_reduce was never called",
    ),
    (
        "global-reduces-running-totals",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        tracker.total += x.sum(dim=0)
        tracker.count += len(x)
        all_reduce(tracker.total)
        all_reduce(tracker.count)
""",
        "counted again",
    ),
    (
        "global-averages-means",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        mean = x.mean(dim=0)
        all_reduce(mean)
        mean /= 2  # the average of the two ranks' means
        rows = torch.tensor(float(len(x)))
        all_reduce(rows)
        tracker.total += mean * rows
        tracker.count += rows
""",
        "averaging the ranks' means",
    ),
    (
        "global-skips-small-batches",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        batch = torch.cat([x.sum(dim=0), x.new_tensor([len(x)])])
        if len(x) > 1:  # only reduce batches worth the communication
            all_reduce(batch)
        tracker.total += batch[:-1]
        tracker.count += batch[-1]
""",
        "the same number of times",
    ),
    (
        "global-uses-dist",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    batch = torch.cat([x.sum(dim=0), x.new_tensor([len(x)])])
    torch.distributed.all_reduce(batch)  # no process group exists in the checker
    tracker.total += batch[:-1]
    tracker.count += batch[-1]
""",
        "your function raised",
    ),
    (
        "global-async-wait",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    x = x.detach()
    increment = torch.cat([x.sum(0), torch.tensor([float(len(x))])])
    work = all_reduce(increment, async_op=True)  # overlap with other work, then wait
    work.wait()
    tracker.total.add_(increment[:-1])
    tracker.count.add_(increment[-1])
""",
        "✓ correct",
    ),
    (
        "global-explicit-sum-op",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
import torch.distributed as dist


def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        sums, rows = x.sum(dim=0), torch.full((), float(x.shape[0]))
        all_reduce(sums, op=dist.ReduceOp.SUM, group=None)
        all_reduce(rows, op=dist.ReduceOp.SUM)
        tracker.total.copy_(tracker.total + sums)
        tracker.count.copy_(tracker.count + rows)
""",
        "NCCL reduces tensors on the GPU only",  # issue 37: a CPU tensor in an NCCL collective
    ),
    (
        "global-no-no-grad",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    # "buffers never need gradients", so no torch.no_grad() here
    batch = torch.cat([x.sum(dim=0), x.new_tensor([len(x)])])
    all_reduce(batch)
    tracker.total += batch[:-1]
    tracker.count += batch[-1]
""",
        "keeps every step's graph alive",
    ),
    (
        "global-avg-op",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
import torch.distributed as dist


def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        batch = torch.cat([x.sum(dim=0), x.new_tensor([len(x)])])
        all_reduce(batch, op=dist.ReduceOp.AVG)  # "average over the ranks"
        tracker.total += batch[:-1]
        tracker.count += batch[-1]
""",
        "ReduceOp.AVG",
    ),
    (
        "global-async-no-wait",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        batch = torch.cat([x.sum(dim=0), x.new_tensor([len(x)])])
        all_reduce(batch, async_op=True)  # fire and forget
        tracker.total += batch[:-1]
        tracker.count += batch[-1]
""",
        "never waited for",
    ),
    (
        "global-own-group",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
import torch.distributed as dist


def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        batch = torch.cat([x.sum(dim=0), x.new_tensor([len(x)])])
        all_reduce(batch, group=dist.new_group())  # a group for the statistic
        tracker.total += batch[:-1]
        tracker.count += batch[-1]
""",
        "your function raised",
    ),
    #
    # check_train_only_mean: the update guarded by self.training.
    (
        "train-only-mul-add",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features))

    def forward(self, x):
        if not self.training:
            return x
        with torch.no_grad():
            self.running_mean.mul_(0.9).add_(x.mean(dim=0), alpha=0.1)
        return x
""",
        "✓ correct",
    ),
    (
        "train-only-reassign-detach",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.momentum = 0.1
        self.register_buffer("running_mean", torch.zeros(n))

    def forward(self, inputs):
        if self.training:
            batch_mean = inputs.detach().mean(0)
            self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * batch_mean
        return inputs
""",
        "✓ correct",
    ),
    (
        "train-only-no-guard",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features))

    def forward(self, x):
        with torch.no_grad():
            self.running_mean.lerp_(x.mean(dim=0), 0.1)
        return x
""",
        "guard the update with `if self.training:`",
    ),
    (
        "train-only-grad-mode-guard",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features))

    def forward(self, x):
        if torch.is_grad_enabled():  # "evaluation runs under no_grad"
            self.running_mean.lerp_(x.detach().mean(dim=0), 0.1)
        return x
""",
        "guard the update with `if self.training:`",
    ),
    (
        "train-only-training-and-grad",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features))

    def forward(self, x):
        if self.training and torch.is_grad_enabled():
            self.running_mean.lerp_(x.detach().mean(dim=0), 0.1)
        return x
""",
        "not on torch.is_grad_enabled()",
    ),
    (
        "train-only-plain-attribute",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.running_mean = torch.zeros(features)

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.running_mean.lerp_(x.mean(dim=0), 0.1)
        return x
""",
        "not a registered buffer",
    ),
    (
        "train-only-keeps-graph",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features))

    def forward(self, x):
        if self.training:
            self.running_mean = 0.9 * self.running_mean + 0.1 * x.mean(dim=0)
        return x
""",
        "recorded autograd history",
    ),
    (
        "train-only-wrong-momentum",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features))

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.running_mean.lerp_(x.mean(dim=0), 0.9)  # momentum read the wrong way round
        return x
""",
        "10% of the way",
    ),
    (
        "train-only-ema-formula-buffer-kwarg",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features), persistent=True)

    @torch.no_grad()
    def _update(self, x):
        self.running_mean.copy_(0.9 * self.running_mean + 0.1 * x.mean(dim=0))

    def forward(self, x):
        if self.training:
            self._update(x)
        return x
""",
        "✓ correct",
    ),
    (
        "train-only-non-persistent",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features), persistent=False)

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.running_mean.lerp_(x.mean(dim=0), 0.1)
        return x
""",
        "persistent=False",
    ),
    #
    # check_strip_ddp_prefix: the state_dict key fix for `module.`.
    (
        "strip-startswith-slice",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
def strip_ddp_prefix(state_dict):
    prefix = "module."
    return {(k[len(prefix):] if k.startswith(prefix) else k): v for k, v in state_dict.items()}
""",
        "your result has no `_metadata`",
    ),
    (
        "strip-consume-prefix-copy",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
from collections import OrderedDict

from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present


def strip_ddp_prefix(state_dict):
    result = OrderedDict(state_dict)
    consume_prefix_in_state_dict_if_present(result, "module.")
    return result
""",
        "your result has no `_metadata`",
    ),
    (
        "strip-replace-everywhere",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
def strip_ddp_prefix(state_dict):
    return {k.replace("module.", ""): v for k, v in state_dict.items()}
""",
        "str.replace('module.', '') also cuts",
    ),
    (
        "strip-always-slices",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
def strip_ddp_prefix(state_dict):
    return {k[7:]: v for k, v in state_dict.items()}
""",
        "came back changed",
    ),
    (
        "strip-consume-returns-none",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present


def strip_ddp_prefix(state_dict):
    return consume_prefix_in_state_dict_if_present(state_dict, "module.")
""",
        "returned None",
    ),
    (
        "strip-keeps-prefix",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
def strip_ddp_prefix(state_dict):
    return dict(state_dict)
""",
        "still start with 'module.'",
    ),
    (
        "strip-partition",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
def strip_ddp_prefix(state_dict):
    out = {}
    for key, value in state_dict.items():
        head, dot, rest = key.partition(".")
        out[rest if head == "module" and dot else key] = value
    return out
""",
        "your result has no `_metadata`",
    ),
    (
        "strip-regex-all-levels",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
import re


def strip_ddp_prefix(state_dict):
    # strip every leading module. (for models wrapped twice)
    return {re.sub(r"^(module\\.)+", "", k): v for k, v in state_dict.items()}
""",
        "remove the prefix once",
    ),
    (
        "strip-in-place",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
def strip_ddp_prefix(state_dict):
    for key in list(state_dict):
        if key.startswith("module."):
            state_dict[key[len("module."):]] = state_dict.pop(key)
    return state_dict
""",
        "changed in place",
    ),
    (
        "strip-deepcopy-consume",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
import copy

from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present


def strip_ddp_prefix(state_dict):
    result = copy.deepcopy(state_dict)  # the tensors and _metadata too
    consume_prefix_in_state_dict_if_present(result, "module.")
    return result
""",
        "✓ correct",
    ),
    (
        "strip-renames-metadata-by-hand",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
from collections import OrderedDict


def strip_ddp_prefix(state_dict):
    result = OrderedDict((k.removeprefix("module."), v) for k, v in state_dict.items())
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        result._metadata = OrderedDict()
        for name, version in metadata.items():
            # the wrapper's own entry '' gives way to the model's, 'module'
            new_name = "" if name == "module" else name.removeprefix("module.")
            result._metadata[new_name] = version
    return result
""",
        "✓ correct",
    ),
    (
        "strip-copies-metadata-always",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
import copy
from collections import OrderedDict

from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present


def strip_ddp_prefix(state_dict):
    stripped = OrderedDict(state_dict.items())
    stripped._metadata = copy.deepcopy(getattr(state_dict, "_metadata", OrderedDict()))
    consume_prefix_in_state_dict_if_present(stripped, "module.")
    return stripped
""",
        "✓ correct",
    ),
    (
        "strip-shallow-copy-consume",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
import copy

from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present


def strip_ddp_prefix(state_dict):
    result = copy.copy(state_dict)  # shares _metadata with the argument
    consume_prefix_in_state_dict_if_present(result, "module.")
    return result
""",
        "was changed in place",
    ),
    (
        "strip-metadata-not-renamed",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
from collections import OrderedDict


def strip_ddp_prefix(state_dict):
    result = OrderedDict((k.removeprefix("module."), v) for k, v in state_dict.items())
    if hasattr(state_dict, "_metadata"):
        result._metadata = state_dict._metadata  # kept, but still named 'module.*'
    return result
""",
        "rename them like the keys",
    ),
    (
        "strip-clones-trainable",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
from collections import OrderedDict
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present


def strip_ddp_prefix(state_dict):
    result = OrderedDict((k, nn.Parameter(v.clone())) for k, v in state_dict.items())
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict(state_dict._metadata)
    consume_prefix_in_state_dict_if_present(result, "module.")
    return result
""",
        "is not the tensor you were given",
    ),
    (
        "global-inference-mode",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.inference_mode():  # "faster than no_grad"
        batch = torch.cat([x.sum(dim=0), x.new_tensor([len(x)])])
        all_reduce(batch)
        tracker.total = tracker.total + batch[:-1]
        tracker.count = tracker.count + batch[-1]
""",
        "inference tensor",
    ),
    (
        "global-integer-count",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        total, count = x.sum(dim=0), torch.tensor(len(x))  # a count is an integer
        all_reduce(total)
        all_reduce(count)
        tracker.total += total
        tracker.count = tracker.count.long() + count
""",
        "became torch.float32 and torch.int64",
    ),
    (
        "global-counts-elements",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        batch = torch.cat([x.sum(dim=0), x.new_tensor([x.numel()])])
        all_reduce(batch)
        tracker.total += batch[:-1]
        tracker.count += batch[-1]
""",
        "counted elements",
    ),
    (
        "train-only-returns-detached",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features))

    def forward(self, x):
        x = x.detach()  # "without recording autograd history"
        if self.training:
            self.running_mean.lerp_(x.mean(dim=0), 0.1)
        return x
""",
        "cut from autograd",
    ),
    (
        "train-only-frozen-parameter",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.running_mean = nn.Parameter(torch.zeros(features), requires_grad=False)

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.running_mean.lerp_(x.mean(dim=0), 0.1)
        return x
""",
        "is an nn.Parameter",
    ),
    (
        "train-only-float64",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        # double precision "for an accurate average"
        self.register_buffer("running_mean", torch.zeros(features, dtype=torch.float64))

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.running_mean.lerp_(x.mean(dim=0).double(), 0.1)
        return x
""",
        "running_mean is torch.float64",
    ),
    (
        "train-only-inference-mode",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features))

    def forward(self, x):
        if self.training:
            with torch.inference_mode():
                self.running_mean = 0.9 * self.running_mean + 0.1 * x.mean(dim=0)
        return x
""",
        "inference tensor",
    ),
]

# Written to attack the checkers after they moved onto the harness: answers written differently (one float64 reduction, an int64 count, nn.Buffer, torch.lerp under a no_grad method), and mistakes that slipped through before (a count in bfloat16, a mean times the rows on an empty batch, nansum, grad mode left off, empty batches skipped on one rank, a float32 mean into a bfloat16 buffer, a prefix matched without its dot, _orig_mod. stripped too, a wrapper's root version kept).
CASES += [
    (
        "global-float64-packed",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        # one reduction; float64 holds every count exactly
        packed = torch.cat([x.double().sum(dim=0), torch.tensor([float(len(x))], dtype=torch.float64)])
        all_reduce(packed)
        tracker.total += packed[:-1].to(tracker.total.dtype)
        tracker.count += packed[-1].to(tracker.count.dtype)
""",
        "✓ correct",
    ),
    (
        "global-int64-rows",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    sums = x.detach().float().sum(0)
    rows = torch.tensor(x.shape[0], dtype=torch.int64)
    all_reduce(sums)
    all_reduce(rows)
    with torch.no_grad():
        tracker.total.add_(sums)
        tracker.count.add_(rows)
""",
        "NCCL reduces tensors on the GPU only",  # issue 37: a CPU tensor in an NCCL collective
    ),
    (
        "global-two-async-waits",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    x = x.detach()
    sums = x.sum(dim=0, dtype=torch.float32)
    rows = torch.full((), len(x), dtype=torch.float32)
    works = [all_reduce(sums, async_op=True), all_reduce(rows, async_op=True)]
    for work in works:
        work.wait()
    tracker.total += sums
    tracker.count += rows
""",
        "NCCL reduces tensors on the GPU only",  # issue 37: a CPU tensor in an NCCL collective
    ),
    (
        "global-float32-cat",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        increment = torch.cat([x.sum(0).float(), torch.tensor([len(x)], dtype=torch.float32)])
        all_reduce(increment)
        tracker.total += increment[:-1]
        tracker.count += increment[-1]
""",
        "✓ correct",
    ),
    (
        "global-old-reference-count-in-x-dtype",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        batch = torch.cat([x.sum(dim=0), x.new_tensor([len(x)])])
        all_reduce(batch)
        tracker.total += batch[:-1]
        tracker.count += batch[-1]
""",
        "went through a bfloat16 tensor",
    ),
    (
        "global-mean-times-rows",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        sums = x.mean(dim=0) * len(x)
        rows = torch.tensor(float(len(x)))
        all_reduce(sums)
        all_reduce(rows)
        tracker.total += sums
        tracker.count += rows
""",
        "an empty batch has no mean",
    ),
    (
        "global-nansum",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        sums = torch.nansum(x.float(), dim=0)  # one bad value must not poison the statistic
        rows = torch.tensor(float(len(x)))
        all_reduce(sums)
        all_reduce(rows)
        tracker.total += sums
        tracker.count += rows
""",
        "belongs in the total",
    ),
    (
        "global-grad-off-for-good",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    torch.set_grad_enabled(False)  # buffers need no gradients
    sums = x.float().sum(dim=0)
    rows = torch.tensor(float(len(x)))
    all_reduce(sums)
    all_reduce(rows)
    tracker.total += sums
    tracker.count += rows
""",
        "grad mode",
    ),
    (
        "global-skips-empty-batches",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    if len(x) == 0:
        return  # nothing to add
    with torch.no_grad():
        sums = x.float().sum(dim=0)
        rows = torch.tensor(float(len(x)))
        all_reduce(sums)
        all_reduce(rows)
        tracker.total += sums
        tracker.count += rows
""",
        "the same number of times",
    ),
    (
        "global-overwrites-count",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        sums = x.float().sum(dim=0)
        rows = torch.tensor(float(len(x)))
        all_reduce(sums)
        all_reduce(rows)
        tracker.total += sums
        tracker.count.fill_(rows)  # the number of rows seen
""",
        "count is",
    ),
    (
        "global-centres-x-in-place",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        rows = torch.tensor(float(len(x)))
        all_reduce(rows)
        sums = x.float().sum(dim=0)
        all_reduce(sums)
        tracker.total += sums
        tracker.count += rows
        x.sub_(x.mean(dim=0))  # hand the model a centred batch
""",
        "changed the batch x in place",
    ),
    (
        "global-bf16-count-tensor",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        sums = x.sum(dim=0)
        rows = torch.tensor(len(x), dtype=x.dtype)  # the batch's dtype
        all_reduce(sums)
        all_reduce(rows)
        tracker.total += sums
        tracker.count += rows
""",
        "went through a bfloat16 tensor",
    ),
    (
        "train-only-nn-buffer",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.running_mean = nn.Buffer(torch.zeros(features))

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.running_mean.mul_(0.9).add_(0.1 * x.mean(0))
        return x
""",
        "✓ correct",
    ),
    (
        "train-only-no-grad-method",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features))

    def forward(self, x):
        if self.training:
            self._update(x)
        return x

    @torch.no_grad()
    def _update(self, x):
        self.running_mean = torch.lerp(self.running_mean, x.mean(dim=0), 0.1)
""",
        "✓ correct",
    ),
    (
        "train-only-data-assignment",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features))

    def forward(self, x):
        if self.training:
            self.running_mean.data = 0.9 * self.running_mean.data + 0.1 * x.detach().mean(0)
        return x
""",
        "✓ correct",
    ),
    (
        "train-only-momentum-copy",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("running_mean", torch.zeros(features))

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.running_mean.copy_(
                    (1 - self.momentum) * self.running_mean + self.momentum * x.mean(dim=0)
                )
        return x
""",
        "✓ correct",
    ),
    (
        "train-only-float32-mean-into-buffer",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features))

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.running_mean.lerp_(x.float().mean(dim=0), 0.1)  # average in float32
        return x
""",
        "raised RuntimeError",
    ),
    (
        "train-only-promotes-buffer",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features))

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.running_mean = 0.9 * self.running_mean + 0.1 * x.mean(dim=0).float()
        return x
""",
        "turned running_mean into torch.float32",
    ),
    (
        "train-only-grad-off-for-good",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features))

    def forward(self, x):
        if self.training:
            torch.set_grad_enabled(False)
            self.running_mean.lerp_(x.mean(dim=0), 0.1)
        return x
""",
        "grad mode",
    ),
    (
        "train-only-in-place-residual",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features))

    def forward(self, x):
        if self.training:
            self.running_mean += 0.1 * (x.mean(dim=0) - self.running_mean)
        return x
""",
        "recorded autograd history",
    ),
    (
        "train-only-bias-corrected",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features))
        self.register_buffer("ema", torch.zeros(features))
        self.steps = 0

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.steps += 1
                self.ema.lerp_(x.mean(dim=0), 0.1)
                self.running_mean.copy_(self.ema / (1 - 0.9**self.steps))  # Adam's bias correction
        return x
""",
        "move 10% of the way",
    ),
    (
        "train-only-cumulative-average",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features))
        self.register_buffer("seen", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.seen += 1
                self.running_mean += (x.mean(dim=0) - self.running_mean) / self.seen
        return x
""",
        "move 10% of the way",
    ),
    (
        "train-only-row-vector",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(1, features))  # broadcasts against x

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.running_mean.lerp_(x.mean(dim=0, keepdim=True), 0.1)
        return x
""",
        "expected zeros of shape",
    ),
    (
        "train-only-returns-clone-detached",
        "check_train_only_mean(TrainOnlyMean)",
        """
class TrainOnlyMean(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(features))

    @torch.no_grad()
    def forward(self, x):
        if self.training:
            self.running_mean.lerp_(x.mean(dim=0), 0.1)
        return x.clone()
""",
        "cut from autograd",
    ),
    (
        "strip-regex-sub",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        r"""
import re


def strip_ddp_prefix(state_dict):
    result = OrderedDict((re.sub(r"^module\.", "", k), v) for k, v in state_dict.items())
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        result._metadata = OrderedDict()
        for key, value in metadata.items():
            result._metadata["" if key == "module" else re.sub(r"^module\.", "", key)] = value
    return result
""",
        "✓ correct",
    ),
    (
        "strip-removeprefix-consume-metadata",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
def strip_ddp_prefix(state_dict):
    result = OrderedDict((k.removeprefix("module."), v) for k, v in state_dict.items())
    if hasattr(state_dict, "_metadata"):
        holder = OrderedDict()
        holder._metadata = OrderedDict(state_dict._metadata)
        consume_prefix_in_state_dict_if_present(holder, "module.")
        result._metadata = holder._metadata
    return result
""",
        "✓ correct",
    ),
    (
        "strip-returns-clean-argument",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
def strip_ddp_prefix(state_dict):
    if not any(k.startswith("module.") for k in state_dict):
        return state_dict  # no prefix: it comes back unchanged
    result = OrderedDict(state_dict)
    result._metadata = OrderedDict(getattr(state_dict, "_metadata", {}))
    consume_prefix_in_state_dict_if_present(result, "module.")
    return result
""",
        "✓ correct",
    ),
    (
        "strip-startswith-word",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
def strip_ddp_prefix(state_dict):
    result = OrderedDict(
        (k[len("module."):] if k.startswith("module") else k, v) for k, v in state_dict.items()
    )
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict(
            ("" if k == "module" else k[len("module."):] if k.startswith("module") else k, v)
            for k, v in state_dict._metadata.items()
        )
    return result
""",
        "dot included",
    ),
    (
        "strip-split-first-dot",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
def strip_ddp_prefix(state_dict):
    result = OrderedDict(
        (k.split(".", 1)[1] if k.startswith("module") else k, v) for k, v in state_dict.items()
    )
    if hasattr(state_dict, "_metadata"):
        holder = OrderedDict()
        holder._metadata = OrderedDict(state_dict._metadata)
        consume_prefix_in_state_dict_if_present(holder, "module.")
        result._metadata = holder._metadata
    return result
""",
        "dot included",
    ),
    (
        "strip-also-orig-mod",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
def strip_ddp_prefix(state_dict):
    result = OrderedDict(state_dict)
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict(state_dict._metadata)
    for prefix in ("module.", "_orig_mod."):  # torch.compile's wrapper too
        consume_prefix_in_state_dict_if_present(result, prefix)
    return result
""",
        "strip 'module.' only where a key starts with it",
    ),
    (
        "strip-lstrip",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
def strip_ddp_prefix(state_dict):
    result = OrderedDict((k.lstrip("module."), v) for k, v in state_dict.items())
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict((k.lstrip("module."), v) for k, v in state_dict._metadata.items())
    return result
""",
        "✗ on",
    ),
    (
        "strip-casts-to-float32",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
def strip_ddp_prefix(state_dict):
    result = OrderedDict(
        (k.removeprefix("module."), v.float() if v.is_floating_point() else v)
        for k, v in state_dict.items()
    )
    if hasattr(state_dict, "_metadata"):
        holder = OrderedDict()
        holder._metadata = OrderedDict(state_dict._metadata)
        consume_prefix_in_state_dict_if_present(holder, "module.")
        result._metadata = holder._metadata
    return result
""",
        "is not the tensor you were given",
    ),
    (
        "strip-metadata-left-as-is",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
def strip_ddp_prefix(state_dict):
    result = OrderedDict((k.removeprefix("module."), v) for k, v in state_dict.items())
    if hasattr(state_dict, "_metadata"):
        result._metadata = state_dict._metadata  # the versions do not change
    return result
""",
        "rename them like the keys",
    ),
    (
        "strip-deletes-wrapper-root",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
def strip_ddp_prefix(state_dict):
    result = OrderedDict((k.removeprefix("module."), v) for k, v in state_dict.items())
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict(
            (k.removeprefix("module."), v) for k, v in state_dict._metadata.items() if k != "module"
        )
    return result
""",
        "rename them like the keys",
    ),
    (
        "strip-keeps-only-prefixed",
        "check_strip_ddp_prefix(strip_ddp_prefix)",
        """
def strip_ddp_prefix(state_dict):
    result = OrderedDict(
        (k.removeprefix("module."), v) for k, v in state_dict.items() if k.startswith("module.")
    )
    if hasattr(state_dict, "_metadata"):
        holder = OrderedDict()
        holder._metadata = OrderedDict(state_dict._metadata)
        consume_prefix_in_state_dict_if_present(holder, "module.")
        result._metadata = holder._metadata
    return result
""",
        "came back changed",
    ),
    # --- issue 37: categories the families never tried ---
    (
        "global-buffers-by-order",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    total, count = tracker.buffers()  # the two buffers, as registered
    with torch.no_grad():
        batch_sum = x.sum(dim=0, dtype=total.dtype)
        rows = torch.tensor(len(x), device=x.device)
        all_reduce(batch_sum)
        all_reduce(rows)
        total += batch_sum
        count += rows
""",
        "by the names the statement gives",
    ),
    (
        "global-count-made-on-the-host",
        "check_add_batch_over_ranks(add_batch_over_ranks)",
        """
def add_batch_over_ranks(tracker, x, all_reduce):
    with torch.no_grad():
        batch_sum = x.sum(dim=0, dtype=tracker.total.dtype)
        rows = torch.tensor(len(x), dtype=torch.int64)  # a plain number: no need for the GPU
        all_reduce(batch_sum)
        all_reduce(rows)
        tracker.total += batch_sum
        tracker.count += rows
""",
        "NCCL reduces tensors on the GPU only",
    ),
]
