"""Exercise checkers for "GPUs" (06_gpus.ipynb): each `check_*` runs a reader's answer beside
`_reference_*`, the solution the page shows, and prints one line.

The checkers simulate machines and devices (accelerators of every kind, a clock, asynchronous
queues, pinned memory) by replacing torch functions while an answer runs, so they work on a
CPU-only machine. Every call of an answer goes through `harness.attempt`, with the simulation
entered inside it: global state the answer leaves changed (a default device, a seed, the grad
mode), a stub or an endless loop end the check with one line. Batches come from `inside_nn.zoo`'s
example inputs too, in float32, float64 and bfloat16, with NaN, inf and empty tensors.
"""

# Names a reader's answer may use as if the notebook had imported them (the checker cell imports
# this module's checkers; the tests run answers beside this module's names).
import collections
import io  # noqa: F401
import time
import warnings  # noqa: F401
import weakref
from typing import NamedTuple

import torch

from inside_nn import pick_device, zoo
from inside_nn.exercises.harness import Wrong, attempt, checker
from inside_nn.exercises.simulated_devices import (
    SimulatedDevices,
    VirtualTime,
    describe_machine,
    device_of,
    full_device,
    machine,
    sim_device,
    under,
)

try:  # NumPy is optional, as for the harness
    import numpy as np
except ImportError:  # pragma: no cover
    np = None

device = pick_device()


# --------------------------------------------------------------------------------------------------
# try_accelerator


def _reference_try_accelerator(i: int = 0) -> torch.device:
    """The i-th device of this machine's accelerator, or the CPU when it does not exist."""
    if torch.accelerator.device_count() > i:
        return torch.device(torch.accelerator.current_accelerator().type, i)
    return torch.device("cpu")


@checker
def check_try_accelerator(try_accelerator):
    """Compare with the reference on simulated machines (CUDA, XPU, MPS, none) as torch 2.6 and 2.7-2.15 answer."""
    machines = [
        (None, 0, None),
        (None, 0, "cuda"),
        ("cuda", 1, None),
        ("cuda", 2, None),
        ("xpu", 1, None),
        ("xpu", 2, None),
        ("mps", 1, None),
        ("mtia", 2, None),  # an accelerator beyond CUDA, XPU and MPS: torch.accelerator knows it
    ]
    for release in ("2.6", "2.7+"):
        for kind, count, build in machines:
            for i in range(count + 2):
                fakes, state = machine(kind, count, release, build)
                expected = under(_reference_try_accelerator, fakes)(i)
                got, error = attempt(under(try_accelerator, fakes), i)
                where = f"on a machine with {describe_machine(kind, count, release, build)}, try_accelerator({i})"
                if error is not None:
                    hint = "it must return a device on every machine"
                    if "none is available" in str(error):
                        hint = "ask device_count() (or is_available()) first: torch 2.6 raises here"
                    elif isinstance(error, TypeError) and "current_accelerator" in str(error):
                        hint = "torch 2.6's current_accelerator() takes no argument; ask device_count()"
                    raise Wrong(f"✗ {where} raised {type(error).__name__}: {error} ({hint})")
                if state["calls"]:
                    raise Wrong(
                        f"✗ {where} changed the current device ({state['calls'][0][0]}): only answer the question"
                    )
                if type(got) is not torch.device:
                    raise Wrong(f"✗ {where} returned {got!r}: return a torch.device, e.g. torch.device(kind, i)")
                if got == expected:
                    continue
                where += f" returned {got}; expected {expected}"
                if got.type == expected.type == "cpu":
                    hint = f"return torch.device('cpu'), with no index: {got} != cpu"
                elif expected.type == "cpu" and count == 0 and build is None:
                    hint = "with no accelerator, fall back to torch.device('cpu')"
                elif expected.type == "cpu" and count == 0:
                    hint = "a CUDA build without a GPU still names cuda: ask device_count() or is_available()"
                elif expected.type == "cpu":
                    hint = "that device does not exist: compare i with torch.accelerator.device_count()"
                elif got.type == "cpu" and kind not in ("cuda", "xpu", "mps"):
                    hint = (
                        "ask torch.accelerator (current_accelerator().type), which knows every accelerator, "
                        "rather than a fixed list of backends"
                    )
                elif got.type == "cpu":
                    hint = "ask torch.accelerator (current_accelerator().type) rather than torch.cuda"
                else:
                    hint = "put the index i into the device"
                raise Wrong(f"✗ {where}: {hint}")
    return (
        "✓ correct: the i-th device on CUDA, XPU and MPS machines, the CPU where it does not exist (torch 2.6 and 2.7+)"
    )


