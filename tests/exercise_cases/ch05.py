"""Answers that tests/test_exercises.py runs through chapter 05's checkers."""

NOTEBOOK = "05_file_io"
CASES = [
    # id, the check call, the answer's source, and what the single printed line must contain.
    # Right answers: expect "✓ correct". Wrong answers: expect the hint text (the line must start with "✗").
    # --- load_checkpoint: map_location and weights_only ---
    (
        "load-map-location-open-file",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    with open(path, "rb") as f:  # weights_only=True is the default since torch 2.6
        return torch.load(f, map_location=torch.device(device))
""",
        "✓ correct",
    ),
    (
        "load-map-location-dict-of-locations",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    target = str(device)
    state = torch.load(path, weights_only=True, map_location={"cpu": target, "cuda:0": target})
    return dict(state)
""",
        "✓ correct",
    ),
    (
        "load-forgets-map-location",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    return torch.load(path, weights_only=True)
""",
        "pass map_location=device",
    ),
    (
        "load-then-move",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    return {k: v.to(device) for k, v in torch.load(path, weights_only=True).items()}
""",
        "pass map_location=device",
    ),
    (
        "load-fixed-cpu",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    return torch.load(path, map_location="cpu", weights_only=True)
""",
        "instead of a fixed device",
    ),
    (
        "load-weights-only-false",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    return torch.load(path, map_location=device, weights_only=False)
""",
        "use weights_only=True",
    ),
    # --- BestCheckpoints: best-k retention ---
    (
        "best-k-dict-recomputed",
        "check_best_checkpoints(BestCheckpoints)",
        """
class BestCheckpoints:
    def __init__(self, directory, k):
        self.directory, self.k, self.losses = Path(directory), k, {}

    def save(self, step, val_loss, state):
        self.losses[step] = val_loss
        best = sorted(self.losses, key=self.losses.get)[: self.k]
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
        self.directory, self.k, self.heap = directory, k, []  # (-loss, step): worst on top

    def save(self, step, val_loss, state):
        path = self.directory / f"step-{step}.pt"
        torch.save(state, path)
        heapq.heappush(self.heap, (-val_loss, step))
        if len(self.heap) > self.k:
            _, worst = heapq.heappop(self.heap)
            (self.directory / f"step-{worst}.pt").unlink()
""",
        "✓ correct",
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
        "most recent k",
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
        "highest losses",
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
    # --- transfer: partial load with strict=False ---
    (
        "transfer-copy-under-no-grad",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    not_loaded = []
    with torch.no_grad():
        for name, tensor in target.state_dict().items():
            if name in source_state and source_state[name].shape == tensor.shape:
                tensor.copy_(source_state[name])
            else:
                not_loaded.append(name)
    return not_loaded
""",
        "✓ correct",
    ),
    (
        "transfer-set-difference",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    own = target.state_dict()
    fitting = {k: v for k, v in source_state.items() if k in own and own[k].shape == v.shape}
    report = target.load_state_dict(fitting, strict=False)
    assert not report.unexpected_keys
    return set(own) - set(fitting)
""",
        "✓ correct",
    ),
    (
        "transfer-strict-false-alone",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    return target.load_state_dict(source_state, strict=False).missing_keys
""",
        "strict=False forgives missing and unexpected names, not wrong shapes",
    ),
    (
        "transfer-filters-by-name-only",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    own = target.state_dict()
    common = {k: v for k, v in source_state.items() if k in own}
    return target.load_state_dict(common, strict=False).missing_keys
""",
        "drop the entries whose shape differs first",
    ),
    (
        "transfer-returns-unexpected-keys",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    own = target.state_dict()
    fitting = {k: v for k, v in source_state.items() if k not in own or own[k].shape == v.shape}
    return target.load_state_dict(fitting, strict=False).unexpected_keys
""",
        "the unexpected keys",
    ),
    (
        "transfer-returns-loaded-names",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    own = target.state_dict()
    fitting = {k: v for k, v in source_state.items() if k in own and own[k].shape == v.shape}
    target.load_state_dict(fitting, strict=False)
    return list(fitting)
""",
        "kept its own value",
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
    return torch.load(buffer, map_location="cpu", weights_only=True)
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
        "strip the newline",
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
        "without a .sha256 file loaded",
    ),
]
