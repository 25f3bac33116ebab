"""The one harness every exercise checker runs a reader's answer through.

A checker is a function of the reader's answer that prints exactly one line: "✓ correct: ..." or
"✗ ...". The harness gives every checker the same guarantees:

- `checker` (a decorator): the check prints one line whatever the answer does, never raises, and
  leaves the notebook as it found it (global state is restored after the check, whatever happened).
- `call(answer, *args)`: runs the answer once, silencing what it prints, and turns a stub
  (`NotImplementedError`), an exception, or a change to global state the answer had no business
  making into the line that reports it. Global state is: the default device and dtype, grad and
  inference mode, anomaly detection, the torch (CPU and accelerator), NumPy and Python RNGs, the
  deterministic-algorithm flags and cuDNN flags, float32 matmul precision, the number of threads,
  the working directory, the environment variables and sys.path. An answer that calls sys.exit()
  gets a line too, not a notebook-stopping SystemExit. An exercise that must draw random numbers passes `allow={"rng"}` and checks
  the draws itself, against the reference.
- `ModelState`: what an answer could change on the caller's model (each parameter's object, values,
  dtype, device and flag; buffers; train/eval flags; hooks; each module's class and the methods and
  attributes set on the instance itself), with the first difference in words.
- `dtypes_for(device)`: the floating dtypes a family is drawn in (float32, float64 and bfloat16).

Wrong answers are reported, never raised: a reader gets one line that says what is wrong.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import os
import random
import sys
from collections.abc import Callable, Iterable

import torch
from torch import nn

try:  # NumPy is optional: torch runs without it.
    import numpy as np
except ImportError:  # pragma: no cover (NumPy is installed wherever the book runs)
    np = None

# Every deadline an answer gets (an endless loop is interrupted after it) is multiplied by this. The
# book's tests lower it: their endless-loop answers would otherwise burn the full deadline each.
DEADLINE_SCALE = 1.0
STUB = "✗ not solved yet: {} still raises NotImplementedError — replace its body with your answer."
FLOATS = (torch.float32, torch.float64, torch.bfloat16)


class Wrong(Exception):
    """Raised inside a checker to end the check with one "✗ ..." line."""


def _accelerator_rng() -> list[torch.Tensor]:
    if not torch.accelerator.is_available():
        return []
    kind = torch.accelerator.current_accelerator().type
    module = getattr(torch, kind, None)
    get_all = getattr(module, "get_rng_state_all", None)
    if get_all is not None:
        return list(get_all())
    get_one = getattr(module, "get_rng_state", None)
    return [get_one()] if get_one is not None else []


def _set_accelerator_rng(states: list[torch.Tensor]) -> None:
    if not states:
        return
    module = getattr(torch, torch.accelerator.current_accelerator().type)
    if hasattr(module, "set_rng_state_all"):
        module.set_rng_state_all(states)
    else:
        module.set_rng_state(states[0])


def _default_device() -> torch.device:
    """torch.get_default_device(), also on torch 2.6, where it raises AttributeError once a
    `with torch.device(...)` block has exited (the block leaves `device_context` set to None, which
    means no default device, so the CPU)."""
    try:
        return torch.get_default_device()
    except AttributeError:
        return torch.device("cpu")


def _plain_default_device() -> None:
    """Drop a default-device context that only names the CPU: it routes every later torch call through
    a Python DeviceContext (slow) and means no default device. A check may call it between answers; the
    harness restores the caller's own setting when the check ends."""
    if _default_device() == torch.device("cpu"):
        torch.set_default_device(None)


@contextlib.contextmanager
def caller_default_device(device: torch.device | str | None):
    """A family member run where the caller has set a default device (`device`, as after
    torch.set_default_device; "meta" on any machine), or, for None, as the caller has it; the previous
    setting is put back afterwards. `call` sees it as the caller's: an answer that sets "cpu" afterwards
    instead of putting it back changed it. Tensors an answer makes without device= land there."""
    if device is None:
        yield
        return
    saved = _default_device()
    torch.set_default_device(device)
    try:
        yield
    finally:
        torch.set_default_device(None if saved == torch.device("cpu") else saved)


def seed_verdict(draw: Callable[[int], torch.Tensor], name: str) -> str | None:
    """None if `draw(seed)` (weights an answer drew after torch.manual_seed(seed)) follows the seed: the
    same seed gives the same weights, another seed others; else the "✗ ..." line that says which."""
    first, again, other = draw(1), draw(1), draw(2)
    if not torch.equal(first, again):
        return (
            "✗ the same torch.manual_seed gave different weights: draw from the global generator (not "
            "one made once and reused), so that a seeded run is reproducible"
        )
    if torch.equal(first, other):
        return (
            "✗ two different torch.manual_seed values gave the same weights: draw from the global "
            f"generator, not one seeded inside {name}"
        )
    return None


