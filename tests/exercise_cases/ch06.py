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
        "✓ correct",
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
        "✓ correct",
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
