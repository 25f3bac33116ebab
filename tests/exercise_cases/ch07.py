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
        "✓ correct",
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
        "✓ correct",
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
        "✓ correct",
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
