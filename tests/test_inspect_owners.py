"""inspect_module's "reset loop" and "lazy" findings decided by what the model does, not by class names.

The reset-loop warning on a module with no reset_parameters() of its own (or on a parametrization's originals)
holds only where no enclosing module's reset_parameters() redraws those tensors: the RNN family's loops over
self.parameters() do, parametrization originals included. Each case is checked against the loop itself.
A lazy parameter is found by its type (UninitializedParameter), in any module: PyTorch Geometric's
`Linear(-1, ...)` keeps one in a plain nn.Module, which is no LazyModuleMixin.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.nn.utils import parametrizations

from inside_nn.inspect_module import inspect_module


def reset_loop_leaves(model: nn.Module) -> set[str]:
    """The parameters that `for m in model.modules(): m.reset_parameters()` leaves as they were."""
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    torch.manual_seed(1)
    for module in model.modules():
        if hasattr(module, "reset_parameters"):
            module.reset_parameters()
    return {n for n, p in model.named_parameters() if torch.equal(p, before[n])}


def weight_normed_lstm():
    return nn.Sequential(parametrizations.weight_norm(nn.LSTM(6, 8, num_layers=2), "weight_hh_l0"), nn.Linear(8, 2))


def orthogonal_rnn():
    return parametrizations.orthogonal(nn.RNN(4, 4), "weight_hh_l0")


def spectral_gru():
    return nn.Sequential(parametrizations.spectral_norm(nn.GRU(4, 5), "weight_ih_l0"))


class Scale(nn.Module):
    """A learned per-channel scale, with no reset_parameters() of its own (timm's LayerScale before 1.0)."""

    def __init__(self, n):
        super().__init__()
        self.gamma = nn.Parameter(torch.full((n,), 1e-5))

    def forward(self, x):
        return x * self.gamma


class Block(nn.Module):
    """A block whose reset_parameters() redraws every parameter it holds, its children's too (as the RNNs do)."""

    def __init__(self, n):
        super().__init__()
        self.proj, self.scale = nn.Linear(n, n), Scale(n)

    def reset_parameters(self):
        for p in self.parameters():
            nn.init.uniform_(p, -0.1, 0.1)


class BlockThatResetsItsLinear(Block):
    def reset_parameters(self):
        self.proj.reset_parameters()


@pytest.mark.parametrize("build", [weight_normed_lstm, orthogonal_rnn, spectral_gru, lambda: Block(4)])
def test_an_owner_that_redraws_every_parameter_gets_no_reset_loop_warning(build):
    assert not inspect_module(build()).of_kind("reset loop")
    assert reset_loop_leaves(build()) == set()  # the truth: the loop redraws every original


@pytest.mark.parametrize(
    ("build", "left"),
    [
        (lambda: parametrizations.weight_norm(nn.Linear(4, 3)), "parametrizations.weight"),
        (lambda: BlockThatResetsItsLinear(4), "scale"),
    ],
)
def test_a_reset_that_leaves_them_keeps_the_warning(build, left):
    assert [f.path for f in inspect_module(build()).of_kind("reset loop")] == [left]
    assert reset_loop_leaves(build()) and all(n.startswith(left) for n in reset_loop_leaves(build()))


def test_the_rnn_on_meta_and_the_model_are_left_as_they_were():
    with torch.device("meta"):
        model = weight_normed_lstm()
    assert not inspect_module(model).of_kind("reset loop")
    model = weight_normed_lstm()
    before = {n: p.detach().clone() for n, p in model.state_dict().items()}
    state = torch.get_rng_state()
    inspect_module(model)
    assert torch.equal(torch.get_rng_state(), state)
    assert all(torch.equal(before[n], p) for n, p in model.state_dict().items())


class GeometricLinear(nn.Module):
    """PyTorch Geometric's torch_geometric.nn.dense.Linear, reduced: in_channels=-1 keeps an
    UninitializedParameter in a plain Module, materialized by a forward pre-hook on the first call."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.in_channels, self.out_channels = in_channels, out_channels
        if in_channels > 0:
            self.weight = nn.Parameter(torch.empty(out_channels, in_channels))
        else:
            self.weight = nn.parameter.UninitializedParameter()
            self._hook = self.register_forward_pre_hook(self.initialize_parameters)
        self.bias = nn.Parameter(torch.empty(out_channels))
        self.reset_parameters()

    def initialize_parameters(self, module, inputs):
        if isinstance(self.weight, nn.parameter.UninitializedParameter):
            self.in_channels = inputs[0].size(-1)
            self.weight.materialize((self.out_channels, self.in_channels))
            self.reset_parameters()
        self._hook.remove()
        del self._hook

    def reset_parameters(self):
        if not isinstance(self.weight, nn.parameter.UninitializedParameter):
            nn.init.kaiming_uniform_(self.weight, a=5**0.5)
        nn.init.zeros_(self.bias)

    def forward(self, x):
        return nn.functional.linear(x, self.weight, self.bias)


def test_an_uninitialized_parameter_in_a_plain_module_is_lazy():
    model = nn.Sequential(GeometricLinear(-1, 16), nn.ReLU(), GeometricLinear(16, 2))
    assert not isinstance(model[0], nn.modules.lazy.LazyModuleMixin)
    report = inspect_module(model)
    assert [f.path for f in report.of_kind("lazy")] == ["0"]
    assert "run one forward" in report.of_kind("lazy")[0].message
    model(torch.randn(3, 7))  # the dry run materializes it, and the finding goes
    assert not inspect_module(model).of_kind("lazy")


@pytest.mark.parametrize("kind", ["lstm parametrized", "gru old weight_norm"])
def test_an_rnn_s_flat_weights_are_its_own_cache_not_plain_state(kind):
    """nn.RNNBase rebuilds _flat_weights from _flat_weights_names: with its weights parametrized (or given the old
    weight_norm hook) the list holds computed tensors, which are no plain state for the report to flag."""
    torch.manual_seed(0)
    if kind.startswith("lstm"):
        model = parametrizations.weight_norm(nn.LSTM(4, 8, batch_first=True), "weight_hh_l0")
    else:
        with pytest.warns(FutureWarning):
            model = torch.nn.utils.weight_norm(nn.GRU(4, 8), "weight_ih_l0")
    report = inspect_module(model, example_inputs=(torch.randn(3, 2, 4),))
    assert [f for f in report.findings if "_flat_weights" in f.path] == [], report
