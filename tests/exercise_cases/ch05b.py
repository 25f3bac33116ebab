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
        "✓ correct",
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
        "✓ correct",
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
        "✓ correct",
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
        "✓ correct",
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