# build -> (a model kept untouched, the CPU generator's state right after building it), or None where a copy is
# not the same model (deepcopy refuses it: a lazy module before its dry run, the old weight_norm's hook).
_BUILT: dict = {}


def built(build: Callable[[], nn.Module], seed: int = 0) -> nn.Module:
    """`build()` after seeding the CPU generator with `seed`, as a check needs it for every answer: the first call
    builds; later calls return a deep copy of that first model and leave the generator where the build left it.
    A copy keeps what a build makes (values, ties, hooks, parametrizations, flags) at a tenth of the cost, and a
    checker rebuilds its family for every answer. `build` must be deterministic (every zoo model is:
    tests/test_zoo_models.py); tests/test_harness.py compares copies with builds for the whole zoo. A build made
    under another default device or dtype (a caller's torch.set_default_device or set_default_dtype) is another
    model: they are part of the key."""
    key = (build, seed, _default_device(), torch.get_default_dtype())
    if _BUILT.get(key, False) is None:  # known not to copy faithfully
        torch.default_generator.manual_seed(seed)
        return build()
    if key in _BUILT:
        model, after = _BUILT[key]
        torch.default_generator.set_state(after)
        return copy.deepcopy(model)
    torch.default_generator.manual_seed(seed)
    model = build()
    after = torch.default_generator.get_state()
    if len(_BUILT) >= 256:  # builds made afresh for each check (closures) never come back: forget them
        _BUILT.clear()
    try:
        kept = copy.deepcopy(model)
    except Exception:  # noqa: BLE001 (deepcopy refuses a model: build it every time)
        kept = None
    # a copy whose modules hold other attributes than the build's (torch.compile's wrapper) is not the same model
    _BUILT[key] = (kept, after) if kept is not None and _layout(kept) == _layout(model) else None
    return model


def _layout(model: nn.Module) -> list:
    return [(type(m), sorted(vars(m))) for m in model.modules()]


def capture() -> dict:
    """The process-wide state an answer must leave alone, as plain values."""
    return {
        "default device": _default_device(),
        "default dtype": torch.get_default_dtype(),
        "grad mode": torch.is_grad_enabled(),
        "inference mode": torch.is_inference_mode_enabled(),
        "anomaly detection": torch.is_anomaly_enabled(),
        "torch RNG": torch.get_rng_state(),
        "accelerator RNG": _accelerator_rng(),
        "NumPy RNG": np.random.get_state() if np is not None else None,
        "Python RNG": random.getstate(),
        "deterministic algorithms": (
            torch.are_deterministic_algorithms_enabled(),
            torch.is_deterministic_algorithms_warn_only_enabled(),
        ),
        "cuDNN flags": (
            torch.backends.cudnn.enabled,
            torch.backends.cudnn.benchmark,
            torch.backends.cudnn.deterministic,
        ),
        "float32 matmul precision": torch.get_float32_matmul_precision(),
        "number of threads": torch.get_num_threads(),
        "working directory": os.getcwd(),
        "environment variables": dict(os.environ),
        "module search path (sys.path)": list(sys.path),
    }


RNG = ("torch RNG", "accelerator RNG", "NumPy RNG", "Python RNG")


def _same(a, b) -> bool:
    if type(a) is tuple and type(b) is tuple:
        try:  # the Python RNG state: 625 ints, compared at C speed
            return bool(a == b)
        except (RuntimeError, ValueError, TypeError):
            pass  # holds tensors or arrays: compared item by item below
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if np is not None and isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and np.array_equal(a, b)
    return a == b


def changed(before: dict, after: dict, allow: Iterable[str] = ()) -> list[str]:
    """Names of the global settings that differ; `allow={"rng"}` ignores the four RNGs."""
    skip = set(RNG) if "rng" in allow else set()
    skip |= set(allow)
    return [k for k in before if k not in skip and not _same(before[k], after[k])]


