"""Chapter 8's `inspect_module`: every kind of finding appears on a model that has the problem and not on one
that lacks it; running it changes nothing; what real code bases hold (aliases, hooks, odd tensors) gives no
false finding and no crash. The download and the command line: tests/test_inspect_download.py.

The function is `inside_nn/inspect_module.py`, one file that needs only torch; `book/_ext/inspect_download.py`
publishes that file, byte for byte, next to the chapter's page (`make book`). MODULE_FILE, DOWNLOAD and
load_inspect, defined here, are shared with tests/test_inspect_download.py and tests/test_inspect_site.py.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import random
import warnings

import pytest
import torch
import torch.distributed as dist
import torch.nn.functional as F
from conftest import ROOT
from torch import nn
from torch.nn.utils import parametrize, prune

import inside_nn.inspect_module as inspect_source
from inside_nn.inspect_module import Report, inspect_module

MODULE_FILE = ROOT / "inside_nn" / "inspect_module.py"


def _download_module():
    spec = importlib.util.spec_from_file_location("inspect_download", ROOT / "book/_ext/inspect_download.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DOWNLOAD = _download_module()


def load_inspect() -> dict:
    """The names `inspect_module.py` defines (SECTIONS, SEVERITIES, BOOK, inspect_module, ...)."""
    return vars(inspect_source)


def _plain(**attributes) -> nn.Module:
    module = nn.Module()
    for name, value in attributes.items():
        object.__setattr__(module, name, value)
    return module


def _buffered(name, tensor, persistent=True) -> nn.Module:
    module = nn.Module()
    module.register_buffer(name, tensor, persistent=persistent)
    return module


def _tied() -> nn.Module:
    embed, head = nn.Embedding(10, 4), nn.Linear(4, 10, bias=False)
    head.weight = embed.weight
    return nn.ModuleDict({"embed": embed, "head": head})


def _frozen() -> nn.Module:
    model = nn.Linear(3, 3)
    model.bias.requires_grad_(False)
    return model


def _on_meta() -> nn.Module:
    with torch.device("meta"):
        return nn.Linear(3, 3)


def _half_on_meta() -> nn.Module:
    model = nn.Sequential(nn.Linear(3, 3), _buffered("inv_freq", torch.ones(2), False))
    with torch.device("meta"):
        shell = nn.Sequential(nn.Linear(3, 3), _buffered("inv_freq", torch.ones(2), False))
    shell.load_state_dict(model.state_dict(), assign=True)
    return shell


def _split_tie() -> nn.Module:
    """A tied model loaded with assign=True onto a meta shell: two Parameters over one storage."""
    with torch.device("meta"):
        shell = _tied()
    shell.load_state_dict(_tied().state_dict(), assign=True)
    return shell


def _nan() -> nn.Module:
    model = nn.Linear(2, 2)
    with torch.no_grad():
        model.weight[0, 0] = float("nan")
    return model


def _causal_mask() -> nn.Module:
    return _buffered("mask", torch.full((3, 3), float("-inf")).triu(1))


class _Counter(nn.Module):
    """Adds to a plain attribute in every forward."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(2, 2)
        self.total = torch.zeros(2)

    def forward(self, x):
        self.total = self.total + x.sum(0)
        return self.linear(x)


class _Broken(nn.Module):
    def forward(self, x):
        raise RuntimeError("shape mismatch")


# kind: (a model that must produce it, a model that must not), each with example inputs or None.
CASES = {
    "plain attribute": (
        (_plain(cache={"k": [torch.zeros(2)]}), None),
        (_buffered("cache", torch.zeros(2)), None),
    ),
    "unregistered": (
        (_plain(extra=[nn.Parameter(torch.zeros(2))]), None),
        (nn.ParameterList([nn.Parameter(torch.zeros(2))]), None),
    ),
    "buffers under DDP": (
        (nn.BatchNorm1d(3), None),
        (nn.LayerNorm(3), None),
    ),
    "non-persistent buffer": (
        (_buffered("inv_freq", torch.ones(4), persistent=False), None),
        (_buffered("inv_freq", torch.ones(4)), None),
    ),
    "half-precision buffer": (
        (_buffered("seen", torch.zeros((), dtype=torch.float16)), None),
        (_buffered("seen", torch.zeros(())), None),
    ),
    "parameters": ((nn.Linear(2, 2), None), (nn.ReLU(), None)),
    "tied parameters": (
        (_tied(), None),
        (nn.Sequential(nn.Embedding(10, 4), nn.Linear(4, 10)), None),
    ),
    "split tie": ((_split_tie(), None), (_tied(), None)),
    "frozen parameters": ((_frozen(), None), (nn.Linear(3, 3), None)),
    "reset loop": (
        (nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), None),
        (nn.Sequential(nn.Linear(2, 2), nn.LayerNorm(2), nn.Embedding(3, 2)), None),
    ),
    "lazy": ((nn.LazyLinear(2), None), (nn.Linear(2, 2), None)),
    "meta": ((_on_meta(), None), (nn.Linear(3, 3), None)),
    "mixed devices": ((_half_on_meta(), None), (nn.Linear(3, 3), None)),
    "mixed dtypes": (
        (nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2).double()), None),
        (nn.Linear(2, 2), None),
    ),
    "non-finite": ((_nan(), None), (_causal_mask(), None)),
    "forward changes state": (
        (_Counter(), torch.ones(3, 2)),
        (nn.Sequential(nn.Linear(2, 2), nn.LayerNorm(2)), torch.ones(3, 2)),
    ),
    "forward": ((_Broken(), torch.ones(1)), (_Broken(), None)),
}


