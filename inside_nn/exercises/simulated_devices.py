"""Simulated machines for the chapter-6 checkers: accelerators of every kind, tensors "on" CUDA or XPU
that live on the CPU, pinned memory, asynchronous copies and a virtual clock, so that a reader's answer
about GPUs can be checked on a CPU-only machine.

- `machine(kind, count, release, build)`: fakes for torch's device functions on a machine with `count`
  devices of type `kind` (None: none) under torch 2.6 or 2.7+; `describe_machine` names it.
- `SimulatedDevices`: a TorchFunctionMode that keeps "device" tensors on the CPU, tagged with their
  simulated device, and records copies to the host, queued copies and synchronizations.
- `VirtualTime`: a simulated clock and per-device queues; timing code reads it instead of the real one.
- `patched(fakes)` replaces torch's functions while a block runs; `under(answer, fakes, *modes)` wraps
  an answer so that every call runs inside them.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import time
import timeit

import torch
from torch.torch_version import TorchVersion
from torch.utils import benchmark as _benchmark


@contextlib.contextmanager
def patched(fakes):
    saved = {key: getattr(*key) for key in fakes}
    try:
        for (owner, name), fake in fakes.items():
            setattr(owner, name, fake)
        yield
    finally:
        for (owner, name), original in saved.items():
            setattr(owner, name, original)


_REAL_DEVICE = torch.device


class _DeviceType(type):
    """The type of the simulated torch.device: isinstance(x, torch.device) still works."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, _REAL_DEVICE)


def no_accelerator():
    raise RuntimeError("Cannot access accelerator device when none is available.")


def machine(kind, count, release="2.7+", build=None):
    """Fakes for a machine with `count` devices of type `kind` (None: no accelerator).

    `release` "2.6": current_accelerator() takes no argument and raises without an accelerator (torch 2.6).
    `release` "2.7+": current_accelerator(check_available=False) returns the build's accelerator (`build`, e.g.
    "cuda" for a CUDA build on a machine without a GPU) or None for a CPU-only build (torch 2.7 to 2.15).
    torch.__version__ reads 2.6.0 or at least 2.7.0; torch.device(i) names the same accelerator, or raises.
    set_device_index is recorded in `calls`; current_device_index follows it.
    """
    build = build or kind
    state = {"index": 0, "calls": []}

    def current_accelerator_26():
        if kind is None:
            no_accelerator()
        return torch.device(kind)

    current_accelerator_26.__name__ = current_accelerator_26.__qualname__ = "current_accelerator"

    def device(*args, **kwargs):
        """torch.device, with an int meaning the current accelerator (torch 2.6: only if there is one)."""
        if len(args) == 1 and not kwargs and type(args[0]) is int:
            named = kind if release == "2.6" else build
            if named is None:
                no_accelerator()
            return _REAL_DEVICE(named, args[0])
        return _REAL_DEVICE(*args, **kwargs)

    def current_accelerator(check_available=False):
        if check_available and count == 0:
            return None
        return torch.device(build) if build else None

    def current_device_index():
        if count == 0:
            no_accelerator()
        return state["index"]

    def set_device_index(index, /):
        state["calls"].append(("set_device_index", index))
        state["index"] = index.index if isinstance(index, torch.device) else int(index)

    def only(kind_wanted, value):
        return (lambda *a, **k: value) if kind == kind_wanted else (lambda *a, **k: 0 if value else False)

    def cuda_current():
        if kind != "cuda" or count == 0:
            raise AssertionError("Torch not compiled with CUDA enabled")
        return state["index"]

    version = "2.6.0" if release == "2.6" else max(torch.__version__, TorchVersion("2.7.0"))
    fakes = {
        (torch, "__version__"): TorchVersion(version),
        (torch, "device"): _DeviceType("device", (), {"__new__": lambda cls, *a, **k: device(*a, **k)}),
        (torch.accelerator, "is_available"): lambda: count > 0,
        (torch.accelerator, "device_count"): lambda: count,
        (torch.accelerator, "current_accelerator"): (
            current_accelerator_26 if release == "2.6" else current_accelerator
        ),
        (torch.accelerator, "current_device_index"): current_device_index,
        (torch.accelerator, "current_device_idx"): current_device_index,
        (torch.accelerator, "set_device_index"): set_device_index,
        (torch.accelerator, "set_device_idx"): set_device_index,
        (torch.cuda, "is_available"): lambda: kind == "cuda" and count > 0,
        (torch.cuda, "device_count"): lambda: count if kind == "cuda" else 0,
        (torch.cuda, "current_device"): cuda_current,
        (torch.cuda, "set_device"): set_device_index,
        (torch.backends.mps, "is_available"): lambda: kind == "mps",
        (torch.mps, "device_count"): lambda: count if kind == "mps" else 0,
        (torch.xpu, "is_available"): lambda: kind == "xpu" and count > 0,
        (torch.xpu, "device_count"): lambda: count if kind == "xpu" else 0,
        (torch.mtia, "is_available"): lambda: kind == "mtia" and count > 0,
        (torch.mtia, "device_count"): lambda: count if kind == "mtia" else 0,
    }
    del only
    return fakes, state


