"""Answers that tests/test_exercises.py runs through chapter 03's checkers."""

NOTEBOOK = "03_lazy_initialization"
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
        "init-type-linear",
        "check_init_small(init_small)",
        """
def init_small(module):
    if type(module) == nn.Linear:
        nn.init.normal_(module.weight, mean=0.0, std=0.01)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "still a LazyLinear until its first forward",
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
        "`type(module) == nn.LazyLinear` matches nothing",
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
        "changed a LayerNorm",
    ),
    # --- count_parameters
    (
        "count-deepcopy-forward",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(net, *example_inputs):
    twin = copy.deepcopy(net)
    with torch.no_grad():
        twin(*example_inputs)
    return sum(p.numel() for p in twin.parameters())
""",
        "✓ correct",
    ),
    (
        "count-state-dict",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(net, *example_inputs):
    probe = copy.deepcopy(net).eval()
    with torch.no_grad():
        probe(*example_inputs)
    total = 0
    for name, tensor in probe.named_parameters():
        total += tensor.numel()
    return int(total)
""",
        "✓ correct",
    ),
    (
        "count-materializes-net",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(net, *example_inputs):
    with torch.no_grad():
        net(*example_inputs)
    return sum(p.numel() for p in net.parameters())
""",
        "materialized the model it was given",
    ),
    (
        "count-no-dry-run",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(net, *example_inputs):
    return sum(p.numel() for p in net.parameters())
""",
        "numel() on an UninitializedParameter raises",
    ),
    (
        "count-tensors",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(net, *example_inputs):
    probe = copy.deepcopy(net)
    probe(*example_inputs)
    return len(list(probe.parameters()))
""",
        "number of parameter tensors",
    ),
    # --- build_on_meta
    (
        "meta-to-empty-then-load",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    device = next(iter(state_dict.values())).device
    model.to_empty(device=device)
    model.load_state_dict(state_dict)
    return model
""",
        "✓ correct",
    ),
    (
        "meta-assign-strict",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    meta = torch.device("meta")
    with meta:
        net = make_model()
    result = net.load_state_dict(dict(state_dict), strict=True, assign=True)
    assert not result.missing_keys
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
        "call make_model() inside `with torch.device('meta'):`",
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
