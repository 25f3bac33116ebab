"""Exercise checkers for "Checkpoints that survive" (05_checkpoints_that_survive.ipynb): each
`check_*` runs a reader's answer beside `_reference_*`, the solution the page shows, and prints one
line.

Every call of an answer goes through `harness.attempt`: global state it leaves changed (the Python
RNG a temporary name was drawn from, the working directory), a stub, an endless loop end the check
with one line. The families think like a disk, a network, an editor and an attacker: a save that
fails halfway, a step saved twice, a flipped bit, a download cut off, a digest cut short, a file
that runs code, leftovers that only look like save_atomically's.
"""

# Names a reader's answer may use as if the notebook had imported them (the checker cell imports
# this module's checkers; the tests run answers beside this module's names).
import contextlib
import functools
import hashlib
import hmac
import io
import math
import os
import random
import re
import struct
import tempfile
from collections.abc import Mapping
from pathlib import Path

import torch

from inside_nn import pick_device, zoo
from inside_nn.exercises.harness import Wrong, attempt, checker

device = pick_device()


# 5.1's own tools, by the names the page gives them (a reader's answer calls them).
from inside_nn.checkpoint import fsync_directory, save_atomically  # noqa: F401


def _listing(directory):
    """Every entry of `directory` with what a reader can tell from outside: kind and bytes."""
    entries = {}
    for path in sorted(directory.iterdir()):
        entries[path.name] = path.read_bytes() if path.is_file() else "directory"
    return entries


@functools.lru_cache(maxsize=256)
def _loaded(data: bytes):
    return torch.load(io.BytesIO(data), weights_only=True)


def _tensor_files(entries):
    return {
        name: _loaded(data) if isinstance(data, bytes) and name.endswith(".pt") else data
        for name, data in entries.items()
    }


def _scratch():
    """A temporary directory, in memory where the system has one: fsync costs nothing there."""
    shm = Path("/dev/shm")
    usable = shm.is_dir() and os.access(shm, os.W_OK | os.X_OK)
    return tempfile.TemporaryDirectory(dir=shm if usable else None)


def _same_value(got, want):
    if isinstance(want, torch.Tensor):
        return (
            isinstance(got, torch.Tensor)
            and got.dtype == want.dtype
            and got.shape == want.shape
            and got.device == want.device
            and (
                want.device.type == "meta"
                or torch.equal(got, want)
                or bool(torch.isnan(got).equal(torch.isnan(want)))
                and torch.equal(got.nan_to_num(0.0), want.nan_to_num(0.0))
            )
        )
    if isinstance(want, Mapping):
        return isinstance(got, Mapping) and set(got) == set(want) and all(_same_value(got[k], want[k]) for k in want)
    if isinstance(want, (list, tuple)):
        return type(got) is type(want) and len(got) == len(want) and all(_same_value(g, w) for g, w in zip(got, want))
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    return type(got) is type(want) and got == want


# --------------------------------------------------------------------------------------------------
# BestCheckpoints


class _reference_BestCheckpoints:
    """Keeps (rank, path) sorted by loss and deletes whatever falls beyond the first k."""

    def __init__(self, directory, k):
        self.directory, self.k = Path(directory), k
        self.kept = []  # (rank, path), best first

    def save(self, step, val_loss, state):
        path = self.directory / f"step-{step}.pt"
        save_atomically(state, path)  # a crash leaves the old file or the new one
        # NaN ranks below every number, inf included
        rank = (True, 0.0) if math.isnan(val_loss) else (False, val_loss)
        # A step saved again replaces its entry: its file now holds the new state.
        others = [item for item in self.kept if item[1] != path]
        self.kept = sorted(others + [(rank, path)], key=lambda item: item[0])
        for _, worse_path in self.kept[self.k :]:
            worse_path.unlink()
        self.kept = self.kept[: self.k]


def _loss_family():
    """(k, [(step, loss), ...]): each run starts in an empty directory."""
    nan, inf = float("nan"), float("inf")
    rng = random.Random(3)
    yield 3, list(enumerate([0.9, 0.7, 0.8, 0.5, 0.6, 0.65, 0.95], start=1))
    yield 1, list(enumerate([0.3, 0.5, 0.2, 0.4], start=1))
    yield 2, list(enumerate([nan, 0.5, 0.4, 0.6], start=1))
    yield 2, list(enumerate([0.5, nan, 0.7, 0.6], start=1))
    yield 2, list(enumerate([0.4, 0.4, 0.3, 0.4], start=1))
    yield 3, list(enumerate([inf, nan, 0.2, 1.0, 0.1], start=1))
    yield 3, list(enumerate([nan, inf, 0.2, 1.0], start=1))
    yield (
        1,
        [(1, 0.5), (1, 0.6)],
    )  # a step saved twice (a resumed run): one file, its new loss
    yield 2, [(10, 0.5), (20, 0.6), (10, 0.7), (30, 0.65)]
    yield 2, [(1, 0.5), (2, 0.4), (2, 0.3), (3, 0.9), (1, 0.2)]
    yield 2, list(enumerate((round(rng.uniform(0, 1), 2) for _ in range(8)), start=1))


