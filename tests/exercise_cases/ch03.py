"""Answers that tests/test_exercises.py runs through chapter 03's checkers."""

NOTEBOOK = "03_lazy_modules"

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
    # --- init_small, from review rev3
    (
        "init-data-attribute",
        "check_init_small(init_small)",
        """
def init_small(m):
    if isinstance(m, nn.Linear):
        m.weight.data.normal_(0, 0.01)
        if m.bias is not None:
            m.bias.data.zero_()
""",
        "✓ correct",
    ),
    (
        "init-mro-normal-copy",
        "check_init_small(init_small)",
        """
def init_small(module):
    if nn.Linear not in type(module).__mro__:
        return
    with torch.no_grad():
        module.weight.copy_(torch.normal(0.0, 0.01, size=module.weight.shape))
        if module.bias is not None:
            module.bias.mul_(0)
""",
        "✓ correct",
    ),
    (
        "init-linear-and-embedding-hf-style",
        "check_init_small(init_small)",
        """
def init_small(m):
    if isinstance(m, (nn.Linear, nn.Embedding)):
        nn.init.normal_(m.weight, 0.0, 0.01)
    if isinstance(m, nn.Linear) and m.bias is not None:
        nn.init.zeros_(m.bias)
""",
        "changed `0.weight` of an Embedding",
    ),
    (
        "init-linear-and-conv",
        "check_init_small(init_small)",
        """
def init_small(m):
    if isinstance(m, (nn.Linear, nn.Conv2d)):
        nn.init.normal_(m.weight, std=0.01)
        if m.bias is not None:
            nn.init.zeros_(m.bias)
""",
        "of a Conv2d",
    ),
    (
        "init-matrices-by-ndim",
        "check_init_small(init_small)",
        """
def init_small(m):
    for p in m.parameters(recurse=False):
        if p.ndim >= 2:
            nn.init.normal_(p, 0.0, 0.01)
        elif isinstance(m, nn.Linear):
            nn.init.zeros_(p)
""",
        "of a MultiheadAttention",
    ),
    (
        "init-skips-lazy-modules",
        "check_init_small(init_small)",
        """
def init_small(m):
    if isinstance(m, nn.Linear) and not isinstance(m, nn.modules.lazy.LazyModuleMixin):
        nn.init.normal_(m.weight, 0.0, 0.01)
        if m.bias is not None:
            nn.init.zeros_(m.bias)
""",
        "the layer is a LazyLinear until its first forward",
    ),
    (
        "init-variance-as-std",
        "check_init_small(init_small)",
        """
def init_small(m):
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, 0.0, 0.01**2)
        if m.bias is not None:
            nn.init.zeros_(m.bias)
""",
        "should be N(0, 0.01²) but have mean",
    ),
    (
        "init-trunc-at-one-sigma",
        "check_init_small(init_small)",
        """
def init_small(m):
    if isinstance(m, nn.Linear):
        nn.init.trunc_normal_(m.weight, std=0.01, a=-0.01, b=0.01)
        if m.bias is not None:
            nn.init.zeros_(m.bias)
""",
        "should be N(0, 0.01²) but have mean",
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
        "an eval-mode dry run skips training-only branches",
    ),
    (
        "count-forward-outside-the-meta-block",
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
        "run the forward inside `with torch.device('meta'):`",
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
    # --- count_parameters, from review rev3
    (
        "count-parameters-to-vector-forward-outside",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        m = make_model()
    m(*(torch.empty(x.shape, dtype=x.dtype, device="meta") for x in example_inputs))
    return torch.nn.utils.parameters_to_vector(m.parameters()).numel()
""",
        "a meta model met a real tensor",
    ),
    (
        "count-math-prod-no-grad",
        "check_count_parameters(count_parameters)",
        """
import math


def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
        with torch.no_grad():
            model(*[torch.zeros_like(x, device="meta") for x in example_inputs])
    return sum(math.prod(p.shape) for p in model.parameters())
""",
        "✓ correct",
    ),
    (
        "count-first-input-only",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
        model(example_inputs[0].to("meta"))
    return sum(p.numel() for p in model.parameters())
""",
        "pass them all: model(*example_inputs)",
    ),
    (
        "count-to-meta-after-build",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    model = make_model().to("meta")
    model(*[x.to("meta") for x in example_inputs])
    return sum(p.numel() for p in model.parameters())
""",
        "(.to('meta') afterwards is too late)",
    ),
    (
        "count-skips-placeholders",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
    uninit = nn.parameter.UninitializedParameter
    return sum(p.numel() for p in model.parameters() if not isinstance(p, uninit))
""",
        "that skips the lazy placeholders",
    ),
    (
        "count-modules-recurse-false",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
        model(*[x.to("meta") for x in example_inputs])
    return sum(
        p.numel() for m in model.modules() for p in m.parameters(recurse=False)
    )
""",
        "counts a tied parameter twice",
    ),
    (
        "count-weights-and-biases-only",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
        model(*[x.to("meta") for x in example_inputs])
    names = ("weight", "bias")
    return sum(p.numel() for n, p in model.named_parameters() if n.endswith(names))
""",
        "that leaves out `cls_token`",
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
        "is still on meta and build_on_meta returned the model",  # issue 37: the statement asks for an error
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
        "is still on meta and build_on_meta returned the model",  # issue 37: the statement asks for an error
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
        "is still on meta and build_on_meta returned the model",  # issue 37: the statement asks for an error
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
        "load with assign=True, which keeps the checkpoint's tensors",
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
    # --- build_on_meta, from review rev3
    (
        "meta-device-from-parameters-apply",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    device = next(model.parameters()).device
    model.apply(lambda m: m.init_buffers(device) if hasattr(m, "init_buffers") else None)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
""",
        "is still on meta and build_on_meta returned the model",  # issue 37: the statement asks for an error
    ),
    (
        "meta-init-buffers-without-device",
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
        "init_buffers got device=None; pass the checkpoint's device",
    ),
    (
        "meta-to-device-after-assign",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    device = next(iter(state_dict.values())).device
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    model.to(device)  # bring the buffers over too
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
""",
        "a buffer still on meta cannot be moved with .to()",
    ),
    (
        "meta-zeros-for-meta-buffers",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    device = next(iter(state_dict.values())).device
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    for module in model.modules():
        for name, buf in list(module.named_buffers(recurse=False)):
            if buf.is_meta:
                zeros = torch.zeros_like(buf, device=device)
                module.register_buffer(name, zeros, persistent=False)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
""",
        "differs from a fresh computation",
    ),
    (
        "meta-returns-eval-mode",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    device = next(iter(state_dict.values())).device
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
"""
        + _BUFFERS_AND_TIE
        + """
    return model.eval()  # ready for inference
""",
        "changed the training mode",
    ),
    (
        "meta-tie-written-for-tinylm",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    device = next(iter(state_dict.values())).device
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    if hasattr(model, "head") and hasattr(model, "embed"):
        model.head.weight = model.embed.weight
    return model
""",
        "on a tied LM named wte/lm_head in float64: the tie is lost",
    ),
    # --- init_small: more answers written differently, and more mistakes readers make ---
    (
        "init-positional-std-fill-zero",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, 0.0, 0.01)
        if module.bias is not None:
            module.bias.data.fill_(0)
""",
        "✓ correct",
    ),
    (
        "init-issubclass-float32-draw",
        "check_init_small(init_small)",
        """
def init_small(module):
    if not issubclass(type(module), nn.Linear):
        return
    with torch.no_grad():
        module.weight.copy_(torch.randn(module.weight.shape) * 0.01)
        if module.bias is not None:
            module.bias.copy_(torch.zeros_like(module.bias))
""",
        "✓ correct",
    ),
    (
        "init-torch-normal-out-of-place",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear):
        draw = torch.normal(0.0, 0.01, size=tuple(module.weight.shape), dtype=module.weight.dtype)
        with torch.no_grad():
            module.weight.copy_(draw)
            if module.bias is not None:
                module.bias.zero_()
""",
        "✓ correct",
    ),
    (
        "init-reference-itself",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear):  # LazyLinear is a subclass
        nn.init.normal_(module.weight, mean=0.0, std=0.01)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "✓ correct",
    ),
    (
        "init-seeded-inside",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear):
        torch.manual_seed(0)
        nn.init.normal_(module.weight, std=0.01)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "came out identical",
    ),
    (
        "init-skips-frozen",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear) and module.weight.requires_grad:
        nn.init.normal_(module.weight, std=0.01)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "a frozen layer is initialized too",
    ),
    (
        "init-data-float32",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear):
        module.weight.data = torch.randn(module.weight.shape) * 0.01
        if module.bias is not None:
            module.bias.data = torch.zeros(module.bias.shape)
""",
        "changed its dtype, device or requires_grad",
    ),
    (
        "init-std-point-one",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, std=0.1)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "should be N(0, 0.01²)",
    ),
    (
        "init-grad-mode-off",
        "check_init_small(init_small)",
        """
def init_small(module):
    torch.set_grad_enabled(False)
    if isinstance(module, nn.Linear):
        module.weight.normal_(0, 0.01)
        if module.bias is not None:
            module.bias.zero_()
""",
        "grad mode",
    ),
    (
        "init-module-level-generator",
        "check_init_small(init_small)",
        """
_g = torch.Generator().manual_seed(0)

def init_small(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, std=0.01, generator=_g)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "the same torch.manual_seed gave different weights",
    ),
    (
        "init-default-reset",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear):
        module.reset_parameters()
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "✗",
    ),
    (
        "init-not-lazy",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear) and not isinstance(module, nn.LazyLinear):
        nn.init.normal_(module.weight, std=0.01)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "is a LazyLinear until its first forward",
    ),
    (
        "init-new-zero-bias",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, std=0.01)
        if module.bias is not None:
            module.bias = nn.Parameter(torch.zeros_like(module.bias))
""",
        "is a new Parameter",
    ),
    (
        "init-puts-eval",
        "check_init_small(init_small)",
        """
def init_small(module):
    module.eval()
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, std=0.01)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "changed train()/eval() mode",
    ),
    # --- count_parameters: more answers written differently, and more mistakes readers make ---
    (
        "count-default-device-restored",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    previous = torch.get_default_device()
    torch.set_default_device("meta")
    try:
        model = make_model()
        model(*[x.to("meta") for x in example_inputs])
    finally:
        torch.set_default_device(previous)
    return sum(p.numel() for p in set(model.parameters()))
""",
        "✓ correct",
    ),
    (
        "count-empty-like-inside-block",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
        fakes = [torch.empty_like(x, device="meta") for x in example_inputs]
        model(*fakes)
    seen = {}
    for p in model.parameters():
        seen[id(p)] = p.numel()
    return sum(seen.values())
""",
        "✓ correct",
    ),
    (
        "count-no-grad-math-prod",
        "check_count_parameters(count_parameters)",
        """
import math

def count_parameters(make_model, *example_inputs):
    with torch.device("meta"), torch.no_grad():
        net = make_model()
        net(*(x.to(device="meta") for x in example_inputs))
        return sum(math.prod(p.shape) for _, p in net.named_parameters())
""",
        "✓ correct",
    ),
    (
        "count-reference-itself",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        probe = make_model()
        probe(*[x.to("meta") for x in example_inputs])
    return sum(p.numel() for p in probe.parameters())
""",
        "✓ correct",
    ),
    (
        "count-default-device-left-on-meta",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    torch.set_default_device("meta")
    model = make_model()
    model(*[x.to("meta") for x in example_inputs])
    return sum(p.numel() for p in model.parameters())
""",
        "default device",
    ),
    (
        "count-data-ptr-dedup",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
        model(*[x.to("meta") for x in example_inputs])
    return sum({p.data_ptr(): p.numel() for p in model.parameters()}.values())
""",
        "your count is",
    ),
    (
        "count-moves-callers-inputs",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    for x in example_inputs:
        if x.is_floating_point():
            x.fill_(1.0)  # a batch of ones, whatever the caller passed
    with torch.device("meta"):
        model = make_model()
        model(*[x.to("meta") for x in example_inputs])
    return sum(p.numel() for p in model.parameters())
""",
        "changed the example inputs",
    ),
    (
        "count-random-probe-inputs",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    probes = [torch.randn_like(x.float()).to(x.dtype).to("meta") for x in example_inputs]
    with torch.device("meta"):
        model = make_model()
        model(*probes)
    return sum(p.numel() for p in model.parameters())
""",
        "torch RNG",
    ),
    (
        "count-linear-and-conv-only",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
        model(*[x.to("meta") for x in example_inputs])
    return sum(
        p.numel()
        for m in model.modules()
        if isinstance(m, (nn.Linear, nn.Conv1d, nn.Conv2d))
        for p in m.parameters(recurse=False)
    )
""",
        "your count is",
    ),
    (
        "count-returns-float",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
        model(*[x.to("meta") for x in example_inputs])
    return float(sum(p.numel() for p in model.parameters()))
""",
        "return a Python int",
    ),
    (
        "count-probe-built-on-cpu-first",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.random.fork_rng():
        is_lazy = any(nn.parameter.is_lazy(p) for p in make_model().parameters())
    with torch.device("meta"):
        model = make_model()
        model(*[x.to("meta") for x in example_inputs])
    return sum(p.numel() for p in model.parameters())
""",
        "the model was built on cpu",
    ),
    (
        "count-eval-dry-run-in-no-grad",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"), torch.no_grad():
        model = make_model().eval()
        model(*[x.to("meta") for x in example_inputs])
    return sum(p.numel() for p in model.parameters())
""",
        "training-only",
    ),
    # --- build_on_meta: more answers written differently, and more mistakes readers make ---
    (
        "meta-strict-assign-callable-hooks",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, strict=True, assign=True)
    where = next(model.parameters()).device
    for _, module in model.named_modules():
        init = getattr(module, "init_buffers", None)
        if callable(init):
            init(where)
    getattr(model, "tie_weights", lambda: None)()
    return model
