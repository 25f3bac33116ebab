"""ddp_check: what DistributedDataParallel does with a model's state, observed on real ranks.

From the book "Inside nn.Module", chapter 7 (07_buffers_and_ddp.ipynb), the run that the chapter's
experiments make, on the reader's own model:

    report = check_ddp("my_model.py:build", "my_model.py:make_inputs")   # or functions defined in a file
    print(report)                                 # inspect_module's table, most severe first
    reports = check_ddp_many([(build_a, inputs_a), (build_b, inputs_b, loss_b)])  # ranks started once

    inside-nn ddp my_model.py:build --inputs my_model.py:make_inputs [--ranks 2] [--steps 3]

Every finding comes from what the ranks did, not from reading the model's source.

* The ranks are the book's launcher (inside_nn.launch: torchrun --standalone in a session of its own, gloo on
  the CPU, a watchdog on every rank, SIGTERM then SIGKILL on a failure, a timeout or Ctrl-C). One job runs
  every model of a `check_ddp_many` call, so a test of many models starts the ranks once. The functions travel
  as FILE.py:function (or inside_nn.module:function) and are imported on each rank.
* On every rank, per model: `torch.manual_seed(rank)` (each rank differently, as an unseeded script is: DDP's
  constructor copies rank 0's parameters and buffers, so what still differs is what DDP never sees), then
  `build()`, `make_inputs(rank)`, DistributedDataParallel on a process group of the model's own with
  find_unused_parameters=True (so that a parameter without a gradient is recorded instead of stopping the run),
  `steps` SGD steps, and one forward in eval mode under no_grad. The loss is `loss(output, inputs)`, or the
  sum of the means of every floating tensor the output holds (tensors, tuples, lists, dicts, dataclasses).
* Each tensor of the model's state (parameters, buffers, tensors held by plain attributes or in the lists,
  dicts and objects they hold) and each Python number plain attributes hold is digested after the
  constructor, at the start of each forward (a forward pre-hook on the inner module: after DDP's buffer
  sync), after the last step and after the eval forward; what DDP was told to ignore
  (`_ddp_params_and_buffers_to_ignore`) is told apart. That pre-hook also records whether DDP synced and the
  bytes of the buffers it holds then (it re-reads them before each sync), and from it to the inner forward's
  end the calls of torch.distributed's collectives are recorded (the functions are wrapped on each rank). A
  hook on each parameter records whether it received a gradient on this rank in each step.
* Then one more step, and rank 0 alone runs an eval forward through the wrapper, the usual validation on rank
  0, in a thread, while the others wait: a forward still running after LONE_TIMEOUT_S (or ten times the eval
  forward, if longer) is blocked in a collective no other rank joins (the buffer sync, or one the forward
  calls): it "hangs". The ranks tell each other so on a group of their own, and the others then run the
  same forward, which joins the collective and frees rank 0.
* After each call of the reader's code (build, make_inputs, forward and loss) the ranks exchange their
  outcome on the default group, so a rank's exception ends that model on every rank before any collective
  waits for it: `RankError("rank 1: ValueError: ...")`, in the list `check_ddp_many` returns, raised by
  `check_ddp`, one line from the command.
* The ranks return their digests and records; the caller compares them and writes the findings.
  tests/test_ddp_check.py runs the zoo, planted defects and chapter 7's asker's model.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import time
from datetime import timedelta

import torch
from torch import nn

from inside_nn.report import BOOK, Finding, Report

__all__ = ["SECTIONS", "DDPReport", "RankError", "check_ddp", "check_ddp_many"]

PAGE = "notebooks/07_buffers_and_ddp.html"
# Where chapter 7 explains each kind of finding (page and section anchor, relative to BOOK).
SECTIONS = {
    "plain attribute": f"{PAGE}#ddp-table",
    "late buffer": f"{PAGE}#ddp-limits",
    "buffer": f"{PAGE}#ddp-rank-local",
    "buffer sync": f"{PAGE}#ddp-bytes",
    "diverged parameter": f"{PAGE}#ddp-join",
    "unused parameter": f"{PAGE}#ddp-join",
    "rank-dependent parameter": f"{PAGE}#ddp-join",
    "lone forward": f"{PAGE}#ddp-hang",
    "collective in forward": f"{PAGE}#ddp-hang",
    "ignored by DDP": f"{PAGE}#ddp-private",
}
LONE_TIMEOUT_S = 1.0  # rank 0's lone forward still running after this (at least) is waiting in a collective
LEARNING_RATE = 1e-3


class RankError(Exception):
    """A rank could not run the reader's code: the message names the rank and the exception, on one line."""


# --- The targets: what travels to the ranks -----------------------------------------------------------------


def _is_file(where: str) -> bool:
    """A target's part before the colon names a file (else a module, such as inside_nn.zoo)."""
    return where.endswith(".py") or "/" in where or os.sep in where