# --------------------------------------------------------------------------------------------------
# to_device


def _reference_to_device(batch, device: torch.device, non_blocking: bool = False):
    """`batch` with every tensor moved to `device`; dicts, lists and tuples are rebuilt."""

    def move(value):
        if isinstance(value, torch.Tensor):
            return value.to(device, non_blocking=non_blocking)
        if isinstance(value, dict):  # dict, OrderedDict, ...: the same type, the same order
            return type(value)((key, move(item)) for key, item in value.items())
        if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple
            return type(value)(*(move(item) for item in value))
        if isinstance(value, (list, tuple)):
            return type(value)(move(item) for item in value)
        return value  # numbers, strings, None: unchanged

    return move(batch)


class _Pair(NamedTuple):
    image: torch.Tensor
    label: torch.Tensor
    name: str = "sample"


class _Encoding(dict):
    """A tokenizer's output as some code bases shape it: a dict subclass that keeps one more attribute."""

    def __init__(self, data=None, n_sequences=1):
        super().__init__(data or {})
        self.n_sequences = n_sequences


class _Tokens(list):
    """A list subclass (a batch of token lists, say)."""


def _hf_batch(name):
    """A zoo language model's inputs as a Hugging Face DataLoader yields them."""
    (input_ids, *_) = zoo.inputs(name)
    return {
        "input_ids": input_ids,
        "attention_mask": torch.ones_like(input_ids),
        "labels": input_ids.clone(),
        "special_tokens_mask": input_ids == 0,
    }


def _batches():
    """(description, batch) pairs, freshly built: the family both answers are run on."""

    def t(*shape, dtype=torch.float32):
        return torch.arange(float(torch.Size(shape).numel())).reshape(shape).to(dtype)

    image = zoo.inputs("vit")[0].to(torch.bfloat16)
    image[0, 0, 0, :2] = torch.tensor([float("nan"), float("inf")])
    batches = [
        ("a bare tensor", t(2, 3)),
        ("a transposed tensor", t(2, 3).T),
        ("a tensor that requires grad", t(3).requires_grad_()),
        (
            "a dict with a list, a tuple, a string and a number",
            {
                "image": t(2, 3),
                "ids": torch.tensor([3, 1]),
                "labels": [t(2), t(2)],
                "pair": (t(1), "first"),
                "name": "x",
                "count": 3,
            },
        ),
        (
            "an OrderedDict",
            collections.OrderedDict([("z", t(2)), ("a", t(3)), ("id", None)]),
        ),
        ("a namedtuple", _Pair(t(2, 2), torch.tensor([3, 1]))),
        ("a list of dicts", [{"x": t(2), "y": 1.5}, {"x": t(3), "y": None}]),
        (
            "a tuple holding a namedtuple in a dict",
            (t(1), {"pair": _Pair(t(2), t(1), "b")}, "tag"),
        ),
        ("a dict of non-tensors", {"lr": 0.1, "names": ["a", "b"], "none": None}),
        ("GPT-2's inputs as a Hugging Face batch", _hf_batch("gpt2")),
        ("an LSTM's inputs: tokens and an (h, c) tuple", zoo.inputs("lstm-lm")),
        (
            "a bfloat16 image batch holding NaN and inf, with labels",
            {"pixel_values": image, "labels": torch.tensor([1, 0])},
        ),
        (
            "float64, int8, bool and empty tensors",
            [t(2, dtype=torch.float64), t(3, dtype=torch.int8), t(2) > 0, t(0, 4)],
        ),
        ("empty containers", {"none": [], "nothing": {}, "unit": ()}),
        (
            "a dict subclass (a tokenizer's BatchEncoding-like output) holding a list subclass",
            _Encoding({"input_ids": _Tokens([t(2), t(2)]), "attention_mask": t(2, 2)}),
        ),
        (
            "containers whose first item is not a tensor, and a torch.Size",
            [None, {"name": "x", "x": t(2)}, ("tag", t(1)), torch.Size([2, 3])],
        ),
    ]
    if np is not None:
        batches.append(("a NumPy array beside a tensor", {"x": t(2), "raw": np.arange(3.0)}))
    return batches


