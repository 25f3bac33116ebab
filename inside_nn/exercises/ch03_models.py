"""The models the chapter-3 checkers (`inside_nn.exercises.ch03`) run answers on, and the families they
draw: small models with the habits the exercises test (lazy layers, ties, computed buffers, odd names), and
the zoo's models chosen by their traits. Each family is a list of (label, factory, ...) tuples, built afresh
for every check.
"""

import warnings
from functools import partial

import torch
from torch import nn

from inside_nn import pick_device, zoo
from inside_nn.exercises.harness import FLOATS, built

device = pick_device()


def _seed(seed):
    """Seed the CPU generator (the harness restores the caller's after the check). torch.manual_seed would
    also queue a seed for every accelerator, at a few milliseconds a call."""
    torch.default_generator.manual_seed(seed)


def _quietly(build):
    """build(), with the warnings some constructors emit silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return build()


class _ScaledLinear(nn.Linear):
    """A Linear subclass, as a reader's own layer would be."""

    def forward(self, x):
        return 0.5 * super().forward(x)


_buffer_calls = []  # (device argument, default device or MAKE_MODEL) of every init_buffers call
_building = []  # one entry while make_model() runs (see _recording)
MAKE_MODEL = "make_model"  # an init_buffers call from a constructor that make_model() ran: on meta


def _noted(device):
    """Note an init_buffers call: its device argument, and the default device it ran under (MAKE_MODEL
    for a constructor's own call, which must run on meta, whatever the caller's default device is)."""
    _buffer_calls.append((device, MAKE_MODEL if _building else torch.empty(()).device.type))


# A family member whose label ends so runs the answer where the caller has set the default device to meta
# (harness.caller_default_device): tensors made without device= land there, and set_default_device("cpu")
# afterwards does not put the caller's setting back.
ON_META_DEFAULT = ", where the caller's default device is meta"


def caller_default(label):
    """The default device the caller has set for this family member ("meta"), or None (the caller's own)."""
    return "meta" if label.endswith(ON_META_DEFAULT) else None


class _CheckLM(nn.Module):
    """A tied LM with a Transformer layer and a computed non-persistent table (like TinyLM)."""

    def __init__(self, vocab=40, dim=32, max_len=16):
        super().__init__()
        self.dim, self.max_len = dim, max_len
        self.embed = nn.Embedding(vocab, dim)
        self.block = nn.TransformerEncoderLayer(dim, 2, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.init_buffers()
        self.tie_weights()

    def init_buffers(self, device=None):
        _noted(device)
        position = torch.arange(self.max_len, device=device).unsqueeze(1)
        inv_freq = 10000 ** (-torch.arange(0, self.dim, 2, device=device) / self.dim)
        angles = position * inv_freq
        table = torch.cat([angles.sin(), angles.cos()], 1)
        self.register_buffer("positions", table, persistent=False)

    def tie_weights(self):
        self.head.weight = self.embed.weight

    def forward(self, tokens):
        hidden = self.embed(tokens) + self.positions[: tokens.shape[1]]
        return self.head(self.block(hidden))


class _Rotary(nn.Module):
    """A nested module whose only buffer, inv_freq, is computed and not saved."""

    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.init_buffers()

    def init_buffers(self, device=None):
        _noted(device)
        steps = torch.arange(0, self.dim, 2, device=device) / self.dim
        self.register_buffer("inv_freq", 10000**-steps, persistent=False)

    def forward(self, x):
        angles = torch.arange(x.shape[1], device=x.device)[:, None] * self.inv_freq
        return x * torch.cat([angles.cos(), angles.sin()], -1)


class _TiedGPT(nn.Module):
    """A tied LM with GPT-2's names (wte, lm_head): a tie written by hand for TinyLM misses it."""

    def __init__(self, vocab=24, dim=16):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.ln_f = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.tie_weights()

    def tie_weights(self):
        self.lm_head.weight = self.wte.weight

    def forward(self, tokens):
        return self.lm_head(self.ln_f(self.wte(tokens)))


class _ClsNet(nn.Module):
    """Non-standard parameter names, a frozen embedding, a nested computed buffer, a lazy head."""

    def __init__(self, width=16):
        super().__init__()
        self.cls_token = nn.Parameter(torch.zeros(1, 1, width))
        self.patch = nn.Linear(12, width)
        self.frozen_pos = nn.Embedding(8, width).requires_grad_(False)
        self.rotary = _Rotary(width)
        self.out = nn.LazyLinear(3)

    def forward(self, x):
        h = self.patch(x) + self.frozen_pos.weight[: x.shape[1]]
        h = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), h], 1)
        return self.out(self.rotary(h)[:, 0])