def _target(obj) -> list | None:
    """A function as [spec, args] for the ranks: spec is FILE.py:function or inside_nn.module:function."""
    if obj is None:
        return None
    if isinstance(obj, str):  # a file's path made absolute: the ranks run in a folder of their own
        where, _, name = obj.rpartition(":")
        return [f"{os.path.abspath(where)}:{name}" if _is_file(where) else obj, []]
    if isinstance(obj, functools.partial) and not obj.keywords:
        spec, args = _target(obj.func)
        return [spec, [*args, *obj.args]]
    module = inspect.getmodule(obj)
    name = getattr(obj, "__qualname__", "")
    if module is None or not name.isidentifier() or getattr(module, name, None) is not obj:
        raise TypeError(f"{obj!r}: pass FILE.py:function, or a function defined at the top of a file")
    if module.__name__.startswith("inside_nn."):
        return [f"{module.__name__}:{name}", []]
    if not getattr(module, "__file__", None):
        raise TypeError(f"{obj!r} is defined in {module.__name__}, which has no file: pass FILE.py:function")
    return [f"{os.path.abspath(module.__file__)}:{name}", []]


# --- The report ---------------------------------------------------------------------------------------------


class DDPReport(Report):
    """inspect_module's Report for a DDP run: the findings, most severe first, plus what the ranks did.

    ranks, steps: the run. buffers: the buffers DDP held when it was built. sync_bytes: on rank 0, one entry
    per forward (the steps, then the eval forward): the bytes DDP broadcast before it, or None where it did not
    sync; syncs: whether it synced; buffer_bytes: the bytes of the last sync (0 without one). lone_forward:
    "hangs", "does not hang", or what rank 0's lone forward raised otherwise; lone_in: where it hung, "buffer
    sync" or the forward's own collective (such as "all_reduce")."""

    subject = "ddp_check"
    whole = "(model)"

    def __init__(self, name: str, findings: list[Finding], **facts):
        super().__init__(name, findings, facts.get("buffers", []))
        self.ranks = facts.get("ranks", 2)
        self.steps = facts.get("steps", 0)
        self.sync_bytes = facts.get("sync_bytes", [])
        self.buffer_bytes = next((n for n in reversed(self.sync_bytes) if n is not None), 0)
        self.syncs = facts.get("syncs", [])
        self.lone_forward = facts.get("lone_forward")
        self.lone_in = facts.get("lone_in")

    def closing(self) -> list[str]:
        """What the run was, and what rank 0's lone forward did when it did not hang."""
        sentence = (
            f"Observed on {self.ranks} ranks (gloo, CPU): {self.steps} SGD steps through "
            "DistributedDataParallel(find_unused_parameters=True), one eval forward, then rank 0 alone "
            "ran an eval forward through the wrapper"
        )
        if self.lone_forward == "does not hang":
            sentence += ", which finished: this eval forward starts no collective"
        return [sentence + "."]

    __str__ = Report.__str__
    __repr__ = __str__


def _names(paths: list[str], limit: int = 3) -> str:
    shown = ", ".join(paths[:limit])
    return shown + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


def _ranks_text(ranks: list[int]) -> str:
    return f"rank{'s' if len(ranks) > 1 else ''} {', '.join(map(str, ranks))}"


def _differing(results: list[dict], label: str) -> dict[str, list[int]]:
    """path -> the ranks whose digest at `label` differs from rank 0's (a path missing on a rank differs)."""
    base = results[0]["digests"].get(label)
    if base is None:
        return {}
    found = {}
    for path in sorted(set().union(*(r["digests"].get(label, {}) for r in results))):
        ranks = [r for r, result in enumerate(results) if result["digests"].get(label, {}).get(path) != base.get(path)]
        if ranks:
            found[path] = ranks
    return found


def _divergence(results: list[dict], steps: int) -> tuple[dict, dict, dict]:
    """Three maps path -> (label, ranks): differing after a sync (at the start of a forward after the first
    step, or of the eval forward), differing after the constructor, and differing after a forward."""
    synced = [f"step {k}" for k in range(2, steps + 1)] + ["eval"]
    kept, initial, after = {}, {}, {}
    for labels, into in ((synced, kept), (["wrap"], initial), (["after steps", "after eval"], after)):
        for label in labels:
            for path, ranks in _differing(results, label).items():
                into.setdefault(path, (label, ranks))
    return kept, initial, after


def _kind_of(results: list[dict], path: str) -> str:
    for result in results:
        if path in result["kinds"]:
            return result["kinds"][path]
    return "plain"


def _group(paths: list[str], key) -> dict[str, list[str]]:
    """paths grouped by key(path), in order."""
    groups: dict[str, list[str]] = {}
    for path in paths:
        groups.setdefault(key(path), []).append(path)
    return groups


def _attribute(path: str) -> str:
    """The plain attribute a path starts from: `experts[0].w1.weight` -> `experts`."""
    return path.partition("[")[0]


def _owner(path: str) -> str:
    """The module a parameter belongs to: `head.weight` -> `head`."""
    return path.rpartition(".")[0]


def _grouped_path(paths: list[str], owner: str) -> str:
    """One path for a finding about several tensors: `head (weight, bias)`, or the tensor's own path."""
    if len(paths) == 1:
        return paths[0]
    cut = len(owner) + 1 if owner and all(p.startswith(owner + ".") for p in paths) else 0
    return f"{owner} ({_names([p[cut:] for p in paths], 4)})" if cut else _names(paths, 4)


