"""Answers that tests/test_exercises.py runs through the checker of chapter 3.1, "Building on the meta
device": the build_on_meta cases of ch03.py, which holds the answers of both chapter-3 pages."""

import importlib.util
from pathlib import Path

NOTEBOOK = "03_meta_device"

_spec = importlib.util.spec_from_file_location("exercise_cases_ch03_all", Path(__file__).with_name("ch03.py"))
_chapter = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_chapter)
CASES = [case for case in _chapter.EVERY_CASE if case[1].startswith("check_build_on_meta")]


# --- unmaterialized
CASES += [
    (
        "unmaterialized-device-type-and-mixin",
        "check_unmaterialized(unmaterialized)",
        """
from itertools import chain

def unmaterialized(model):
    named = chain(model.named_parameters(), model.named_buffers())
    return [
        n for n, t in named
        if t.device.type == "meta" or isinstance(t, nn.parameter.UninitializedTensorMixin)
    ]
""",
        "✓",
    ),
    (
        "unmaterialized-per-module",
        "check_unmaterialized(unmaterialized)",
        """
def unmaterialized(model):
    names = []
    for prefix, module in model.named_modules():
        own = [*module.named_parameters(recurse=False), *module.named_buffers(recurse=False)]
        for name, t in own:
            if t.is_meta or nn.parameter.is_lazy(t):
                names.append(f"{prefix}.{name}" if prefix else name)
    return names
""",
        "✓",
    ),
    (
        "unmaterialized-every-name-sorted",
        "check_unmaterialized(unmaterialized)",
        """
def unmaterialized(model):
    tensors = dict(model.named_parameters(remove_duplicate=False))
    tensors.update(model.named_buffers(remove_duplicate=False))
    lazy = (nn.UninitializedParameter, nn.UninitializedBuffer)
    return sorted(n for n, t in tensors.items() if t.is_meta or isinstance(t, lazy))
""",
        "✓",
    ),
    (
        "unmaterialized-state-dict",
        "check_unmaterialized(unmaterialized)",
        """
def unmaterialized(model):
    state = model.state_dict(keep_vars=True)
    return [n for n, t in state.items() if t.is_meta or nn.parameter.is_lazy(t)]
""",
        "state_dict() leaves those out",
    ),
    (
        "unmaterialized-meta-only",
        "check_unmaterialized(unmaterialized)",
        """
def unmaterialized(model):
    return [n for n, t in [*model.named_parameters(), *model.named_buffers()] if t.is_meta]
""",
        "nn.parameter.is_lazy(t)",
    ),
    (
        "unmaterialized-parameters-only",
        "check_unmaterialized(unmaterialized)",
        """
def unmaterialized(model):
    return [n for n, p in model.named_parameters() if p.is_meta or nn.parameter.is_lazy(p)]
""",
        "check buffers too",
    ),
    (
        "unmaterialized-tensors",
        "check_unmaterialized(unmaterialized)",
        """
def unmaterialized(model):
    tensors = [*model.parameters(), *model.buffers()]
    return [t for t in tensors if t.is_meta or nn.parameter.is_lazy(t)]
""",
        "return the names",
    ),
    (
        "unmaterialized-bool",
        "check_unmaterialized(unmaterialized)",
        """
def unmaterialized(model):
    tensors = [*model.parameters(), *model.buffers()]
    return any(t.is_meta or nn.parameter.is_lazy(t) for t in tensors)
""",
        "returned bool",
    ),
    (
        "unmaterialized-short-names",
        "check_unmaterialized(unmaterialized)",
        """
def unmaterialized(model):
    named = [*model.named_parameters(), *model.named_buffers()]
    return [n.split(".")[-1] for n, t in named if t.is_meta or nn.parameter.is_lazy(t)]
""",
        "is not the full name",
    ),
    (
        "unmaterialized-inverted",
        "check_unmaterialized(unmaterialized)",
        """
def unmaterialized(model):
    named = [*model.named_parameters(), *model.named_buffers()]
    return [n for n, t in named if not (t.is_meta or nn.parameter.is_lazy(t))]
""",
        "holds values",
    ),
    (
        "unmaterialized-top-level-only",
        "check_unmaterialized(unmaterialized)",
        """
def unmaterialized(model):
    own = [*model.named_parameters(recurse=False), *model.named_buffers(recurse=False)]
    return [n for n, t in own if t.is_meta or nn.parameter.is_lazy(t)]
""",
        "missed `0.weight`",
    ),
]