def _recording(make, built_on):
    """make, which also notes the default device at each call (meta inside torch.device('meta'))."""

    def make_model():
        built_on.append(torch.empty(()).device.type)
        _building.append(True)
        try:
            return make()
        finally:
            _building.pop()

    return make_model


def _lazy_mlp(width=32, out=10):
    return nn.Sequential(nn.LazyLinear(width), nn.ReLU(), nn.LazyLinear(out))


def _lazy_convnet():
    return nn.Sequential(
        nn.LazyConv2d(6, 3, padding=1, dilation=1),
        nn.LazyBatchNorm2d(),
        nn.ReLU(),
        nn.Flatten(),
        nn.LazyLinear(5),
    )


def _restored_lazy():
    source = _lazy_mlp(64, 64)
    source(torch.zeros(1, 64))
    restored = _lazy_mlp(64, 64)
    restored.load_state_dict(source.state_dict())  # LazyLinear until its first forward
    return restored


def _dry_run(make, *inputs):
    def build():
        net = make()
        net(*inputs)
        return net

    return build


def _frozen_linear():
    return nn.Sequential(nn.Linear(64, 64).requires_grad_(False), nn.Tanh())


# Zoo models the init exercise leaves out: a lazy module before its dry run has nothing to fill, a meta
# model has no values, wrappers need a process group or a compiler, and a weight recomputed from other
# tensors (a parametrization, pruning's or the old weight_norm's pre-hook) is not what nn.init writes into:
# the reference itself fills a temporary there. (The sparse-adjacency GCNs hold no nn.Linear.)
_NOT_INITIALIZED_HERE = {
    "lazy-uninitialized",
    "meta",
    "wrapper",
    "parametrized",
    "hook-weight",
    "sparse",
}


def _zoo_build(name, seed=0):
    """zoo.build(name), seeded the same way, without torch.manual_seed's cost."""
    return _quietly(partial(built, zoo.MODELS[name].build, seed))


def _init_family():
    """(label, factory, dtype); the small models' drawn weights have >= 1024 entries, so std is measurable."""
    family = [
        (
            "an MLP with bias=False",
            lambda: nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64, bias=False)),
            torch.float32,
        ),
        (
            "a lazy MLP after its dry run",
            _dry_run(lambda: _lazy_mlp(64, 64), torch.zeros(1, 64)),
            torch.float32,
        ),
        ("a restored lazy MLP", _restored_lazy, torch.float32),
        ("a restored lazy MLP", _restored_lazy, torch.bfloat16),
        (
            "a model with a LayerNorm",
            lambda: nn.Sequential(nn.Linear(64, 64), nn.LayerNorm(64)),
            torch.float64,
        ),
        (
            "a Transformer layer",
            lambda: nn.TransformerEncoderLayer(32, 2, 64, batch_first=True),
            torch.float32,
        ),
        ("a tied LM", _CheckLM, torch.float32),
        (
            "an untied Embedding",
            lambda: nn.Sequential(nn.Embedding(64, 32), nn.Linear(32, 64)),
            torch.float32,
        ),
        (
            "a conv net with BatchNorm",
            lambda: nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.Flatten(), nn.Linear(72, 32)),
            torch.float32,
        ),
        (
            "a model with a Linear subclass",
            lambda: nn.Sequential(_ScaledLinear(64, 64), nn.Tanh()),
            torch.float32,
        ),
        ("a model with a frozen Linear", _frozen_linear, torch.bfloat16),
    ]
    for i, (name, spec) in enumerate(zoo.MODELS.items()):
        if spec.traits & _NOT_INITIALIZED_HERE:
            continue
        dtype = torch.float32 if "half-buffer" in spec.traits else FLOATS[i % 3]
        family.append((f"the zoo's `{name}`", partial(_zoo_build, name), dtype))
    return family