def _kept_message(kind: str, paths: list[str], where: str) -> tuple[str, str, str]:
    """severity, finding kind and message for state of one kind that differs after a sync."""
    many = len(paths) > 1
    if kind == "extra number":
        return (
            "error",
            "plain attribute",
            (
                "the Python numbers held by a plain attribute of a module with get_extra_state, which DDP does "
                f"not see: {where}. Each rank keeps its own and the checkpoint saved from rank 0 holds rank 0's; "
                "all_reduce the update if every rank should hold the same"
            ),
        )
    if kind in ("plain", "number"):
        held = f"the tensor{'s' if many else ''}" if kind == "plain" else f"the Python number{'s' if many else ''}"
        return (
            "error",
            "plain attribute",
            (
                f"{held} held by a plain attribute, which DDP does not see: {where}. Each rank keeps its own value "
                "and a checkpoint has none; register it as a buffer (DDP then copies rank 0's at each synced "
                "forward), or all_reduce its update if it should hold every rank's data"
            ),
        )
    if kind == "late buffer":
        return (
            "error",
            "late buffer",
            (
                "a buffer registered after DistributedDataParallel was built, in a model that had no buffer "
                f"then, so DDP never syncs it: {where}. Register it in __init__"
            ),
        )
    if kind == "buffer":
        return "error", "buffer", f"a buffer that DDP should sync at each forward, yet {where}"
    if kind == "frozen parameter":
        return (
            "warning",
            "diverged parameter",
            (
                f"a parameter with requires_grad=False, which DDP's reducer leaves out: {where}. DDP copies rank "
                "0's in its constructor (and Join, from the last rank to join, when it ends); in between each rank keeps its own, and the "
                "checkpoint saved from rank 0 holds rank 0's. Register it as a buffer if every rank should use "
                "rank 0's, or all_reduce its update"
            ),
        )
    return (
        "error",
        "diverged parameter",
        (
            f"a parameter that DDP keeps equal by averaging gradients, yet {where}: the ranks no longer train the "
            "same model. An update outside the optimizer (in forward, in place) is the usual cause"
        ),
    )


def _since(label: str, initial: bool) -> str:
    if initial:
        return "from the start (each rank built its own: DDP's constructor did not copy it)"
    return f"at the start of {'the eval forward' if label == 'eval' else label} (after DDP's sync)"


def _where(ranks: list[int], since: str) -> str:
    return f"{_ranks_text(ranks)} differ{'s' if len(ranks) == 1 else ''} from rank 0 {since}"


_AFTER = {"after steps": "after the steps", "after eval": "after the eval forward"}


def _state_findings(results: list[dict], steps: int) -> list[Finding]:
    """A finding for the state that differs between ranks where DDP should have made it equal, or that DDP
    never sees (one per plain attribute, per module's parameters); a warning for a late buffer that DDP synced
    all the same; a note for what DDP was told to ignore."""
    kept, initial, after = _divergence(results, steps)
    findings = []
    by_kind = _group(list(kept), lambda path: _kind_of(results, path))
    for kind, paths in by_kind.items():
        if kind.startswith("ignored"):
            continue
        key = _attribute if kind in ("plain", "number", "extra number") else _owner
        for owner, group in _group(paths, key).items():
            label, ranks = kept[group[0]]
            severity, finding_kind, message = _kept_message(
                kind, group, _where(ranks, _since(label, group[0] in initial))
            )
            findings.append(_finding(severity, finding_kind, _grouped_path(group, owner), message))
    late = sorted({p for r in results for p, k in r["kinds"].items() if k == "late buffer"} - kept.keys())
    for path in late:
        message = (
            "a buffer registered after DistributedDataParallel was built: DDP syncs it only because the model "
            "had another buffer at construction (it re-reads the buffers at each sync). Register it in __init__"
        )
        findings.append(_finding("warning", "late buffer", path, message))
    ignored = [p for p in {**after, **kept} if _kind_of(results, p).startswith("ignored")]
    for owner, group in _group(sorted(ignored), _owner).items():
        label, ranks = kept.get(group[0]) or after[group[0]]
        since = _since(label, group[0] in initial) if group[0] in kept else _AFTER[label]
        message = (
            "ignored by DDP on purpose (_ddp_params_and_buffers_to_ignore): each rank keeps its own; the "
            f"checkpoint saved from rank 0 holds rank 0's. Here {_where(ranks, since)}"
        )
        findings.append(_finding("note", "ignored by DDP", _grouped_path(group, owner), message))
    return findings


def _sizes_text(sizes: list) -> str:
    """`1 buffer (24 bytes)`, or what changed: `1 buffer (8 bytes) at forward 1, 2 buffers (24 bytes) at
    forwards 2-4`."""
    runs: list[list] = []  # [count, bytes, first forward, last forward]
    for number, size in enumerate(sizes, 1):
        if size is None:
            continue
        if runs and runs[-1][:2] == size:
            runs[-1][3] = number
        else:
            runs.append([*size, number, number])
    texts = [f"{count} buffer{'s' if count != 1 else ''} ({_bytes(nbytes)})" for count, nbytes, _, _ in runs]
    if len(runs) == 1:
        return texts[0]
    spans = [f"forward {a}" if a == b else f"forwards {a}-{b}" for _, _, a, b in runs]
    return ", ".join(f"{text} at {span}" for text, span in zip(texts, spans, strict=True))