def _state(step, loss, weights):
    """A training checkpoint as a run saves it: a real model's state dict, step, loss."""
    return {
        "model": weights,
        "step": torch.tensor(step),
        "loss": torch.tensor(loss, dtype=torch.float64),
        "weight": torch.full((2,), loss),
        "ema": torch.full((3,), loss, dtype=torch.bfloat16),
    }


_LIVE_HINT = (
    ": a state holds the live tensors of a run that goes on training (model.state_dict()); write it when save "
    "is called, and keep no reference to write later"
)


def _train_on(state):
    """What training does to a state after its save: its tensors change in place, as a live state_dict()'s."""
    with torch.no_grad():
        state["weight"].add_(100.0)
        state["ema"].add_(100.0)


def _renaming(save, renames):
    """`save`, recording every os.replace/os.rename (Path.replace, shutil.move) it makes."""

    @functools.wraps(save, updated=())
    def recorded(*args, **kwargs):
        real = os.replace, os.rename

        def replace(src, dst, *a, **k):
            renames.append((Path(os.fsdecode(src)), Path(os.fsdecode(dst))))
            return real[0](src, dst, *a, **k)

        def rename(src, dst, *a, **k):
            renames.append((Path(os.fsdecode(src)), Path(os.fsdecode(dst))))
            return real[1](src, dst, *a, **k)

        os.replace, os.rename = replace, rename
        try:
            return save(*args, **kwargs)
        finally:
            os.replace, os.rename = real

    return recorded


_STEP_FILE = re.compile(r"step-\d+\.pt")


def _step_files(entries):
    return {name: data for name, data in entries.items() if _STEP_FILE.fullmatch(name)}


def _where(path):
    return Path(os.path.realpath(path.parent))


def _check_save(directory, path, before, renames, case):
    """None if the save that wrote `path` wrote a temporary file beside it and renamed it onto
    the name; else what it did instead."""
    for source, target in renames:
        if _where(source) != _where(target):
            return (
                f"✗ {case} the temporary file was written in {source.parent}, not beside the "
                "checkpoint: os.replace is atomic only within one file system, so write it in "
                "`directory`"
            )
    if not path.exists() or before.get(path.name) == path.read_bytes():
        return None
    if not any(Path(os.path.realpath(target)) == Path(os.path.realpath(path)) for _, target in renames):
        return (
            f"✗ {case} {path.name} was written in place: a crash during the save leaves half a file "
            "and no checkpoint; save to a temporary file in the same directory, then os.replace it "
            "onto the name"
        )
    return None


def _unpicklable(step, weights):
    state = _state(step, 0.0, weights)
    # pickle refuses a lambda: torch.save fails halfway, after it opened its file
    state["schedule"] = lambda s: 0.9**s
    return state


def _failed_save(keeper, reference, mine, k, saves, weights):
    """Save once more, with a state torch.save cannot write: None if the files stay as they
    were, else what happened to them."""
    step = max(step for step, _ in saves) + 1  # a new step, the best loss yet
    case = f"with k={k} after saves {saves}, a save of step {step} that failed (a lambda in the state)"
    before = _step_files(_listing(mine))
    attempt(keeper.save, step, 0.0, _unpicklable(step, weights))  # raising is fine
    with contextlib.suppress(Exception):
        reference.save(step, 0.0, _unpicklable(step, weights))
    after = _step_files(_listing(mine))
    if after == before:  # as the reference's: save_atomically leaves every file as it was
        return None
    name = f"step-{step}.pt"
    if name in after:
        return (
            f"✗ {case} left a damaged {name}: save to a temporary file in the same directory, then "
            "os.replace it onto the name"
        )
    gone = sorted(set(before) - set(after))
    return (
        f"✗ {case} deleted {gone[0] if gone else 'a checkpoint'}: delete the worse checkpoints only "
        "after the new one is safely written"
    )