class _AuxNet(nn.Module):
    """Like NetWithAuxHead: a lazy head that only training mode reaches."""

    def __init__(self):
        super().__init__()
        self.body, self.aux_head = nn.LazyLinear(4), nn.LazyLinear(1)

    def forward(self, x):
        features = self.body(x)
        return (features, self.aux_head(features)) if self.training else features


class _TwoInputs(nn.Module):
    """A lazy model whose forward takes two tensors."""

    def __init__(self):
        super().__init__()
        self.left, self.right = nn.LazyLinear(4), nn.LazyLinear(4)

    def forward(self, x, y):
        return self.left(x) + self.right(y)


# Never drawn from the zoo for the meta exercises: a meta model is already there, wrappers need a process
# group or a compiler, sparse tensors cannot be copied out of meta.
_NOT_ON_META = {"meta", "wrapper", "sparse"}


def _count_family():
    """(label, factory, example inputs, dtype): lazy or not, BatchNorm, ties, frozen and oddly named
    parameters, an empty batch; then the zoo's models (kept where the reference can count them)."""
    family = [
        ("a lazy MLP", lambda: _lazy_mlp(32, 10), (torch.zeros(2, 20),), torch.float32),
        (
            "a lazy MLP fed 7 features",
            lambda: _lazy_mlp(16, 4),
            (torch.zeros(3, 7),),
            torch.bfloat16,
        ),
        (
            "a lazy conv net with LazyBatchNorm2d",
            _lazy_convnet,
            (torch.zeros(2, 3, 6, 6),),
            torch.float32,
        ),
        (
            "a tied Transformer LM",
            _CheckLM,
            (torch.zeros(2, 5, dtype=torch.long),),
            torch.float32,
        ),
        (
            "a cls_token model with a frozen embedding",
            _ClsNet,
            (torch.zeros(2, 5, 12),),
            torch.float64,
        ),
        (
            "a lazy 1-d conv net",
            lambda: nn.Sequential(nn.LazyConv1d(4, 3, dilation=2), nn.Flatten(), nn.LazyLinear(2)),
            (torch.zeros(2, 3, 10),),
            torch.float32,
        ),
        (
            "a lazy net with a training-only head",
            _AuxNet,
            (torch.zeros(2, 6),),
            torch.float32,
        ),
        (
            "a lazy net with two inputs",
            _TwoInputs,
            (torch.zeros(2, 6), torch.zeros(2, 3)),
            torch.float32,
        ),
        (
            "a lazy MLP fed an empty batch",
            lambda: _lazy_mlp(8, 3),
            (torch.zeros(0, 9),),
            torch.float32,
        ),
    ]
    for name, dtype in _ZOO_COUNTED:
        spec = zoo.MODELS.get(name)
        if spec is None or spec.traits & _NOT_ON_META:
            continue
        _seed(0)
        inputs = spec.inputs()
        if inputs and all(isinstance(x, torch.Tensor) for x in inputs):
            family.append((f"the zoo's `{name}`", spec.build, inputs, dtype))
    family.append((f"a lazy MLP{ON_META_DEFAULT}", lambda: _lazy_mlp(32, 10), (torch.zeros(2, 20),), torch.float32))
    return family


# The zoo's models counted, by the traits a count must get right (a forward on meta costs milliseconds per
# layer, so one model per trait): a tie and a module shared under several names with pruning-style weights
# as plain tensors, pruning's weight_orig, LoRA's frozen base under a parametrization, a lazy CNN with
# batch norm before its dry run, a half model, an fx GraphModule, GPT-2's tied head and persistent mask
# (whose forward makes its own position ids), a router holding its own generator (whose forward draws
# noise from it).
_ZOO_COUNTED = (
    ("weight-norm-hook", torch.float32),
    ("prune", torch.float64),
    ("lora", torch.bfloat16),
    ("lazy-cnn", torch.float32),
    ("vq-ema", torch.float32),
    ("fx", torch.bfloat16),
    ("gpt2", torch.bfloat16),
    ("noisy-router", torch.float64),
)