def _buffer_findings(results: list[dict], steps: int) -> list[Finding]:
    """The note on the buffers DDP broadcast at each synced forward, and on those each rank updates."""
    first = results[0]
    syncs, sizes = first["syncs"], first["sync_sizes"]
    if not any(syncs):
        return []
    kept, _, after = _divergence(results, steps)
    local = [p for p in after if p not in kept and _kind_of(results, p) in ("buffer", "late buffer")]
    changed = len({tuple(s) for s in sizes if s is not None}) > 1
    message = (
        f"DDP broadcast rank 0's {'buffers' if changed else _sizes_text(sizes)} at {sum(syncs)} of {len(syncs)} "
        f"forwards{': ' + _sizes_text(sizes) + ' (it re-reads them at each sync)' if changed else ''}. It syncs "
        "the first forward and each one after a forward with gradients outside no_sync(), so every training step "
        "sends them once more. forward_sync_buffers=False (torch 2.13) stops these and keeps the constructor's "
        "copy; broadcast_buffers=False (deprecated in 2.13) skips that copy too"
    )
    if local:
        message += (
            f". The forward updates {_names(local)} on each rank, so between syncs each rank holds its own "
            "value, and after a sync rank 0's: a statistic over rank 0's data plus each rank's latest step, not "
            "over every rank's (all_reduce the update, or use SyncBatchNorm, if it should)"
        )
    return [_finding("note", "buffer sync", "", message)]


_EXPECTED = "'Expected to have finished reduction in the prior iteration before starting a new one'"


def _gradient_message(used: list[list[bool]], many: bool, short: list[int]) -> tuple[str, str]:
    """The finding kind and message for parameters with this record of gradients (per rank, per step); `short`:
    the ranks that missed any parameter's gradient in some step (those raise without find_unused_parameters)."""
    them, s = ("them", "s") if many else ("it", "")
    missing = [rank for rank, steps in enumerate(used) if not all(steps)]
    got = [rank for rank, steps in enumerate(used) if any(steps)]
    if not got:
        return "unused parameter", (
            "received no gradient in any step on any rank. Without find_unused_parameters=True, DDP waits for "
            f"{'their' if many else 'its'} gradient{s} and every rank raises {_EXPECTED} at the next step. "
            f"Freeze {them} (requires_grad_(False)) before wrapping, or remove {them}"
        )
    complete = [rank for rank in range(len(used)) if rank not in short]
    raising = "every rank raises" if not complete else f"{_ranks_text(short)} raise{'s' if len(short) == 1 else ''}"
    without = (
        f"Without find_unused_parameters=True, DDP waits for {'their' if many else 'its'} gradient{s}: "
        f"{raising} {_EXPECTED} at the next step"
        + (f", and {_ranks_text(complete)} wait{'s' if len(complete) == 1 else ''} in backward" if complete else "")
        + ". With it (as here) DDP all-reduces which parameters each rank used and averages the gradients over "
        "every rank, zero where unused, at the cost of a graph traversal per step: the setting for conditional "
        "computation (mixture of experts)"
    )
    if not set(got) & set(missing):  # some ranks every step, the others never
        return "rank-dependent parameter", (
            f"received a gradient on {_ranks_text(got)} only, every step: the ranks run different modules. {without}"
        )
    steps_without = sorted({k + 1 for steps in used for k, ok in enumerate(steps) if not ok})
    return "unused parameter", (
        f"received no gradient on {_ranks_text(missing)} in step{'s' if len(steps_without) > 1 else ''} "
        f"{', '.join(map(str, steps_without))} (a data-dependent path, such as a router that sends no token to "
        f"an expert). {without}"
    )


def _gradient_findings(results: list[dict]) -> list[Finding]:
    """Parameters that received no gradient on some rank in some step, as the ranks recorded it: one finding
    per module and record."""
    missing = {}
    for path in results[0]["used"]:
        used = [result["used"].get(path, []) for result in results]
        if not all(all(steps) for steps in used):
            missing[path] = used
    short = sorted({rank for used in missing.values() for rank, steps in enumerate(used) if not all(steps)})
    findings = []
    for owner, paths in _group(list(missing), _owner).items():
        for group in _group(paths, lambda path: json.dumps(missing[path])).values():
            kind, message = _gradient_message(missing[group[0]], len(group) > 1, short)
            findings.append(_finding("warning", kind, _grouped_path(group, owner), message))
    return findings


def _collective_findings(results: list[dict]) -> list[Finding]:
    """A warning when the model's forward itself called collectives (torch.distributed's functions)."""
    modes: dict[str, set] = {}
    for result in results:
        for mode, calls in result["collectives"]:
            if calls:
                modes.setdefault(mode, set()).update(calls)
    if not modes:
        return []
    names = _names(sorted(set().union(*modes.values())))
    message = (
        f"the model's forward itself calls collectives ({names} in {' and '.join(sorted(modes, reverse=True))} "
        "forwards): every rank must run the same number of those forwards, in the same order, or the ranks hang; "
        "a forward on one rank alone waits in it"
    )
    return [_finding("warning", "collective in forward", "", message)]