# --- init_from_meta
_META_BUILD = """
def init_from_meta(make_model, device):
    with torch.device("meta"):
        model = make_model()
"""
_BUFFERS_TIE = """
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
"""
CASES += [
    (
        "init-from-meta-apply",
        "check_init_from_meta(init_from_meta)",
        _META_BUILD
        + """
    model = model.to_empty(device=device)

    def reset(module):
        if hasattr(module, "reset_parameters"):
            module.reset_parameters()
        elif hasattr(module, "_reset_parameters"):
            module._reset_parameters()

    model.apply(reset)  # children before their parent
    assert not any(t.is_meta for t in [*model.parameters(), *model.buffers()])
"""
        + _BUFFERS_TIE,
        "✓",
    ),
    (
        "init-from-meta-getattr",
        "check_init_from_meta(init_from_meta)",
        _META_BUILD
        + """
    model.to_empty(device=device)

    def visit(m):
        for child in m.children():
            visit(child)
        reset = getattr(m, "reset_parameters", None) or getattr(m, "_reset_parameters", None)
        if reset:
            reset()

    visit(model)
    for _, m in model.named_modules():
        init = getattr(m, "init_buffers", None)
        if callable(init):
            init(device=device)
    tie = getattr(model, "tie_weights", None)
    if tie:
        tie()
    return model
""",
        "✓",
    ),
    (
        "init-from-meta-state-dict-check",
        "check_init_from_meta(init_from_meta)",
        _META_BUILD
        + """
    model.to_empty(device=device)
    reset_like_constructors(model)
    [m.init_buffers(device) for m in model.modules() if hasattr(m, "init_buffers")]
    getattr(model, "tie_weights", lambda: None)()
    left = [n for n, t in model.state_dict(keep_vars=True).items() if t.is_meta]
    if left:
        raise RuntimeError(left)
    return model
""",
        "✓",
    ),
    (
        "init-from-meta-public-reset-only",
        "check_init_from_meta(init_from_meta)",
        _META_BUILD
        + """
    model.to_empty(device=device)
    for module in model.modules():
        if hasattr(module, "reset_parameters"):
            module.reset_parameters()
"""
        + _BUFFERS_TIE,
        "_reset_parameters() where only that exists",
    ),
    (
        "init-from-meta-no-buffers",
        "check_init_from_meta(init_from_meta)",
        _META_BUILD
        + """
    model.to_empty(device=device)
    reset_like_constructors(model)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
""",
        "every buffer __init__ computed",
    ),
    (
        "init-from-meta-parent-first",
        "check_init_from_meta(init_from_meta)",
        _META_BUILD
        + """
    model.to_empty(device=device)
    for module in model.modules():
        if hasattr(module, "reset_parameters"):
            module.reset_parameters()
        elif hasattr(module, "_reset_parameters"):
            module._reset_parameters()
"""
        + _BUFFERS_TIE,
        "reset children first",
    ),
    (
        "init-from-meta-no-tie",
        "check_init_from_meta(init_from_meta)",
        _META_BUILD
        + """
    model.to_empty(device=device)
    reset_like_constructors(model)
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    return model
""",
        "the tie is lost",
    ),
    (
        "init-from-meta-tie-first",
        "check_init_from_meta(init_from_meta)",
        _META_BUILD
        + """
    model.to_empty(device=device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    reset_like_constructors(model)
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    return model
""",
        "differs from a normal build",
    ),
    (
        "init-from-meta-built-on-cpu",
        "check_init_from_meta(init_from_meta)",
        """
def init_from_meta(make_model, device):
    model = make_model().to(device)
    return model
""",
        "call make_model() under",
    ),
    (
        "init-from-meta-to-instead-of-to-empty",
        "check_init_from_meta(init_from_meta)",
        _META_BUILD
        + """
    model = model.to(device)
    reset_like_constructors(model)
"""
        + _BUFFERS_TIE,
        "Cannot copy out of meta tensor",
    ),
    (
        "init-from-meta-no-to-empty",
        "check_init_from_meta(init_from_meta)",
        _META_BUILD
        + """
    reset_like_constructors(model)
"""
        + _BUFFERS_TIE,
        "is still on meta",
    ),
    # --- issue 37: categories the families never tried ---
    (
        "init-from-meta-buffers-on-the-default-device",
        "check_init_from_meta(init_from_meta)",
        """
def init_from_meta(make_model, device):
    with torch.device("meta"):
        model = make_model()
    model.to_empty(device=device)
    reset_like_constructors(model)
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers()  # the default device: where new tensors go anyway
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
""",
        "init_buffers got device=None; pass the device given",
    ),
    (
        "init-from-meta-default-device-set-to-the-device-after",
        "check_init_from_meta(init_from_meta)",
        """
def init_from_meta(make_model, device):
    torch.set_default_device("meta")
    model = make_model()
    torch.set_default_device(device)  # back to where the model lives (the CPU here)
    model.to_empty(device=device)
    reset_like_constructors(model)
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
""",
        "did not put back the caller's default device (meta here)",
    ),
    (
        "init-from-meta-buffers-on-get-default-device",
        "check_init_from_meta(init_from_meta)",
        """
def init_from_meta(make_model, device):
    with torch.device("meta"):
        model = make_model()
    model.to_empty(device=device)
    reset_like_constructors(model)
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(torch.get_default_device())  # where tensors are made by default
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
""",
        "where the caller's default device is meta: init_buffers got device=device(type='meta')",
    ),
    (
        "init-from-meta-default-device-saved-and-restored",
        "check_init_from_meta(init_from_meta)",
        """
def init_from_meta(make_model, device):
    previous = torch.get_default_device()
    torch.set_default_device("meta")
    try:
        model = make_model()
    finally:
        torch.set_default_device(previous)
    model.to_empty(device=device)
    reset_like_constructors(model)
    model.apply(lambda m: m.init_buffers(device) if hasattr(m, "init_buffers") else None)
    getattr(model, "tie_weights", lambda: None)()
    return model
""",
        "✓ correct",
    ),
]