def _ranking_hint(case, got, want, saves):
    losses = [loss for _, loss in saves]
    steps = [step for step, _ in saves]
    case = f"{case} you keep {sorted(got)}; expected {sorted(want)}"
    if len(set(steps)) < len(steps):
        if len(got) < len(want):
            return (
                f"✗ {case}: a step saved again replaces its own entry and file; deleting the "
                "older entry's file deletes the new checkpoint too"
            )
        return f"✗ {case}: a step saved again replaces its entry, with its new loss"
    if any(math.isnan(x) for x in losses):
        why = "NaN compares False with everything, so rank it worst"
        if math.inf in losses:
            why = "NaN ranks below inf too: inf cannot stand in for it"
        return f"✗ {case}: {why}"
    if len(got) > len(want):
        return f"✗ {case}: delete the file that falls out of the best k"
    return f"✗ {case}: keep the k lowest losses, the earlier one on a tie"


@checker
def check_best_checkpoints(BestCheckpoints):
    """Runs the class and the reference on the same saves (NaN, inf, ties, a step saved twice);
    compares every file left in both directories, checks that each save wrote a temporary file
    beside the checkpoint and renamed it, and that a save that fails halfway leaves the files whole."""
    weights = zoo.build("orthogonal", seed=4).to(torch.bfloat16).state_dict()
    _loaded.cache_clear()
    # The first save that was not atomic, reported once every ranking is right.
    atomic = None
    with _scratch() as elsewhere, contextlib.chdir(elsewhere):
        for k, saves in _loss_family():
            with _scratch() as mine, _scratch() as theirs:
                mine, theirs = Path(mine), Path(theirs)
                keeper, error = attempt(BestCheckpoints, mine, k)
                if error is not None:
                    raise Wrong(f"✗ BestCheckpoints({mine.name!r}, k={k}) raised {type(error).__name__}: {error}"[:200])
                reference = _reference_BestCheckpoints(theirs, k)
                for i, (step, loss) in enumerate(saves):
                    case = f"with k={k} after saves {saves[: i + 1]}"
                    state = _state(step, loss, weights)
                    before, renames = _listing(mine), []
                    _, error = attempt(_renaming(keeper.save, renames), step, loss, state)
                    if error is not None:
                        raise Wrong(f"✗ {case}: save raised {type(error).__name__}: {error}"[:200])
                    reference.save(step, loss, state)
                    stray = sorted(os.listdir(elsewhere))
                    if stray:
                        raise Wrong(f"✗ you wrote {stray[0]} outside `directory`: save into the directory given")
                    atomic = atomic or _check_save(mine, mine / f"step-{step}.pt", before, renames, case)
                    got, want = _listing(mine), _listing(theirs)
                    if set(got) == set(want):
                        if not _same_value(_tensor_files(got), _tensor_files(want)):
                            raise Wrong(
                                f"✗ {case} a file does not hold the state saved at its step" + (_LIVE_HINT if i else "")
                            )
                        _train_on(state)
                        continue
                    extra = sorted(set(got) - set(want) - set(_step_files(got)))
                    if extra:
                        raise Wrong(
                            f"✗ {case} {extra[0]} is left in the directory: rename the temporary "
                            "file onto the checkpoint's name, and leave nothing else behind"
                        )
                    raise Wrong(_ranking_hint(case, got, want, saves[: i + 1])[:260])
                atomic = atomic or _failed_save(keeper, reference, mine, k, saves, weights)
    if atomic:
        raise Wrong(atomic)
    return (
        "✓ correct: after every save exactly the k best checkpoints are on disk, NaN ranked worst, "
        "a step saved twice kept once, each written atomically"
    )


# --------------------------------------------------------------------------------------------------
# load_verified