def _kinds(report: Report, *severities: str) -> set[str]:
    severities = severities or ("error", "warning")
    return {f.kind for f in report.findings if f.severity in severities}


def _paths(report: Report, kind: str) -> list[str]:
    return sorted(f.path for f in report.of_kind(kind))


def test_every_kind_of_finding_is_covered():
    assert set(CASES) == set(inspect_source.SECTIONS)


@pytest.mark.parametrize("kind", sorted(CASES))
def test_a_model_with_the_problem_gets_the_finding_and_one_without_does_not(kind):
    (has, has_inputs), (lacks, lacks_inputs) = CASES[kind]
    assert inspect_module(has, has_inputs).of_kind(kind), kind
    assert not inspect_module(lacks, lacks_inputs).of_kind(kind), kind


def test_each_finding_has_a_severity_a_path_a_message_and_a_link():
    report = inspect_module(_Counter(), torch.ones(3, 2))
    assert isinstance(report, Report) and report.findings
    for finding in report.findings:
        assert finding.severity in inspect_source.SEVERITIES
        assert finding.link.startswith(inspect_source.BOOK + "notebooks/")
        assert "#" in finding.link, f"{finding.kind}: link to the section, not only the page"
        assert finding.message
    assert "total" in {f.path for f in report.of_kind("forward changes state")}
    assert str(report).startswith("inspect_module(_Counter):")


def test_the_asker_matrix_is_reported_with_its_bytes():
    plain = inspect_module(_plain(matrix=torch.zeros(12, 197, 192)))
    (finding,) = plain.of_kind("plain attribute")
    assert "1.73 MiB" in finding.message
    buffer = inspect_module(_buffered("matrix", torch.zeros(12, 197, 192)))
    (finding,) = buffer.of_kind("buffers under DDP")
    assert "1.73 MiB" in finding.message and "rank 0 alone" in finding.message
    assert "ddp_model.module" in finding.message


def _everything(model: nn.Module):
    tensors = {name: (t, t.detach().clone()) for name, t in [*model.named_parameters(), *model.named_buffers()]}
    attributes = {m: dict(vars(m)) for m in model.modules()}
    flags = {m: m.training for m in model.modules()}
    return tensors, attributes, flags, torch.get_rng_state()


@pytest.mark.parametrize("training", [True, False])
def test_running_it_changes_nothing(training):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Dropout(0.5), nn.Flatten())
    counter = _Counter()
    whole = nn.ModuleDict({"net": model, "counter": counter})
    whole.train(training)
    counter.eval()
    images = torch.randn(2, 3, 5, 5)
    before = _everything(whole)
    inspect_module(model, images)
    inspect_module(counter, torch.ones(3, 2))
    tensors, attributes, flags, rng = before
    now = dict([*whole.named_parameters(), *whole.named_buffers()])
    for name, (tensor, values) in tensors.items():
        assert now[name] is tensor, name
        assert torch.equal(tensor, values), name
    for module, attrs in attributes.items():
        assert dict(vars(module)).keys() == attrs.keys()
        assert all(vars(module)[k] is v for k, v in attrs.items())
    assert {m: m.training for m in whole.modules()} == flags
    assert torch.equal(torch.get_rng_state(), rng)