def restore(state: dict) -> None:
    """Put back every global setting that differs from what `capture()` saw.

    Only what changed is set again: `torch.use_deterministic_algorithms` imports TorchDynamo on its
    first call (seconds), and `set_default_device("cpu")` installs a device context that slows
    every later factory call, where the saved state (no default device) is equivalent."""
    now = capture()
    diff = set(changed(state, now))
    if "default device" in diff:
        saved = state["default device"]
        torch.set_default_device(None if saved == torch.device("cpu") else saved)
    if "default dtype" in diff:
        torch.set_default_dtype(state["default dtype"])
    if "grad mode" in diff:
        torch.set_grad_enabled(state["grad mode"])
    if "anomaly detection" in diff:
        torch.autograd.set_detect_anomaly(state["anomaly detection"])
    if "torch RNG" in diff:
        torch.set_rng_state(state["torch RNG"])
    if "accelerator RNG" in diff:
        _set_accelerator_rng(state["accelerator RNG"])
    if "NumPy RNG" in diff and np is not None:
        np.random.set_state(state["NumPy RNG"])
    if "Python RNG" in diff:
        random.setstate(state["Python RNG"])
    if "deterministic algorithms" in diff:
        enabled, warn_only = state["deterministic algorithms"]
        torch.use_deterministic_algorithms(enabled, warn_only=warn_only)
    if "cuDNN flags" in diff:
        (
            torch.backends.cudnn.enabled,
            torch.backends.cudnn.benchmark,
            torch.backends.cudnn.deterministic,
        ) = state["cuDNN flags"]
    if "float32 matmul precision" in diff:
        torch.set_float32_matmul_precision(state["float32 matmul precision"])
    if "number of threads" in diff:
        torch.set_num_threads(state["number of threads"])
    if "working directory" in diff:
        os.chdir(state["working directory"])
    if "environment variables" in diff:
        saved = state["environment variables"]
        for name in set(os.environ) - saved.keys():
            del os.environ[name]
        for name, value in saved.items():
            if os.environ.get(name) != value:
                os.environ[name] = value
    if "module search path (sys.path)" in diff:
        sys.path[:] = state["module search path (sys.path)"]


def _is_stub(error: NotImplementedError) -> bool:
    """True for the page's stub, a bare `raise NotImplementedError` in the reader's code; false for one
    with a message (an operator a backend lacks, a module without forward) or raised inside torch."""
    if str(error):
        return False
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = os.path.realpath(tb.tb_frame.f_code.co_filename) if tb is not None else ""
    return not where.startswith(_TORCH_DIR)


_TORCH_DIR = os.path.dirname(os.path.realpath(torch.__file__)) + os.sep


def call(
    answer: Callable,
    *args,
    allow: Iterable[str] = (),
    deadline: float | None = 10.0,
    **kwargs,
):
    """Run the reader's answer once: (result, None), or (None, the "✗ ..." line that reports it).

    An answer still running after `deadline` seconds (an endless loop) is interrupted where the
    platform allows it (see `_deadline`). What the answer prints is silenced. Inference mode is not a global an answer can leave on (a
    context manager), so a leak there is a `with` that escaped, reported like the others."""
    deadline = None if deadline is None else deadline * DEADLINE_SCALE
    before = capture()
    try:
        with (
            contextlib.redirect_stdout(io.StringIO()),
            contextlib.redirect_stderr(io.StringIO()),
            _deadline(deadline),
        ):
            result = answer(*args, **kwargs)
    except _Overtime:
        restore(before)
        if deadline is None:
            raise  # attempt()'s own deadline, reported there
        name = getattr(answer, "__name__", "your function")
        return None, f"✗ {name} did not return within {deadline:g} s: an endless loop?"
    except NotImplementedError as error:
        restore(before)
        if _is_stub(error):
            return None, STUB.format(getattr(answer, "__name__", "your function"))
        return None, f"✗ it raised NotImplementedError: {_first_line(error)}"
    except Exception as error:  # noqa: BLE001 (the reader's error is reported, not raised)
        restore(before)
        return None, f"✗ it raised {type(error).__name__}: {_first_line(error)}"
    except SystemExit as error:
        restore(before)
        return None, _EXITED.format(error.code)
    leaks = changed(before, capture(), allow)
    restore(before)
    if leaks:
        name = getattr(answer, "__name__", "your function")
        return None, (
            f"✗ {name} changed global state that the caller owns: {', '.join(leaks)}; "
            "leave process-wide settings as you found them (use a context manager or a local generator)"
        )
    return result, None


_EXITED = (
    "✗ it called sys.exit({!r}) (raised SystemExit), which would stop the whole program: "
    "return a value or raise an exception instead"
)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else "(no message)"