""",
        "is still on meta and build_on_meta returned the model",  # issue 37: the statement asks for an error
    ),
    (
        "meta-default-device-restored",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    before = torch.get_default_device()
    torch.set_default_device("meta")
    try:
        model = make_model()
    finally:
        torch.set_default_device(before)
    model.load_state_dict(state_dict, assign=True)
    device = [t for t in state_dict.values() if isinstance(t, torch.Tensor)][0].device
    model.apply(lambda m: m.init_buffers(device) if hasattr(m, "init_buffers") else None)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
""",
        "is still on meta and build_on_meta returned the model",  # issue 37: the statement asks for an error
    ),
    (
        "meta-raises-on-leftovers",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    where = next(t.device for t in state_dict.values() if isinstance(t, torch.Tensor))
    for module in model.modules():
        if callable(getattr(module, "init_buffers", None)):
            module.init_buffers(where)
    if callable(getattr(model, "tie_weights", None)):
        model.tie_weights()
    for name, tensor in [*model.named_parameters(), *model.named_buffers()]:
        if tensor.is_meta:
            raise RuntimeError(f"{name} is still on meta")
    return model
""",
        "✓ correct",
    ),
    (
        "meta-asserts-with-the-recipe",
        "check_build_on_meta(build_on_meta)",
        """
from inside_nn.recipes import meta_leftovers


def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    device = next(v for v in state_dict.values() if isinstance(v, torch.Tensor)).device
    for module in model.modules():
        init = getattr(module, "init_buffers", None)
        if init is not None:
            init(device)
    tie = getattr(model, "tie_weights", None)
    if tie is not None:
        tie()
    left = meta_leftovers(model)
    assert not left, f"still on meta: {left}"
    return model
""",
        "✓ correct",
    ),
    (
        "meta-leftovers-from-state-dict-only",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    device = next(iter(state_dict.values())).device
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    state = model.state_dict(keep_vars=True)  # misses non-persistent buffers
    left = [n for n, t in state.items() if isinstance(t, torch.Tensor) and t.is_meta]
    if left:
        raise RuntimeError(f"still on meta: {left}")
    return model
""",
        "is still on meta and build_on_meta returned the model",
    ),
    (
        "meta-reference-itself",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    device = next(iter(state_dict.values())).device
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
""",
        "is still on meta and build_on_meta returned the model",  # issue 37: the statement asks for an error
    ),
    (
        "meta-default-device-left",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    torch.set_default_device("meta")
    model = make_model()
    model.load_state_dict(state_dict, assign=True)
    device = next(iter(state_dict.values())).device
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
""",
        "✗",
    ),
    (
        "meta-unfreezes",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    device = next(iter(state_dict.values())).device
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model.requires_grad_(True)
""",
        "has requires_grad=True",
    ),
    (
        "meta-casts-checkpoint-in-place",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    for key, value in state_dict.items():
        if isinstance(value, torch.Tensor) and value.is_floating_point():
            state_dict[key] = value.float()
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    device = next(iter(state_dict.values())).device
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
""",
        "changed the checkpoint dict it was given",
    ),
    (
        "meta-seeds-before-building",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    torch.manual_seed(0)
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    device = next(iter(state_dict.values())).device
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
""",
        "torch RNG",
    ),
    (
        "meta-parameters-wrapped-by-hand",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    for key, value in state_dict.items():
        owner, _, name = key.rpartition(".")
        module = model.get_submodule(owner)
        if name in module._parameters:
            setattr(module, name, nn.Parameter(value))
        elif name in module._buffers:
            module.register_buffer(name, value)
    device = next(iter(state_dict.values())).device
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
""",
        "✗",
    ),
    (
        "meta-cpu-device-hard-coded-to-empty-lazy",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.to_empty(device="cpu")
    model.load_state_dict(state_dict)
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers("cpu")
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
""",
        "✗",
    ),
    (
        "meta-no-tie-no-buffers-float-model",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    return model.float()
""",
        "✗",
    ),
    # --- init_small: more answers written differently, and more mistakes readers make ---
    (
        "i-std-kw-data",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, torch.nn.Linear):
        module.weight.data.normal_(mean=0.0, std=0.01)
        if module.bias is not None:
            module.bias.data.zero_()