def test_a_forward_that_changes_a_parameter_is_a_warning():
    embedding = nn.Embedding(10, 4, max_norm=1.0)  # renormalizes the rows it looks up, in place
    with torch.no_grad():
        embedding.weight.mul_(10)
    before = embedding.weight.detach().clone()
    report = inspect_module(embedding, torch.tensor([[1, 2]]))
    (changed, *_) = report.of_kind("forward changes state")
    assert changed.severity == "warning" and changed.path == "weight"
    assert "parameter updated in place" in changed.message
    assert torch.equal(embedding.weight, before)
    assert not inspect_module(nn.Embedding(10, 4), torch.tensor([[1, 2]])).of_kind("forward changes state")


class _NoisyGate(nn.Module):
    """Draws its noise from a torch.Generator of its own, as noisy top-k gating does."""

    def __init__(self):
        super().__init__()
        self.w_gate = nn.Linear(4, 2)
        self.generator = torch.Generator().manual_seed(1234)

    def forward(self, x):
        return self.w_gate(x) + torch.randn(x.shape[0], 2, generator=self.generator)


def test_a_generator_the_model_holds_is_restored_and_noted():
    model = _NoisyGate()
    state = model.generator.get_state().clone()
    report = inspect_module(model, torch.ones(3, 4))
    assert torch.equal(model.generator.get_state(), state)
    drawn = report.of_kind("forward changes state")
    assert drawn and all(f.severity == "note" for f in drawn)
    assert "generator" in {f.path for f in drawn}


# --------------------------------------------------------------------------------------------------
# Plain containers that hold again what the model registers are aliases, not unregistered state.


class _RotaryEmbedding(nn.Module):
    """Hugging Face's LlamaRotaryEmbedding: a non-persistent inv_freq and a plain alias of it."""

    def __init__(self, dim=8, base=10000.0):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.original_inv_freq = self.inv_freq
        self.attention_scaling = 1.0

    @torch.no_grad()
    def forward(self, x, position_ids):
        inv = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        freqs = (inv @ position_ids[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)


class _FPN(nn.Module):
    """detectron2's FPN: convs registered with add_module, and plain lists of the same convs."""

    def __init__(self, in_channels=(4, 8), strides=(4, 8), out_channels=8):
        super().__init__()
        lateral_convs, output_convs = [], []
        for idx, channels in enumerate(in_channels):
            lateral_conv = nn.Conv2d(channels, out_channels, kernel_size=1)
            output_conv = nn.Conv2d(out_channels, out_channels, 3, padding=1)
            stage = int(math.log2(strides[idx]))
            self.add_module(f"fpn_lateral{stage}", lateral_conv)
            self.add_module(f"fpn_output{stage}", output_conv)
            lateral_convs.append(lateral_conv)
            output_convs.append(output_conv)
        self.lateral_convs = lateral_convs[::-1]
        self.output_convs = output_convs[::-1]
        self._out_features = [f"p{int(math.log2(s))}" for s in strides]
        self.in_features = ["res2", "res3"]

    def forward(self, features):
        feats = [features[f] for f in self.in_features[::-1]]
        prev = self.lateral_convs[0](feats[0])
        results = [self.output_convs[0](prev)]
        for feat, lateral, output in zip(feats[1:], self.lateral_convs[1:], self.output_convs[1:], strict=True):
            prev = F.interpolate(prev, scale_factor=2.0, mode="nearest") + lateral(feat)
            results.insert(0, output(prev))
        return dict(zip(self._out_features, results, strict=True))


class _Stages(nn.Module):
    """Index lists over a ModuleList, a list of its stages and a list of its parameters."""

    def __init__(self):
        super().__init__()
        self.stages = nn.ModuleList([nn.Conv2d(3 if i == 0 else 4, 4, 3, padding=1) for i in range(4)])
        self.out_indices = [1, 3]
        self.out_stages = [self.stages[i] for i in self.out_indices]
        self.stem_params = [self.stages[0].weight, self.stages[0].bias]
        self.weight_views = {"stem": self.stages[0].weight.detach()[0]}

    def forward(self, x):
        outs = []
        for i, stage in enumerate(self.stages):
            x = stage(x)
            if i in self.out_indices:
                outs.append(x)
        return outs


class _LSTMLM(nn.Module):
    """pytorch/examples' word_language_model with tied weights."""

    def __init__(self, rnn_type="LSTM", ntoken=30, nhid=8, nlayers=2):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, nhid)
        self.rnn = getattr(nn, rnn_type)(nhid, nhid, nlayers, dropout=0.2)
        self.decoder = nn.Linear(nhid, ntoken)
        self.decoder.weight = self.encoder.weight
        self.drop = nn.Dropout(0.2)

    def forward(self, tokens):
        output, _ = self.rnn(self.drop(self.encoder(tokens)))
        return self.decoder(self.drop(output))