def describe_machine(kind, count, release, build=None):
    if kind is None:
        what = f"no accelerator ({build or 'CPU-only'} build)"
    else:
        what = f"{count} {kind} device(s)"
    return f"{what}, torch {release}"


def under(answer, fakes, *modes):
    """`answer`, run with torch's functions replaced by `fakes` and inside `modes` (the simulated
    devices). `attempt` captures and restores global state outside the simulation."""

    @functools.wraps(answer, updated=())
    def simulated(*args, **kwargs):
        with patched(fakes), contextlib.ExitStack() as stack:
            for mode in modes:
                stack.enter_context(mode)
            return answer(*args, **kwargs)

    return simulated


_SIMULATED_TYPES = ("cuda", "xpu")
_HOST_READS = {
    torch.Tensor.item,
    torch.Tensor.tolist,
    torch.Tensor.numpy,
    torch.Tensor.__float__,
    torch.Tensor.__int__,
    torch.Tensor.__index__,
    torch.Tensor.__bool__,
    torch.Tensor.__complex__,
    torch.Tensor.__repr__,
    torch.Tensor.__format__,
    torch.Tensor.__array__,
}


def sim_device(t):
    return getattr(t, "_sim_device", None)


def _tensors_in(value):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors_in(v)


def full_device(device):
    device = torch.device(device)
    return torch.device(device.type, 0 if device.index is None else device.index)


def _storage(t):
    """The address of the memory `t` views (0 for meta and empty tensors: never tracked)."""
    if t.device.type == "meta":
        return 0
    return t.untyped_storage().data_ptr()