""",
        "✓ correct",
    ),
    (
        "i-trunc-wide",
        "check_init_small(init_small)",
        """
def init_small(module):
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.01)
        if module.bias is not None:
            nn.init.constant_(module.bias, 0.0)
""",
        "✓ correct",
    ),
    # --- count_parameters: more answers written differently, and more mistakes readers make ---
    (
        "c-nn-utils-vector-inside",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
        model(*(t.to("meta") for t in example_inputs))
        return torch.nn.utils.parameters_to_vector(model.parameters()).numel()
""",
        "✓ correct",
    ),
    (
        "c-train-explicit",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        model = make_model()
        model.train()
        with torch.no_grad():
            model(*[torch.empty_like(x, device="meta") for x in example_inputs])
    return sum(p.numel() for p in model.parameters())
""",
        "✓ correct",
    ),
    # --- build_on_meta: more answers written differently, and more mistakes readers make ---
    (
        "m-device-from-first-tensor",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True, strict=True)
    device = next(t.device for t in state_dict.values() if torch.is_tensor(t))
    for m in model.modules():
        if hasattr(m, "init_buffers"):
            m.init_buffers(device=device)
    if callable(getattr(model, "tie_weights", None)):
        model.tie_weights()
    return model
""",
        "is still on meta and build_on_meta returned the model",  # issue 37: the statement asks for an error
    ),
    (
        "m-check-meta-left",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    device = next(iter(state_dict.values())).device
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    assert not any(t.is_meta for t in (*model.parameters(), *model.buffers()))
    return model
""",
        "✓ correct",
    ),
    # --- build_on_meta: more answers written differently, and more mistakes readers make ---
    (
        "meta-device-from-the-buffers",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(next(module.buffers()).device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
""",
        "is still on meta",
    ),
    (
        "meta-no-grad-for-loading",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    torch.set_grad_enabled(False)  # loading needs no autograd
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    device = next(iter(state_dict.values())).device
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model
""",
        "grad mode",
    ),
]

# --- param_groups (Lazy modules)
_GROUPS = """
    return [
        {"params": decay, "weight_decay": weight_decay},
        {"params": rest, "weight_decay": 0.0},
    ]
"""
CASES += [
    (
        "groups-lazy-check-then-loop",
        "check_param_groups(param_groups)",
        """
def param_groups(model, *example_inputs, weight_decay=0.1):
    if any(nn.parameter.is_lazy(t) for t in [*model.parameters(), *model.buffers()]):
        materialize(model, *example_inputs)
    decay, rest = [], []
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.dim() > 1 else rest).append(p)
"""
        + _GROUPS,
        "✓",
    ),
    (
        "groups-own-dry-run",
        "check_param_groups(param_groups)",
        """