def _original_in_a_list() -> nn.Module:
    layer = nn.Linear(4, 4)
    parametrize.register_parametrization(layer, "weight", nn.Identity())
    layer.originals = [layer.parametrizations.weight.original]
    return layer


def _fx_traced() -> nn.Module:
    net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten())
    return torch.fx.symbolic_trace(net)


ALIASES = {
    "detectron2 lists": (
        _FPN,
        lambda: ({"res2": torch.randn(1, 4, 8, 8), "res3": torch.randn(1, 8, 4, 4)},),
    ),
    "index lists": (_Stages, lambda: torch.randn(1, 3, 6, 6)),
    "lstm flat weights": (_LSTMLM, lambda: torch.randint(0, 30, (5, 2))),
    "gru flat weights": (lambda: _LSTMLM("GRU"), lambda: torch.randint(0, 30, (5, 2))),
    "parametrization original": (_original_in_a_list, lambda: torch.randn(2, 4)),
    "fx graph module": (_fx_traced, lambda: torch.randn(2, 3, 5, 5)),
}
NOT_ON_ALIASES = {"unregistered", "plain attribute", "forward changes state", "forward"}


@pytest.mark.parametrize("name", sorted(ALIASES))
@pytest.mark.parametrize("with_inputs", [False, True], ids=["state", "forward"])
def test_a_container_of_registered_objects_is_no_finding(name, with_inputs):
    build, example = ALIASES[name]
    report = inspect_module(build(), example() if with_inputs else None)
    assert not _kinds(report) & NOT_ON_ALIASES, str(report)
    assert not report.of_kind("unregistered"), str(report)


@pytest.mark.parametrize("with_inputs", [False, True], ids=["state", "forward"])
def test_a_plain_attribute_holding_a_buffer_itself_is_warned_about(with_inputs):
    """Hugging Face's rotary embedding keeps `original_inv_freq = self.inv_freq`: .to() puts a new tensor in
    the buffer and leaves the attribute with the old one."""
    rotary = _RotaryEmbedding()
    inputs = (torch.ones(1, 3, 8), torch.arange(3)[None]) if with_inputs else None
    report = inspect_module(rotary, inputs)
    (alias,) = report.of_kind("plain attribute")
    assert alias.path == "original_inv_freq" and "buffer inv_freq" in alias.message
    assert not report.of_kind("forward changes state") and not _kinds(report, "error")
    rotary.to(torch.float64)
    assert rotary.inv_freq.dtype == torch.float64
    assert rotary.original_inv_freq.dtype == torch.float32  # what the warning says


def test_a_tensor_in_a_plain_object_is_reported_and_restored():
    """A KV cache held in a plain object (gpt-fast's KVCache, a Hugging Face Cache): .to() skips it, state_dict
    lacks it, and the forward's writes into it are undone."""

    class KVCache:
        def __init__(self):
            self.k = torch.zeros(1, 16, 8)
            self.steps = [torch.zeros(1)]

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)
            self.cache = KVCache()

        def forward(self, x):
            self.cache.k[:, : x.shape[1]] = x
            self.cache.steps.append(x.sum())
            self.cache.extra = x  # a new attribute on the object
            return self.proj(x)

    model = Attention()
    cache, k, steps = model.cache, model.cache.k, list(model.cache.steps)
    report = inspect_module(model, torch.ones(1, 3, 8))
    assert _paths(report, "plain attribute") == ["cache.k", "cache.steps[0]"]
    assert _paths(report, "forward changes state") == ["cache", "cache"]
    assert model.cache is cache and model.cache.k is k and bool((k == 0).all())
    assert model.cache.steps == steps and not hasattr(model.cache, "extra")
    model.to(torch.float64)
    assert model.cache.k.dtype == torch.float32 and "cache.k" not in model.state_dict()