class SimulatedDevices(torch.overrides.TorchFunctionMode):
    """CUDA and XPU tensors simulated on the CPU, as on a GPU build of torch 2.6 to 2.15.

    A tensor "on" a simulated device is a CPU tensor tagged with `_sim_device`. Tensor.to(), .cuda(),
    .cpu(), the device= argument of any function, and `tensor.device` honour the simulated device,
    with every argument of to() (a device, dtype or tensor; non_blocking, copy, memory_format, by
    position or name) and of cuda(). A move or a copy_() to a device records its non_blocking flag.
    pin_memory(), is_pinned() and pin_memory=True work without a GPU (pinned memory is tracked by
    storage, so views of it are pinned too).

    Copies from the device to the host, noted with `self.clock()` (the checker's step count), as CUDA
    makes them: item, tolist, float(), print, .cpu(), a blocking copy_ or an assignment into a host
    tensor make the host wait (`copies_to_host`); `.to("cpu", non_blocking=True)` (into memory torch
    pins for it) and `copy_(..., non_blocking=True)` into pinned memory are queued and return at once
    (`async_copies`); into pageable memory a non_blocking copy still waits. Reading memory a queued
    copy writes before a synchronize (torch.cuda/accelerator.synchronize, a stream's, or an event
    recorded after the copy) is an unsynchronized read; every synchronize is noted (`synchronized`).
    """

    def __init__(self, clock=lambda: 0):
        super().__init__()
        self.clock = clock
        self.copies_to_host = []  # the clock at each copy the host waited for
        self.async_copies = []  # the clock at each copy queued without waiting
        self.synchronized = []  # the clock at each wait for the device's queue
        self.unsynchronized_reads = 0
        self.queued = 0  # non_blocking copies to the host queued so far
        self.done = 0  # how many of them the host has waited for
        self.pending = {}  # storage -> the number of the last queued copy into it
        self.pinned = set()  # storages of pinned host memory

    def synchronize(self, *args, **kwargs):
        self.synchronized.append(self.clock())
        self.done = self.queued

    def stream_class(self):
        """torch.cuda.Stream / current_stream(): synchronize() waits for the device's queue."""
        mode = self

        class Stream:
            def __init__(self, *args, **kwargs):
                pass

            def synchronize(self):
                mode.synchronize()

            def wait_stream(self, other):
                pass

            def wait_event(self, event):
                pass

            def record_event(self, event=None):
                event = event or mode.event_class()()
                event.record(self)
                return event

            def query(self):
                mode.done = mode.queued
                return True

        return Stream

    def event_class(self):
        """torch.Event / torch.cuda.Event: synchronize() waits for the copies queued before record()."""
        mode = self

        class Event:
            def __init__(self, *args, **kwargs):
                self.mark = None

            def record(self, stream=None):
                self.mark = mode.queued

            def synchronize(self):
                mode.synchronized.append(mode.clock())
                if self.mark is not None:
                    mode.done = max(mode.done, self.mark)

            def query(self):  # the device is fast: asked, it has finished
                if self.mark is not None:
                    mode.done = max(mode.done, self.mark)
                return True

            def wait(self, stream=None):
                pass

        return Event

    def fakes(self):
        """torch's synchronize, streams and events, answered by this simulation."""
        Stream, Event = self.stream_class(), self.event_class()
        fakes = {
            (torch.accelerator, "synchronize"): self.synchronize,
            (torch.cuda, "synchronize"): self.synchronize,
            (torch, "Event"): Event,
            (torch.cuda, "Event"): Event,
            (torch, "Stream"): Stream,
            (torch.cuda, "Stream"): Stream,
            (torch.cuda, "current_stream"): lambda device=None: Stream(),
            (torch.cuda, "default_stream"): lambda device=None: Stream(),
            (torch.cuda, "stream"): lambda stream=None: contextlib.nullcontext(stream),
            (torch.accelerator, "current_stream"): lambda device=None: Stream(),
        }
        return fakes

    def _queue(self, target):
        """A non_blocking copy into `target`'s memory, queued on the device."""
        self.async_copies.append(self.clock())
        self.queued += 1
        key = _storage(target)
        if key:
            self.pending[key] = self.queued

    def _is_pending(self, t):
        key = _storage(t) if sim_device(t) is None else 0
        return bool(key) and self.pending.get(key, 0) > self.done

    def _to_host(self, source, non_blocking=False):
        out = torch.Tensor.clone(source)
        if non_blocking:  # torch copies into pinned memory it allocates: queued, no wait
            self.pinned.add(_storage(out))
            self._queue(out)
        else:
            self.copies_to_host.append(self.clock())
        return out

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        inputs = list(_tensors_in(list(args) + list(kwargs.values())))
        devices = [sim_device(t) for t in inputs if sim_device(t) is not None]
        if func == torch.Tensor.device.__get__ and sim_device(args[0]) is not None:
            return sim_device(args[0])
        pending = [t for t in inputs if self._is_pending(t)]
        if func is torch.Tensor.copy_ and pending and pending[0] is args[0]:
            pending = pending[1:]  # writing into it again: not a read
        out = self._dispatch(func, args, kwargs, inputs, devices)
        if pending:
            read = func in _HOST_READS or any(
                _storage(t) not in {_storage(p) for p in pending} for t in _tensors_in(out)
            )
            self.unsynchronized_reads += read
        return out

    def _dispatch(self, func, args, kwargs, inputs, devices):
        if func is torch.Tensor.record_stream:  # the caching allocator's bookkeeping
            return None
        if func in (torch.Tensor.to, torch.Tensor.cuda, torch.Tensor.cpu):
            return self._move(func, args, kwargs)
        if func is torch.Tensor.is_pinned:
            return _storage(args[0]) in self.pinned
        if func is torch.Tensor.pin_memory:
            return self._pin(args[0], devices)
        if func is torch.Tensor.copy_ and self._copy_to_host(args, kwargs, devices):
            return func(*args, **kwargs)
        pinned = bool(kwargs.pop("pin_memory", False))
        if func in _HOST_READS:
            if devices:
                self.copies_to_host.append(self.clock())
            return func(*args, **kwargs)
        if func is torch.Tensor.__setitem__ and sim_device(args[0]) is None:
            self.copies_to_host.extend(self.clock() for t in inputs[1:] if sim_device(t) is not None)
            return func(*args, **kwargs)
        if func in (torch.tensor, torch.as_tensor) and devices:
            self.copies_to_host.extend(self.clock() for _ in devices)
            devices = []
        target = kwargs.get("device")
        if target is not None and torch.device(target).type in _SIMULATED_TYPES:
            kwargs["device"] = "cpu"
            devices = [full_device(target)]
        elif target is not None:
            devices = []
        out = func(*args, **kwargs)
        if devices:
            for t in _tensors_in(out):
                if sim_device(t) is None and not any(t is i for i in inputs):
                    t._sim_device = devices[0]
        if pinned and isinstance(out, torch.Tensor):
            self.pinned.add(_storage(out))
        return out

    def _pin(self, t, devices):
        """pin_memory(): a pinned copy of a host tensor (itself if pinned already)."""
        if devices:
            raise RuntimeError("cannot pin a device tensor: only dense CPU tensors can be pinned")
        if _storage(t) in self.pinned:
            return t
        out = torch.Tensor.clone(t)
        self.pinned.add(_storage(out))
        return out

    def _copy_to_host(self, args, kwargs, devices):
        """copy_(): note its non_blocking flag on a device target; True for a copy from the device into
        host memory, which is queued (non_blocking into pinned memory) or makes the host wait."""
        non_blocking = args[2] if len(args) > 2 else kwargs.get("non_blocking", False)
        if sim_device(args[0]) is not None or args[0].device.type != "cpu":
            args[0]._sim_non_blocking = bool(non_blocking)
            return False
        if not devices:
            return False
        if non_blocking and _storage(args[0]) in self.pinned:
            self._queue(args[0])
        else:  # blocking, or into pageable memory: the host waits
            self.copies_to_host.append(self.clock())
        return True

    def _move(self, func, args, kwargs):
        source = args[0]
        rest = list(args[1:])
        if func is torch.Tensor.cuda:
            target = rest.pop(0) if rest else kwargs.pop("device", None)
            non_blocking = rest.pop(0) if rest else kwargs.pop("non_blocking", False)
            if target is None or type(target) is int:
                target = torch.device("cuda", target or 0)
            target = torch.device(target)
            if target.type != "cuda":
                raise RuntimeError(f"Invalid device, must be cuda device, not {target}")
            dtype, copy = None, False
            memory_format = kwargs.pop("memory_format", torch.preserve_format)
        elif func is torch.Tensor.cpu:
            target, dtype, non_blocking = torch.device("cpu"), None, False
            copy, memory_format = (
                False,
                kwargs.pop("memory_format", torch.preserve_format),
            )
        elif rest and isinstance(rest[0], torch.Tensor):  # to(other, non_blocking, copy)
            other = rest.pop(0)
            target, dtype = device_of(other), other.dtype
            non_blocking = rest.pop(0) if rest else kwargs.pop("non_blocking", False)
            copy = rest.pop(0) if rest else kwargs.pop("copy", False)
            memory_format = kwargs.pop("memory_format", torch.preserve_format)
        else:  # to(dtype, non_blocking, copy) or to(device, dtype, non_blocking, copy)
            at = 2 if rest and isinstance(rest[0], torch.dtype) else 3
            copy = rest.pop(at) if len(rest) > at else kwargs.pop("copy", False)
            target, dtype, non_blocking, memory_format = torch._C._nn._parse_to(*rest, **kwargs)
            memory_format = memory_format or torch.preserve_format
        here = sim_device(source) or source.device
        dtype = dtype or source.dtype
        if target is None or full_device(target) == full_device(here) or target == here:
            out = torch.Tensor.to(source, dtype=dtype, copy=copy, memory_format=memory_format)
            if out is not source and sim_device(source) is not None:
                out._sim_device = sim_device(source)
        elif target.type in _SIMULATED_TYPES:
            out = torch.Tensor.to(source, dtype=dtype, copy=True, memory_format=memory_format)
            out._sim_device = full_device(target)
        elif sim_device(source) is not None and target.type == "cpu":
            out = self._to_host(
                torch.Tensor.to(source, dtype=dtype, memory_format=memory_format),
                non_blocking,
            )
        else:
            out = torch.Tensor.to(source, target, dtype, non_blocking, copy, memory_format=memory_format)
        if out is not source:
            out._sim_non_blocking = bool(non_blocking)
        return out


