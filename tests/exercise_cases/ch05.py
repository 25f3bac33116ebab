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
        "transfer-tuple-of-names",
        "check_transfer(transfer)",
        """
def transfer(source_state, target):
    own = target.state_dict()
    keep = [k for k, v in own.items() if k not in source_state or source_state[k].shape != v.shape]
    target.load_state_dict({k: v for k, v in source_state.items() if k in own and k not in keep}, strict=False)
    return tuple(keep)
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
        "returned None for a file that runs code",
    ),
]