def test_python_and_numpy_random_states_are_restored():
    """LayerDrop (Hugging Face's Bart, Wav2Vec2) draws from Python's random; other code from NumPy's."""
    np = pytest.importorskip("numpy")

    class LayerDrop(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList(nn.Linear(2, 2) for _ in range(3))

        def forward(self, x):
            for layer in self.layers:
                if not (self.training and random.random() < 0.5):
                    x = layer(x)
            return x + float(np.random.rand())

    random.seed(0)
    np.random.seed(0)
    python_state, numpy_state = random.getstate(), np.random.get_state()
    report = inspect_module(LayerDrop(), torch.ones(1, 2))
    assert random.getstate() == python_state
    assert np.array_equal(np.random.get_state()[1], numpy_state[1])
    (note,) = report.of_kind("forward")
    assert "torch, Python's random and NumPy were restored" in note.message


def test_without_numpy_the_note_names_torch_and_python(monkeypatch):
    monkeypatch.setattr(inspect_source, "_numpy", lambda: None)
    (note,) = inspect_module(nn.Linear(2, 2), torch.ones(1, 2)).of_kind("forward")
    assert "states of torch and Python's random were restored" in note.message


def test_a_cache_deep_in_containers_is_restored_and_reported():
    """A Hugging Face-like cache four levels down (a dict, a Cache, its list of layers, a layer dataclass),
    whose keys the forward replaces with torch.cat."""

    @dataclasses.dataclass
    class Layer:
        keys: torch.Tensor

    class Cache:
        def __init__(self):
            self.layers = [Layer(torch.zeros(0, 4))]

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.holder = {"c": Cache()}

        def forward(self, x):
            layer = self.holder["c"].layers[0]
            layer.keys = torch.cat([layer.keys, x])
            return self.lin(x)

    model = Model()
    report = inspect_module(model, torch.ones(1, 4))
    assert model.holder["c"].layers[0].keys.shape == (0, 4)
    assert _paths(report, "forward changes state") == ["holder", "holder"]
    assert _paths(report, "plain attribute") == ["holder['c'].layers[0].keys"]


def test_where_the_walk_stops_is_said_and_not_claimed_restored():
    deep = [torch.zeros(1)]
    for _ in range(inspect_source._DEEP):
        deep = [deep]

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.deep = deep

        def forward(self, x):
            return x

    notes = inspect_module(Model(), torch.ones(1)).of_kind("forward")
    (stop,) = [n for n in notes if "walk" in n.message]
    assert "deep" + "[0]" * inspect_source._DEEP in stop.message
    assert "neither checked nor restored" in stop.message


def test_a_cycle_names_the_shortest_path():
    class Holder:
        def __init__(self):
            self.me = self
            self.t = torch.zeros(3)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.o = Holder()

        def forward(self, x):
            self.o.t += 1
            return x

    model = Model()
    report = inspect_module(model, torch.ones(1))
    assert _paths(report, "plain attribute") == ["o.t"]
    assert model.o.t.tolist() == [0.0, 0.0, 0.0]


def test_python_and_numpy_generators_the_model_holds_are_restored_and_noted():
    np = pytest.importorskip("numpy")

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.rng = random.Random(0)
            self.held = {"np": np.random.default_rng(0)}

        def forward(self, x):
            return x + self.rng.random() + self.held["np"].random()

    model = Model()
    python_state = model.rng.getstate()
    numpy_state = model.held["np"].bit_generator.state
    report = inspect_module(model, torch.ones(1))
    assert model.rng.getstate() == python_state
    assert model.held["np"].bit_generator.state == numpy_state
    changed = report.of_kind("forward changes state")
    assert [f.path for f in changed] == ["(model): rng, held"] * 2

    assert all("random number generator" in f.message for f in changed)


def test_a_slots_object_holding_a_tensor_is_reported_and_restored():
    class Data:
        __slots__ = ("x", "y")

        def __init__(self):
            self.x = torch.zeros(2)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.d = Data()

        def forward(self, x):
            self.d.x += 1
            self.d.y = x  # a slot the forward fills
            return x

    model = Model()
    report = inspect_module(model, torch.ones(1))
    assert model.d.x.tolist() == [0.0, 0.0] and not hasattr(model.d, "y")
    assert _paths(report, "plain attribute") == ["d.x"]
    assert _paths(report, "forward changes state") == ["d", "d"]


@pytest.mark.parametrize("persistent", [False, True])
def test_the_alias_warning_names_assign_only_for_a_persistent_buffer(persistent):
    """load_state_dict(assign=True) replaces only what is in state_dict: a non-persistent buffer (Hugging
    Face's inv_freq) keeps its tensor, and the alias with it."""

    class Rope(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("inv_freq", torch.ones(2), persistent=persistent)
            self.original_inv_freq = self.inv_freq

    (alias,) = inspect_module(Rope()).of_kind("plain attribute")
    assert ("assign=True" in alias.message) == persistent
    rope = Rope()
    rope.load_state_dict({k: v.clone() for k, v in rope.state_dict().items()}, assign=True)
    assert (rope.original_inv_freq is rope.inv_freq) != persistent


@pytest.fixture
def process_group():
    """A one-process gloo group (no port), destroyed afterwards unless someone else started it."""
    if dist.is_initialized():
        yield
        return
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        yield
    finally:
        dist.destroy_process_group()


def test_a_ddp_wrapper_gives_no_finding_of_its_internals(process_group):
    net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Flatten())
    ddp = nn.parallel.DistributedDataParallel(net)
    report = inspect_module(ddp, torch.randn(2, 3, 5, 5))
    assert not _kinds(report) & NOT_ON_ALIASES, str(report)
    changed = report.of_kind("forward changes state")
    assert {f.path for f in changed} == {"module.1: running_mean, running_var, num_batches_tracked"}


class _OldDDP(nn.Module):
    """What DistributedDataParallel held in torch 1.x: the module again in `_module_copies`, plain lists of
    its parameters and buffers, one of them called `parameters` (shadowing the method), bucket indices."""

    def __init__(self, module):
        super().__init__()
        self.module = module
        self._module_copies = [self.module]
        self.parameters = [list(module.parameters())]
        self.modules_buffers = [list(module.buffers())]
        self.bucket_indices = [[0, 1], [2]]

    def forward(self, *inputs):
        return self.module(*inputs)


def test_a_wrapper_of_an_older_torch_is_no_finding_either():
    net = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))
    report = inspect_module(_OldDDP(net), torch.randn(4, 3))
    assert not _kinds(report) & NOT_ON_ALIASES, str(report)
    assert _paths(report, "forward changes state") == ["module.1: running_mean, running_var, num_batches_tracked"]