def checker(check: Callable) -> Callable:
    """Make `check(answer)` print one line and restore global state, whatever the answer does.

    Inside a check, `raise Wrong("...")` ends it with that line (a "✗ " is added if missing), and a
    returned string is printed as the verdict; returning None prints nothing more (the check printed)."""

    @functools.wraps(check)
    def guarded(answer, *args, **kwargs):
        before = capture()
        try:
            line = check(answer, *args, **kwargs)
        except Wrong as wrong:
            line = str(wrong)
            line = line if line.startswith("✗") else f"✗ {line}"
        except Exception as error:  # noqa: BLE001 (any failure is the answer's, in one line)
            line = f"✗ your answer made the check fail with {type(error).__name__}: {_first_line(error)}"
        except SystemExit as error:  # an answer's sys.exit() outside call(): still one line
            line = _EXITED.format(error.code)
        finally:
            restore(before)
        if line is not None:
            print(line)

    return guarded


def _hooks(module: nn.Module) -> tuple:
    names = (
        "_forward_hooks",
        "_forward_pre_hooks",
        "_backward_hooks",
        "_backward_pre_hooks",
        "_state_dict_hooks",
        "_state_dict_pre_hooks",
        "_load_state_dict_pre_hooks",
        "_load_state_dict_post_hooks",
    )
    return tuple(len(getattr(module, n, {})) for n in names)


class ModelState:
    """What an answer could change on a caller's model, for comparing before and after."""

    def __init__(self, model: nn.Module):
        self.params = [(n, p, p.requires_grad, _copy(p)) for n, p in model.named_parameters(remove_duplicate=False)]
        self.buffers = [(n, b, _copy(b)) for n, b in model.named_buffers(remove_duplicate=False)]
        self.training = [(n, m.training) for n, m in model.named_modules()]
        self.hooks = [(n, _hooks(m)) for n, m in model.named_modules()]
        self.grads = [
            (n, None if p.grad is None else _copy(p.grad)) for n, p in model.named_parameters(remove_duplicate=False)
        ]
        self.attributes = [(n, type(m), dict(_own_attributes(m))) for n, m in model.named_modules()]

    def difference(self, other: ModelState, same_objects: bool = True) -> str | None:
        """The first way `other` (the model now) differs from this state, in words, or None."""
        names = [n for n, *_ in self.params]
        if names != [n for n, *_ in other.params]:
            return f"changed which parameters the model has (now {[n for n, *_ in other.params]})"
        for (name, p, flag, value), (_, q, new_flag, new_value) in zip(self.params, other.params):
            if same_objects and p is not q:
                return f"replaced the Parameter `{name}` with a new object"
            if flag != new_flag:
                return f"set requires_grad={new_flag} on `{name}`"
            if not _equal(value, new_value):
                return f"changed the values of `{name}`"
        if [n for n, *_ in self.buffers] != [n for n, *_ in other.buffers]:
            return "changed which buffers the model has"
        for (name, b, value), (_, c, new_value) in zip(self.buffers, other.buffers):
            if same_objects and b is not c:
                return f"replaced the buffer `{name}`"
            if not _equal(value, new_value):
                return f"changed the buffer `{name}`"
        if self.training != other.training:
            return "changed train()/eval() mode"
        if self.hooks != other.hooks:
            return "added or removed hooks on the model"
        for (name, grad), (_, new_grad) in zip(self.grads, other.grads):
            if (grad is None) != (new_grad is None) or (grad is not None and not _equal(grad, new_grad)):
                return f"changed the gradient of `{name}`"
        return _patched(self.attributes, other.attributes)


_MODULE_INTERNALS = frozenset(vars(nn.Module()))


def _own_attributes(module: nn.Module):
    """(name, value) of what the instance itself holds beyond nn.Module's tables: plain attributes, and
    methods assigned on the instance (`module.forward = ...`), which a later forward, train() or save runs."""
    return ((k, v) for k, v in vars(module).items() if k not in _MODULE_INTERNALS)


def _legitimate_class_change(old: type, new: type) -> bool:
    """A lazy module that became its `cls_to_become`, or a parametrized layer's injected subclass."""
    lazy = issubclass(old, nn.modules.lazy.LazyModuleMixin) and new is getattr(old, "cls_to_become", None)
    return lazy or (new.__bases__ == (old,) and new.__name__ == f"Parametrized{old.__name__}")


def _patched(before: list, after: list) -> str | None:
    """The first method patched, or attribute added, on one of the caller's module instances, in words."""
    for (path, old_type, old), (_, new_type, new) in zip(before, after):
        where = f"`{path}`" if path else "the model"
        if old_type is not new_type and not _legitimate_class_change(old_type, new_type):
            return f"changed the class of {where} to {new_type.__name__} on the instance"
        for key, value in new.items():
            if key not in old:
                kind = "method" if callable(value) else "attribute"
                return f"added the {kind} `{key}` to {where} on the instance (a later train(), forward or save sees it)"
            if value is not old[key] and (callable(value) or callable(old[key])):
                return (
                    f"replaced the method `{key}` of {where} on the instance (a later train(), forward or save "
                    "runs the replacement)"
                )
    return None