def _same_tensor(a, b):
    """Equal values, NaN equal to NaN."""
    if a.device.type == "meta" or b.device.type == "meta":
        return True
    if torch.equal(a, b):
        return True
    if not (a.is_floating_point() and b.is_floating_point()):
        return False
    return torch.equal(a.isnan(), b.isnan()) and torch.equal(a.nan_to_num(0.0), b.nan_to_num(0.0))


def _same_leaf(got, expected):
    """A value that is not a tensor or a container: the same object, or an equal one."""
    if got is expected:
        return True
    if np is not None and isinstance(expected, np.ndarray):
        return isinstance(got, np.ndarray) and np.array_equal(got, expected)
    try:
        return bool(got == expected)
    except Exception:  # noqa: BLE001 (an object whose == is not a bool is compared by identity)
        return False


def _fingerprint(value):
    """Everything about a batch that to_device must leave as it was: types, identities, tensor contents."""
    if isinstance(value, torch.Tensor):
        return ("tensor", id(value), value.device, sim_device(value), value.clone())
    if isinstance(value, dict):
        return (
            type(value),
            id(value),
            [(k, _fingerprint(v)) for k, v in value.items()],
        )
    if isinstance(value, (list, tuple)):
        return (type(value), id(value), [_fingerprint(v) for v in value])
    return (type(value), id(value))


def _same_fingerprint(a, b):
    if type(a) is not type(b) or len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if isinstance(x, torch.Tensor):
            if not (isinstance(y, torch.Tensor) and x.dtype == y.dtype and x.shape == y.shape and _same_tensor(x, y)):
                return False
        elif isinstance(x, (list, tuple)):
            if not _same_fingerprint(x, y):
                return False
        elif x != y:
            return False
    return True


def _compare(got, expected, path="the result"):
    """None if `got` matches the reference's `expected`, else what differs."""
    if type(got) is not type(expected):

        def named(kind):
            return f"{'an' if kind.__name__[0] in 'AEIOU' else 'a'} {kind.__name__}"

        return f"{path} came back as {named(type(got))}; expected {named(type(expected))}"
    if isinstance(expected, torch.Tensor):
        if device_of(got) != device_of(expected):
            return f"{path} is on {device_of(got)}; expected {device_of(expected)}"
        if got.dtype != expected.dtype:
            return f"{path} has dtype {got.dtype}; expected {expected.dtype}"
        if got.shape != expected.shape:
            return f"{path} has shape {tuple(got.shape)}; expected {tuple(expected.shape)}"
        if not _same_tensor(got, expected):
            return f"{path} has other values"
        if got.requires_grad != expected.requires_grad:
            return f"{path} has requires_grad={got.requires_grad}; expected {expected.requires_grad}"
        if got.numel() and got.stride() != expected.stride():
            return f"{path} has strides {got.stride()}; expected {expected.stride()}"
        flags = [getattr(t, "_sim_non_blocking", None) for t in (got, expected)]
        if flags[0] != flags[1]:
            return f"{path} was moved with non_blocking={flags[0]}; expected {flags[1]}"
        return None
    if isinstance(expected, dict):
        if list(got) != list(expected):
            return f"{path} has keys {list(got)}; expected {list(expected)}"
        pairs = [(got[k], expected[k], f"{path}[{k!r}]") for k in expected]
    elif isinstance(expected, (list, tuple)):
        if len(got) != len(expected):
            return f"{path} has {len(got)} items; expected {len(expected)}"
        pairs = [(g, e, f"{path}[{i}]") for i, (g, e) in enumerate(zip(got, expected))]
    else:
        return None if _same_leaf(got, expected) else f"{path} is {got!r}; expected {expected!r}"
    for g, e, p in pairs:
        difference = _compare(g, e, p)
        if difference:
            return difference
    return None