def param_groups(model, *example_inputs, weight_decay=0.1):
    modes = [(m, m.training) for m in model.modules()]
    model.eval()
    with torch.no_grad():
        model(*example_inputs)
    for m, mode in modes:
        m.training = mode
    seen, decay, rest = set(), [], []
    for name, p in model.named_parameters(remove_duplicate=False):
        if id(p) in seen or not p.requires_grad:
            continue
        seen.add(id(p))
        (decay if len(p.shape) >= 2 else rest).append(p)
"""
        + _GROUPS,
        "✓",
    ),
    (
        "groups-filter-tuple",
        "check_param_groups(param_groups)",
        """
def param_groups(model, *example_inputs, weight_decay=0.1):
    materialize(model, *example_inputs)
    params = list(filter(lambda p: p.requires_grad, model.parameters()))
    return (
        {"params": [p for p in params if p.ndim > 1], "weight_decay": weight_decay},
        {"params": [p for p in params if p.ndim <= 1], "weight_decay": 0},
    )
""",
        "✓",
    ),
    (
        "groups-no-dry-run",
        "check_param_groups(param_groups)",
        """
def param_groups(model, *example_inputs, weight_decay=0.1):
    decay = [p for p in model.parameters() if p.requires_grad and p.ndim >= 2]
    rest = [p for p in model.parameters() if p.requires_grad and p.ndim < 2]