def sha256_of(path):
    """Hash in chunks; hmac.compare_digest below compares in constant time, a good habit."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _reference_load_verified(path):
    expected = path.with_name(path.name + ".sha256").read_text().strip()
    if not hmac.compare_digest(sha256_of(path), expected):
        raise ValueError(f"{path.name}: SHA-256 does not match; refusing to load it")
    return torch.load(path, weights_only=True)  # only after the digest matched


class _RunsCode:
    def __init__(self, code):
        self.code = code

    def __reduce__(self):
        return (exec, (self.code,))


_VERIFIED_CASES = {
    "good.pt": "an intact file",
    "run.pt": "an intact nested checkpoint",
    "big.pt": "an intact 1.5 MB checkpoint (many read chunks)",
    "bf16.pt": "an intact bfloat16 LLaMA with NaN and inf",
    "crlf.pt": "a digest file ending in \\r\\n",
    "flipped.pt": "a file with one flipped bit",
    "flipped-late.pt": "a 1.5 MB file with one flipped bit near its end",
    "tampered.pt": "a file whose digest belongs to another file",
    "self-signed.pt": "a file that runs code, with its own digest",
    "unsigned.pt": "a file without .sha256",
    "truncated.pt": "a download cut off halfway (the digest is the whole file's)",
    "short-digest.pt": "a .sha256 file cut off after 32 hex digits",
}


def _verified_files(tmp, marker):
    def write(name, obj=None, digest_of=None, ending="\n", cut=None):
        if obj is not None:
            torch.save(obj, tmp / name)
        digest = hashlib.sha256((tmp / (digest_of or name)).read_bytes()).hexdigest()
        (tmp / f"{name}.sha256").write_text(digest[:cut] + ending, newline="")

    state = {"weight": torch.ones(1000)}
    llama = zoo.build("llama", seed=5).to(torch.bfloat16).state_dict()
    llama["diverged"] = torch.tensor([float("nan"), float("inf"), -float("inf")])
    write("good.pt", state)
    write("run.pt", {"model": {"w": torch.arange(3.0)}, "step": 7, "note": "best"})
    write("big.pt", {"weight": torch.arange(400_000.0)})
    write("bf16.pt", llama)
    write("crlf.pt", state, ending="\r\n")
    write("flipped.pt", state)
    content = bytearray((tmp / "flipped.pt").read_bytes())
    content[content.index(struct.pack("<f", 1.0) * 100) + 42] ^= 0x80
    (tmp / "flipped.pt").write_bytes(bytes(content))
    write("flipped-late.pt", {"weight": torch.arange(400_000.0)})
    content = bytearray((tmp / "flipped-late.pt").read_bytes())
    content[content.index(struct.pack("<f", 399_000.0))] ^= 0x01
    (tmp / "flipped-late.pt").write_bytes(bytes(content))
    write("truncated.pt", {"weight": torch.arange(10_000.0)})
    whole = (tmp / "truncated.pt").read_bytes()
    (tmp / "truncated.pt").write_bytes(whole[: len(whole) // 2])
    write("short-digest.pt", state, cut=32)
    hostile = {
        "w": torch.ones(2),
        "x": _RunsCode(f"open({str(marker)!r}, 'w').close()"),
    }
    write("tampered.pt", hostile, digest_of="good.pt")
    write("self-signed.pt", hostile)
    torch.save(state, tmp / "unsigned.pt")


_REFUSAL_HINTS = {
    "flipped.pt": "torch.load does not notice, so compare the SHA-256 of the file's bytes",
    "flipped-late.pt": "hash every byte of the file, to the end",
    "truncated.pt": "hash the file's bytes and compare before loading",
    "short-digest.pt": "compare the whole digest, not a prefix or a substring",
    "tampered.pt": "check the digest before loading",
    "unsigned.pt": "refuse what you cannot verify",
    "self-signed.pt": "a matching digest shows the file is unchanged, not who wrote it: keep weights_only=True",
}


@checker
def check_load_verified(load_verified):
    """Compares results and exception types with the reference; the files must stay as they were."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        marker = tmp / "ran.txt"
        _verified_files(tmp, marker)
        before = _listing(tmp)
        for name, what in _VERIFIED_CASES.items():
            try:
                want, want_error = _reference_load_verified(tmp / name), None
            except Exception as error:  # noqa: BLE001 (what the reference raises, compared)
                want, want_error = None, error
            got, error = attempt(load_verified, tmp / name)
            if marker.exists() and name == "self-signed.pt":
                raise Wrong("✗ a matching digest shows the file is unchanged, not who wrote it: keep weights_only=True")
            if marker.exists():
                raise Wrong(
                    "✗ loading ran code stored in the file: verify first, then torch.load with weights_only=True"
                )
            if want_error is None and error is not None:
                raise Wrong(
                    f"✗ {what} was refused ({type(error).__name__}: {error})"[:140]
                    + ": hash the file's bytes, all of them, and strip the line ending of the .sha256 file"
                )
            if want_error is None and not _same_value(got, want):
                raise Wrong(f"✗ on {what} you returned something else than torch.load returns")
            if want_error is not None and error is None:
                raise Wrong(f"✗ {what} loaded: {_REFUSAL_HINTS[name]}")
            if isinstance(want_error, ValueError) and not isinstance(error, ValueError):
                raise Wrong(
                    f"✗ on {what} raise ValueError for a digest mismatch, not {type(error).__name__}"
                    + (": check the digest before loading" if name in ("tampered.pt", "truncated.pt") else "")
                )
        if _listing(tmp) != before:
            raise Wrong("✗ your function changed, wrote or removed files; verifying should only read")
    return (
        "✓ correct: intact files load; a flipped bit, a cut-off download or digest, a tampered "
        "file and a missing digest are refused"
    )