def _to_device_hint(difference, what=""):
    if "came back as a dict; expected an OrderedDict" in difference:
        return "rebuild a mapping with its own type, type(batch)(...), so an OrderedDict stays one"
    if "expected a _Pair" in difference:
        return "a namedtuple takes its fields as separate arguments: type(batch)(*values)"
    if "came back as a Tensor; expected a ndarray" in difference:
        return "leave what is not a tensor as it is: a NumPy array too"
    if "came back as a dict; expected" in difference:
        return "rebuild a mapping with its own type, type(batch)(...), so a dict subclass stays one"
    if "came back as" in difference:
        return "rebuild each list and tuple with its own type"
    if "non_blocking=None" in difference:
        return "return what tensor.to() returns, without another copy"
    if "non_blocking=" in difference:
        return "pass non_blocking on to tensor.to()"
    if " has dtype " in difference:
        return "keep each tensor's dtype: give tensor.to() only the device and non_blocking"
    if "requires_grad=" in difference:
        return "tensor.to() keeps requires_grad and the graph: don't detach"
    if " has strides " in difference:
        return "tensor.to() keeps the layout: don't make the tensor contiguous"
    if " has shape " in difference or " has other values" in difference:
        return "move each tensor as it is"
    if " is on cpu; expected " in difference and "subclass" in what:
        return (
            "a dict or list subclass is a dict or list too: test with isinstance and rebuild it with its own type "
            "(torch.utils._pytree leaves a subclass it does not know as one unmoved leaf)"
        )
    if " is on cpu; expected " in difference:
        if difference.startswith("the result is on") or "'image'" in difference:
            return "tensor.to() returns a copy (module.to() is the one that works in place): use what it returns"
        return "recurse into dict values, lists and tuples"
    if " is on " in difference:
        return "move to exactly the device given (its index included)"
    return "return numbers, strings, None and NumPy arrays as they are"


@checker
def check_to_device(to_device):
    """Compare with the reference on a family of batches (zoo models' inputs among them, bfloat16,
    float64, NaN and empty tensors), on meta and on simulated cuda:1 / xpu devices.

    The simulated devices behave like a CUDA or XPU build of torch 2.6 to 2.15 (see SimulatedDevices).
    """
    devices = [
        ("meta", False),
        (torch.device("meta"), True),
        ("cuda:1", True),
        (torch.device("xpu", 0), False),
    ]
    for device, non_blocking in devices:
        for (what, batch), (_, batch_for_reference) in zip(_batches(), _batches()):
            before = _fingerprint(batch)
            with SimulatedDevices():
                expected = _reference_to_device(batch_for_reference, device, non_blocking)
            got, error = attempt(
                under(to_device, {}, SimulatedDevices()),
                batch,
                device,
                non_blocking=non_blocking,
            )
            case = f"on {what}, to_device(batch, {device!r}, non_blocking={non_blocking})"
            if error is not None:
                hint = "leave non-tensor values, such as strings, as they are, and accept non_blocking="
                if isinstance(batch, tuple) and hasattr(batch, "_fields") or "_Pair" in str(error):
                    hint = "a namedtuple takes its fields as separate arguments: type(batch)(*values)"
                elif isinstance(error, TypeError) and "Size" in what:
                    hint = "a torch.Size is a tuple but not a namedtuple (no `_fields`): rebuild it from one iterable"
                raise Wrong(f"✗ {case} raised {type(error).__name__}: {error} ({hint})")
            if not _same_fingerprint(_fingerprint(batch), before):
                raise Wrong(f"✗ {case} changed the caller's batch: build new containers instead of assigning into them")
            difference = _compare(got, expected)
            if difference:
                raise Wrong(f"✗ {case}: {difference} ({_to_device_hint(difference, what)})")
    return (
        "✓ correct: every tensor moved with non_blocking as asked; dicts, OrderedDicts, namedtuples, lists and "
        "tuples rebuilt; the rest and the input untouched"
    )