"""
        + _GROUPS,
        "materialize the model first",
    ),
    (
        "groups-shapes-read-before-the-dry-run",
        "check_param_groups(param_groups)",
        """
def param_groups(model, *example_inputs, weight_decay=0.1):
    decay = [p for p in model.parameters() if p.requires_grad and p.ndim >= 2]
    rest = [p for p in model.parameters() if p.requires_grad and p.ndim < 2]
    materialize(model, *example_inputs)
"""
        + _GROUPS,
        "were the shapes read before the dry run",
    ),
    (
        "groups-training-mode-dry-run",
        "check_param_groups(param_groups)",
        """
def param_groups(model, *example_inputs, weight_decay=0.1):
    with torch.no_grad():
        model(*example_inputs)
    decay = [p for p in model.parameters() if p.requires_grad and p.ndim >= 2]
    rest = [p for p in model.parameters() if p.requires_grad and p.ndim < 2]
"""
        + _GROUPS,
        "dry-run in eval mode",
    ),
    (
        "groups-one-flag-restored",
        "check_param_groups(param_groups)",
        """
def param_groups(model, *example_inputs, weight_decay=0.1):
    was_training = model.training
    model.eval()
    with torch.no_grad():
        model(*example_inputs)
    model.train(was_training)
    decay = [p for p in model.parameters() if p.requires_grad and p.ndim >= 2]
    rest = [p for p in model.parameters() if p.requires_grad and p.ndim < 2]