def _copy(t: torch.Tensor):
    """A comparable copy of a tensor's values (meta and lazy tensors: their metadata only)."""
    if isinstance(t, nn.parameter.UninitializedTensorMixin):
        return ("uninitialized", type(t).__name__)
    if t.device.type == "meta":
        return ("meta", t.dtype, tuple(t.shape))
    if t.layout != torch.strided:
        return t.detach().clone()
    return t.detach().to("cpu", copy=True)


def _equal(a, b) -> bool:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.dtype != b.dtype or a.shape != b.shape or a.layout != b.layout:
            return False
        if a.layout != torch.strided:
            return torch.equal(a.to_dense(), b.to_dense())
        return torch.equal(a, b) or bool(  # NaN in the same places counts as unchanged
            torch.isnan(a).equal(torch.isnan(b)) and torch.equal(a.nan_to_num(0.0), b.nan_to_num(0.0))
        )
    return a == b


def dtypes_for(device: torch.device | str) -> tuple[torch.dtype, ...]:
    """The floating dtypes a family is drawn in on `device` (MPS has no float64)."""
    if torch.device(device).type == "mps":
        return (torch.float32, torch.bfloat16)
    return FLOATS


# --------------------------------------------------------------------------------------------------
# Added for the checkers of chapters 5 to 8: a check that words its hint after the answer's own
# exception (its type or message), and a deadline for answers that may loop forever.


REPEAT = 0.05  # seconds between two interruptions of an answer past its deadline


class _Overtime(BaseException):
    """Raised into an answer that ran past its deadline (a BaseException: `except Exception` in
    the answer does not swallow it)."""


@contextlib.contextmanager
def _deadline(seconds: float | None):
    """Interrupt the block after `seconds` (SIGALRM, main thread of a POSIX process; elsewhere a
    no-op), and again every REPEAT seconds until it ends: an answer whose loop swallows the first
    interruption (a bare `except:`) is interrupted again, between two statements of its loop. A
    timer already armed, such as pytest-timeout's, is re-armed afterwards."""
    import signal
    import threading
    import time

    usable = (
        seconds is not None and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return

    ended = []

    def overtime(signum, frame):
        if not ended:  # once the block is over, a late tick is ignored
            raise _Overtime

    start = time.monotonic()
    previous = signal.signal(signal.SIGALRM, overtime)
    armed, _ = signal.setitimer(signal.ITIMER_REAL, seconds, REPEAT)
    try:
        yield
    finally:
        ended.append(True)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if armed:
            left = armed - (time.monotonic() - start)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3))


def attempt(
    answer: Callable,
    *args,
    allow: Iterable[str] = (),
    seconds: float | None = 10.0,
    **kwargs,
):
    """`call` for a check that needs the answer's own exception: (result, None) when the answer
    returned, (None, the exception) when it raised one.

    As with `call`, what it prints is silenced and a stub or a change to global state ends the
    check (raised as `Wrong`, with `call`'s line); so does running past `seconds` (an endless
    loop), where a deadline can be kept. Warnings the answer triggers are silenced too: a notebook
    shows them on stderr, which `call` silences anyway, and `-W error` must not turn them into
    exceptions the notebook never sees."""
    import warnings

    raised: list[BaseException] = []
    seconds = None if seconds is None else seconds * DEADLINE_SCALE

    @functools.wraps(answer, updated=())
    def catching(*args, **kwargs):
        try:
            # The deadline counts the answer's own time, not capture() or restore()'s.
            with warnings.catch_warnings(), _deadline(seconds):
                warnings.simplefilter("ignore")
                return answer(*args, **kwargs)
        except NotImplementedError as error:
            if _is_stub(error):
                raise
            raised.append(error)
            return None
        except Exception as error:  # noqa: BLE001 (returned to the check, which words it)
            raised.append(error)
            return None

    try:
        result, line = call(catching, *args, allow=allow, deadline=None, **kwargs)
    except _Overtime:
        name = getattr(answer, "__name__", "your function")
        raise Wrong(f"✗ {name} did not return within {seconds:g} s: an endless loop?") from None
    if line is not None:
        raise Wrong(line)
    return (None, raised[0]) if raised else (result, None)