def _lone_findings(result: dict) -> list[Finding]:
    outcome, where = result["lone"], result.get("lone_in")
    if outcome == "does not hang":
        return []
    if outcome == "hangs" and where != "buffer sync":
        message = (
            f"a forward through the DDP wrapper on rank 0 alone hangs: the forward itself starts a collective "
            f"({where}) that no other rank joins, until the process group's timeout (minutes by default), through "
            "ddp_model.module too. Run such forwards on every rank"
        )
    elif outcome == "hangs":
        message = (
            "a forward through the DDP wrapper on rank 0 alone right after training (the usual validation) hangs: "
            "it starts the buffer sync, a collective no other rank joins, until the process group's timeout "
            "(minutes by default); a second eval forward would not, but the first does. Evaluate "
            "ddp_model.module on one rank, or run the forward on every rank"
        )
    else:
        message = f"a forward through the DDP wrapper on rank 0 alone raised {outcome}"
    return [_finding("warning", "lone forward", "", message)]


def _finding(severity: str, kind: str, path: str, message: str) -> Finding:
    return Finding(severity, kind, path, message, BOOK + SECTIONS[kind])


def _bytes(n: int) -> str:
    return f"{n} bytes" if n < 2**10 else f"{n / 2**10:.1f} KiB" if n < 2**20 else f"{n / 2**20:.1f} MiB"


def report_of(name: str, results: list[dict], steps: int) -> DDPReport:
    """The report on one model from every rank's records (in rank order)."""
    findings = _state_findings(results, steps) + _buffer_findings(results, steps) + _gradient_findings(results)
    findings += _collective_findings(results) + _lone_findings(results[0])
    first = results[0]
    return DDPReport(
        name,
        findings,
        ranks=len(results),
        steps=steps,
        sync_bytes=[size and size[1] for size in first["sync_sizes"]],
        syncs=first["syncs"],
        lone_forward=first["lone"],
        lone_in=first.get("lone_in"),
        buffers=first["buffers"],
    )


# --- The caller -----------------------------------------------------------------------------------------------


def _case(item) -> dict:
    """(build, make_inputs[, loss]) or a dict with those keys, as the plan's case."""
    if isinstance(item, dict):
        build, inputs, loss = item["build"], item["inputs"], item.get("loss")
    else:
        build, inputs, loss = (*item, None)[:3]
    return {"build": _target(build), "inputs": _target(inputs), "loss": _target(loss)}


def _name(case: dict) -> str:
    spec, args = case["build"]
    name = spec.rpartition(":")[2]
    return f"{name}({', '.join(map(repr, args))})" if args else name


def job_source(plan: dict) -> str:
    """The rank job: import this module on the rank and run the plan (a JSON literal)."""
    return (
        "def ddp_check_entry(rank, world_size, device):\n"
        "    from inside_nn.ddp_check import run_plan\n\n"
        f"    return run_plan(rank, world_size, json.loads({json.dumps(plan)!r}))\n"
    )


def check_ddp_many(
    cases, ranks: int = 2, steps: int = 3, timeout: float = 120.0, lone_timeout: float = LONE_TIMEOUT_S
) -> list:
    """Run every (build, make_inputs[, loss]) of `cases` on `ranks` ranks started once; one DDPReport per case,
    or a RankError where a rank could not run the reader's code. build and make_inputs are FILE.py:function
    strings or functions defined at the top of a file; make_inputs takes the rank (or nothing).

    Raises TimeoutError when the ranks give no result within `timeout` seconds (counted once they are up),
    RuntimeError when a rank fails outside the reader's code; either way every process is stopped."""
    from inside_nn.launch import run_on_ranks

    if ranks < 2 or steps < 1:
        raise ValueError(f"need at least 2 ranks and 1 step, not {ranks} and {steps}")
    plan_cases = [_case(item) for item in cases]
    plan = {
        "cases": plan_cases,
        "steps": steps,
        "lone_timeout": lone_timeout,
        "group_timeout": timeout,
        "lr": LEARNING_RATE,
    }
    per_rank = run_on_ranks(job_source(plan), "ddp_check_entry", nproc=ranks, timeout_s=timeout)
    outcomes = []
    for number, case in enumerate(plan_cases):
        results = [rank_results[number] for rank_results in per_rank]
        if results[0].get("error"):
            outcomes.append(RankError(results[0]["error"]))
        else:
            outcomes.append(report_of(_name(case), results, steps))
    return outcomes


def check_ddp(build, make_inputs, loss=None, ranks: int = 2, steps: int = 3, timeout: float = 120.0) -> DDPReport:
    """check_ddp_many for one model: its DDPReport, or RankError when a rank cannot run the reader's code."""
    (outcome,) = check_ddp_many([(build, make_inputs, loss)], ranks, steps, timeout)
    if isinstance(outcome, RankError):
        raise outcome
    return outcome


# --- What runs on every rank ---------------------------------------------------------------------------------


def _load(target):  # pragma: no cover (runs on a rank)
    """The function a target names, with its arguments bound."""
    import importlib
    import importlib.util
    import sys

    from inside_nn.inspect_module import TargetError

    spec, args = target
    where, _, name = spec.rpartition(":")
    if _is_file(where):
        if not os.path.isfile(where):
            raise TargetError(f"no such file: {where}")
        folder = os.path.dirname(os.path.abspath(where))
        if folder not in sys.path:
            sys.path.insert(0, folder)
        module_name = "ddp_checked_" + hashlib.sha1(os.path.abspath(where).encode()).hexdigest()[:12]
        module = sys.modules.get(module_name)
        if module is None:
            loader_spec = importlib.util.spec_from_file_location(module_name, where)
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules[module_name] = module  # dataclasses and pickle look the module up
            loader_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    function = getattr(module, name, None)
    if not callable(function):
        raise TargetError(f"{where} has no function {name}")
    return functools.partial(function, *args) if args else function


