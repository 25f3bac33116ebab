"""Answers that tests/test_exercises.py runs through chapter 03's checkers."""

NOTEBOOK = "03_lazy_initialization"

_BUFFERS_AND_TIE = """
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
"""

CASES = [
    # id, the check call, the answer's source, and what the single printed line must contain.
    # Right answers: expect "✓ correct". Wrong answers: expect the hint text (the line must start with "✗").
    # --- init_small
    (
        "init-no-grad-methods",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear):
        with torch.no_grad():
            module.weight.normal_(0.0, 0.01)
            if module.bias is not None:
                module.bias.zero_()
""",
        "✓ correct",
    ),
    (
        "init-isinstance-tuple",
        "check_init_small(init_small)",
        """
def init_small(m):
    if not isinstance(m, (nn.Linear, nn.LazyLinear)):
        return
    nn.init.normal_(m.weight, std=0.01)
    if getattr(m, "bias", None) is not None:
        nn.init.constant_(m.bias, 0.0)
""",
        "✓ correct",
    ),
    (
        "init-copy-randn",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear):
        with torch.no_grad():
            module.weight.copy_(torch.randn_like(module.weight) * 0.01)
            if module.bias is not None:
                module.bias.fill_(0)
""",
        "✓ correct",
    ),
    (
        "init-trunc-normal-wide-bounds",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.01)  # bounds ±2: no truncation at this std
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "✓ correct",
    ),
    (
        "init-type-linear",
        "check_init_small(init_small)",
        """
def init_small(module):
    if type(module) == nn.Linear:
        nn.init.normal_(module.weight, mean=0.0, std=0.01)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "is a LazyLinear until its first forward",
    ),
    (
        "init-type-lazylinear",
        "check_init_small(init_small)",
        """
def init_small(module):
    if type(module) == nn.LazyLinear:
        nn.init.normal_(module.weight, mean=0.0, std=0.01)
        nn.init.zeros_(module.bias)
""",
        "`type(m) == nn.LazyLinear` matches none",
    ),
    (
        "init-type-in-tuple-misses-subclasses",
        "check_init_small(init_small)",
        """
def init_small(module):
    if type(module) in (nn.Linear, nn.LazyLinear):
        nn.init.normal_(module.weight, std=0.01)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "test misses subclasses",
    ),
    (
        "init-bias-none",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, mean=0.0, std=0.01)
        nn.init.zeros_(module.bias)
""",
        "bias=False has bias None",
    ),
    (
        "init-positional-mean",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, 0.01)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "sets the *mean*",
    ),
    (
        "init-touches-layernorm",
        "check_init_small(init_small)",
        """
def init_small(module):
    if hasattr(module, "weight"):
        nn.init.normal_(module.weight, std=0.01)
    if getattr(module, "bias", None) is not None:
        nn.init.zeros_(module.bias)
""",
        "of a LayerNorm",
    ),
    (
        "init-new-parameters",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear):
        module.weight = nn.Parameter(torch.randn(module.weight.shape) * 0.01)
        if module.bias is not None:
            module.bias = nn.Parameter(torch.zeros(module.bias.shape))
""",
        "is a new Parameter; optimizers and ties keep the old one",
    ),
    (
        "init-uniform-instead",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear):
        nn.init.uniform_(module.weight, -0.01, 0.01)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "should be N(0, 0.01²)",
    ),
    (
        "init-small-bias-not-zero",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear):
        for p in module.parameters():
            nn.init.normal_(p, std=0.01)