def device_of(t):
    return sim_device(t) or t.device


class VirtualTime:
    """A simulated clock and per-device queues, as torch 2.6 to 2.15 time them (no real sleeping).

    Replaces time.perf_counter/perf_counter_ns/monotonic, time.time/time_ns (a wall clock that NTP sets back
    by 1 s after its first read) and timeit.default_timer (so
    torch.utils.benchmark.Timer reads it too), torch.accelerator.synchronize (positional-only device, like
    the real one: an int, a str or a torch.device of the current accelerator's type, or the current device),
    torch.cuda/xpu/mps.synchronize (refused, as on a build without them, on another machine), torch.Event(device=,
    enable_timing=) and torch.cuda.Event(enable_timing=): record() queues a marker, synchronize() waits for it,
    query() asks, elapsed_time() needs enable_timing=True on both and a completed end, as on a real device;
    record(stream) records on that stream's device. torch.cuda/accelerator.current_stream(device) return a stream
    whose synchronize() waits for that device; torch.accelerator.device_index(i) and torch.cuda.device(i) make i
    the current device inside a with block. torch.device(i) names the machine's accelerator (see machine).
    """

    def __init__(self, kind, count):
        self.kind, self.count = kind, count
        self.now = 100.0
        self.reads = 0
        self.wall_reads = 0
        self.events = 0
        self.busy = collections.defaultdict(float)  # device -> when its queue runs dry
        self.machine, self.state = machine(kind, count)

    def clock(self):
        self.reads += 1
        self.now += 1e-6
        return self.now

    def wall_clock(self):
        """time.time(): the wall clock, which NTP may set back while a call runs (here by 1 s after its first read)."""
        self.wall_reads += 1
        return self.clock() - (1.0 if self.wall_reads > 1 else 0.0)

    def index_of(self, device, kind=None):
        kind = kind or self.kind
        if device is None:
            return self.state["index"]
        if isinstance(device, int):
            return device
        device = torch.device(device)
        if device.type != kind:
            raise ValueError(f"{device.type} doesn't match the current accelerator {kind}.")
        return self.state["index"] if device.index is None else device.index

    def wait(self, kind, index):
        self.now = max(self.now, self.busy[(kind, index)])

    def launch(self, device, seconds):
        """fn's work: on an accelerator, queued behind earlier work; on the CPU, done by the host."""
        self.now += 1e-5
        if device.type == "cpu":
            self.now += seconds
        else:
            key = (device.type, self.index_of(device, device.type))
            self.busy[key] = max(self.now, self.busy[key]) + seconds

    def _synchronize_fakes(self):
        """torch.accelerator.synchronize and the backends' own synchronize functions."""
        vt = self

        def accelerator_synchronize(device=None, /):
            if vt.count == 0:
                no_accelerator()
            vt.wait(vt.kind, vt.index_of(device))

        def backend_synchronize(kind):
            def synchronize(device=None):
                if vt.kind != kind or vt.count == 0:
                    raise AssertionError(f"Torch not compiled with {kind.upper()} enabled")
                vt.wait(kind, vt.index_of(device, kind))

            return synchronize

        def mps_synchronize():
            backend_synchronize("mps")(None)

        return {
            (torch.accelerator, "synchronize"): accelerator_synchronize,
            (torch.cuda, "synchronize"): backend_synchronize("cuda"),
            (torch.xpu, "synchronize"): backend_synchronize("xpu"),
            (torch.mps, "synchronize"): mps_synchronize,
        }

    def _stream_class(self):
        vt = self

        class Stream:
            """The current stream of one device: synchronize() waits for its queue."""

            def __init__(self, key):
                self.key = key
                self.device = torch.device(*key)

            def synchronize(self):
                vt.wait(*self.key)

        return Stream

    def _current_stream(self, Stream, kind):
        """torch.cuda.current_stream (kind "cuda") or torch.accelerator.current_stream (kind None)."""
        vt = self

        def current_stream(device=None):
            if kind is None and vt.count == 0:
                no_accelerator()
            if kind is not None and (vt.kind != kind or vt.count == 0):
                raise AssertionError(f"Torch not compiled with {kind.upper()} enabled")
            return Stream((vt.kind, vt.index_of(device)))

        return current_stream

    def _device_index(self, kind):
        """torch.cuda.device (kind "cuda") or torch.accelerator.device_index (kind None)."""
        vt = self

        @contextlib.contextmanager
        def device_index(device, /):
            if vt.count == 0 or (kind is not None and vt.kind != kind):
                raise RuntimeError(
                    f"the simulated machine has no {kind or 'accelerator'}: use torch.accelerator.synchronize(device)"
                )
            saved = vt.state["index"]
            if device is not None and device != -1:
                vt.state["index"] = vt.index_of(device)
            try:
                yield
            finally:
                vt.state["index"] = saved

        return device_index

    def _event_classes(self):
        """torch.Event and torch.cuda.Event, recording markers in the simulated queues."""
        vt = self

        class Event:
            def __init__(
                self,
                device=None,
                *,
                enable_timing=False,
                blocking=False,
                interprocess=False,
            ):
                if device is None and vt.count == 0:
                    no_accelerator()
                device = torch.device(vt.kind if device is None else device)
                self.key = (device.type, vt.index_of(device, device.type))
                self.enable_timing, self.at = enable_timing, None

            def record(self, stream=None):
                if self.key[0] == "cpu":
                    raise RuntimeError("cpu backend doesn't support events.")
                if stream is not None:  # the stream's own device
                    self.key = stream.key
                vt.now += 1e-6
                vt.events += 1
                self.at = max(vt.now, vt.busy[self.key])

            def synchronize(self):
                if self.at is not None:
                    vt.now = max(vt.now, self.at)

            def query(self):
                vt.now += 1e-4  # asking takes time too: a loop that polls ends
                return self.at is None or vt.now >= self.at

            def wait(self, stream=None):
                pass

            def elapsed_time(self, end):
                if not (self.enable_timing and end.enable_timing):
                    raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
                if self.at is None or end.at is None or vt.now < end.at:
                    raise RuntimeError("device not ready: the end event has not completed")
                return (end.at - self.at) * 1e3

        class CudaEvent(Event):
            def __init__(self, enable_timing=False, blocking=False, interprocess=False):
                if vt.kind != "cuda":
                    raise AssertionError("Torch not compiled with CUDA enabled")
                super().__init__("cuda", enable_timing=enable_timing)

        return Event, CudaEvent

    def _benchmark_defaults(self):
        """torch 2.6's benchmark.Timer chose its clock at import: its defaults, with this clock."""
        vt = self

        def benchmark_clock():
            if vt.kind == "cuda":
                torch.cuda.synchronize()
            return timeit.default_timer()

        init = _benchmark.Timer.__init__
        return tuple(benchmark_clock if d is timeit.default_timer else d for d in init.__defaults__)

    def fakes(self):
        """What this clock replaces in time, timeit and torch, for `patched`."""
        Stream, (Event, CudaEvent) = self._stream_class(), self._event_classes()
        fakes = dict(self.machine)
        fakes.update(
            {
                (time, "perf_counter"): self.clock,
                (time, "perf_counter_ns"): lambda: int(self.clock() * 1e9),
                (time, "monotonic"): self.clock,
                (time, "time"): self.wall_clock,
                (time, "time_ns"): lambda: int(self.wall_clock() * 1e9),
                (timeit, "default_timer"): self.clock,
                **self._synchronize_fakes(),
                (torch, "Event"): Event,
                (torch.cuda, "Event"): CudaEvent,
                (torch.cuda, "current_stream"): self._current_stream(Stream, "cuda"),
                (torch.cuda, "device"): self._device_index("cuda"),
                (torch.accelerator, "current_stream"): self._current_stream(Stream, None),
            }
        )
        if hasattr(torch.accelerator, "device_index"):  # torch 2.8 and later
            fakes[(torch.accelerator, "device_index")] = self._device_index(None)
        init = _benchmark.Timer.__init__
        if timeit.default_timer in init.__defaults__:  # torch 2.6 chose its clock at import
            fakes[(init, "__defaults__")] = self._benchmark_defaults()
        return fakes