def _digest(t: torch.Tensor):  # pragma: no cover (runs on a rank)
    """[dtype, shape, hash of the values]: equal on two ranks when the tensors are."""
    from inside_nn.inspect_module import _numpy

    if not isinstance(t, torch.Tensor):  # the Python numbers an attribute holds, as [(where, repr)]
        return ["number", [], hashlib.sha1(repr(t).encode()).hexdigest()]
    t = t.detach()
    if t.is_meta:
        return [str(t.dtype), list(t.shape), "meta"]
    parts = [t._indices(), t._values()] if t.is_sparse else [t]
    h, numpy = hashlib.sha1(), _numpy()
    for part in parts:
        flat = part.cpu().contiguous().reshape(-1)
        flat = flat.view(torch.uint8) if flat.element_size() > 0 and flat.dtype != torch.bool else flat
        if numpy is not None:
            h.update(flat.numpy().tobytes())
        else:
            weights = torch.arange(1, flat.numel() + 1, dtype=torch.int64)
            h.update(str((flat.to(torch.int64) * weights).sum().item()).encode())
    return [str(t.dtype), list(t.shape), h.hexdigest()]


def _numbers_in(value, where: str, above: tuple = ()) -> list:  # pragma: no cover (runs on a rank)
    """[(where, repr)] for every int, float and bool in a value and the containers it holds, a few levels down
    (each occurrence: the same small int held twice is two entries)."""
    from inside_nn.inspect_module import _items

    if isinstance(value, int | float):
        return [(where, repr(value))]
    inner = None if len(above) > 4 or id(value) in above else _items(value)
    found = []
    for label, item in inner or ():
        if not isinstance(item, torch.Tensor | nn.Module):
            found += _numbers_in(item, where + label, (*above, id(value)))
    return found


def _numbers(model: nn.Module) -> dict:  # pragma: no cover (runs on a rank)
    """path -> ("number", [(where, repr)]) for every attribute holding Python numbers (int, float, bool; in
    the lists, dicts and objects it holds)."""
    from inside_nn.inspect_module import _INTERNAL, _join, _named_modules

    state = {}
    for prefix, module in _named_modules(model):
        extra = type(module).get_extra_state is not nn.Module.get_extra_state
        for name, value in vars(module).items():
            if name not in _INTERNAL and not isinstance(value, torch.Tensor | nn.Module):
                found = _numbers_in(value, name)
                if found:
                    state[_join(prefix, name)] = ("extra number" if extra else "number", found)
    return state


def _state(
    model: nn.Module, wrap_buffers: set | None, ignored=frozenset()
) -> dict:  # pragma: no cover (runs on a rank)
    """path -> (kind, value) for the model's state: parameters, buffers, the tensors plain attributes hold (in
    lists, dicts, objects; the state of unregistered modules they hold), and the Python numbers they hold."""
    from inside_nn.inspect_module import _join, _named_tensors, _plain_attributes, _Registered, _state_of

    state = {}
    for path, p in _named_tensors(model, "_parameters"):
        kind = "ignored parameter" if path in ignored else "parameter" if p.requires_grad else "frozen parameter"
        state[path] = (kind, p)
    for path, b in _named_tensors(model, "_buffers"):
        late = wrap_buffers is not None and path not in wrap_buffers
        state[path] = ("ignored buffer" if path in ignored else "late buffer" if late else "buffer", b)
    registered, seen = _Registered(model), set()
    for prefix, _, _, _, items in _plain_attributes(model, registered):
        for where, item in items:
            if id(item) in seen:  # the same tensor under another name (DARTS: a list and attributes)
                continue
            seen.add(id(item))
            if isinstance(item, torch.Tensor):
                state[_join(prefix, where)] = ("plain", item)
            elif isinstance(item, nn.Module):
                for name, t in _state_of(item, remove_duplicate=False):
                    state.setdefault(_join(_join(prefix, where), name), ("plain", t))
    return state | _numbers(model)


def _loss(output, inputs, loss_fn):  # pragma: no cover (runs on a rank)
    from inside_nn.inspect_module import _found_in

    if loss_fn is not None:
        value = loss_fn(output, inputs)
    else:
        found = [t for _, t in _found_in(output, "", torch.Tensor) if t.is_floating_point() and t.requires_grad]
        if not found:
            raise ValueError("the output holds no floating tensor that requires grad: pass a loss function")
        value = sum(t.float().mean() for t in found)
    if not isinstance(value, torch.Tensor) or value.numel() != 1 or not value.requires_grad:
        raise ValueError(f"the loss must be a scalar tensor that requires grad, not {value!r:.80}")
    return value