def _reference_time_call(fn, device: torch.device) -> float:
    """Seconds one call fn() takes on `device`, waiting for the device where needed."""
    if device.type != "cpu":
        torch.accelerator.synchronize(device)  # finish what was queued before
    start = time.perf_counter()
    fn()
    if device.type != "cpu":
        torch.accelerator.synchronize(device)  # finish fn's own work
    return time.perf_counter() - start


def _timed(answer, kind, count, device):
    """Run `answer` on a simulated machine whose every card has 0.2 s of earlier work queued, timing
    a call that takes 20 ms: (result, error, reads of the clock and events, calls of fn)."""
    vt = VirtualTime(kind, count)
    if kind is not None:  # earlier work on every card, longer on the second
        for index in range(count):
            vt.busy[(kind, index)] = vt.now + 0.2 + 0.15 * index
    calls = []

    def fn():
        calls.append(1)
        if len(calls) > 100:
            raise RuntimeError("fn was called more than 100 times; time a few calls")
        vt.launch(device, 0.02)

    simulated = under(answer, vt.fakes())
    if answer is _reference_time_call:
        result, error = simulated(fn, device), None
    else:
        result, error = attempt(simulated, fn, device)
    return result, error, vt.reads + vt.events, len(calls), vt.wall_reads


@checker
def check_time_call(time_call):
    """Compare with the reference on simulated machines with 0.2 s of earlier work queued and a 20 ms call.

    Machines: one CUDA card, cuda:1 of two (the current card is cuda:0), XPU, MPS, the CPU alone, and the CPU of a
    busy CUDA machine. Clock, queues and events are simulated (see VirtualTime), as in torch 2.6 to 2.15.
    """
    cases = [
        ("cuda", 1, torch.device("cuda")),
        (None, 0, torch.device("cpu")),
        ("cuda", 2, torch.device("cuda", 1)),
        ("xpu", 1, torch.device("xpu")),
        ("mps", 1, torch.device("mps")),
        ("cuda", 1, torch.device("cpu")),
        ("mtia", 1, torch.device("mtia")),  # beyond CUDA, XPU and MPS
    ]
    passed_cuda, repeated = False, None
    for kind, count, device in cases:
        expected, *_ = _timed(_reference_time_call, kind, count, device)
        got, error, reads, answer_calls, wall_reads = _timed(time_call, kind, count, device)
        where = f"on {describe_machine(kind, count, '2.6-2.15') if kind else 'a CPU-only machine'}, timing {device}"
        if error is not None:
            hint = ""
            if device.type == "cpu" and ("none is available" in str(error) or "not compiled" in str(error)):
                hint = " (on the CPU there is nothing to wait for: synchronize only when device.type != 'cpu')"
            elif "not ready" in str(error):
                hint = " (wait for the end event first: end.synchronize())"
            elif "not compiled" in str(error):
                hint = " (that backend is not this machine's: torch.accelerator works for every kind)"
            raise Wrong(f"✗ {where}, time_call raised {type(error).__name__}: {error}{hint}")
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            raise Wrong(f"✗ {where}, time_call returned {got!r}: return the seconds as a float")
        if wall_reads:
            raise Wrong(
                f"✗ {where}, time_call read time.time(), the wall clock, which NTP can set back or forward "
                "while fn runs (and which is coarse on some systems): read time.perf_counter()"
            )
        if 0.5 * expected <= got <= 1.5 * expected:
            passed_cuda = passed_cuda or device.type == "cuda"
            repeated = repeated or (answer_calls > 1 and (where, answer_calls))
            continue
        measured = f"{where}, your time_call measured {got * 1e3:.4g} ms for a call that takes 20 ms"
        if got > 100 * expected:
            hint = "that looks like milliseconds: return seconds"
        elif got < 0.5 * expected and reads == 0:
            hint = "read the clock with time.perf_counter() (the checker simulates the device's time through it)"
        elif got < 0.5 * expected and device.type != "cuda" and passed_cuda:
            hint = "it waits on CUDA only: synchronize the device you timed, torch.accelerator.synchronize(device)"
        elif got < 0.5 * expected and device.index == 1:
            hint = "it waited for the current card, cuda:0: pass the device you timed to synchronize"
        elif got < 0.5 * expected:
            hint = "the clock was read before the device had finished: synchronize before reading it"
        elif answer_calls > 1 and abs(got - 0.02 * answer_calls) < 0.005:
            hint = f"you timed {answer_calls} calls together: time one call, or divide by the number of calls"
        elif device.type == "cpu":
            hint = "the GPU's earlier work was counted: on the CPU there is nothing to wait for"
        else:
            hint = "work queued before the call was counted: synchronize before reading the start time too"
        raise Wrong(f"✗ {measured}: {hint}")
    if repeated:
        raise Wrong(
            f"✗ {repeated[0]}, time_call called fn() {repeated[1]} times: time exactly one call (fn may be a "
            "training step, which must run once; repeat the measurement outside time_call)"
        )
    return "✓ correct: a 20 ms call measured as such behind earlier work on CUDA (cuda:1 too), XPU, MPS and the CPU"