def test_a_torch_compile_wrapper_is_inspected_without_compiling():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "`torch.jit.script_method` is deprecated")
        from torch._dynamo.utils import counters

    net = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
    with warnings.catch_warnings():
        # torch.compile's first import reaches the deprecated torch.jit.script_method: torch's warning
        warnings.filterwarnings("ignore", "`torch.jit.script_method` is deprecated")
        compiled = torch.compile(net)
    captured = dict(counters["stats"])
    report = inspect_module(compiled, torch.randn(3, 4))
    assert dict(counters["stats"]) == captured, "the report compiled the model"
    assert not _kinds(report) & NOT_ON_ALIASES, str(report)
    (ran,) = report.of_kind("forward")
    assert "_orig_mod" in ran.message
    assert report.of_kind("forward changes state")  # the BatchNorm statistics, seen through the wrapper


class _Darts(nn.Module):
    """DARTS: architecture weights as plain tensors that require grad, and a plain list of them."""

    def __init__(self):
        super().__init__()
        self.cell = nn.Conv2d(3, 3, 3, padding=1)
        self.alphas_normal = (1e-3 * torch.randn(5, 3)).requires_grad_(True)
        self.alphas_reduce = (1e-3 * torch.randn(5, 3)).requires_grad_(True)
        self._arch_parameters = [self.alphas_normal, self.alphas_reduce]

    def forward(self, x):
        return self.cell(x) * self.alphas_normal.softmax(-1)[0, 0]


class _ListMoE(nn.Module):
    """Experts in a plain Python list: the bug."""

    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(4, 3)
        self.experts = [nn.Linear(4, 4) for _ in range(3)]
        self.router_state = [self.gate]  # an alias next to them: not a finding

    def forward(self, x):
        w = self.gate(x).softmax(-1)
        return sum(w[..., i : i + 1] * e(x) for i, e in enumerate(self.experts))


def test_unregistered_state_in_plain_containers_is_still_an_error():
    darts = inspect_module(_Darts(), torch.randn(1, 3, 4, 4))
    errors = [f for f in darts.of_kind("unregistered") if f.severity == "error"]
    # each tensor once, under the first name it has
    assert sorted(f.path for f in errors) == ["alphas_normal", "alphas_reduce"]
    assert "requires grad" in errors[0].message
    moe = inspect_module(_ListMoE(), torch.randn(2, 4))
    assert _paths(moe, "unregistered") == ["experts[0]", "experts[1]", "experts[2]"]
    assert {f.severity for f in moe.of_kind("unregistered")} == {"error"}
    hidden = nn.Linear(2, 2)
    hidden.__dict__["teacher"] = nn.Linear(2, 2)  # kept out of parameters() on purpose, and out of .to()
    assert _paths(inspect_module(hidden), "unregistered") == ["teacher"]
    stateless = nn.Linear(2, 2)
    stateless.drops = [nn.Dropout(0.1)]
    (note,) = inspect_module(stateless).of_kind("unregistered")
    assert note.severity == "note" and "eval" in note.message