"""
        + _GROUPS,
        "put back each module's own mode",
    ),
    (
        "groups-by-name",
        "check_param_groups(param_groups)",
        """
def param_groups(model, *example_inputs, weight_decay=0.1):
    materialize(model, *example_inputs)
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    decay = [p for n, p in named if not n.endswith("bias")]
    rest = [p for n, p in named if n.endswith("bias")]
"""
        + _GROUPS,
        "is in the wrong group",
    ),
    (
        "groups-tied-twice",
        "check_param_groups(param_groups)",
        """
def param_groups(model, *example_inputs, weight_decay=0.1):
    materialize(model, *example_inputs)
    named = list(model.named_parameters(remove_duplicate=False))
    decay = [p for n, p in named if p.requires_grad and p.ndim >= 2]
    rest = [p for n, p in named if p.requires_grad and p.ndim < 2]
"""
        + _GROUPS,
        "appears twice",
    ),
    (
        "groups-frozen-included",
        "check_param_groups(param_groups)",
        """
def param_groups(model, *example_inputs, weight_decay=0.1):
    materialize(model, *example_inputs)
    decay = [p for p in model.parameters() if p.ndim >= 2]
    rest = [p for p in model.parameters() if p.ndim < 2]
"""
        + _GROUPS,
        "leave frozen parameters out",
    ),
    (
        "groups-fixed-decay",
        "check_param_groups(param_groups)",
        """