def _build_family():
    """(label, factory, example inputs or None (no forward), checkpoint device, checkpoint dtype):
    buffers, ties, computed buffers, lazy; then zoo models chosen by their traits (kept where the
    reference rebuilds them)."""
    cpu = torch.device("cpu")
    family = [
        (
            "an MLP with BatchNorm",
            lambda: nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 3)),
            (torch.ones(4, 6),),
            cpu,
            torch.float32,
        ),
        # On an accelerator, this checkpoint lives there: "cpu" hard-coded fails.
        (
            "a tied LM with a computed table",
            _CheckLM,
            (torch.arange(10).view(2, 5),),
            device,
            torch.float32,
        ),
        (
            "a tied LM named wte/lm_head",
            _TiedGPT,
            (torch.arange(8).view(2, 4),),
            cpu,
            torch.float64,
        ),
        (
            "a model with a nested computed buffer and a lazy head",
            _ClsNet,
            (torch.ones(2, 5, 12),),
            cpu,
            torch.float32,
        ),
        (
            "a lazy MLP",
            lambda: _lazy_mlp(8, 3),
            (torch.ones(2, 5),),
            cpu,
            torch.bfloat16,
        ),
    ]
    for name, dtype, run in _ZOO_REBUILT:
        spec = zoo.MODELS.get(name)
        if spec is None or spec.traits & _NOT_ON_META:
            continue
        _seed(0)
        inputs = spec.inputs() if run else None
        family.append((f"the zoo's `{name}`", spec.build, inputs, cpu, dtype))
    # no forward (None): its buffers and values are compared, and a Transformer layer's forward costs milliseconds
    family.append((f"a tied LM with a computed table{ON_META_DEFAULT}", _CheckLM, None, cpu, torch.float32))
    return family


# The zoo's models rebuilt from a checkpoint, by the trait each brings: a tie restored by tie_weights()
# (gpt2, t5 with a module shared three ways), persistent computed buffers (bool mask, int64 index) and a
# None buffer slot, a parametrization with frozen base weights (LoRA), pruning's weight_orig/weight_mask,
# extra state, a half-precision model; the last entry says whether outputs are compared too (Swin's
# forward costs a third of a second on a cold CPU: its state is compared entry by entry instead). Not
# spectral_norm: registering it on meta runs its power iteration through Python meta kernels, a second
# per model. A model that cannot run in the dtype asked (T5's masks and norms assume float32) runs in
# float32.
_ZOO_REBUILT = (
    ("gpt2", torch.float64, True),
    ("t5", torch.float32, True),
    ("swin", torch.float32, False),
    ("lora", torch.float64, True),
    ("prune", torch.bfloat16, True),
    ("extra-state", torch.float32, True),
    ("vq-ema", torch.float32, True),  # a half-precision model, as it is
)


def _frozen_backbone_with_lazy_head():
    """A zoo ResNet frozen on purpose (eval mode, no gradients) under a lazy head, with the batch statistics a
    pretrained backbone holds (not the zeros, ones and 0 a reset gives): a dry run must leave them as they are."""
    backbone = _zoo_build("resnet").eval().requires_grad_(False)
    pretrained = torch.Generator().manual_seed(5)  # not the global generator: the head draws from that
    with torch.no_grad():
        for name, buffer in backbone.named_buffers():
            if name.endswith("running_mean"):
                buffer.uniform_(-0.5, 0.5, generator=pretrained)
            elif name.endswith("running_var"):
                buffer.uniform_(0.5, 1.5, generator=pretrained)
            elif name.endswith("num_batches_tracked"):
                buffer.fill_(1000)
    return nn.Sequential(backbone, nn.LazyLinear(4))


def _groups_family():
    """(label, factory, example inputs): lazy or not, BatchNorm, norms, ties, a frozen backbone."""
    return [
        ("a lazy MLP", lambda: _lazy_mlp(16, 4), (torch.zeros(2, 6),)),
        (
            "a lazy conv net with LazyBatchNorm2d",
            _lazy_convnet,
            (torch.zeros(2, 3, 8, 8),),
        ),
        (
            "a frozen ResNet (eval mode) under a lazy head",
            _frozen_backbone_with_lazy_head,
            zoo.inputs("resnet"),
        ),
        (
            "the zoo's GPT-2 (tied, LayerNorm)",
            lambda: _zoo_build("gpt2"),
            zoo.inputs("gpt2"),
        ),
        ("the zoo's LLaMA (RMSNorm)", lambda: _zoo_build("llama"), zoo.inputs("llama")),
    ]