class _History(nn.Module):
    """Keeps recent outputs in a deque and its settings in a dataclass, as training utilities do."""

    def __init__(self):
        super().__init__()
        import collections
        import dataclasses

        @dataclasses.dataclass
        class Settings:
            scale: torch.Tensor
            name: str = "history"

        self.linear = nn.Linear(2, 2)
        self.recent = collections.deque(maxlen=4)
        self.settings = Settings(torch.ones(2))
        self.seen = set()

    def forward(self, x):
        y = self.linear(x) * self.settings.scale
        self.recent.append(y)
        self.seen.add(len(self.recent))
        return y


def test_deques_sets_and_dataclasses_are_looked_into_and_restored():
    model = _History()
    report = inspect_module(model, torch.ones(1, 2))
    assert _paths(report, "plain attribute") == ["settings.scale"]
    assert "(model): recent, seen" in _paths(report, "forward changes state")
    assert len(model.recent) == 0 and model.seen == set()


def test_a_plain_tensor_that_is_not_a_view_of_registered_state_is_still_reported():
    model = _Stages()
    model.scratch = [torch.zeros(3)]
    model.copied = model.stages[0].weight.detach().clone()
    assert _paths(inspect_module(model), "plain attribute") == ["copied", "scratch[0]"]


# --------------------------------------------------------------------------------------------------
# Attributes a forward pre-hook recomputes from registered state are not plain state.


class _WeightStandardization:
    """A pre-hook object of its own (not torch's) that recomputes `name` from `name + '_raw'`."""

    def __init__(self, name):
        self.name = name

    def __call__(self, module, inputs):
        raw = getattr(module, self.name + "_raw")
        setattr(module, self.name, (raw - raw.mean()) / (raw.std() + 1e-5))

    @staticmethod
    def apply(module, name="weight"):
        weight = module._parameters.pop(name)
        module.register_parameter(name + "_raw", nn.Parameter(weight.detach()))
        hook = _WeightStandardization(name)
        hook(module, None)
        module.register_forward_pre_hook(hook)
        return module


def _masked_weight(module, inputs):
    module.weight = module.weight_raw * module.mask


def _masked_conv() -> nn.Module:
    conv = nn.Conv2d(3, 4, 3)
    weight = conv._parameters.pop("weight")
    conv.weight_raw = nn.Parameter(weight.detach())
    conv.register_buffer("mask", (torch.rand_like(weight) > 0.5).float())
    _masked_weight(conv, None)
    conv.register_forward_pre_hook(_masked_weight)
    return conv


def _pruned() -> nn.Module:
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(36, 5))
    prune.l1_unstructured(model[0], name="weight", amount=0.3)
    prune.random_unstructured(model[0], name="weight", amount=0.2)  # a PruningContainer
    prune.global_unstructured(
        [(model[3], "weight"), (model[3], "bias")],
        pruning_method=prune.L1Unstructured,
        amount=0.2,
    )
    return model


def _old_norms() -> nn.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # torch.nn.utils.weight_norm is deprecated
        return nn.Sequential(
            nn.utils.weight_norm(nn.Conv2d(3, 4, 3)),
            nn.utils.spectral_norm(nn.Conv2d(4, 4, 1)),
        )


HOOKED = {
    "prune": _pruned,
    "weight_norm and spectral_norm hooks": _old_norms,
    "a hook object of its own": lambda: _WeightStandardization.apply(nn.Conv2d(3, 4, 3)),
    "a hook function": _masked_conv,
}


@pytest.mark.parametrize("name", sorted(HOOKED))
def test_a_weight_a_pre_hook_recomputes_is_no_plain_state(name):
    model = HOOKED[name]()
    for example in (None, torch.randn(2, 3, 5, 5)):
        report = inspect_module(model, example)
        assert not _kinds(report) & NOT_ON_ALIASES, str(report)
    model.matrix = torch.zeros(2)  # a real plain tensor next to the hooked weight is still reported
    assert _paths(inspect_module(model), "plain attribute") == ["matrix"]


def test_a_global_forward_pre_hook_is_followed_too():
    conv = _masked_conv()
    conv._forward_pre_hooks.clear()
    handle = nn.modules.module.register_module_forward_pre_hook(
        lambda module, inputs: _masked_weight(module, inputs) if hasattr(module, "weight_raw") else None
    )
    try:
        assert not inspect_module(conv, torch.randn(1, 3, 5, 5)).of_kind("plain attribute")
    finally:
        handle.remove()
    assert _paths(inspect_module(conv), "plain attribute") == ["weight"]


# --------------------------------------------------------------------------------------------------
# Every kind of tensor: never a crash, with or without a forward.


class _Holder(nn.Module):
    def forward(self, x):
        return x * 2


def _subclass_tensor() -> torch.Tensor:
    class Tagged(torch.Tensor):
        pass

    return torch.zeros(3).as_subclass(Tagged)


