"""Answers that tests/test_exercises.py runs through the checkers of chapter 5's second page."""

NOTEBOOK = "05_checkpoints_that_survive"
CASES = [
    # id, the check call, the answer's source, and what the single printed line must contain.
    # Right answers: expect "✓ correct". Wrong answers: expect the hint text (the line must start with "✗").
    # --- BestCheckpoints: best-k retention, NaN ranked worst, the earlier one on a tie ---
    (
        "best-k-dict-recomputed",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.losses = Path(directory), k, {}

    def save(self, step, val_loss, state):
        nan = math.isnan(val_loss)
        self.losses[step] = (nan, 0.0 if nan else val_loss)  # NaN below inf
        best = sorted(self.losses, key=lambda s: (self.losses[s], s))[: self.k]
        if step in best:
            torch.save(state, self.directory / f"step-{step}.pt")
        for old in list(self.losses):
            if old not in best:
                (self.directory / f"step-{old}.pt").unlink(missing_ok=True)
                del self.losses[old]
""",
        "was written in place",
    ),
    (
        "best-k-heap",
        "check_best_checkpoints(BestCheckpoints)",
        """
import heapq


class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.heap = directory, k, []  # (-loss, -step): worst on top

    def save(self, step, val_loss, state):
        nan = val_loss != val_loss
        torch.save(state, self.directory / f"step-{step}.pt")
        heapq.heappush(self.heap, (-nan, 0.0 if nan else -val_loss, -step))
        if len(self.heap) > self.k:
            *_, worst = heapq.heappop(self.heap)
            (self.directory / f"step-{-worst}.pt").unlink()
""",
        "a step saved again",
    ),
    (
        "best-k-bisect",
        "check_best_checkpoints(BestCheckpoints)",
        """
import bisect


class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.kept = Path(directory), k, []

    def save(self, step, val_loss, state):
        key = (math.isnan(val_loss), 0.0 if math.isnan(val_loss) else val_loss, step)
        bisect.insort(self.kept, key)
        torch.save(state, self.directory / f"step-{step}.pt")
        while len(self.kept) > self.k:
            *_, worst = self.kept.pop()
            (self.directory / f"step-{worst}.pt").unlink()
""",
        "a step saved again",
    ),
    (
        "best-k-nan-sorted-as-is",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.kept = directory, k, []

    def save(self, step, val_loss, state):
        path = self.directory / f"step-{step}.pt"
        torch.save(state, path)
        self.kept = sorted(self.kept + [(val_loss, path)], key=lambda item: item[0])
        for _, worse in self.kept[self.k :]:
            worse.unlink()
        self.kept = self.kept[: self.k]
""",
        "NaN compares False",
    ),
    (
        "best-k-most-recent",
        "check_best_checkpoints(BestCheckpoints)",
        """
from collections import deque


class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.paths = directory, k, deque()

    def save(self, step, val_loss, state):
        path = self.directory / f"step-{step}.pt"
        torch.save(state, path)
        self.paths.append(path)
        if len(self.paths) > self.k:
            self.paths.popleft().unlink()
""",
        "keep the k lowest losses",
    ),
    (
        "best-k-highest-losses",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.kept = directory, k, []

    def save(self, step, val_loss, state):
        path = self.directory / f"step-{step}.pt"
        torch.save(state, path)
        self.kept = sorted(self.kept + [(val_loss, path)], reverse=True)
        for _, worse in self.kept[self.k :]:
            worse.unlink()
        self.kept = self.kept[: self.k]
""",
        "keep the k lowest losses",
    ),
    (
        "best-k-never-deletes",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.kept = directory, k, []

    def save(self, step, val_loss, state):
        path = self.directory / f"step-{step}.pt"
        torch.save(state, path)
        self.kept = sorted(self.kept + [(val_loss, path)])[: self.k]  # forgets, never deletes
""",
        "delete the file that falls out of the best k",
    ),
    (
        "best-k-off-by-one",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.kept = directory, k, []

    def save(self, step, val_loss, state):
        path = self.directory / f"step-{step}.pt"
        torch.save(state, path)
        self.kept = sorted(self.kept + [(val_loss, path)])
        for _, worse in self.kept[self.k + 1 :]:
            worse.unlink()
        self.kept = self.kept[: self.k + 1]
""",
        "delete the file that falls out of the best k",
    ),
    (
        "best-k-later-wins-tie",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.kept = directory, k, []

    def save(self, step, val_loss, state):
        loss = math.inf if math.isnan(val_loss) else val_loss
        path = self.directory / f"step-{step}.pt"
        torch.save(state, path)
        self.kept = sorted(self.kept + [(loss, -step, path)])
        for *_, worse in self.kept[self.k :]:
            worse.unlink()
        self.kept = self.kept[: self.k]
""",
        "the earlier one on a tie",
    ),
    (
        "best-k-saves-only-the-weight",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.kept = directory, k, []

    def save(self, step, val_loss, state):
        loss = math.inf if math.isnan(val_loss) else val_loss
        path = self.directory / f"step-{step}.pt"
        torch.save({"weight": state["weight"]}, path)
        self.kept = sorted(self.kept + [(loss, step, path)])
        for *_, worse in self.kept[self.k :]:
            worse.unlink()
        self.kept = self.kept[: self.k]
""",
        "does not hold the state",
    ),
    # --- load_verified: SHA-256 before torch.load ---
    (
        "verified-read-bytes-split",
        "check_load_verified(load_verified)",
        """
def load_verified(path):
    expected = Path(f"{path}.sha256").read_text().split()[0]  # also reads sha256sum's format
    if hashlib.sha256(path.read_bytes()).hexdigest() != expected:
        raise ValueError(f"{path.name} does not match its digest")
    return torch.load(path, weights_only=True)
""",
        "✓ correct",
    ),
    (
        "verified-chunked-bytes-once",
        "check_load_verified(load_verified)",
        """
import io
def load_verified(path):
    digest = hashlib.sha256()
    buffer = io.BytesIO()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            digest.update(chunk)
            buffer.write(chunk)
    expected = path.with_name(path.name + ".sha256").read_text().strip()
    if not hmac.compare_digest(digest.hexdigest(), expected):
        raise ValueError("digest mismatch")
    buffer.seek(0)
    return torch.load(buffer, weights_only=True)
""",
        "✓ correct",
    ),
    (
        "verified-bytes-compare",
        "check_load_verified(load_verified)",
        """
import io
def load_verified(path):
    sidecar = Path(str(path) + ".sha256")
    if not sidecar.is_file():
        raise FileNotFoundError(f"no digest for {path}")
    data = Path(path).read_bytes()
    if hashlib.sha256(data).digest() != bytes.fromhex(sidecar.read_text().strip()):
        raise ValueError("digest mismatch")
    return torch.load(io.BytesIO(data), weights_only=True)
""",
        "✓ correct",
    ),
    (
        "verified-no-strip",
        "check_load_verified(load_verified)",
        """
def load_verified(path):
    expected = path.with_name(path.name + ".sha256").read_text()
    if hashlib.sha256(path.read_bytes()).hexdigest() != expected:
        raise ValueError("digest mismatch")
    return torch.load(path, weights_only=True)
""",
        "strip the line ending",
    ),
    (
        "verified-strips-newline-only",
        "check_load_verified(load_verified)",
        """
def load_verified(path):
    expected = path.with_name(path.name + ".sha256").read_text(newline="").rstrip("\\n")
    if hashlib.sha256(path.read_bytes()).hexdigest() != expected:
        raise ValueError("digest mismatch")
    return torch.load(path, weights_only=True)
""",
        "strip the line ending",
    ),
    (
        "verified-hashes-the-path",
        "check_load_verified(load_verified)",
        """
def load_verified(path):
    expected = path.with_name(path.name + ".sha256").read_text().strip()
    if hashlib.sha256(str(path).encode()).hexdigest() != expected:
        raise ValueError("digest mismatch")
    return torch.load(path, weights_only=True)
""",
        "hash the file's bytes",
    ),
    (
        "verified-never-checks",
        "check_load_verified(load_verified)",
        """
def load_verified(path):
    return torch.load(path, weights_only=True)
""",
        "torch.load does not notice",
    ),
    (
        "verified-loads-first",
        "check_load_verified(load_verified)",
        """
def load_verified(path):
    state = torch.load(path, weights_only=True)
    expected = path.with_name(path.name + ".sha256").read_text().strip()
    if hashlib.sha256(path.read_bytes()).hexdigest() != expected:
        raise ValueError("digest mismatch")
    return state
""",
        "check the digest before loading",
    ),
    (
        "verified-weights-only-false",
        "check_load_verified(load_verified)",
        """
def load_verified(path):
    state = torch.load(path, weights_only=False)
    expected = path.with_name(path.name + ".sha256").read_text().strip()
    if hashlib.sha256(path.read_bytes()).hexdigest() != expected:
        raise ValueError("digest mismatch")
    return state
""",
        "loading ran code stored in the file",
    ),
    (
        "verified-wrong-exception",
        "check_load_verified(load_verified)",
        """
def load_verified(path):
    expected = path.with_name(path.name + ".sha256").read_text().strip()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == expected, "digest mismatch"
    return torch.load(path, weights_only=True)
""",
        "raise ValueError for a digest mismatch",
    ),
    (
        "verified-accepts-unsigned",
        "check_load_verified(load_verified)",
        """
def load_verified(path):
    sidecar = path.with_name(path.name + ".sha256")
    if sidecar.exists():
        if hashlib.sha256(path.read_bytes()).hexdigest() != sidecar.read_text().strip():
            raise ValueError("digest mismatch")
    return torch.load(path, weights_only=True)
""",
        "refuse what you cannot verify",
    ),
    # --- remove_stale_temporaries: exactly save_atomically's leftovers ---
    (
        "stale-regex-search-anchored",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        """
def remove_stale_temporaries(directory):
    count = 0
    for entry in os.scandir(directory):
        if entry.is_file() and re.search(r"^\\..+\\.[0-9a-f]{16}\\.tmp$", entry.name):
            os.unlink(entry.path)
            count += 1
    return count
""",
        "✓ correct",
    ),
    (
        "stale-split-and-check",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        """
def remove_stale_temporaries(directory):
    removed = 0
    for path in Path(directory).glob(".*.tmp"):
        token = path.name[: -len(".tmp")].rsplit(".", 1)
        if len(token) == 2 and len(token[0]) > 1 and len(token[1]) == 16 and all(c in "0123456789abcdef" for c in token[1]):
            if path.is_file():
                path.unlink()
                removed += 1
    return removed
""",
        "✓ correct",
    ),
    (
        "stale-listdir-fullmatch",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        """
PATTERN = re.compile(r"\\.(?P<name>.+)\\.(?P<token>[0-9a-f]{16})\\.tmp")


def remove_stale_temporaries(directory):
    names = [n for n in os.listdir(directory) if PATTERN.fullmatch(n) and os.path.isfile(os.path.join(directory, n))]
    for name in names:
        os.remove(os.path.join(directory, name))
    return len(names)
""",
        "✓ correct",
    ),
    (
        "stale-glob-any-dot-tmp",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        """
def remove_stale_temporaries(directory):
    stale = [p for p in Path(directory).glob(".*.tmp") if p.is_file()]
    for path in stale:
        path.unlink()
    return len(stale)
""",
        "match the whole name",
    ),
    (
        "stale-glob-star-tmp",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        """
def remove_stale_temporaries(directory):
    stale = [p for p in Path(directory).glob("*.tmp") if p.is_file()]
    for path in stale:
        path.unlink()
    return len(stale)
""",
        "match the whole name",
    ),
    (
        "stale-rglob",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        """
def remove_stale_temporaries(directory):
    stale = [p for p in Path(directory).rglob(".*.tmp") if p.is_file() and re.fullmatch(r"\\..+\\.[0-9a-f]{16}\\.tmp", p.name)]
    for path in stale:
        path.unlink()
    return len(stale)
""",
        "in this directory only",
    ),
    (
        "stale-unlinks-directories",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        """
def remove_stale_temporaries(directory):
    stale = [p for p in Path(directory).iterdir() if re.fullmatch(r"\\..+\\.[0-9a-f]{16}\\.tmp", p.name)]
    for path in stale:
        path.unlink()
    return len(stale)
""",
        "remove files only",
    ),
    (
        "stale-any-hex-length",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        """
def remove_stale_temporaries(directory):
    stale = [p for p in Path(directory).iterdir() if p.is_file() and re.fullmatch(r"\\..+\\.[0-9a-f]+\\.tmp", p.name)]
    for path in stale:
        path.unlink()
    return len(stale)
""",
        "match the whole name",
    ),
    (
        "stale-returns-list",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        """
def remove_stale_temporaries(directory):
    stale = [p for p in Path(directory).iterdir() if p.is_file() and re.fullmatch(r"\\..+\\.[0-9a-f]{16}\\.tmp", p.name)]
    for path in stale:
        path.unlink()
    return stale
""",
        "expected the count",
    ),
    (
        "stale-match-without-end",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        """
def remove_stale_temporaries(directory):
    removed = 0
    for path in Path(directory).iterdir():
        if path.is_file() and re.match(r"\\.\\w", path.name) and path.suffix == ".tmp":
            path.unlink()
            removed += 1
    return removed
""",
        "match the whole name",
    ),
    # --- from the rev5 review ---
    (
        "best-k-nan-as-inf-ties-with-inf",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.kept = Path(directory), k, []

    def save(self, step, val_loss, state):
        torch.save(state, self.directory / f"step-{step}.pt")
        rank = math.inf if math.isnan(val_loss) else val_loss
        self.kept = sorted(self.kept + [(rank, step)])
        for _, s in self.kept[self.k :]:
            (self.directory / f"step-{s}.pt").unlink()
        self.kept = self.kept[: self.k]
""",
        "NaN ranks below inf too",
    ),
    (
        "best-k-nan-as-huge-number",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.kept = Path(directory), k, []

    def save(self, step, val_loss, state):
        torch.save(state, self.directory / f"step-{step}.pt")
        rank = 1e30 if math.isnan(val_loss) else val_loss
        self.kept = sorted(self.kept + [(rank, step)])
        for _, s in self.kept[self.k :]:
            (self.directory / f"step-{s}.pt").unlink()
        self.kept = self.kept[: self.k]
""",
        "NaN ranks below inf too",
    ),
    (
        "best-k-writes-into-cwd",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.k, self.kept = k, []

    def save(self, step, val_loss, state):
        rank = (True, 0.0) if math.isnan(val_loss) else (False, val_loss)
        torch.save(state, f"step-{step}.pt")
        self.kept = sorted(self.kept + [(rank, step)])
        for _, s in self.kept[self.k :]:
            os.remove(f"step-{s}.pt")
        self.kept = self.kept[: self.k]
""",
        "you wrote step-1.pt outside `directory`",
    ),
    (
        "best-k-nan-tuple-key",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.kept = Path(directory), k, []

    def save(self, step, val_loss, state):
        torch.save(state, self.directory / f"step-{step}.pt")
        nan = math.isnan(val_loss)
        self.kept.append((nan, 0.0 if nan else val_loss, step))
        self.kept.sort()
        for *_, s in self.kept[self.k :]:
            (self.directory / f"step-{s}.pt").unlink()
        del self.kept[self.k :]
""",
        "a step saved again",
    ),
    (
        "verified-then-weights-only-false",
        "check_load_verified(load_verified)",
        """
def load_verified(path):
    expected = path.with_name(path.name + ".sha256").read_text().strip()
    if hashlib.sha256(path.read_bytes()).hexdigest() != expected:
        raise ValueError("digest mismatch")
    return torch.load(path, weights_only=False)  # verified, so trusted
""",
        "a matching digest shows the file is unchanged, not who wrote it",
    ),
    (
        "stale-re-match-unanchored",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        """
def remove_stale_temporaries(directory):
    n = 0
    for p in Path(directory).iterdir():
        if re.match(r"\\..+\\.[0-9a-f]{16}\\.tmp", p.name) and p.is_file():
            p.unlink()
            n += 1
    return n
""",
        "match the whole name",
    ),
]


# Written to attack the checkers after they moved onto the harness: atomic saves written differently, and mistakes that slipped through before (a plain torch.save or write_bytes in place, a temporary file in /tmp, a step saved twice, a save that deletes first, a temporary name drawn from the global RNG, a digest read in one chunk or compared by prefix, leftovers matched by length or without the leading dot).
CASES += [
    (
        "best-k-dict-by-step-save-atomically",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.losses, self.saves = Path(directory), k, {}, 0

    def save(self, step, val_loss, state):
        save_atomically(state, self.directory / f"step-{step}.pt")  # the page's helper
        self.saves += 1
        nan = math.isnan(val_loss)
        self.losses[step] = (nan, 0.0 if nan else val_loss, self.saves)  # a step saved again: its new loss
        for worse in sorted(self.losses, key=self.losses.get)[self.k :]:
            (self.directory / f"step-{worse}.pt").unlink()
            del self.losses[worse]
""",
        "✓ correct",
    ),
    (
        "best-k-named-temporary-file",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.entries, self.count = Path(directory), k, [], 0

    def save(self, step, val_loss, state):
        path = self.directory / f"step-{step}.pt"
        with tempfile.NamedTemporaryFile(dir=self.directory, suffix=".tmp", delete=False) as f:
            torch.save(state, f)
        os.replace(f.name, path)
        self.entries = [e for e in self.entries if e[-1] != step]
        self.count += 1
        nan = math.isnan(val_loss)
        self.entries.append((nan, 0.0 if nan else val_loss, self.count, step))
        self.entries.sort()
        for *_, worse in self.entries[self.k :]:
            (self.directory / f"step-{worse}.pt").unlink()
        del self.entries[self.k :]
""",
        "✓ correct",
    ),
    (
        "best-k-partial-then-path-replace",
        "check_best_checkpoints(BestCheckpoints)",
        """
import bisect


class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.ranked, self.saved = Path(directory), k, [], 0

    def save(self, step, val_loss, state):
        final = self.directory / f"step-{step}.pt"
        partial = final.with_name(final.name + ".partial")
        torch.save(state, partial)
        partial.replace(final)  # atomic: the old file or the new one
        self.saved += 1
        self.ranked = [r for r in self.ranked if r[3] != step]
        bad = val_loss != val_loss
        bisect.insort(self.ranked, (bad, 0.0 if bad else val_loss, self.saved, step))
        while len(self.ranked) > self.k:
            *_, worst = self.ranked.pop()
            (self.directory / f"step-{worst}.pt").unlink()
""",
        "✓ correct",
    ),
    (
        "best-k-os-rename-hidden-temp",
        "check_best_checkpoints(BestCheckpoints)",
        """
import uuid


class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k = Path(directory), k
        self.best = {}  # step -> (rank, order)
        self.order = 0

    def save(self, step, val_loss, state):
        target = self.directory / f"step-{step}.pt"
        temporary = self.directory / f".{target.name}.{uuid.uuid4().hex[:16]}.tmp"
        try:
            torch.save(state, temporary)
            os.rename(temporary, target)
        finally:
            temporary.unlink(missing_ok=True)
        self.order += 1
        rank = (1, 0.0) if math.isnan(val_loss) else (0, val_loss)
        self.best[step] = (rank, self.order)
        ranked = sorted(self.best, key=lambda s: self.best[s])
        for dropped in ranked[self.k :]:
            del self.best[dropped]
            (self.directory / f"step-{dropped}.pt").unlink()
""",
        "✓ correct",
    ),
    (
        "best-k-torch-save-in-place",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.losses, self.saves = Path(directory), k, {}, 0

    def save(self, step, val_loss, state):
        torch.save(state, self.directory / f"step-{step}.pt")
        self.saves += 1
        nan = math.isnan(val_loss)
        self.losses[step] = (nan, 0.0 if nan else val_loss, self.saves)
        for worse in sorted(self.losses, key=self.losses.get)[self.k :]:
            (self.directory / f"step-{worse}.pt").unlink()
            del self.losses[worse]
""",
        "was written in place",
    ),
    (
        "best-k-bytes-then-write-bytes",
        "check_best_checkpoints(BestCheckpoints)",
        """
import io
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.losses, self.saves = Path(directory), k, {}, 0

    def save(self, step, val_loss, state):
        buffer = io.BytesIO()
        torch.save(state, buffer)  # serialize first: a pickling error leaves the file alone
        (self.directory / f"step-{step}.pt").write_bytes(buffer.getvalue())
        self.saves += 1
        nan = math.isnan(val_loss)
        self.losses[step] = (nan, 0.0 if nan else val_loss, self.saves)
        for worse in sorted(self.losses, key=self.losses.get)[self.k :]:
            (self.directory / f"step-{worse}.pt").unlink()
            del self.losses[worse]
""",
        "was written in place",
    ),
    (
        "best-k-system-temp-then-move",
        "check_best_checkpoints(BestCheckpoints)",
        """
import shutil


class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.losses, self.saves = Path(directory), k, {}, 0

    def save(self, step, val_loss, state):
        fd, temporary = tempfile.mkstemp(suffix=".pt")
        try:
            with os.fdopen(fd, "wb") as f:
                torch.save(state, f)
            shutil.move(temporary, self.directory / f"step-{step}.pt")
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
        self.saves += 1
        nan = math.isnan(val_loss)
        self.losses[step] = (nan, 0.0 if nan else val_loss, self.saves)
        for worse in sorted(self.losses, key=self.losses.get)[self.k :]:
            (self.directory / f"step-{worse}.pt").unlink()
            del self.losses[worse]
""",
        "not beside the checkpoint",
    ),
    (
        "best-k-heap-atomic-duplicate-step",
        "check_best_checkpoints(BestCheckpoints)",
        """
import heapq


class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.heap = Path(directory), k, []  # worst on top

    def save(self, step, val_loss, state):
        save_atomically(state, self.directory / f"step-{step}.pt")
        nan = val_loss != val_loss
        heapq.heappush(self.heap, (-nan, 0.0 if nan else -val_loss, -step))
        if len(self.heap) > self.k:
            *_, worst = heapq.heappop(self.heap)
            (self.directory / f"step-{-worst}.pt").unlink()
""",
        "a step saved again",
    ),
    (
        "best-k-deletes-before-saving",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.losses, self.saves = Path(directory), k, {}, 0

    def save(self, step, val_loss, state):
        self.saves += 1
        nan = math.isnan(val_loss)
        self.losses[step] = (nan, 0.0 if nan else val_loss, self.saves)
        for worse in sorted(self.losses, key=self.losses.get)[self.k :]:  # make room first
            (self.directory / f"step-{worse}.pt").unlink(missing_ok=True)
            del self.losses[worse]
        if step in self.losses:
            save_atomically(state, self.directory / f"step-{step}.pt")
""",
        "delete the worse checkpoints only after the new one is safely written",
    ),
    (
        "best-k-random-temp-name",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.losses, self.saves = Path(directory), k, {}, 0

    def save(self, step, val_loss, state):
        path = self.directory / f"step-{step}.pt"
        temporary = path.with_name(f".{path.name}.{random.getrandbits(64):016x}.tmp")
        torch.save(state, temporary)
        os.replace(temporary, path)
        self.saves += 1
        nan = math.isnan(val_loss)
        self.losses[step] = (nan, 0.0 if nan else val_loss, self.saves)
        for worse in sorted(self.losses, key=self.losses.get)[self.k :]:
            (self.directory / f"step-{worse}.pt").unlink()
            del self.losses[worse]
""",
        "Python RNG",
    ),
    (
        "best-k-keeps-first-loss-of-a-step",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.losses, self.saves = Path(directory), k, {}, 0

    def save(self, step, val_loss, state):
        save_atomically(state, self.directory / f"step-{step}.pt")
        self.saves += 1
        nan = math.isnan(val_loss)
        self.losses.setdefault(step, (nan, 0.0 if nan else val_loss, self.saves))
        for worse in sorted(self.losses, key=self.losses.get)[self.k :]:
            (self.directory / f"step-{worse}.pt").unlink()
            del self.losses[worse]
""",
        "with its new loss",
    ),
    (
        "best-k-old-reference-in-place",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k = Path(directory), k
        self.kept = []

    def save(self, step, val_loss, state):
        path = self.directory / f"step-{step}.pt"
        torch.save(state, path)
        rank = (True, 0.0) if math.isnan(val_loss) else (False, val_loss)
        self.kept = sorted(self.kept + [(rank, path)], key=lambda item: item[0])
        for _, worse_path in self.kept[self.k :]:
            worse_path.unlink()
        self.kept = self.kept[: self.k]
""",
        "deleting the older entry's file deletes the new checkpoint too",
    ),
    (
        "verified-bytes-once-from-memory",
        "check_load_verified(load_verified)",
        """
import io
def load_verified(path):
    data = path.read_bytes()  # read once: what was hashed is what is loaded
    expected = Path(str(path) + ".sha256").read_text().strip()
    if hashlib.sha256(data).hexdigest() != expected:
        raise ValueError("checksum mismatch")
    return torch.load(io.BytesIO(data), weights_only=True)
""",
        "✓ correct",
    ),
    (
        "verified-iter-chunks-split",
        "check_load_verified(load_verified)",
        """
def load_verified(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            digest.update(chunk)
    with open(f"{path}.sha256") as f:
        expected = f.read().split()[0]
    if not hmac.compare_digest(digest.hexdigest(), expected.lower()):
        raise ValueError(f"{path} failed verification")
    return torch.load(path, map_location="cpu", weights_only=True)
""",
        "✓ correct",
    ),
    (
        "verified-fromhex-bytes",
        "check_load_verified(load_verified)",
        """
def load_verified(path):
    sidecar = path.parent / (path.name + ".sha256")
    if not sidecar.is_file():
        raise FileNotFoundError(f"no digest for {path.name}")
    want = bytes.fromhex(sidecar.read_text().strip())
    with open(path, "rb") as f:
        got = hashlib.file_digest(f, "sha256").digest()
    if got != want:
        raise ValueError("SHA-256 mismatch")
    return torch.load(path, weights_only=True)
""",
        "✓ correct",
    ),
    (
        "verified-first-chunk-only",
        "check_load_verified(load_verified)",
        """
def load_verified(path):
    with open(path, "rb") as f:
        actual = hashlib.sha256(f.read(1 << 16)).hexdigest()
    expected = path.with_name(path.name + ".sha256").read_text().strip()
    if actual != expected:
        raise ValueError("digest mismatch")
    return torch.load(path, weights_only=True)
""",
        "hash the file's bytes, all of them",
    ),
    (
        "verified-chunk-loop-rebinds",
        "check_load_verified(load_verified)",
        """
def load_verified(path):
    with open(path, "rb") as f:
        while chunk := f.read(8192):
            actual = hashlib.sha256(chunk)  # a new hash per chunk: only the last one counts
    expected = path.with_name(path.name + ".sha256").read_text().strip()
    if actual.hexdigest() != expected:
        raise ValueError("digest mismatch")
    return torch.load(path, weights_only=True)
""",
        "hash the file's bytes, all of them",
    ),
    (
        "verified-startswith",
        "check_load_verified(load_verified)",
        """
import hashlib


def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()

def load_verified(path):
    expected = path.with_name(path.name + ".sha256").read_text().strip()
    if not sha256_of(path).startswith(expected):
        raise ValueError("digest mismatch")
    return torch.load(path, weights_only=True)
""",
        "compare the whole digest",
    ),
    (
        "verified-first-32-digits",
        "check_load_verified(load_verified)",
        """
import hashlib


def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()

def load_verified(path):
    expected = path.with_name(path.name + ".sha256").read_text().strip()
    if sha256_of(path)[:32] != expected[:32]:  # 128 bits are plenty against accidents
        raise ValueError("digest mismatch")
    return torch.load(path, weights_only=True)
""",
        "compare the whole digest",
    ),
    (
        "verified-trust-on-first-use",
        "check_load_verified(load_verified)",
        r"""
import hashlib


def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()

def load_verified(path):
    sidecar = path.with_name(path.name + ".sha256")
    if not sidecar.exists():
        sidecar.write_text(sha256_of(path) + "\n")  # first sight: remember it
    if sha256_of(path) != sidecar.read_text().strip():
        raise ValueError("digest mismatch")
    return torch.load(path, weights_only=True)
""",
        "refuse what you cannot verify",
    ),
    (
        "verified-substring",
        "check_load_verified(load_verified)",
        """
import hashlib


def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()

def load_verified(path):
    expected = path.with_name(path.name + ".sha256").read_text()
    if expected.strip() not in sha256_of(path):
        raise ValueError("digest mismatch")
    return torch.load(path, weights_only=True)
""",
        "compare the whole digest",
    ),
    (
        "verified-chdir",
        "check_load_verified(load_verified)",
        """
import hashlib


def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()

def load_verified(path):
    os.chdir(path.parent)
    expected = Path(path.name + ".sha256").read_text().strip()
    if sha256_of(path.name) != expected:
        raise ValueError("digest mismatch")
    return torch.load(path.name, weights_only=True)
""",
        "working directory",
    ),
    (
        "verified-assert",
        "check_load_verified(load_verified)",
        """
import hashlib


def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()

def load_verified(path):
    expected = path.with_name(path.name + ".sha256").read_text().strip()
    assert sha256_of(path) == expected, "digest mismatch"
    return torch.load(path, weights_only=True)
""",
        "raise ValueError for a digest mismatch, not AssertionError",
    ),
    (
        "stale-scandir-rpartition",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        """
def remove_stale_temporaries(directory):
    count = 0
    for entry in os.scandir(directory):
        name = entry.name
        if not (entry.is_file() and name.startswith(".") and name.endswith(".tmp")):
            continue
        stem, _, token = name[1:-4].rpartition(".")
        if stem and len(token) == 16 and all(c in "0123456789abcdef" for c in token):
            os.remove(entry.path)
            count += 1
    return count
""",
        "✓ correct",
    ),
    (
        "stale-glob-then-fullmatch",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        r"""
def remove_stale_temporaries(directory):
    leftover = re.compile(r"\.(?P<name>.+)\.(?P<token>[0-9a-f]{16})\.tmp")
    paths = [p for p in Path(directory).glob(".*.tmp") if p.is_file() and leftover.fullmatch(p.name)]
    for p in paths:
        p.unlink()
    return len(paths)
""",
        "✓ correct",
    ),
    (
        "stale-anchored-match",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        r"""
def remove_stale_temporaries(directory):
    removed = 0
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if re.match(r"^\.[^/]+\.[0-9a-f]{16}\.tmp$", name) and os.path.isfile(path):
            os.unlink(path)
            removed += 1
    return removed
""",
        "✓ correct",
    ),
    (
        "stale-sixteen-or-more",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        r"""
def remove_stale_temporaries(directory):
    pattern = re.compile(r"\..+\.[0-9a-f]{16,}\.tmp")
    removed = 0
    for path in Path(directory).iterdir():
        if pattern.fullmatch(path.name) and path.is_file():
            path.unlink()
            removed += 1
    return removed
""",
        "a 17-digit look-alike",
    ),
    (
        "stale-word-characters",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        r"""
def remove_stale_temporaries(directory):
    pattern = re.compile(r"\..+\.\w{16}\.tmp")
    removed = 0
    for path in Path(directory).iterdir():
        if pattern.fullmatch(path.name) and path.is_file():
            path.unlink()
            removed += 1
    return removed
""",
        "16 characters that are not hex digits",
    ),
    (
        "stale-no-leading-dot",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        r"""
def remove_stale_temporaries(directory):
    removed = 0
    for path in Path(directory).iterdir():
        if re.search(r"\.[0-9a-f]{16}\.tmp$", path.name) and path.is_file():
            path.unlink()
            removed += 1
    return removed
""",
        "without the leading dot",
    ),
    (
        "stale-length-only",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        """
def remove_stale_temporaries(directory):
    removed = 0
    for path in Path(directory).glob(".*.tmp"):
        parts = path.name.split(".")
        if len(parts) >= 4 and len(parts[-2]) == 16 and path.is_file():
            path.unlink()
            removed += 1
    return removed
""",
        "16 characters that are not hex digits",
    ),
    (
        "stale-chdir-glob",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        r"""
import glob


def remove_stale_temporaries(directory):
    os.chdir(directory)
    removed = 0
    for name in glob.glob(".*.tmp"):
        if re.fullmatch(r"\..+\.[0-9a-f]{16}\.tmp", name) and os.path.isfile(name):
            os.remove(name)
            removed += 1
    return removed
""",
        "working directory",
    ),
    (
        "stale-hexdigits-any-case-17",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        """
import string


def remove_stale_temporaries(directory):
    removed = 0
    for path in Path(directory).iterdir():
        name = path.name
        if name.startswith(".") and name.endswith(".tmp") and path.is_file():
            token = name[:-4].rsplit(".", 1)[-1]
            if len(token) >= 16 and all(c in string.hexdigits for c in token):
                path.unlink()
                removed += 1
    return removed
""",
        "a 17-digit look-alike",
    ),
    (
        "stale-counts-matches-not-removals",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        r"""
def remove_stale_temporaries(directory):
    pattern = re.compile(r"\..+\.[0-9a-f]{16}\.tmp")
    matches = [p for p in Path(directory).iterdir() if pattern.fullmatch(p.name)]
    for p in matches:
        if p.is_file():
            p.unlink()
    return len(matches)
""",
        "expected the count",
    ),
    (
        "stale-deletes-empty-leftovers-only-if-nonempty",
        "check_remove_stale_temporaries(remove_stale_temporaries)",
        r"""
def remove_stale_temporaries(directory):
    pattern = re.compile(r"\..+\.[0-9a-f]{16}\.tmp")
    removed = 0
    for path in Path(directory).iterdir():
        if pattern.fullmatch(path.name) and path.is_file() and path.stat().st_size > 0:
            path.unlink()  # an empty one may be a save just starting
            removed += 1
    return removed
""",
        "a 17-digit look-alike",
    ),
    # --- issue 37: categories the families never tried ---
    (
        "best-rewrites-kept-states",
        "check_best_checkpoints(BestCheckpoints)",
        """
import math
import os
from pathlib import Path


class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.kept = Path(directory), k, {}

    def save(self, step, val_loss, state):
        self.kept.pop(step, None)
        self.kept[step] = (val_loss, state)
        order = sorted(self.kept.items(), key=lambda item: (math.isnan(item[1][0]), item[1][0]))
        self.kept = dict(order[: self.k])
        for name in os.listdir(self.directory):
            if name.startswith("step-") and int(name[5:-3]) not in self.kept:
                os.remove(self.directory / name)
        for kept_step, (_, kept_state) in self.kept.items():  # every kept file rewritten: always consistent
            save_atomically(kept_state, self.directory / f"step-{kept_step}.pt")
""",
        "keep no reference to write later",
    ),
]