def _half_loaded_swin():
    """The zoo's Swin built on meta and loaded, with strict=False, from a checkpoint without its index."""
    source = _zoo_build("swin")
    state = {k: v for k, v in source.state_dict().items() if "position_index" not in k}
    with torch.device("meta"):
        model = _quietly(zoo.MODELS["swin"].build)
    model.load_state_dict(state, assign=True, strict=False)
    return model


def _gpt2_stored_once():
    source = _zoo_build("gpt2")
    state = {k: v for k, v in source.state_dict().items() if k != "lm_head.weight"}
    with torch.device("meta"):
        model = _quietly(zoo.MODELS["gpt2"].build)
    model.load_state_dict(state, assign=True, strict=False)
    return model


def _llama_loaded():
    """LLaMA loaded with assign=True: its non-persistent rotary buffers stay on meta."""
    source = _zoo_build("llama")
    with torch.device("meta"):
        model = _quietly(zoo.MODELS["llama"].build)
    model.load_state_dict(source.state_dict(), assign=True)
    return model


def _on_meta(make):
    def build():
        with torch.device("meta"):
            return make()

    return build


def _unmaterialized_family():
    return [
        ("a model on the CPU", lambda: _zoo_build("gpt2")),
        ("a lazy MLP before its dry run", lambda: _lazy_mlp(8, 2)),
        ("a lazy conv net (lazy buffers)", _lazy_convnet),
        ("a lazy conv net built on meta", _on_meta(_lazy_convnet)),
        ("LLaMA loaded with assign=True (non-persistent buffers)", _llama_loaded),
        ("Swin loaded without its index (strict=False)", _half_loaded_swin),
        ("GPT-2 from a checkpoint that stores the tie once", _gpt2_stored_once),
        ("the zoo's half-materialized model", lambda: _zoo_build("meta-half")),
    ]


class _CausalBlock(nn.Module):
    """GPT-2's habit, with a method: a persistent causal mask that __init__ computes."""

    def __init__(self, dim=16, max_len=12):
        super().__init__()
        self.max_len = max_len
        self.attn = nn.MultiheadAttention(dim, 2, batch_first=True)
        self.norm = nn.LayerNorm(dim)
        self.init_buffers()

    def init_buffers(self, device=None):
        ones = torch.ones(self.max_len, self.max_len, dtype=torch.bool, device=device)
        self.register_buffer("mask", ~torch.tril(ones))  # persistent: in state_dict()

    def forward(self, x):
        n = x.shape[1]
        out, _ = self.attn(x, x, x, attn_mask=self.mask[:n, :n], need_weights=False)
        return self.norm(x + out)


class _RotaryNet(nn.Module):
    """A nested computed buffer (inv_freq) and a batch-normalized head."""

    def __init__(self, dim=16):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.rotary = _Rotary(dim)
        self.norm = nn.BatchNorm1d(dim)

    def forward(self, x):
        return self.norm(self.rotary(self.proj(x)).flatten(0, 1))


def _init_from_meta_family():
    """(label, factory, example inputs): every model's constructors draw in children-first order."""
    return [
        (
            "a tied LM with a Transformer layer and a computed table",
            _CheckLM,
            (torch.randint(0, 40, (2, 6)),),
        ),
        (
            "a block with a persistent causal mask",
            _CausalBlock,
            (torch.randn(2, 5, 16),),
        ),
        (
            "a model with GPT-2's names (wte, lm_head)",
            _TiedGPT,
            (torch.randint(0, 24, (2, 5)),),
        ),
        (
            "a nested computed buffer and BatchNorm",
            _RotaryNet,
            (torch.randn(2, 5, 16),),
        ),
        (
            f"a nested computed buffer and BatchNorm{ON_META_DEFAULT}",
            _RotaryNet,
            (torch.randn(2, 5, 16),),
        ),
    ]


class _ConstantScale(nn.Module):
    """A non-persistent buffer computed in __init__ that no init_buffers recomputes: built on meta and loaded
    with assign=True, it stays on meta (the checkpoint does not hold it), so build_on_meta must raise."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.register_buffer("scale", torch.full((4,), 0.5), persistent=False)

    def forward(self, x):
        return self.proj(x) * self.scale


def _left_on_meta_family():
    """(label, factory): models that build_on_meta cannot finish; the statement asks for an error."""
    return [("a model whose non-persistent buffer no init_buffers recomputes", _ConstantScale)]
