"""Answers that tests/test_exercises.py runs through chapter 06's checkers."""

NOTEBOOK = "06_gpus"
CASES = [
    # id, the check call, the answer's source, and what the single printed line must contain.
    # Right answers: expect "✓ correct". Wrong answers: expect the hint text (the line must start with "✗").
    # --- try_accelerator(i) ---
    (
        "accel-guarded-by-is-available",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    if torch.accelerator.is_available() and i < torch.accelerator.device_count():
        kind = torch.accelerator.current_accelerator().type
        return torch.device(f"{kind}:{i}")
    return torch.device("cpu")
""",
        "✓ correct",
    ),
    (
        "accel-range-check",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i: int = 0) -> torch.device:
    count = torch.accelerator.device_count()
    if i not in range(count):
        return torch.device("cpu")
    return torch.device(torch.accelerator.current_accelerator().type, index=i)
""",
        "✓ correct",
    ),
    (
        "accel-list-of-devices",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    if not torch.accelerator.is_available():
        return torch.device("cpu")
    kind = torch.accelerator.current_accelerator().type
    devices = [torch.device(kind, k) for k in range(torch.accelerator.device_count())]
    return devices[i] if i < len(devices) else torch.device("cpu")
""",
        "✓ correct",
    ),
    (
        "accel-cuda-only-d2l",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    if torch.cuda.device_count() > i:
        return torch.device(f"cuda:{i}")
    return torch.device("cpu")
""",
        "rather than torch.cuda",
    ),
    (
        "accel-no-count-check",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    if torch.accelerator.is_available():
        return torch.device(torch.accelerator.current_accelerator().type, i)
    return torch.device("cpu")
""",
        "compare i with torch.accelerator.device_count()",
    ),
    (
        "accel-unguarded-current",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    kind = torch.accelerator.current_accelerator()
    if kind is not None and torch.accelerator.device_count() > i:
        return torch.device(kind.type, i)
    return torch.device("cpu")
""",
        "torch 2.6 raises here",
    ),
    (
        "accel-check-available-on-2.6",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    kind = torch.accelerator.current_accelerator(check_available=True)
    if kind is not None and i < torch.accelerator.device_count():
        return torch.device(kind.type, i)
    return torch.device("cpu")
""",
        "takes no argument",
    ),
    (
        "accel-build-is-not-a-device",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    try:
        kind = torch.accelerator.current_accelerator()
    except RuntimeError:  # torch 2.6 without an accelerator
        return torch.device("cpu")
    if kind is None or i >= max(torch.accelerator.device_count(), 1):
        return torch.device("cpu")
    return torch.device(kind.type, i)
""",
        "a CUDA build without a GPU still names cuda",
    ),
    (
        "accel-no-fallback",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    return torch.device(f"cuda:{i}")
""",
        "fall back to torch.device('cpu')",
    ),
    (
        "accel-ignores-index",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    if torch.accelerator.device_count() > i:
        return torch.device(torch.accelerator.current_accelerator().type)
    return torch.device("cpu")
""",
        "put the index i into the device",
    ),
    (
        "accel-returns-string",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    if torch.accelerator.device_count() > i:
        return f"{torch.accelerator.current_accelerator().type}:{i}"
    return "cpu"
""",
        "return a torch.device",
    ),
    (
        "accel-sets-the-device",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    if torch.accelerator.device_count() > i:
        torch.accelerator.set_device_index(i)
        return torch.device(torch.accelerator.current_accelerator().type, i)
    return torch.device("cpu")
""",
        "changed the current device",
    ),
    # --- to_device(batch, device, non_blocking) ---
    (
        "to-device-pytree",
        "check_to_device(to_device)",
        """
from torch.utils._pytree import tree_map_only

def to_device(batch, device, non_blocking=False):
    return tree_map_only(torch.Tensor, lambda t: t.to(device, non_blocking=non_blocking), batch)
""",
        "a dict or list subclass is a dict or list too",  # issue 37: pytree leaves unknown subclasses unmoved
    ),
    (
        "to-device-namedtuple-make",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    move = lambda value: to_device(value, device, non_blocking=non_blocking)
    if torch.is_tensor(batch):
        return batch.to(device=device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return type(batch)((key, move(value)) for key, value in batch.items())
    if isinstance(batch, tuple) and hasattr(type(batch), "_make"):
        return type(batch)._make(map(move, batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(map(move, batch))
    return batch
""",
        "✓ correct",
    ),
    (
        "to-device-mapping-match",
        "check_to_device(to_device)",
        """
from collections.abc import Mapping

def to_device(batch, device, non_blocking=False):
    match batch:
        case torch.Tensor():
            return batch.to(device, non_blocking=non_blocking)
        case Mapping():
            return type(batch)({k: to_device(v, device, non_blocking) for k, v in batch.items()})
        case tuple() if hasattr(batch, "_fields"):
            return type(batch)(*[to_device(v, device, non_blocking) for v in batch])
        case list() | tuple():
            return type(batch)([to_device(v, device, non_blocking) for v in batch])
        case _:
            return batch
""",
        "✓ correct",
    ),
    (
        "to-device-old-reference-ordereddict",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return {key: to_device(value, device, non_blocking) for key, value in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(value, device, non_blocking) for value in batch)
    return batch
""",
        "so an OrderedDict stays one",
    ),
    (
        "to-device-namedtuple-from-generator",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "a namedtuple takes its fields as separate arguments",
    ),
    (
        "to-device-discards-result",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        batch.to(device, non_blocking=non_blocking)  # as if it worked like module.to
        return batch
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "tensor.to() returns a copy",
    ),
    (
        "to-device-no-recursion",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return type(batch)(
            (k, v.to(device, non_blocking=non_blocking) if isinstance(v, torch.Tensor) else v)
            for k, v in batch.items()
        )
    return batch
""",
        "recurse into dict values, lists and tuples",
    ),
    (
        "to-device-tuples-become-lists",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, (list, tuple)):
        return [to_device(v, device, non_blocking) for v in batch]
    return batch
""",
        "rebuild each list and tuple with its own type",
    ),
    (
        "to-device-in-place",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        for key, value in batch.items():
            batch[key] = to_device(value, device, non_blocking)
        return batch
    if isinstance(batch, list):
        batch[:] = [to_device(v, device, non_blocking) for v in batch]
        return batch
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, tuple):
        return tuple(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "changed the caller's batch",
    ),
    (
        "to-device-tensorizes-everything",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return torch.as_tensor(batch).to(device, non_blocking=non_blocking)
""",
        "leave non-tensor values",
    ),
    (
        "to-device-ignores-non-blocking",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device)) for k, v in batch.items())
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device) for v in batch)
    return batch
""",
        "pass non_blocking on to tensor.to()",
    ),
    (
        "to-device-drops-the-index",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    kind = torch.device(device).type  # "cuda:1" -> "cuda"
    if isinstance(batch, torch.Tensor):
        return batch.to(kind, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, kind, non_blocking)) for k, v in batch.items())
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, kind, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, kind, non_blocking) for v in batch)
    return batch
""",
        "move to exactly the device given",
    ),
    # --- time_call(fn, device) ---
    (
        "time-events-on-the-device",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    if device.type == "cpu":
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start
    start, end = (torch.Event(device=device, enable_timing=True) for _ in range(2))
    start.record()
    fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1e3
""",
        "✓ correct",
    ),
    (
        "time-accelerator-sync-mean-of-3",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    def sync():
        if device.type != "cpu":
            torch.accelerator.synchronize(device)
    sync()
    start = time.perf_counter()
    for _ in range(3):
        fn()
    sync()
    return (time.perf_counter() - start) / 3
""",
        "called fn() 3 times",  # issue 37: one call is asked for (fn may be a training step)
    ),
    (
        "time-set-device-then-sync",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    on_accelerator = device.type != "cpu"
    if on_accelerator:
        index = device.index if device.index is not None else torch.accelerator.current_device_index()
        torch.accelerator.synchronize(index)
    start = time.perf_counter_ns()
    fn()
    if on_accelerator:
        torch.accelerator.synchronize(index)
    return (time.perf_counter_ns() - start) / 1e9
""",
        "✓ correct",
    ),
    (
        "time-cuda-sync-only",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize(device)
    sync()
    start = time.perf_counter()
    for _ in range(3):
        fn()
    sync()
    return (time.perf_counter() - start) / 3
""",
        "it waits on CUDA only",
    ),
    (
        "time-benchmark-timer-current-device",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    if device.type != "cpu":
        torch.accelerator.synchronize()
    return benchmark.Timer(stmt="fn()", globals={"fn": fn}).timeit(4).mean
""",
        "it waited for the current card",
    ),
    (
        "time-events-without-device",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    if device.type == "cpu":
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start
    start, end = torch.Event(enable_timing=True), torch.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1e3
""",
        "it waited for the current card",
    ),
    (
        "time-no-synchronize",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start
""",
        "the clock was read before the device had finished",
    ),
    (
        "time-sync-only-after",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    start = time.perf_counter()
    fn()
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    return time.perf_counter() - start
""",
        "work queued before the call was counted",
    ),
    (
        "time-sync-always",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    torch.accelerator.synchronize()
    start = time.perf_counter()
    fn()
    torch.accelerator.synchronize()
    return time.perf_counter() - start
""",
        "synchronize only when device.type != 'cpu'",
    ),
    (
        "time-milliseconds",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    start = time.perf_counter()
    fn()
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    return (time.perf_counter() - start) * 1000
""",
        "looks like milliseconds",
    ),
    # --- log_losses(step, num_steps, device) ---
    (
        "log-stack-once",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    losses = [step().detach() for _ in range(num_steps)]
    return torch.stack(losses).cpu().tolist()
""",
        "✓ correct",
    ),
    (
        "log-preallocated-zeros",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    log = torch.zeros(num_steps, device=device)
    for i in range(num_steps):
        log[i].copy_(step().detach())
    return [float(x) for x in log.tolist()]
""",
        "✓ correct",
    ),
    (
        "log-cpu-once-then-float",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    on_host = torch.stack([step().detach() for _ in range(num_steps)]).cpu()
    return [float(loss) for loss in on_host]
""",
        "✓ correct",
    ),
    (
        "log-item-every-step",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    losses = []
    for _ in range(num_steps):
        losses.append(step().item())
    return losses
""",
        "copied to the host during the loop",
    ),
    (
        "log-float-every-step",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    return [float(step()) for _ in range(num_steps)]
""",
        "copied to the host during the loop",
    ),
    (
        "log-print-every-5",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    losses = []
    for i in range(num_steps):
        loss = step()
        if i % 5 == 0:
            print(f"step {i}: {loss}")
        losses.append(loss.detach())
    return torch.stack(losses).tolist()
""",
        "copied to the host during the loop",
    ),
    (
        "log-host-buffer",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    log = torch.empty(num_steps)  # on the host: each write is a copy from the device
    for i in range(num_steps):
        log[i] = step().detach()
    return log.tolist()
""",
        "copied to the host during the loop",
    ),
    (
        "log-item-after-loop",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    losses = [step().detach() for _ in range(num_steps)]
    return [loss.item() for loss in losses]
""",
        "copied to the host 20 times after the loop",
    ),
    (
        "log-keeps-graphs",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    losses = [step() for _ in range(num_steps)]
    return torch.stack(losses).detach().tolist()
""",
        "graphs were kept alive",
    ),
    (
        "log-non-blocking-unsynchronized",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    losses = torch.stack([step().detach() for _ in range(num_steps)])
    return losses.to("cpu", non_blocking=True).tolist()
""",
        "read before synchronizing",
    ),
    (
        "log-returns-tensor",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    return torch.stack([step().detach() for _ in range(num_steps)]).cpu()
""",
        "return a list of Python floats",
    ),
    # --- rev6: wrong answers the checkers used to accept, right ones they used to reject ---
    (
        "accel-cpu-with-index",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    if torch.accelerator.device_count() > i:
        return torch.device(torch.accelerator.current_accelerator().type, i)
    return torch.device("cpu", i)
""",
        "with no index",
    ),
    (
        "accel-positional-check-available",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    acc = torch.accelerator.current_accelerator(True)
    if acc is not None and i < torch.accelerator.device_count():
        return torch.device(acc.type, i)
    return torch.device("cpu")
""",
        "takes no argument",
    ),
    (
        "accel-version-branch",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    if torch.__version__ >= "2.7":
        acc = torch.accelerator.current_accelerator(check_available=True)
    else:
        acc = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else None
    if acc is None or i >= torch.accelerator.device_count():
        return torch.device("cpu")
    return torch.device(acc.type, i)
""",
        "✓ correct",
    ),
    (
        "accel-torch-device-int",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    if torch.accelerator.device_count() > i:
        return torch.device(i)  # an int names the current accelerator
    return torch.device("cpu")
""",
        "✓ correct",
    ),
    (
        "to-device-casts-to-float",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, torch.float32, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "keep each tensor's dtype",
    ),
    (
        "to-device-half",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        out = batch.to(device, non_blocking=non_blocking)
        return out.half() if out.is_floating_point() else out
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "keep each tensor's dtype",
    ),
    (
        "to-device-detaches",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        return batch.detach().to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "don't detach",
    ),
    (
        "to-device-contiguous",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        return batch.contiguous().to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "keeps the layout",
    ),
    (
        "to-device-empty-like-copy",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        return torch.empty_like(batch, device=device).copy_(batch, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "✓ correct",
    ),
    (
        "to-device-pin-first",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        if non_blocking and not batch.is_pinned():
            batch = batch.pin_memory()
        return batch.to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "✓ correct",
    ),
    (
        "to-device-positional-to",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, None, non_blocking, False)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "✓ correct",
    ),
    (
        "time-three-calls",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    start = time.perf_counter()
    for _ in range(3):
        fn()
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    return time.perf_counter() - start
""",
        "you timed 3 calls together",
    ),
    (
        "time-warm-up-inside",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    start = time.perf_counter()
    fn()  # warm-up
    fn()
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    return time.perf_counter() - start
""",
        "you timed 2 calls together",
    ),
    (
        "time-events-without-waiting",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    if device.type == "cpu":
        t0 = time.perf_counter(); fn(); return time.perf_counter() - t0
    s, e = torch.Event(device=device, enable_timing=True), torch.Event(device=device, enable_timing=True)
    s.record(); fn(); e.record()
    return s.elapsed_time(e) / 1e3
""",
        "end.synchronize()",
    ),
    (
        "time-cuda-events-on-stream",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    if device.type != "cuda":
        if device.type != "cpu":
            torch.accelerator.synchronize(device)
        t0 = time.perf_counter(); fn()
        if device.type != "cpu":
            torch.accelerator.synchronize(device)
        return time.perf_counter() - t0
    stream = torch.cuda.current_stream(device)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record(stream); fn(); end.record(stream)
    end.synchronize()
    return start.elapsed_time(end) / 1000
""",
        "✓ correct",
    ),
    (
        "time-device-context",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    if device.type == "cpu":
        t0 = time.perf_counter(); fn(); return time.perf_counter() - t0
    index = torch.accelerator.current_device_index() if device.index is None else device.index
    torch.accelerator.synchronize(index)
    t0 = time.perf_counter(); fn(); torch.accelerator.synchronize(index)
    return time.perf_counter() - t0
""",
        "✓ correct",
    ),
    (
        "log-no-grad-around-step",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    log = torch.empty(num_steps, device=device)
    with torch.no_grad():
        for i in range(num_steps):
            log[i] = step()
    return log.tolist()
""",
        "step() must run with autograd on",
    ),
    (
        "log-inference-mode",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    with torch.inference_mode():
        losses = [step() for _ in range(num_steps)]
    return torch.stack(losses).tolist()
""",
        "step() must run with autograd on",
    ),
    (
        "log-item-every-step",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    return [step().item() for _ in range(num_steps)]
""",
        "during the loop (after every step)",
    ),
    (
        "log-non-blocking-then-event",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    log = torch.stack([step().detach() for _ in range(num_steps)])
    host = log.to("cpu", non_blocking=True)
    done = torch.Event(device=device)
    done.record()
    done.synchronize()
    return host.tolist()
""",
        "✓ correct",
    ),
]

# Written to attack the checkers after they moved onto the harness: right answers that the old checkers refused or hung on (pinned non_blocking copies with one synchronize after the loop, an event polled in a loop), and mistakes that slipped through (a default device, TF32, cuDNN or thread setting left behind, NumPy arrays turned into tensors, floats cast to float32, NaN cleaned, a synchronize or an event waited for every step, cards whose queues end at different times).
CASES += [
    (
        "accel-string-device",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    count = torch.accelerator.device_count() if torch.accelerator.is_available() else 0
    if 0 <= i < count:
        kind = torch.accelerator.current_accelerator().type
        return torch.device(f"{kind}:{i}")
    return torch.device("cpu")
""",
        "✓ correct",
    ),
    (
        "accel-device-module",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    if not torch.accelerator.is_available():
        return torch.device("cpu")
    kind = torch.accelerator.current_accelerator().type
    if i < torch.get_device_module(kind).device_count():
        return torch.device(kind, i)
    return torch.device("cpu")
""",
        "✓ correct",
    ),
    (
        "accel-each-backend",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    for kind, module in (("cuda", torch.cuda), ("xpu", torch.xpu)):
        if module.is_available() and i < module.device_count():
            return torch.device(kind, i)
    if torch.backends.mps.is_available() and i < torch.mps.device_count():
        return torch.device("mps", i)
    return torch.device("cpu")
""",
        "which knows every accelerator",  # issue 37: an MTIA machine is none of the three
    ),
    (
        "accel-makes-it-the-default",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    if torch.accelerator.device_count() > i:
        chosen = torch.device(torch.accelerator.current_accelerator().type, i)
    else:
        chosen = torch.device("cpu")
    torch.set_default_device(chosen)  # new tensors land there too
    return chosen
""",
        "default device",
    ),
    (
        "accel-enables-tf32",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    if torch.accelerator.device_count() > i:
        torch.set_float32_matmul_precision("high")  # TF32 on a GPU
        return torch.device(torch.accelerator.current_accelerator().type, i)
    return torch.device("cpu")
""",
        "float32 matmul precision",
    ),
    (
        "accel-cudnn-benchmark",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    if torch.accelerator.device_count() > i:
        torch.backends.cudnn.benchmark = True  # a GPU: let cuDNN pick its fastest kernels
        return torch.device(torch.accelerator.current_accelerator().type, i)
    return torch.device("cpu")
""",
        "cuDNN flags",
    ),
    (
        "accel-cached",
        "check_try_accelerator(try_accelerator)",
        """
import functools


@functools.lru_cache
def try_accelerator(i=0):
    if torch.accelerator.device_count() > i:
        return torch.device(torch.accelerator.current_accelerator().type, i)
    return torch.device("cpu")
""",
        "✗ on a machine with",
    ),
    (
        "accel-off-by-one",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    if torch.accelerator.is_available() and torch.accelerator.device_count() >= i:
        return torch.device(torch.accelerator.current_accelerator().type, i)
    return torch.device("cpu")
""",
        "that device does not exist",
    ),
    (
        "accel-current-index",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    if torch.accelerator.device_count() > i:
        kind = torch.accelerator.current_accelerator().type
        return torch.device(kind, torch.accelerator.current_device_index())
    return torch.device("cpu")
""",
        "put the index i into the device",
    ),
    (
        "accel-forgets-xpu",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    if torch.cuda.is_available() and i < torch.cuda.device_count():
        return torch.device("cuda", i)
    if torch.backends.mps.is_available() and i < torch.mps.device_count():
        return torch.device("mps", i)
    return torch.device("cpu")
""",
        "rather than torch.cuda",
    ),
    (
        "accel-no-index-for-zero",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    if torch.accelerator.device_count() > i:
        kind = torch.accelerator.current_accelerator().type
        return torch.device(kind) if i == 0 else torch.device(kind, i)
    return torch.device("cpu")
""",
        "put the index i into the device",
    ),
    (
        "to-device-singledispatch",
        "check_to_device(to_device)",
        """
from functools import singledispatch


def to_device(batch, device, non_blocking=False):
    @singledispatch
    def move(value):
        return value

    @move.register
    def _(value: torch.Tensor):
        return value.to(device, non_blocking=non_blocking)

    @move.register
    def _(value: dict):
        return type(value)((k, move(v)) for k, v in value.items())

    @move.register
    def _(value: list):
        return type(value)(move(v) for v in value)

    @move.register
    def _(value: tuple):
        items = [move(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)

    return move(batch)
""",
        "✓ correct",
    ),
    (
        "to-device-abc-sequence",
        "check_to_device(to_device)",
        """
from collections.abc import Mapping, Sequence


def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        return batch.to(device=device, non_blocking=non_blocking)
    if isinstance(batch, Mapping):
        return type(batch)({k: to_device(v, device, non_blocking) for k, v in batch.items()})
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, Sequence) and not isinstance(batch, (str, bytes)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "✓ correct",
    ),
    (
        "to-device-copy-and-replace",
        "check_to_device(to_device)",
        """
import copy


def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        moved = copy.copy(batch)  # the same mapping type, a defaultdict too
        for key, value in batch.items():
            moved[key] = to_device(value, device, non_blocking)
        return moved
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return batch._replace(
            **{f: to_device(getattr(batch, f), device, non_blocking) for f in batch._fields}
        )
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "✓ correct",
    ),
    (
        "to-device-arrays-become-tensors",
        "check_to_device(to_device)",
        """
import numpy as np


def to_device(batch, device, non_blocking=False):
    if isinstance(batch, np.ndarray):
        batch = torch.from_numpy(batch)  # a DataLoader would have made it a tensor anyway
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "a NumPy array too",
    ),
    (
        "to-device-floats-to-float32",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        if batch.is_floating_point():
            batch = batch.float()  # the model's dtype
        return batch.to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "keep each tensor's dtype",
    ),
    (
        "to-device-cleans-nan",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        if batch.is_floating_point():
            batch = torch.nan_to_num(batch)  # no NaN reaches the model
        return batch.to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "has other values",
    ),
    (
        "to-device-sets-default-device",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    torch.set_default_device(device)  # whatever the loop creates lands there too
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "default device",
    ),
    (
        "to-device-floating-only",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        if not batch.is_floating_point():
            return batch  # ids and masks stay where they are
        return batch.to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "recurse into dict values",
    ),
    (
        "to-device-tuple-from-list",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, list):
        return [to_device(v, device, non_blocking) for v in batch]
    if isinstance(batch, tuple):
        return tuple(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "a namedtuple",
    ),
    (
        "to-device-dict-comprehension",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return {k: to_device(v, device, non_blocking) for k, v in batch.items()}
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "so an OrderedDict stays one",
    ),
    (
        "to-device-clone-detach",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        return batch.detach().clone().to(device, non_blocking=non_blocking)  # a private copy
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "don't detach",
    ),
    (
        "time-device-events-elapsed",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    if device.type == "cpu":
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start
    torch.accelerator.synchronize(device)
    start = torch.Event(device=device, enable_timing=True)
    end = torch.Event(device=device, enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1000
""",
        "✓ correct",
    ),
    (
        "time-waits-for-every-card",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    def wait():
        if device.type != "cpu":
            for index in range(torch.accelerator.device_count()):
                torch.accelerator.synchronize(index)

    wait()
    start = time.perf_counter()
    fn()
    wait()
    return time.perf_counter() - start
""",
        "✓ correct",
    ),
    (
        "time-polls-an-event",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    accelerated = device.type != "cpu"
    if accelerated:
        torch.accelerator.synchronize(device)
    start = time.perf_counter()
    fn()
    if accelerated:
        done = torch.Event(device=device)
        done.record()
        while not done.query():  # spin: no sleep granularity in the measurement
            pass
    return time.perf_counter() - start
""",
        "✓ correct",
    ),
    (
        "time-one-thread",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    torch.set_num_threads(1)  # steadier CPU timings
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    start = time.perf_counter()
    fn()
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    return time.perf_counter() - start
""",
        "number of threads",
    ),
    (
        "time-cudnn-benchmark",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    torch.backends.cudnn.benchmark = True  # time the tuned kernels
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    start = time.perf_counter()
    fn()
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    return time.perf_counter() - start
""",
        "cuDNN flags",
    ),
    (
        "time-process-time",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    start = time.process_time()
    fn()
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    return time.process_time() - start
""",
        "read the clock with time.perf_counter()",
    ),
    (
        "time-sync-current-then-device",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    if device.type != "cpu":
        torch.accelerator.synchronize()  # whatever is running
    start = time.perf_counter()
    fn()
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    return time.perf_counter() - start
""",
        "work queued before the call was counted",
    ),
    (
        "time-sync-if-available",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    if torch.accelerator.is_available():
        torch.accelerator.synchronize(device)
    start = time.perf_counter()
    fn()
    if torch.accelerator.is_available():
        torch.accelerator.synchronize(device)
    return time.perf_counter() - start
""",
        "time_call raised",
    ),
    (
        "time-nanoseconds",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    start = time.perf_counter_ns()
    fn()
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    return time.perf_counter_ns() - start
""",
        "that looks like milliseconds",
    ),
    (
        "time-timeit-no-sync",
        "check_time_call(time_call)",
        """
import timeit


def time_call(fn, device):
    return timeit.timeit(fn, number=1)
""",
        "perf_counter",
    ),
    (
        "time-mean-of-five-calls",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    start = time.perf_counter()
    for _ in range(5):
        fn()
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    return time.perf_counter() - start  # forgot to divide by 5
""",
        "you timed 5 calls together",
    ),
    (
        "log-pinned-non-blocking-then-sync",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    host = torch.empty(num_steps, pin_memory=True)
    for i in range(num_steps):
        host[i].copy_(step().detach(), non_blocking=True)  # queued: the host does not wait
    torch.accelerator.synchronize()  # one wait, after the loop
    return host.tolist()
""",
        "✓ correct",
    ),
    (
        "log-to-cpu-non-blocking-list",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    pending = [step().detach().to("cpu", non_blocking=True) for _ in range(num_steps)]
    torch.cuda.synchronize(device)
    return [float(loss) for loss in pending]
""",
        "✓ correct",
    ),
    (
        "log-pinned-then-event",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    host = torch.zeros(num_steps).pin_memory()
    for i in range(num_steps):
        host[i].copy_(step().detach(), non_blocking=True)
    done = torch.cuda.Event()
    done.record()
    done.synchronize()
    return [float(x) for x in host]
""",
        "✓ correct",
    ),
    (
        "log-stream-synchronize",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    losses = torch.stack([step().detach().float() for _ in range(num_steps)])
    host = losses.to("cpu", non_blocking=True)
    torch.cuda.current_stream(device).synchronize()
    return host.tolist()
""",
        "✓ correct",
    ),
    (
        "log-synchronize-every-step",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    host = torch.empty(num_steps, pin_memory=True)
    for i in range(num_steps):
        host[i].copy_(step().detach(), non_blocking=True)
        torch.accelerator.synchronize()  # make sure the copy has landed
    return host.tolist()
""",
        "waited for the device during the loop",
    ),
    (
        "log-pinned-never-synchronized",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    host = torch.empty(num_steps, pin_memory=True)
    for i in range(num_steps):
        host[i].copy_(step().detach(), non_blocking=True)
    return host.tolist()
""",
        "read before synchronizing",
    ),
    (
        "log-non-blocking-into-pageable",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    host = torch.empty(num_steps)  # not pinned: each copy waits after all
    for i in range(num_steps):
        host[i].copy_(step().detach(), non_blocking=True)
    torch.accelerator.synchronize()
    return host.tolist()
""",
        "copied to the host during the loop",
    ),
    (
        "log-event-synchronize-each-step",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    losses = []
    for _ in range(num_steps):
        losses.append(step().detach())
        done = torch.cuda.Event()
        done.record()
        done.synchronize()  # keep the queue short
    return torch.stack(losses).tolist()
""",
        "waited for the device during the loop",
    ),
    (
        "log-cuda-synchronize-each-step",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    losses = []
    for _ in range(num_steps):
        losses.append(step().detach())
        torch.cuda.synchronize()  # so the timing of each step is honest
    return torch.stack(losses).tolist()
""",
        "synchronize after every step",
    ),
    (
        "log-nan-to-zero",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    losses = torch.stack([step().detach() for _ in range(num_steps)])
    return torch.nan_to_num(losses, nan=0.0, posinf=0.0).tolist()  # plots cannot show NaN
""",
        "not the losses step() returned",
    ),
    (
        "log-bfloat16-log",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    log = torch.empty(num_steps, dtype=torch.bfloat16, device=device)  # half the memory
    for i in range(num_steps):
        log[i] = step().detach()
    return log.tolist()
""",
        "not the losses step() returned",
    ),
    (
        "log-stack-non-blocking-no-sync",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    losses = torch.stack([step().detach() for _ in range(num_steps)])
    return losses.to("cpu", non_blocking=True).tolist()
""",
        "read before synchronizing",
    ),
    (
        "log-stop-at-nan",
        "check_log_losses(log_losses)",
        """
def log_losses(step, num_steps, device):
    losses = []
    for _ in range(num_steps):
        loss = step().detach()
        losses.append(loss)
        if torch.isnan(loss):  # a diverged run: no point going on
            break
    return torch.stack(losses).tolist()
""",
        "copied to the host during the loop",
    ),
    # --- issue 37: categories the families never tried ---
    (
        "to-device-dict-subclass-becomes-dict",
        "check_to_device(to_device)",
        """
import collections


def to_device(batch, device, non_blocking=False):
    def move(value):
        if isinstance(value, torch.Tensor):
            return value.to(device, non_blocking=non_blocking)
        if isinstance(value, collections.OrderedDict):
            return collections.OrderedDict((k, move(v)) for k, v in value.items())
        if isinstance(value, dict):
            return {k: move(v) for k, v in value.items()}
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            return type(value)(*(move(v) for v in value))
        if isinstance(value, (list, tuple)):
            return type(value)(move(v) for v in value)
        return value
    return move(batch)
""",
        "so a dict subclass stays one",
    ),
    (
        "to-device-tuple-subclass-as-namedtuple",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, tuple) and type(batch) is not tuple:  # a namedtuple
        return type(batch)(*(to_device(v, device, non_blocking) for v in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device, non_blocking) for v in batch)
    return batch
""",
        "a torch.Size is a tuple but not a namedtuple",
    ),
    (
        "to-device-first-item-decides",
        "check_to_device(to_device)",
        """
def to_device(batch, device, non_blocking=False):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device, non_blocking)) for k, v in batch.items())
    if isinstance(batch, (list, tuple)):
        if batch and not isinstance(batch[0], (torch.Tensor, dict, list, tuple)):
            return batch  # strings or numbers: nothing to move
        items = [to_device(v, device, non_blocking) for v in batch]
        return type(batch)(*items) if hasattr(batch, "_fields") else type(batch)(items)
    return batch