def _two_tensor(a, b) -> torch.Tensor:
    try:
        from torch.testing._internal.two_tensor import TwoTensor
    except ImportError:  # pragma: no cover (a release without it)
        return a
    return TwoTensor(a, b)


def _nested(layout=torch.strided) -> torch.Tensor:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "nested tensors are a prototype"
        return torch.nested.nested_tensor([torch.randn(2), torch.randn(3)], layout=layout)


TENSORS = {
    "sparse coo": lambda: torch.eye(3).to_sparse(),
    "sparse csr": lambda: torch.eye(3).to_sparse_csr(),
    "sparse csc": lambda: torch.eye(4).to_sparse_csc(),
    "sparse bsr": lambda: torch.eye(4).to_sparse_bsr((2, 2)),
    "sparse coo with NaN": lambda: torch.sparse_coo_tensor(
        torch.tensor([[0, 2]]), torch.tensor([float("nan"), 1.0]), (4,)
    ),
    "meta": lambda: torch.zeros(3, device="meta"),
    "uninitialized": lambda: nn.parameter.UninitializedBuffer(),
    "quantized": lambda: torch.quantize_per_tensor(torch.randn(3), 0.1, 0, torch.qint8),
    "nested": _nested,
    "nested jagged": lambda: _nested(torch.jagged),
    "complex": lambda: torch.randn(3, dtype=torch.complex64),
    "complex NaN": lambda: torch.tensor([complex(float("nan"), 0.0)]),
    "zero-size": lambda: torch.zeros(0, 3),
    "float8": lambda: torch.zeros(3).to(torch.float8_e4m3fn),
    "subclass": _subclass_tensor,
    "wrapper subclass": lambda: _two_tensor(torch.zeros(3), torch.ones(3)),
}


def _make(kind: str) -> torch.Tensor:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "beta", "prototype", "deprecated" from torch
        return TENSORS[kind]()


@pytest.mark.parametrize("kind", sorted(TENSORS))
def test_no_kind_of_tensor_makes_it_crash(kind):
    model = _Holder()
    model.register_buffer("held", _make(kind))
    model.__dict__["plain"] = _make(kind)  # an UninitializedBuffer would register itself
    model.listed = [_make(kind)]
    if kind not in ("uninitialized", "meta", "nested", "nested jagged"):
        model.weights = nn.ParameterList([nn.Parameter(_make(kind), requires_grad=False)])
    for example in (None, torch.ones(2)):
        report = inspect_module(model, example)
        assert str(report) and report.buffers
        assert _paths(report, "plain attribute") == ["listed[0]", "plain"]
        assert not report.of_kind("forward") or example is not None
    non_finite = _paths(report, "non-finite")
    expected = ["held", "listed[0]", "plain", "weights.0"] if "NaN" in kind else []
    assert non_finite == expected, kind


def test_the_lazy_finding_says_which_optimizers_fail_before_the_dry_run():
    """SGD and Adam built before the dry run train the filled-in Parameters; Adagrad makes its state at
    construction and raises, as does counting parameters."""
    (finding,) = inspect_module(nn.LazyLinear(3)).of_kind("lazy")
    assert "Adagrad raise" in finding.message and "SGD and Adam" in finding.message
    for optimizer in (torch.optim.SGD, torch.optim.Adam):
        model = nn.LazyLinear(3)
        built_before = optimizer(model.parameters(), lr=0.1)
        model(torch.randn(2, 5)).sum().backward()
        weight = model.weight.detach().clone()
        built_before.step()
        assert built_before.param_groups[0]["params"][0] is model.weight
        assert not torch.equal(weight, model.weight)
    with pytest.raises(ValueError, match="uninitialized parameter"):
        torch.optim.Adagrad(nn.LazyLinear(3).parameters())
    with pytest.raises(ValueError, match="uninitialized parameter"):
        sum(p.numel() for p in nn.LazyLinear(3).parameters())


def test_a_lazy_model_before_its_dry_run():
    model = nn.Sequential(nn.LazyConv2d(4, 3), nn.LazyBatchNorm2d(), nn.LazyLinear(2))
    report = inspect_module(model, torch.randn(1, 3, 5, 5))
    assert _paths(report, "lazy") == ["0", "1", "2"]
    assert _kinds(report, "error") == set()
    buffers = {b["path"]: b for b in report.buffers}
    assert buffers["1.running_mean"]["shape"] is None
    assert buffers["1.num_batches_tracked"]["shape"] == ()
    assert isinstance(model[1].running_mean, nn.parameter.UninitializedBuffer)  # no dry run happened