# --------------------------------------------------------------------------------------------------
# log_losses


def _reference_log_losses(step, num_steps: int, device: torch.device) -> list[float]:
    """The loss of each of num_steps calls step(), read on the host once, at the end."""
    loss_log = torch.empty(num_steps, device=device)
    for i in range(num_steps):
        loss_log[i] = step().detach()  # stays on the device; detach drops the graph
    return loss_log.tolist()  # the one copy to the host


class _Logged(NamedTuple):
    result: object
    error: Exception | None
    steps: int
    mode: SimulatedDevices
    alive: int
    autograd_off: int


def _run_logging(answer, num_steps, device, dtype=torch.float32, scales=()):
    """Run an answer on a simulated CUDA machine; `scales` multiply some steps' losses (NaN, inf)."""
    features = torch.linspace(0.0, 1.0, 64).reshape(8, 8)
    weights = torch.linspace(-1.0, 1.0, 8)
    steps, leaves, most_alive, autograd_off = [0], [], [0], [0]
    scales = dict(scales)

    def step():
        most_alive[0] = max(most_alive[0], sum(leaf() is not None for leaf in leaves))
        steps[0] += 1
        if not torch.is_grad_enabled() or torch.is_inference_mode_enabled():
            autograd_off[0] += 1
        w = (weights * steps[0] / 10).requires_grad_()
        leaves.append(weakref.ref(w))
        loss = ((features @ w) ** 2).mean().to(dtype) * scales.get(steps[0], 1.0)
        loss._sim_device = full_device(device)
        return loss

    mode = SimulatedDevices(clock=lambda: steps[0])
    fakes, _ = machine("cuda", 2)
    fakes.update(mode.fakes())
    simulated = under(answer, fakes, mode)
    if answer is _reference_log_losses:
        result, error = simulated(step, num_steps, device), None
    else:
        result, error = attempt(simulated, step, num_steps, device)
    alive_at_end = sum(leaf() is not None for leaf in leaves)
    alive = max(most_alive[0], alive_at_end - 1)
    return _Logged(result, error, steps[0], mode, alive, autograd_off[0])