""",
        "recurse into dict values, lists and tuples",
    ),
    (
        "time-wall-clock",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    start = time.time()
    fn()
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    return time.time() - start
""",
        "read time.time(), the wall clock",
    ),
    (
        "time-warm-up-outside",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    fn()  # warm-up: the first call pays for compilation and caches
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    start = time.perf_counter()
    fn()
    if device.type != "cpu":
        torch.accelerator.synchronize(device)
    return time.perf_counter() - start
""",
        "called fn() 2 times",
    ),
    (
        "time-fixed-backend-list",
        "check_time_call(time_call)",
        """
def time_call(fn, device):
    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        elif device.type == "xpu":
            torch.xpu.synchronize(device)
        elif device.type == "mps":
            torch.mps.synchronize()
    sync()
    start = time.perf_counter()
    fn()
    sync()
    return time.perf_counter() - start
""",
        "torch.accelerator.synchronize(device)",
    ),
    (
        "accel-fixed-backend-list-with-mps",
        "check_try_accelerator(try_accelerator)",
        """
def try_accelerator(i=0):
    for kind in ("cuda", "xpu", "mps"):
        module = getattr(torch, kind)
        if module.device_count() > i:
            return torch.device(kind, i)
    return torch.device("cpu")
""",
        "which knows every accelerator",
    ),
]