# The functions of torch.distributed a model's forward may call: each call made between the start and the end
# of the inner module's forward is recorded by name (what it calls in turn, as all_gather_object's all_gather,
# is part of it).
_COLLECTIVES = (
    "all_reduce",
    "all_reduce_coalesced",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_to_all",
    "all_to_all_single",
    "barrier",
    "monitored_barrier",
    "broadcast",
    "broadcast_object_list",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "gather",
    "gather_object",
    "scatter",
    "scatter_object_list",
    "send",
    "recv",
    "isend",
    "irecv",
    "batch_isend_irecv",
)


def _watched(name: str, function, watch):  # pragma: no cover (runs on a rank)
    @functools.wraps(function)
    def watched(*args, **kwargs):
        calls = getattr(watch, "calls", None)
        if calls is None:
            return function(*args, **kwargs)
        calls.append(name)
        watch.calls = None  # what it calls in turn is part of it
        try:
            return function(*args, **kwargs)
        finally:
            watch.calls = calls

    watched.ddp_check_watched = True
    return watched


def _watch_collectives():  # pragma: no cover (runs on a rank)
    """Wrap torch.distributed's collectives (before the reader's files are imported, so that `from
    torch.distributed import all_reduce` gets the wrapper); the thread-local it returns takes `calls`, the list
    that records them while a forward runs (None otherwise)."""
    import threading

    import torch.distributed as dist
    from torch.distributed import distributed_c10d

    watch = threading.local()
    for name in _COLLECTIVES:
        function = getattr(distributed_c10d, name, None)
        if function is None or getattr(function, "ddp_check_watched", False):
            continue
        wrapper = _watched(name, function, watch)
        setattr(distributed_c10d, name, wrapper)
        if getattr(dist, name, None) is function:
            setattr(dist, name, wrapper)
    return watch