""",
        "should be zeros",
    ),
    # --- count_parameters
    (
        "count-eval-no-grad",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        net = make_model().eval()
        with torch.no_grad():
            net(*(x.to("meta") for x in example_inputs))
    return sum(p.numel() for p in net.parameters())
""",
        "✓ correct",
    ),
    (
        "count-empty-like-dedup-by-id",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    meta = torch.device("meta")
    with meta:
        model = make_model()
    model(*[torch.empty_like(x, device=meta) for x in example_inputs])
    sizes = {id(p): p.numel() for p in model.parameters()}
    return sum(sizes.values())
""",
        "✓ correct",
    ),
    (
        "count-named-parameters-int",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
        model(*[x.to("meta") for x in example_inputs])
        return int(sum(p.numel() for _, p in model.named_parameters()))
""",
        "✓ correct",
    ),
    (
        "count-built-on-cpu-in-fork-rng",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.random.fork_rng():
        net = make_model().eval()
        with torch.no_grad():
            net(*example_inputs)
    return sum(p.numel() for p in net.parameters())
""",
        "the model was built on cpu",
    ),
    (
        "count-no-dry-run",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
    return sum(p.numel() for p in model.parameters())
""",
        "numel() raised on an UninitializedParameter",
    ),
    (
        "count-inputs-not-on-meta",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
    model(*example_inputs)
    return sum(p.numel() for p in model.parameters())
""",
        "move the example inputs to meta",
    ),
    (
        "count-state-dict",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
        model(*[x.to("meta") for x in example_inputs])
    return sum(t.numel() for t in model.state_dict().values())
""",
        "counts the state_dict, buffers included",
    ),
    (
        "count-tensors",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
        model(*[x.to("meta") for x in example_inputs])
    return len(list(model.parameters()))
""",
        "number of parameter tensors",
    ),
    (
        "count-tie-twice",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
        model(*[x.to("meta") for x in example_inputs])
    return sum(p.numel() for _, p in model.named_parameters(remove_duplicate=False))
""",
        "counts a tied parameter twice",
    ),
    (
        "count-trainable-only",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
        model(*[x.to("meta") for x in example_inputs])
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
""",
        "leaves out frozen parameters",
    ),
    (
        "count-returns-tensor",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
        model(*[x.to("meta") for x in example_inputs])
    return sum(torch.tensor(p.shape).prod() for p in model.parameters())
""",
        "return a Python int",
    ),
    # --- build_on_meta
    (
        "meta-builds-twice-to-check-keys",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        expected_keys = set(make_model().state_dict())
    assert expected_keys <= set(state_dict), expected_keys - set(state_dict)
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    device = next(iter(state_dict.values())).device
"""
        + _BUFFERS_AND_TIE
        + """
    return model
""",
        "✓ correct",
    ),
    (
        "meta-buffers-before-load",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    device = next(t.device for t in state_dict.values())
    with torch.device("meta"):
        model = make_model()
    for module in model.modules():
        init = getattr(module, "init_buffers", None)
        if callable(init):
            init(device=device)
    model.load_state_dict(state_dict, strict=True, assign=True)
    tie = getattr(model, "tie_weights", None)
    if tie is not None:
        tie()
    return model
""",
        "✓ correct",
    ),
    (
        "meta-named-modules-apply",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    meta = torch.device("meta")
    with meta:
        net = make_model()
    result = net.load_state_dict(dict(state_dict), assign=True)
    assert not result.missing_keys and not result.unexpected_keys
    where = list(state_dict.values())[0].device
    net.apply(lambda m: m.init_buffers(where) if hasattr(m, "init_buffers") else None)
    if callable(getattr(net, "tie_weights", None)):
        net.tie_weights()
    return net
""",
        "✓ correct",
    ),
    (
        "meta-built-on-cpu",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    model = make_model()
    model.load_state_dict(state_dict)
    return model
""",
        "call make_model() under `with torch.device('meta'):`",
    ),
    (
        "meta-to-meta-after-build",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    model = make_model().to("meta")
    model.load_state_dict(state_dict, assign=True)
    return model
""",
        "the model was built on cpu",
    ),
    (
        "meta-no-assign",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict)
    return model
""",
        "pass assign=True",
    ),
    (
        "meta-assign-only",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    return model
""",
        "the tie is lost",
    ),
    (
        "meta-tie-but-no-buffers",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
""",
        "`positions` is still on meta",
    ),
    (
        "meta-root-buffers-only",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    device = next(iter(state_dict.values())).device
    if hasattr(model, "init_buffers"):
        model.init_buffers(device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
""",
        "`rotary.inv_freq` is still on meta",
    ),
    (
        "meta-tie-before-load",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    device = next(iter(state_dict.values())).device
    with torch.device("meta"):
        model = make_model()
"""
        + _BUFFERS_AND_TIE
        + """
    model.load_state_dict(state_dict, assign=True)
    return model
""",
        "the tie is lost",
    ),
    (
        "meta-buffers-inside-meta-context",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
        model.load_state_dict(state_dict, assign=True)
        for module in model.modules():
            if hasattr(module, "init_buffers"):
                module.init_buffers()
        if hasattr(model, "tie_weights"):
            model.tie_weights()
    return model
""",
        "is still on meta",
    ),
    (
        "meta-reset-after-assign",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    for module in model.modules():
        if hasattr(module, "reset_parameters"):
            module.reset_parameters()
    return model
""",
        "the checkpoint's own tensors changed",
    ),
    (
        "meta-to-empty-after-load",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    return model.to_empty(device="cpu")
""",
        "values differ from the checkpoint",
    ),
    (
        "meta-to-empty-then-load-lazy",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    device = next(iter(state_dict.values())).device
    model.to_empty(device=device)
    model.load_state_dict(state_dict)
"""
        + _BUFFERS_AND_TIE
        + """
    return model
""",
        "to_empty cannot allocate a lazy placeholder",
    ),
    (
        "meta-requires-grad-everywhere",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    device = next(iter(state_dict.values())).device
"""
        + _BUFFERS_AND_TIE
        + """
    return model.requires_grad_(True)  # trainable parameters
""",
        "requires_grad=True",
    ),
    (
        "meta-no-return",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
""",
        "not the model",
    ),
]
