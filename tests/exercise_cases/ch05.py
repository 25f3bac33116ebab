"""Answers that tests/test_exercises.py runs through the checkers of chapter 5's first page.

The second page, 05_checkpoints_that_survive, has its cases in ch05b.py (one NOTEBOOK per module).
"""

NOTEBOOK = "05_file_io"
CASES = [
    # id, the check call, the answer's source, and what the single printed line must contain.
    # Right answers: expect "✓ correct". Wrong answers: expect the hint text (the line must start with "✗").
    # --- load_checkpoint: map_location, weights_only, what torch.load returns ---
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
        "load-empty-safe-globals",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    with torch.serialization.safe_globals([]):  # nothing beyond the default allowlist
        return torch.load(path, map_location=torch.device(device), weights_only=True)
""",
        "✓ correct",
    ),
    (
        "load-bytes-first",
        "check_load_checkpoint(load_checkpoint)",
        """
import io
def load_checkpoint(path, device):
    data = io.BytesIO(Path(path).read_bytes())
    return torch.load(data, map_location=str(device), weights_only=True)
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
    (
        "load-cpu-then-move-flat",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    state = torch.load(path, map_location="cpu", weights_only=True)
    return {k: v.to(device) for k, v in state.items()}
""",
        "_metadata",
    ),
    (
        "load-dict-copy-drops-metadata",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    return dict(torch.load(path, map_location=device, weights_only=True))
""",
        "_metadata",
    ),
    (
        "load-device-type-only",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    return torch.load(path, map_location=device.type, weights_only=True)
""",
        "AttributeError",
    ),
    # --- strip_prefixes: module. and _orig_mod., _metadata kept, argument untouched ---
    (
        "strip-rename-by-hand",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    names = list(state_dict)
    cut = ""
    while True:
        rest = [n[len(cut):] for n in names]
        step = next((p for p in ("module.", "_orig_mod.") if rest and all(r.startswith(p) for r in rest)), "")
        if not step:
            break
        cut += step
    result = OrderedDict((n[len(cut):], t) for n, t in state_dict.items())
    if hasattr(state_dict, "_metadata"):
        head = cut.rstrip(".")
        result._metadata = OrderedDict()
        for key, value in state_dict._metadata.items():
            if key == head:
                result._metadata[""] = value
            elif key.startswith(cut):
                result._metadata[key[len(cut):]] = value
            elif not cut or not head.startswith(key):
                result._metadata[key] = value
    return result
""",
        "✓ correct",
    ),
    (
        "strip-recursive-deepcopy-metadata",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    result = OrderedDict(state_dict)
    if hasattr(state_dict, "_metadata"):
        result._metadata = copy.deepcopy(state_dict._metadata)
    for prefix in ("module.", "_orig_mod."):
        if result and all(k.startswith(prefix) for k in result):
            consume_prefix_in_state_dict_if_present(result, prefix)
            return strip_prefixes(result)
    return result
""",
        "✓ correct",
    ),
    (
        "strip-common-prefix-loop",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    result = OrderedDict(state_dict.items())
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        result._metadata = OrderedDict(metadata.items())
    changed = True
    while changed:
        changed = False
        for prefix in ("_orig_mod.", "module."):
            if len(result) and all(name.startswith(prefix) for name in result):
                consume_prefix_in_state_dict_if_present(result, prefix)
                changed = True
    return result
""",
        "✓ correct",
    ),
    (
        "strip-removeprefix-comprehension",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    return {k.removeprefix("module.").removeprefix("_orig_mod."): v for k, v in state_dict.items()}
""",
        "_metadata",
    ),
    (
        "strip-startswith-slice",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    result = {}
    for key, value in state_dict.items():
        for prefix in ("module.", "_orig_mod.", "module."):
            if key.startswith(prefix):
                key = key[len(prefix):]
        result[key] = value
    return result
""",
        "_metadata",
    ),
    (
        "strip-consume-in-place",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    for prefix in ("module.", "_orig_mod.", "module."):
        consume_prefix_in_state_dict_if_present(state_dict, prefix)
    return state_dict
""",
        "changed its argument",
    ),
    (
        "strip-consume-returns-none",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    result = copy.deepcopy(state_dict)
    return consume_prefix_in_state_dict_if_present(result, "module.")
""",
        "returned None",
    ),
    (
        "strip-replace-everywhere",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    result = OrderedDict((k.replace("module.", "").replace("_orig_mod.", ""), v) for k, v in state_dict.items())
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict(
            (k.replace("module.", "").replace("_orig_mod.", "").replace("module", "").replace("_orig_mod", ""), v)
            for k, v in state_dict._metadata.items()
        )
    return result
""",
        "str.replace also cuts",
    ),
    (
        "strip-module-only",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    result = OrderedDict(state_dict)
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict(state_dict._metadata)
    consume_prefix_in_state_dict_if_present(result, "module.")
    return result
""",
        "strip both prefixes",
    ),
    (
        "strip-each-once-fixed-order",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    result = OrderedDict(state_dict)
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict(state_dict._metadata)
    for prefix in ("module.", "_orig_mod."):
        consume_prefix_in_state_dict_if_present(result, prefix)
    return result
""",
        "strip both prefixes",
    ),
    (
        "strip-consume-per-key",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    result = OrderedDict(state_dict)
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict(state_dict._metadata)
    for prefix in ("module.", "_orig_mod.", "module.", "_orig_mod."):
        consume_prefix_in_state_dict_if_present(result, prefix)
    return result
""",
        "only when every name starts with it",
    ),
    (
        "strip-shallow-copy-shares-metadata",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    result = copy.copy(state_dict)
    for _ in range(3):
        for prefix in ("module.", "_orig_mod."):
            if result and all(k.startswith(prefix) for k in result):
                consume_prefix_in_state_dict_if_present(result, prefix)
    return result
""",
        "changed its argument",
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
        "it is tied to an entry that was loaded",
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
        "it is tied to an entry that was loaded",
    ),
    (
        "transfer-tuple-of-names",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    own = target.state_dict()
    keep = [k for k, v in own.items() if k not in source_state or source_state[k].shape != v.shape]
    target.load_state_dict({k: v for k, v in source_state.items() if k in own and k not in keep}, strict=False)
    return tuple(keep)
""",
        "it is tied to an entry that was loaded",
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
    (
        "transfer-assign-true",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    own = target.state_dict()
    fitting = {k: v for k, v in source_state.items() if k in own and own[k].shape == v.shape}
    return target.load_state_dict(fitting, strict=False, assign=True).missing_keys
""",
        "Parameter objects were replaced",
    ),
    (
        "transfer-parameters-only",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    kept = []
    with torch.no_grad():
        for name, p in target.named_parameters():
            if name in source_state and source_state[name].shape == p.shape:
                p.copy_(source_state[name])
            else:
                kept.append(name)
    return kept
""",
        "was not loaded",
    ),
    # --- from the rev5 review ---
    (
        "transfer-deletes-from-source",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    shapes = {k: v.shape for k, v in target.state_dict().items()}
    for name in list(source_state):
        if shapes.get(name) != source_state[name].shape:
            del source_state[name]
    return target.load_state_dict(source_state, strict=False).missing_keys
""",
        "your function changed the source state dict",
    ),
    (
        "transfer-matches-on-numel",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    own = target.state_dict()
    fitting = {
        k: v.reshape(own[k].shape)
        for k, v in source_state.items()
        if k in own and own[k].numel() == v.numel()
    }
    return target.load_state_dict(fitting, strict=False).missing_keys
""",
        "on swapped shapes of one size 0.weight changed",
    ),
    (
        "load-checkpoint-none-on-refusal",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    try:
        return torch.load(path, map_location=device, weights_only=True)
    except pickle.UnpicklingError:
        return None
""",
        "let torch.load's error propagate",
    ),
]


# Written to attack the checkers after they moved onto the harness: answers written differently, and mistakes that slipped through before (a damaged file returned as {}, the allowlist or the working directory changed, a tied weight reported as kept, a dtype or a frozen layer skipped, p.data aliasing the source, an endless loop on an empty state dict).
CASES += [
    (
        "load-bytes-through-open",
        "check_load_checkpoint(load_checkpoint)",
        """
import io
def load_checkpoint(path, device):
    with open(path, "rb") as f:
        buffer = io.BytesIO(f.read())
    return torch.load(buffer, map_location=torch.device(device), weights_only=True)
""",
        "✓ correct",
    ),
    (
        "load-str-path-mmap-off",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    device = torch.device(device)  # accepts "cpu" as well as torch.device("cpu")
    return torch.load(str(path), weights_only=True, map_location=device, mmap=False)
""",
        "✓ correct",
    ),
    (
        "load-cpu-then-move-recursively",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    state = torch.load(path, map_location="cpu", weights_only=True)

    def move(value):
        if isinstance(value, torch.Tensor):
            return value.to(device)
        if isinstance(value, dict):
            moved = type(value)((k, move(v)) for k, v in value.items())
            if hasattr(value, "_metadata"):
                moved._metadata = value._metadata
            return moved
        if isinstance(value, (list, tuple)):
            return type(value)(move(v) for v in value)
        return value

    return move(state)
""",
        "✓ correct",
    ),
    (
        "load-damaged-returns-none",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    try:
        return torch.load(path, map_location=device, weights_only=True)
    except (RuntimeError, EOFError):
        return None  # a damaged file: start from scratch
""",
        "let torch.load's error propagate",
    ),
    (
        "load-empty-file-means-fresh-start",
        "check_load_checkpoint(load_checkpoint)",
        """
import os


def load_checkpoint(path, device):
    if os.path.getsize(path) == 0:
        return {}  # nothing saved yet
    return torch.load(path, map_location=device, weights_only=True)
""",
        "let torch.load's error propagate",
    ),
    (
        "load-add-safe-globals",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    torch.serialization.add_safe_globals([OrderedDict, Path])  # what checkpoints hold
    return torch.load(path, map_location=device, weights_only=True)
""",
        "allowlist",
    ),
    (
        "load-chdir-into-the-folder",
        "check_load_checkpoint(load_checkpoint)",
        """
import os


def load_checkpoint(path, device):
    os.chdir(Path(path).parent)
    return torch.load(Path(path).name, map_location=device, weights_only=True)
""",
        "working directory",
    ),
    (
        "load-seeds-for-reproducibility",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    torch.manual_seed(0)  # resume reproducibly
    return torch.load(path, map_location=device, weights_only=True)
""",
        "torch RNG",
    ),
    (
        "load-unwraps-model-key",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    state = torch.load(path, map_location=device, weights_only=True)
    return state.get("model", state) if isinstance(state, dict) else state
""",
        "has other keys",
    ),
    (
        "load-moves-top-level-only",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    state = torch.load(path, map_location="cpu", weights_only=True)
    if isinstance(state, dict):
        for key, value in state.items():
            if isinstance(value, torch.Tensor):
                state[key] = value.to(device)
    return state
""",
        "device",
    ),
    (
        "load-mmap",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    return torch.load(path, map_location=device, weights_only=True, mmap=True)
""",
        "legacy format",
    ),
    (
        "load-retry-unsafe",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    try:
        return torch.load(path, map_location=device, weights_only=True)
    except pickle.UnpicklingError:  # an older checkpoint with custom classes
        return torch.load(path, map_location=device, weights_only=False)
""",
        "ran code",
    ),
    (
        "load-normalizes-to-float32",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    state = torch.load(path, map_location=device, weights_only=True)
    if isinstance(state, dict):
        for key, value in state.items():
            if isinstance(value, torch.Tensor) and value.is_floating_point():
                state[key] = value.float()
    return state
""",
        "dtype",
    ),
    (
        "strip-accumulated-prefix-manual-metadata",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    prefix = ""
    while state_dict:
        step = next(
            (p for p in ("module.", "_orig_mod.") if all(k.startswith(prefix + p) for k in state_dict)),
            None,
        )
        if step is None:
            break
        prefix += step
    result = OrderedDict((k[len(prefix):], v) for k, v in state_dict.items())
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        result._metadata = OrderedDict(
            (k[len(prefix):], v) for k, v in metadata.items() if k.startswith(prefix)
        )
        if prefix and prefix[:-1] in metadata:
            result._metadata[""] = metadata[prefix[:-1]]
    return result
""",
        "✓ correct",
    ),
    (
        "strip-recursive-rebuild",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    for prefix in ("module.", "_orig_mod."):
        if state_dict and all(k.startswith(prefix) for k in state_dict):
            inner = OrderedDict((k.removeprefix(prefix), v) for k, v in state_dict.items())
            if hasattr(state_dict, "_metadata"):
                metadata = state_dict._metadata
                inner._metadata = OrderedDict(
                    (k.removeprefix(prefix), v) for k, v in metadata.items() if k.startswith(prefix)
                )
                if prefix[:-1] in metadata:
                    inner._metadata[""] = metadata[prefix[:-1]]
            return strip_prefixes(inner)
    result = OrderedDict(state_dict)
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict(state_dict._metadata)
    return result
""",
        "✓ correct",
    ),
    (
        "strip-flag-loop-deepcopy-metadata",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    result = OrderedDict(state_dict)
    if hasattr(state_dict, "_metadata"):
        result._metadata = copy.deepcopy(state_dict._metadata)
    stripped = True
    while stripped and len(result) > 0:
        stripped = False
        for prefix in ("_orig_mod.", "module."):
            if all(name.startswith(prefix) for name in result):
                consume_prefix_in_state_dict_if_present(result, prefix)
                stripped = True
    return result
""",
        "✓ correct",
    ),
    (
        "strip-word-without-dot",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    result = OrderedDict(state_dict)
    result._metadata = OrderedDict(getattr(state_dict, "_metadata", {}))
    while result:
        for word in ("module", "_orig_mod"):
            if all(k.startswith(word) for k in result):
                cut = len(word) + 1
                stripped = OrderedDict((k[cut:], v) for k, v in result.items())
                stripped._metadata = OrderedDict(
                    (k[cut:], v) for k, v in result._metadata.items() if k.startswith(word)
                )
                result = stripped
                break
        else:
            break
    return result
""",
        "dot included",
    ),
    (
        "strip-loops-forever-on-empty",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    result = OrderedDict(state_dict)
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict(state_dict._metadata)
    while True:
        prefix = next(
            (p for p in ("module.", "_orig_mod.") if all(k.startswith(p) for k in result)), None
        )
        if prefix is None:
            return result
        consume_prefix_in_state_dict_if_present(result, prefix)
""",
        "did not return within",
    ),
    (
        "strip-returns-argument-when-clean",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    def wrapped(names):
        return names and any(all(k.startswith(p) for k in names) for p in ("module.", "_orig_mod."))

    if not wrapped(list(state_dict)):
        return state_dict  # nothing to strip
    result = OrderedDict(state_dict)
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict(state_dict._metadata)
    while wrapped(list(result)):
        prefix = next(p for p in ("module.", "_orig_mod.") if all(k.startswith(p) for k in result))
        consume_prefix_in_state_dict_if_present(result, prefix)
    return result
""",
        "returned the argument itself",
    ),
    (
        "strip-lstrip-when-all-wrapped",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    result = OrderedDict(state_dict)
    metadata = OrderedDict(getattr(state_dict, "_metadata", {}))
    for _ in range(4):
        for prefix in ("module.", "_orig_mod."):
            if result and all(k.startswith(prefix) for k in result):
                result = OrderedDict((k.lstrip(prefix), v) for k, v in result.items())
                metadata = OrderedDict((k.lstrip(prefix), v) for k, v in metadata.items())
    result._metadata = metadata
    return result
""",
        "✗ on",
    ),
    (
        "strip-first-key-decides",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    result = OrderedDict(state_dict)
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict(state_dict._metadata)
    while result:
        first = next(iter(result))
        prefix = next((p for p in ("module.", "_orig_mod.") if first.startswith(p)), None)
        if prefix is None:
            break
        consume_prefix_in_state_dict_if_present(result, prefix)
    return result
""",
        "only when every name starts with it",
    ),
    (
        "transfer-ids-of-written-tensors",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    own = target.state_dict(keep_vars=True)
    written = set()
    with torch.no_grad():
        for name, tensor in own.items():
            if name in source_state and source_state[name].shape == tensor.shape:
                tensor.copy_(source_state[name])
                written.add(id(tensor))
    return [name for name, tensor in own.items() if id(tensor) not in written]
""",
        "✓ correct",
    ),
    (
        "transfer-compare-before-after",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    before = {k: v.clone() for k, v in target.state_dict().items()}
    own = target.state_dict()
    fitting = {k: v for k, v in source_state.items() if k in own and own[k].shape == v.shape}
    target.load_state_dict(fitting, strict=False)
    after = target.state_dict()
    return [k for k in after if k not in fitting and torch.equal(after[k], before[k])]
""",
        "✓ correct",
    ),
    (
        "transfer-data-ptr-of-written",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    own = target.state_dict()
    fitting = {k: v for k, v in source_state.items() if k in own and own[k].shape == v.shape}
    target.load_state_dict(fitting, strict=False)
    written = {own[k].data_ptr() for k in fitting}
    return {k for k, v in own.items() if v.data_ptr() not in written}
""",
        "✓ correct",
    ),
    (
        "transfer-old-reference-missing-keys",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    shapes = {name: t.shape for name, t in target.state_dict().items()}
    fitting = {name: t for name, t in source_state.items() if shapes.get(name) == t.shape}
    return target.load_state_dict(fitting, strict=False).missing_keys
""",
        "it is tied to an entry that was loaded",
    ),
    (
        "transfer-also-matches-dtype",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    own = target.state_dict(keep_vars=True)
    fitting = {
        k: v for k, v in source_state.items()
        if k in own and own[k].shape == v.shape and own[k].dtype == v.dtype
    }
    target.load_state_dict(fitting, strict=False)
    loaded = {id(own[k]) for k in fitting}
    return [k for k, v in own.items() if id(v) not in loaded]
""",
        "a different dtype is no reason to skip it",
    ),
    (
        "transfer-assigns-data",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    kept = []
    for name, tensor in target.state_dict(keep_vars=True).items():
        if name in source_state and source_state[name].shape == tensor.shape:
            tensor.data = source_state[name]
        else:
            kept.append(name)
    return kept
""",
        "shares memory with the source",
    ),
    (
        "transfer-skips-frozen",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    frozen = {n for n, p in target.named_parameters() if not p.requires_grad}
    own = target.state_dict(keep_vars=True)
    fitting = {
        k: v for k, v in source_state.items()
        if k in own and k not in frozen and own[k].shape == v.shape
    }
    target.load_state_dict(fitting, strict=False)
    loaded = {id(own[k]) for k in fitting}
    return [k for k, v in own.items() if id(v) not in loaded]
""",
        "a frozen parameter is loaded too",
    ),
    (
        "transfer-freezes-what-it-loaded",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    own = target.state_dict(keep_vars=True)
    fitting = {k: v for k, v in source_state.items() if k in own and own[k].shape == v.shape}
    target.load_state_dict(fitting, strict=False)
    for name, parameter in target.named_parameters():
        if name in fitting:
            parameter.requires_grad_(False)  # keep the pretrained part fixed
    loaded = {id(own[k]) for k in fitting}
    return [k for k, v in own.items() if id(v) not in loaded]
""",
        "requires_grad",
    ),
    (
        "transfer-sets-eval",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    own = target.state_dict(keep_vars=True)
    fitting = {k: v for k, v in source_state.items() if k in own and own[k].shape == v.shape}
    target.load_state_dict(fitting, strict=False)
    target.eval()  # freshly loaded weights: evaluate first
    loaded = {id(own[k]) for k in fitting}
    return [k for k, v in own.items() if id(v) not in loaded]
""",
        "train()/eval()",
    ),
    (
        "transfer-strict-reload-merged",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    merged = target.state_dict()
    kept = []
    for name, tensor in merged.items():
        if name in source_state and source_state[name].shape == tensor.shape:
            merged[name] = source_state[name]
        else:
            kept.append(name)
    target.load_state_dict(merged)
    return kept
""",
        "it is tied to an entry that was loaded",
    ),
    (
        "strip-metadata-keeps-wrapper-root",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    prefixes = ("module.", "_orig_mod.")
    result = OrderedDict(state_dict)
    metadata = OrderedDict(getattr(state_dict, "_metadata", {}))
    while result:
        prefix = next((p for p in prefixes if all(k.startswith(p) for k in result)), None)
        if prefix is None:
            break
        result = OrderedDict((k.removeprefix(prefix), v) for k, v in result.items())
        metadata = OrderedDict((k.removeprefix(prefix), v) for k, v in metadata.items())
    result._metadata = metadata
    return result
""",
        "_metadata",
    ),
    (
        "strip-orig-mod-anywhere",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    # torch.compile's _orig_mod. sits wherever a compiled module was: drop it everywhere, then DDP's module.
    result = OrderedDict((k.replace("_orig_mod.", ""), v) for k, v in state_dict.items())
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict()
        for key, value in state_dict._metadata.items():
            key = key.replace("_orig_mod.", "")
            key = "" if key == "_orig_mod" else key.removesuffix("._orig_mod")
            result._metadata[key] = value
    while result and all(k.startswith("module.") for k in result):
        consume_prefix_in_state_dict_if_present(result, "module.")
    return result
""",
        "names a compiled submodule",
    ),
    (
        "transfer-strips-module-prefix-first",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    source_state = {k.removeprefix("module."): v for k, v in source_state.items()}  # DDP checkpoints too
    own = target.state_dict(keep_vars=True)
    fitting = {k: v for k, v in source_state.items() if k in own and own[k].shape == v.shape}
    target.load_state_dict(fitting, strict=False)
    loaded = {id(own[k]) for k in fitting}
    return [k for k, v in own.items() if id(v) not in loaded]
""",
        "changed although the source has no tensor of its name and shape",
    ),
]

# The root's _metadata: a bare BatchNorm1d has version 2, its wrapper 1.
CASES += [
    (
        "strip-metadata-keeps-wrapper-version",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    prefix = ""
    while state_dict:
        step = next(
            (p for p in ("module.", "_orig_mod.") if all(k.startswith(prefix + p) for k in state_dict)),
            None,
        )
        if step is None:
            break
        prefix += step
    result = OrderedDict((k[len(prefix):], v) for k, v in state_dict.items())
    if hasattr(state_dict, "_metadata"):
        metadata = state_dict._metadata
        result._metadata = OrderedDict(
            (k[len(prefix):], v) for k, v in metadata.items() if k.startswith(prefix)
        )
        result._metadata.setdefault("", metadata.get("", {}))  # the root's version
    return result
""",
        "lost or changed its _metadata",
    ),
]

# Any number of wrappers: a fixed two rounds of stripping is not enough; a map_location that keeps storages where they are.
CASES += [
    (
        "strip-two-rounds-only",
        "check_strip_prefixes(strip_prefixes)",
        """
def strip_prefixes(state_dict):
    result = OrderedDict(state_dict)
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict(state_dict._metadata)
    for _ in range(2):  # DDP around torch.compile, or the other way round
        for prefix in ("module.", "_orig_mod."):
            if result and all(k.startswith(prefix) for k in result):
                consume_prefix_in_state_dict_if_present(result, prefix)
    return result
""",
        "strip both prefixes, in any order",
    ),
    (
        "load-map-location-lambda-storage",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    return torch.load(path, map_location=lambda storage, location: storage, weights_only=True)
""",
        "instead of a fixed device",
    ),
    # --- issue 37: categories the families never tried ---
    (
        "load-map-location-for-known-gpus",
        "check_load_checkpoint(load_checkpoint)",
        """
def load_checkpoint(path, device):
    target = str(device)
    where = {"cpu": target, "cuda": target, "cuda:0": target, "cuda:1": target, "mps": target}
    return torch.load(path, map_location=where, weights_only=True)
""",
        "which sends every location there, not a list",
    ),
]