def _times(clocks, num_steps, what):
    every = num_steps > 1 and set(range(1, num_steps)) <= set(clocks)
    return f"{what} after every step" if every else f"{what} {len(clocks)} times, first after step {clocks[0]}"


@checker
def check_log_losses(log_losses):
    """Compare with the reference on a simulated CUDA machine (cuda, cuda:1; losses in float32,
    bfloat16 and float64, NaN and inf among them; 20, 1, 7, 5 and 6 steps).

    Counts the host's waits for the device, not calls: `.cpu()` once and then float() on the host
    tensor is one wait; a non_blocking copy into pinned memory is none, and reading it is fine once
    synchronized. The simulated device behaves like a CUDA build of torch 2.6 to 2.15 (see
    SimulatedDevices).
    """
    nan, inf = float("nan"), float("inf")
    family = [
        (torch.device("cuda"), 20, torch.float32, ()),
        (torch.device("cuda", 1), 1, torch.float32, ()),
        (torch.device("cuda"), 7, torch.bfloat16, ()),
        (torch.device("cuda"), 5, torch.float64, ()),
        (torch.device("cuda"), 6, torch.float32, ((2, nan), (4, inf))),
    ]
    for device, num_steps, dtype, scales in family:
        expected = _run_logging(_reference_log_losses, num_steps, device, dtype, scales).result
        run = _run_logging(log_losses, num_steps, device, dtype, scales)
        mode, result = run.mode, run.result
        where = f"with num_steps={num_steps} on {device}, {str(dtype)[6:]} losses"
        if scales:
            where += " (NaN and inf among them)"
        in_loop = [s for s in mode.copies_to_host if s < num_steps]
        waits = [s for s in mode.synchronized if s < num_steps]
        after = len(mode.copies_to_host) - len(in_loop)
        if run.error is not None:
            raise Wrong(f"✗ {where}, log_losses raised {type(run.error).__name__}: {run.error}")
        if run.steps != num_steps:
            raise Wrong(f"✗ {where}, step() was called {run.steps} times")
        if run.autograd_off:
            raise Wrong(
                f"✗ {where}, step() ran under no_grad or inference_mode: "
                "step() must run with autograd on: detach its result, don't wrap it"
            )
        if in_loop:
            raise Wrong(
                f"✗ {where}, the loss was copied to the host during the loop "
                f"({_times(in_loop, num_steps, '')[1:]}): .item(), float(), print, a blocking copy "
                "or a host log wait for the GPU; keep the log on the device, or copy with "
                "non_blocking=True into pinned memory"
            )
        if waits:
            raise Wrong(
                f"✗ {where}, the host waited for the device during the loop "
                f"(synchronize {_times(waits, num_steps, '')[1:]}): synchronize once, after the loop"
            )
        if run.alive > 1:
            raise Wrong(
                f"✗ {where}, {run.alive} steps' graphs were kept alive by the log: store step().detach(), not the loss"
            )
        if mode.unsynchronized_reads:
            raise Wrong(f"✗ {where}, a non_blocking copy to the host was read before synchronizing: it may be garbage")
        if type(result) is not list or any(type(x) is not float for x in result):
            raise Wrong(f"✗ {where}, log_losses returned {type(result).__name__}: return a list of Python floats")
        if len(result) != len(expected) or not torch.allclose(
            torch.tensor(result, dtype=torch.float64),
            torch.tensor(expected, dtype=torch.float64),
            equal_nan=True,
        ):
            raise Wrong(f"✗ {where}, the logged values are not the losses step() returned, in order")
        if after > 1:
            raise Wrong(
                f"✗ {where}, the log was copied to the host {after} times after the loop: copy it once "
                "(torch.stack(losses).tolist(), or .cpu() once)"
            )
    return "✓ correct: the losses in order, with no wait for the device during the loop, read on the host once, with no graph kept alive"