def param_groups(model, *example_inputs, weight_decay=0.1):
    materialize(model, *example_inputs)
    trainable = [p for p in model.parameters() if p.requires_grad]
    return [
        {"params": [p for p in trainable if p.ndim >= 2], "weight_decay": 0.01},
        {"params": [p for p in trainable if p.ndim < 2], "weight_decay": 0.0},
    ]
""",
        "takes the weight_decay argument",
    ),
    (
        "groups-dry-run-with-backward",
        "check_param_groups(param_groups)",
        """
def param_groups(model, *example_inputs, weight_decay=0.1):
    modes = [(m, m.training) for m in model.modules()]
    model.eval()
    model(*example_inputs).float().sum().backward()
    for m, mode in modes:
        m.training = mode
    decay = [p for p in model.parameters() if p.requires_grad and p.ndim >= 2]
    rest = [p for p in model.parameters() if p.requires_grad and p.ndim < 2]
"""
        + _GROUPS,
        "left gradients",
    ),
]

# --- issue 37: a caller's default device that is not the CPU (meta here); statistics a dry run must keep ---
CASES += [
    (
        "count-default-device-set-to-cpu-after",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    torch.set_default_device("meta")
    model = make_model()
    model(*[x.to("meta") for x in example_inputs])
    torch.set_default_device("cpu")
    return sum(p.numel() for p in model.parameters())
""",
        "did not put back the caller's default device (meta here)",
    ),
    (
        "meta-default-device-set-to-cpu-after",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    torch.set_default_device("meta")
    model = make_model()
    torch.set_default_device("cpu")
    model.load_state_dict(state_dict, assign=True)
    device = next(iter(state_dict.values())).device
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    for name, t in [*model.named_parameters(), *model.named_buffers()]:
        if t.is_meta:
            raise RuntimeError(f"{name} is still on meta")
    return model
""",
        "did not put back the caller's default device (meta here)",
    ),
    (
        "meta-buffers-on-the-callers-default-device",
        "check_build_on_meta(build_on_meta)",
        """
def build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(torch.empty(()).device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    for name, t in [*model.named_parameters(), *model.named_buffers()]:
        if t.is_meta:
            raise RuntimeError(f"{name} is still on meta")
    return model
""",
        "where the caller's default device is meta: init_buffers got device=device(type='meta')",
    ),
    (
        "groups-reset-statistics-after-the-dry-run",
        "check_param_groups(param_groups)",
        """
def param_groups(model, *example_inputs, weight_decay=0.1):
    with torch.no_grad():
        model(*example_inputs)  # the dry run materializes the lazy layers
    for module in model.modules():  # undo what the fake batch did to the statistics
        if isinstance(module, nn.modules.batchnorm._BatchNorm):
            module.reset_running_stats()
    decay = [p for p in model.parameters() if p.requires_grad and p.ndim >= 2]
    rest = [p for p in model.parameters() if p.requires_grad and p.ndim < 2]
    return [{"params": decay, "weight_decay": weight_decay}, {"params": rest, "weight_decay": 0.0}]
""",
        "was reset to zeros (reset_running_stats() or reset_parameters()), which wipes the statistics",
    ),
    (
        "groups-every-flag-off-then-back",
        "check_param_groups(param_groups)",
        """
def param_groups(model, *example_inputs, weight_decay=0.1):
    flags = [(m, m.training) for m in model.modules()]
    for m, _ in flags:
        m.training = False  # no module counts the fake batch
    try:
        with torch.no_grad():
            model(*example_inputs)
    finally:
        for m, flag in flags:
            m.training = flag
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    return [
        {"params": [p for _, p in named if p.dim() > 1], "weight_decay": weight_decay},
        {"params": [p for _, p in named if p.dim() <= 1], "weight_decay": 0.0},
    ]
""",
        "✓ correct",
    ),
]

# Chapter 3 has two pages: init_small and count_parameters are on "Lazy modules"; build_on_meta is on
# "Building on the meta device", whose cases ch03b.py takes from EVERY_CASE.
EVERY_CASE = CASES
CASES = [case for case in EVERY_CASE if not case[1].startswith("check_build_on_meta")]
