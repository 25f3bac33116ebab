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
    # --- count_parameters, from review rev3
    (
        "count-parameters-to-vector",
        "check_count_parameters(count_parameters)",
        """
def count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        m = make_model()
    m(*(torch.empty(x.shape, dtype=x.dtype, device="meta") for x in example_inputs))
    return torch.nn.utils.parameters_to_vector(m.parameters()).numel()
""",
        "✓ correct",
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
        "✓ correct",
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
        "on a tied LM named wte/lm_head: the tie is lost",
    ),
]