class _Run:  # pragma: no cover (runs on a rank)
    """One model on this rank: its records, and the reader's calls with the ranks' outcome exchanged."""

    def __init__(self, rank: int, world_size: int, plan: dict, case: dict, control=None, watch=None):
        self.rank, self.world_size, self.plan, self.case = rank, world_size, plan, case
        self.control, self.watch = control, watch
        self.record = {
            "digests": {},
            "kinds": {},
            "used": {},
            "syncs": [],
            "sync_sizes": [],
            "collectives": [],
            "buffers": [],
        }
        self.label, self.used_now, self.wrap_buffers, self.ignored, self.ddp = "wrap", set(), None, set(), None

    def agree(self, call):
        """Run call(); then every rank learns every rank's outcome. RankError (the lowest failing rank's)
        on every rank when one failed."""
        import torch.distributed as dist

        from inside_nn.inspect_module import one_line

        try:
            value, failure = call(), None
        except (Exception, SystemExit) as error:  # noqa: BLE001 (the reader's error, reported in one line)
            value, failure = None, f"rank {self.rank}: {one_line(error)}"
        finally:
            self.watching(None)
        outcomes = [None] * self.world_size
        dist.all_gather_object(outcomes, failure)
        failed = [outcome for outcome in outcomes if outcome]
        if failed:
            raise RankError(failed[0])
        return value

    def watching(self, calls: list | None) -> None:
        if self.watch is not None:
            self.watch.calls = calls

    def snapshot(self, label: str) -> None:
        model = self.ddp.module
        state = _state(model, self.wrap_buffers, self.ignored)
        self.record["digests"][label] = {path: _digest(t) for path, (_, t) in state.items()}
        self.record["kinds"].update({path: kind for path, (kind, _) in state.items()})

    def pre_forward(self, module, args) -> None:
        """After DDP's buffer sync, when the inner module's forward starts: whether DDP synced, what it sent
        (DDP re-read the buffers just before), and the collectives the forward calls from now on."""
        synced = bool(self.ddp.will_sync_module_buffers())
        held = self.ddp.modules_buffers
        self.record["syncs"].append(synced)
        self.record["sync_sizes"].append(
            [len(held), sum(b.numel() * b.element_size() for b in held)] if synced else None
        )
        if self.label is not None:
            self.snapshot(self.label)
        calls: list = []
        self.record["collectives"].append(
            ["training" if torch.is_grad_enabled() and module.training else "eval", calls]
        )
        self.watching(calls)

    def post_forward(self, module, args, output) -> None:
        self.watching(None)

    def forward_and_loss(self, inputs):
        from inside_nn.inspect_module import _arguments

        args, kwargs = _arguments(inputs)
        output = self.ddp(*args, **kwargs)
        return _loss(output, inputs, self.loss_fn)

    def step(self, number, inputs, optimizer, label: str | None = None) -> None:
        self.ddp.train()
        self.label, self.used_now = label, set()
        loss = self.agree(lambda: self.forward_and_loss(inputs))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        for path in self.record["used"]:
            self.record["used"][path].append(path in self.used_now)

    def wrap(self, model, group):
        """DistributedDataParallel around the model, and what it holds: its buffers, what it ignores."""
        from torch.nn.parallel import DistributedDataParallel

        self.ddp = self.agree(lambda: DistributedDataParallel(model, process_group=group, find_unused_parameters=True))
        self.wrap_buffers = set(self.ddp.named_module_buffers)
        self.ignored = set(getattr(self.ddp, "parameters_to_ignore", ()))
        self.record["buffers"] = sorted(self.wrap_buffers)
        self.snapshot("wrap")
        for path, p in model.named_parameters():
            if p.requires_grad and path not in self.ignored:
                self.record["used"][path] = []
                p.register_hook(lambda grad, path=path: self.used_now.add(path))
        model.register_forward_pre_hook(self.pre_forward)
        model.register_forward_hook(self.post_forward)

    def run(self) -> dict:
        import torch.distributed as dist

        plan = self.plan
        torch.manual_seed(self.rank)
        build = self.agree(lambda: _load(self.case["build"]))
        make_inputs = self.agree(lambda: _load(self.case["inputs"]))
        self.loss_fn = self.agree(lambda: self.case["loss"] and _load(self.case["loss"]))
        model = self.agree(build)
        inputs = self.agree(lambda: _call_inputs(make_inputs, self.rank))
        group = dist.new_group(backend="gloo", timeout=timedelta(seconds=plan["group_timeout"]))
        self.wrap(model, group)
        optimizer = torch.optim.SGD(self.ddp.parameters(), lr=plan["lr"])
        for number in range(1, plan["steps"] + 1):
            self.step(number, inputs, optimizer, f"step {number}" if number > 1 else None)
        self.label = None
        self.snapshot("after steps")
        self.ddp.eval()
        self.label = "eval"
        started = time.monotonic()
        with torch.no_grad():
            self.agree(lambda: self.forward_and_loss_free(inputs))
        eval_seconds = time.monotonic() - started
        self.label = None
        self.snapshot("after eval")
        kept = {key: list(self.record[key]) for key in ("syncs", "sync_sizes", "collectives")}
        self.step(plan["steps"] + 1, inputs, optimizer)  # not part of the run: the training before the lone forward
        for path in self.record["used"]:
            self.record["used"][path].pop()
        self.record["lone"], self.record["lone_in"] = self.lone_forward(inputs, eval_seconds)
        self.record |= kept  # nor the lone forward and the others' joining one
        dist.barrier()
        return self.record

    def forward_and_loss_free(self, inputs):
        from inside_nn.inspect_module import _arguments

        args, kwargs = _arguments(inputs)
        return self.ddp(*args, **kwargs) is not None

    def lone_forward(self, inputs, eval_seconds: float) -> tuple:
        """Rank 0 alone runs a forward through the wrapper (eval mode, no_grad), in a thread, while the other
        ranks wait; still running after the wait (the larger of LONE_TIMEOUT_S and ten times the eval forward
        every rank ran), it is blocked in a collective no other rank joined: "hangs", in the buffer sync or in
        a collective the forward calls. The ranks tell each other so on a group of their own (the forward's
        collective may wait on the default group); the other ranks then run the same forward, which joins that
        collective and frees rank 0, so the run goes on in every torch release (torch 2.6's gloo ignores a
        timeout shortened after the group is made)."""
        import threading

        import torch.distributed as dist

        from inside_nn.inspect_module import _arguments, one_line

        args, kwargs = _arguments(inputs)
        self.ddp.eval()
        self.label = None
        outcome: list = [None]
        forwards = len(self.record["collectives"])

        def lone() -> None:
            try:
                with torch.no_grad():  # grad mode is per thread
                    self.ddp(*args, **kwargs)
                outcome[0] = "does not hang"
            except Exception as error:  # noqa: BLE001 (reported as the forward's outcome)
                outcome[0] = one_line(error)
            finally:
                self.watching(None)

        thread, verdict = None, None
        if self.rank == 0:
            thread = threading.Thread(target=lone, daemon=True)
            thread.start()
            thread.join(max(self.plan["lone_timeout"], 10 * eval_seconds))
            started = self.record["collectives"][forwards:]  # the inner forward began: past the buffer sync
            calls = started[0][1] if started else []
            verdict = [outcome[0] or "hangs", None if outcome[0] else calls[-1] if calls else "buffer sync"]
        verdicts = [None] * self.world_size
        dist.all_gather_object(verdicts, verdict, group=self.control)
        if verdicts[0][0] == "hangs":
            if thread is None:
                with torch.no_grad():
                    self.ddp(*args, **kwargs)  # the collective rank 0 waits in
                self.watching(None)
            else:
                thread.join()
        return tuple(verdicts[0]) if self.rank == 0 else (None, None)


def _call_inputs(make_inputs, rank: int):  # pragma: no cover (runs on a rank)
    """make_inputs(rank), or make_inputs() when it takes no argument."""
    try:
        takes = bool(inspect.signature(make_inputs).parameters)
    except (TypeError, ValueError):
        takes = True
    return make_inputs(rank) if takes else make_inputs()


def run_plan(rank: int, world_size: int, plan: dict) -> list:  # pragma: no cover (runs on a rank)
    """Every case of the plan on this rank: its records, or {"error": ...} where a rank failed."""
    import warnings

    import torch.distributed as dist

    watch = _watch_collectives()
    control = dist.new_group(backend="gloo", timeout=timedelta(seconds=plan["group_timeout"]))
    results = []
    for case in plan["cases"]:
        started = time.monotonic()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # DDP's advice about find_unused_parameters, the reader's own
            try:
                record = _Run(rank, world_size, plan, case, control, watch).run()
            except RankError as error:
                record = {"error": str(error)}
        record["seconds"] = time.monotonic() - started
        results.append(record)
    return results