# --------------------------------------------------------------------------------------------------
# remove_stale_temporaries


def _reference_remove_stale_temporaries(directory):
    # Only names that save_atomically makes: "." + name + "." + 16 hex digits + ".tmp", and only
    # files: another program's ".notes.tmp" or a directory is none of our business.
    pattern = re.compile(r"\..+\.[0-9a-f]{16}\.tmp")
    removed = 0
    for path in Path(directory).iterdir():
        if pattern.fullmatch(path.name) and path.is_file():
            path.unlink()
            removed += 1
    return removed


def _stale_family():
    hexes = [random.Random(i).randbytes(8).hex() for i in range(4)]
    yield (
        "leftovers beside checkpoints",
        {
            "step-1.pt": b"ok",
            f".step-1.pt.{hexes[0]}.tmp": b"cut",
            f".latest.pt.{hexes[1]}.tmp": b"cut",
        },
    )
    yield (
        "another program's .notes.tmp and a .tmp.bak backup",
        {
            ".notes.tmp": b"mine",
            f".notes.{hexes[3]}.tmp.bak": b"mine",
            f".best.pt.{hexes[2]}.tmp": b"cut",
            ".gitignore": b"*",
        },
    )
    yield (
        "a name with dots",
        {f".model.v2.pt.{hexes[3]}.tmp": b"cut", "model.v2.pt": b"ok"},
    )
    yield (
        "a 15-digit look-alike",
        {f".x.pt.{hexes[0][:15]}.tmp": b"not ours", "notes.tmp": b"not ours"},
    )
    yield (
        "a 17-digit look-alike",
        {f".x.pt.{hexes[1]}0.tmp": b"not ours", f".y.pt.{hexes[2]}.tmp": b""},
    )
    yield (
        "16 characters that are not hex digits",
        {".x.pt.temporaryfile_.tmp": b"not ours", ".y.pt.zzzzzzzzzzzzzzzz.tmp": b"x"},
    )
    yield (
        "a look-alike without the leading dot",
        {
            f"step-1.pt.{hexes[0]}.tmp": b"not ours",
            f".step-2.pt.{hexes[1]}.tmp": b"cut",
        },
    )
    yield (
        "a directory named like a leftover",
        {f".d.pt.{hexes[1]}.tmp/": None, "step-2.pt": b"ok"},
    )
    yield (
        "a subdirectory with a leftover",
        {"old_run/": None, f"old_run/.step-9.pt.{hexes[2]}.tmp": b"other run"},
    )
    yield "nothing to remove", {"step-3.pt": b"ok"}
    yield "an empty directory", {}


def _tree(directory):
    return sorted(
        (str(p.relative_to(directory)), p.read_bytes() if p.is_file() else None) for p in directory.rglob("*")
    )


@checker
def check_remove_stale_temporaries(remove_stale_temporaries):
    """Builds each directory twice, runs the answer and the reference; compares what is left and the count."""
    for what, entries in _stale_family():
        with (
            tempfile.TemporaryDirectory() as mine,
            tempfile.TemporaryDirectory() as theirs,
        ):
            for base in (Path(mine), Path(theirs)):
                for name, content in entries.items():
                    if content is None:
                        (base / name).mkdir()
                    else:
                        (base / name).write_bytes(content)
            want = _reference_remove_stale_temporaries(Path(theirs))
            got, error = attempt(remove_stale_temporaries, Path(mine), seconds=3)
            if error is not None:
                raise Wrong(
                    f"✗ in a directory with {what} you raised {type(error).__name__}: {error}"[:160]
                    + (": remove files only" if isinstance(error, (IsADirectoryError, PermissionError)) else "")
                )
            left, expected = _tree(Path(mine)), _tree(Path(theirs))
            if left != expected:
                gone = sorted({n for n, _ in expected} - {n for n, _ in left})
                kept = sorted({n for n, _ in left} - {n for n, _ in expected})
                detail = f"you removed {gone[0]!r}" if gone else f"you left {kept[0]!r}"
                hint = (
                    ": match the whole name save_atomically makes (a dot, the name, 16 lowercase "
                    "hex digits, .tmp), in this directory only"
                    if gone
                    else ""
                )
                raise Wrong(f"✗ in a directory with {what} {detail}{hint}"[:240])
            if type(got) is not int or got != want:
                raise Wrong(f"✗ in a directory with {what} you returned {got!r}; expected the count, {want}")
    return "✓ correct: exactly save_atomically's leftovers are removed, and their number returned"
