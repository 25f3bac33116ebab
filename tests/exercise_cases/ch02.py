"""Answers that tests/test_exercises.py runs through chapter 2's checkers."""

NOTEBOOK = "02_parameter_initialization"
CASES = [
    # id, the check call, the answer's source, and what the single printed line must contain.
    # Right answers: expect "✓ correct". Wrong answers: expect the hint text (the line must start with "✗").
    # --- init_weights ---
    (
        "trunc-two-std-computed",
        "check_init_weights(init_weights)",
        """
import torch
from torch import nn

def init_weights(m):
    if not isinstance(m, nn.Linear):
        return
    std = 0.02
    torch.nn.init.trunc_normal_(m.weight, mean=0.0, std=std, a=-2 * std, b=2 * std)
    if m.bias is not None:
        with torch.no_grad():
            m.bias.zero_()
""",
        "✓ correct",
    ),
    (
        "trunc-by-rejection-under-no-grad",
        "check_init_weights(init_weights)",
        """
import torch
from torch import nn

def init_weights(module):
    if isinstance(module, nn.Linear):
        with torch.no_grad():
            w = module.weight
            w.normal_(0, 0.02)
            outside = w.abs() > 0.04
            while outside.any():
                w[outside] = torch.randn(int(outside.sum()), dtype=w.dtype) * 0.02
                outside = w.abs() > 0.04
            if module.bias is not None:
                module.bias.fill_(0.0)
""",
        "✓ correct",
    ),
    (
        "trunc-copy-from-a-fresh-tensor",
        "check_init_weights(init_weights)",
        """
import torch
from torch import nn

def init_weights(module):
    if not isinstance(module, nn.Linear):
        return
    fresh = nn.init.trunc_normal_(torch.empty_like(module.weight), std=0.02, a=-0.04, b=0.04)
    with torch.no_grad():
        module.weight.copy_(fresh)
        if module.bias is not None:
            module.bias.copy_(torch.zeros_like(module.bias))
""",
        "✓ correct",
    ),
    (
        "trunc-type-is",
        "check_init_weights(init_weights)",
        """
from torch import nn

def init_weights(module):
    if type(module) is nn.Linear:
        nn.init.trunc_normal_(module.weight, std=0.02, a=-0.04, b=0.04)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "type(module) is nn.Linear misses subclasses",
    ),
    (
        "trunc-no-bias-check",
        "check_init_weights(init_weights)",
        """
from torch import nn

def init_weights(module):
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02, a=-0.04, b=0.04)
        nn.init.zeros_(module.bias)
""",
        "bias=False",
    ),
    (
        "trunc-default-bounds-as-in-timm",
        "check_init_weights(init_weights)",
        """
from torch import nn

def init_weights(module):
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "a and b are absolute bounds",
    ),
    (
        "trunc-bounds-in-std-units",
        "check_init_weights(init_weights)",
        """
from torch import nn

def init_weights(module):
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02, a=-2.0, b=2.0)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "a and b are absolute bounds",
    ),
    (
        "trunc-clamp",
        "check_init_weights(init_weights)",
        """
import torch
from torch import nn

def init_weights(module):
    if isinstance(module, nn.Linear):
        with torch.no_grad():
            nn.init.normal_(module.weight, std=0.02).clamp_(-0.04, 0.04)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "clamping piles the tails onto the bounds",
    ),
    (
        "trunc-every-parameter-named-weight",
        "check_init_weights(init_weights)",
        """
from torch import nn

def init_weights(module):
    for name, p in module.named_parameters(recurse=False):
        if name == "weight":
            nn.init.trunc_normal_(p, std=0.02, a=-0.04, b=0.04)
        else:
            nn.init.zeros_(p)
""",
        "changed the LayerNorm",
    ),
    (
        "trunc-bias-left",
        "check_init_weights(init_weights)",
        """
from torch import nn

def init_weights(module):
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02, a=-0.04, b=0.04)
""",
        "biases should be zero",
    ),
    (
        "trunc-wrong-std",
        "check_init_weights(init_weights)",
        """
from torch import nn

def init_weights(module):
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.01, a=-0.04, b=0.04)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "a normal with std 0.02 cut at ±0.04",
    ),
    (
        "trunc-new-parameters",
        "check_init_weights(init_weights)",
        """
import torch
from torch import nn

def init_weights(module):
    if isinstance(module, nn.Linear):
        weight = torch.empty_like(module.weight)
        module.weight = nn.Parameter(nn.init.trunc_normal_(weight, std=0.02, a=-0.04, b=0.04))
        if module.bias is not None:
            module.bias = nn.Parameter(torch.zeros_like(module.bias))
""",
        "replaced 0.weight with a new tensor",
    ),
    (
        "trunc-attention-in-proj-too",
        "check_init_weights(init_weights)",
        """
from torch import nn

def init_weights(module):
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02, a=-0.04, b=0.04)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    if isinstance(module, nn.MultiheadAttention):
        nn.init.trunc_normal_(module.in_proj_weight, std=0.02, a=-0.04, b=0.04)
""",
        "belongs to no nn.Linear",
    ),
    (
        "trunc-embedding-too",
        "check_init_weights(init_weights)",
        """
from torch import nn

def init_weights(module):
    if isinstance(module, (nn.Linear, nn.Embedding)):
        nn.init.trunc_normal_(module.weight, std=0.02, a=-0.04, b=0.04)
    if isinstance(module, nn.Linear) and module.bias is not None:
        nn.init.zeros_(module.bias)
""",
        "changed the Embedding",
    ),
    (
        "trunc-fmod",
        "check_init_weights(init_weights)",
        """
import torch
from torch import nn

def init_weights(module):
    if isinstance(module, nn.Linear):
        with torch.no_grad():
            module.weight.copy_(torch.fmod(torch.randn(module.weight.shape), 2) * 0.02)
            if module.bias is not None:
                module.bias.zero_()
""",
        "fmod or wrapping folds them inward",
    ),
    (
        "trunc-generator-seeded-inside",
        "check_init_weights(init_weights)",
        """
import torch
from torch import nn

def init_weights(module):
    if isinstance(module, nn.Linear):
        g = torch.Generator().manual_seed(0)
        nn.init.trunc_normal_(module.weight, std=0.02, a=-0.04, b=0.04, generator=g)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "0.weight and 2.weight came out identical",
    ),
    (
        "trunc-bias-guard-wraps-weight",
        "check_init_weights(init_weights)",
        """
from torch import nn

def init_weights(module):
    if isinstance(module, nn.Linear) and module.bias is not None:
        nn.init.trunc_normal_(module.weight, std=0.02, a=-0.04, b=0.04)
        nn.init.zeros_(module.bias)
""",
        "does your `bias is not None` check guard the weight too?",
    ),
    (
        "trunc-data-float32",
        "check_init_weights(init_weights)",
        """
import torch
from torch import nn

def init_weights(module):
    if isinstance(module, nn.Linear):
        fresh = torch.empty(module.weight.shape)
        module.weight.data = nn.init.trunc_normal_(fresh, std=0.02, a=-0.04, b=0.04)
        if module.bias is not None:
            module.bias.data = torch.zeros(module.bias.shape)
""",
        "on nn.Linear(64, 64, dtype=torch.float64): it changed weight's requires_grad or dtype",
    ),
    # --- conv_fan_in ---
    (
        "fan-in-times-groups",
        "check_conv_fan_in(conv_fan_in)",
        """
import math

def conv_fan_in(conv):
    return conv.in_channels * conv.groups * math.prod(conv.kernel_size)
""",
        "you returned 576, expected 36: groups splits the input channels among the filters",
    ),
    (
        "fan-in-from-weight-shape",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    return conv.weight[0].numel()
""",
        "✓ correct",
    ),
    (
        "fan-in-loop-over-shape",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    out_channels, in_per_group, *window = conv.weight.shape
    fan_in = in_per_group
    for size in window:
        fan_in *= size
    return fan_in
""",
        "✓ correct",
    ),
    (
        "fan-in-private-helper",
        "check_conv_fan_in(conv_fan_in)",
        """
from torch import nn

def conv_fan_in(conv):
    return nn.init._calculate_fan_in_and_fan_out(conv.weight)[0]
""",
        "✓ correct",
    ),
    (
        "fan-in-numpy-prod",
        "check_conv_fan_in(conv_fan_in)",
        """
import numpy as np

def conv_fan_in(conv):
    return (conv.in_channels // conv.groups) * np.prod(conv.kernel_size)
""",
        "✓ correct",
    ),
    (
        "fan-in-ignores-groups",
        "check_conv_fan_in(conv_fan_in)",
        """
import math

def conv_fan_in(conv):
    return conv.in_channels * math.prod(conv.kernel_size)
""",
        "divide by groups",
    ),
    (
        "fan-in-channels-only",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    return conv.in_channels // conv.groups
""",
        "the kernel's window counts too",
    ),
    (
        "fan-in-is-fan-out",
        "check_conv_fan_in(conv_fan_in)",
        """
import math

def conv_fan_in(conv):
    return conv.out_channels * math.prod(conv.kernel_size)
""",
        "that is the fan-out",
    ),
    (
        "fan-in-square-kernel",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    k = conv.kernel_size[0]
    return conv.in_channels // conv.groups * k * k
""",
        "the kernel need not be square",
    ),
    (
        "fan-in-2d-only",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    height, width = conv.kernel_size
    return conv.in_channels // conv.groups * height * width
""",
        "one entry per spatial dimension",
    ),
    (
        # Issue 20 called this "ignoring dilation"; torch's fan-in is 27 for Conv2d(3, 8, 3, dilation=2)
        # (nn.init._calculate_fan_in_and_fan_out), so it is counting the dilated span that is wrong.
        "fan-in-dilated-span",
        "check_conv_fan_in(conv_fan_in)",
        """
import math

def conv_fan_in(conv):
    span = [d * (k - 1) + 1 for k, d in zip(conv.kernel_size, conv.dilation)]
    return conv.in_channels // conv.groups * math.prod(span)
""",
        "you returned 75, expected 27: dilation spreads the same weights",
    ),
    (
        "fan-in-counts-padding",
        "check_conv_fan_in(conv_fan_in)",
        """
import math

def conv_fan_in(conv):
    window = [k + 2 * p for k, p in zip(conv.kernel_size, conv.padding)]
    return conv.in_channels // conv.groups * math.prod(window)
""",
        "padding changes the input, not the kernel",
    ),
    (
        "fan-in-whole-weight",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    return conv.weight.numel()
""",
        "the size of one filter",
    ),
    (
        "fan-in-true-division",
        "check_conv_fan_in(conv_fan_in)",
        """
import math

def conv_fan_in(conv):
    return conv.in_channels / conv.groups * math.prod(conv.kernel_size)
""",
        "return an int",
    ),
    (
        "fan-in-plus-bias",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    return conv.weight[0].numel() + 1
""",
        "the bias is added, not weighted",
    ),
    # --- reseed_linear_ ---
    (
        "reseed-uniform-by-hand",
        "check_reseed_linear_(reseed_linear_)",
        """
import torch

def reseed_linear_(layer, seed):
    g = torch.Generator()
    g.manual_seed(seed)
    bound = layer.in_features ** -0.5
    with torch.no_grad():
        for p in (layer.weight, layer.bias):
            if p is not None:
                p.copy_(torch.rand(p.shape, generator=g) * 2 * bound - bound)
""",
        "✓ correct",
    ),
    (
        "reseed-in-place-uniform-methods",
        "check_reseed_linear_(reseed_linear_)",
        """
import math
import torch

def reseed_linear_(layer, seed):
    generator = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(layer.weight.shape[1])
    with torch.no_grad():
        layer.weight.uniform_(-bound, bound, generator=generator)
        if layer.bias is not None:
            layer.bias.uniform_(-bound, bound, generator=generator)
""",
        "✓ correct",
    ),
    (
        "reseed-loop-over-parameters",
        "check_reseed_linear_(reseed_linear_)",
        """
import torch
from torch import nn

def reseed_linear_(layer, seed):
    g = torch.Generator().manual_seed(seed)
    bound = layer.in_features ** -0.5
    for param in layer.parameters():
        nn.init.uniform_(param, -bound, bound, generator=g)
""",
        "✓ correct",
    ),
    (
        "reseed-global-manual-seed",
        "check_reseed_linear_(reseed_linear_)",
        """
import torch

def reseed_linear_(layer, seed):
    torch.manual_seed(seed)
    layer.reset_parameters()
""",
        "it called torch.manual_seed",
    ),
    (
        # Issue 20: fork_rng(devices=[]) restores the CPU generator only; manual_seed also reseeds CUDA's.
        "reseed-fork-rng-no-devices",
        "check_reseed_linear_(reseed_linear_)",
        """
import torch

def reseed_linear_(layer, seed):
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        layer.reset_parameters()
""",
        "reseeds every device's generator (MPS, XPU too)",
    ),
    (
        # Review rev2: the default fork_rng() restores CUDA too, but not MPS or XPU, which manual_seed reseeds.
        "reseed-fork-rng-default",
        "check_reseed_linear_(reseed_linear_)",
        """
import torch

def reseed_linear_(layer, seed):
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        layer.reset_parameters()
""",
        "fork_rng restores only the CPU and one device type",
    ),
    (
        "reseed-default-generator-reseeded",
        "check_reseed_linear_(reseed_linear_)",
        """
import torch

def reseed_linear_(layer, seed):
    torch.random.default_generator.manual_seed(seed)
    layer.reset_parameters()
""",
        "it reseeded the global generator (default_generator.manual_seed)",
    ),
    (
        "reseed-second-generator-same-seed",
        "check_reseed_linear_(reseed_linear_)",
        """
import math
import torch
from torch import nn

def reseed_linear_(layer, seed):
    bound = 1 / math.sqrt(layer.in_features)
    nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5), generator=torch.Generator().manual_seed(seed))
    if layer.bias is not None:
        nn.init.uniform_(layer.bias, -bound, bound, generator=torch.Generator().manual_seed(seed))
""",
        "the bias repeats the weight's first values",
    ),
    (
        "reseed-xavier",
        "check_reseed_linear_(reseed_linear_)",
        """
import math
import torch
from torch import nn

def reseed_linear_(layer, seed):
    generator = torch.Generator().manual_seed(seed)
    nn.init.xavier_uniform_(layer.weight, generator=generator)
    if layer.bias is not None:
        bound = 1 / math.sqrt(layer.in_features)
        nn.init.uniform_(layer.bias, -bound, bound, generator=generator)
""",
        "on nn.Linear(256, 128): the weights reach 0.1250, beyond 1/sqrt(in_features)",
    ),
    (
        "reseed-data-float32",
        "check_reseed_linear_(reseed_linear_)",
        """
import math
import torch

def reseed_linear_(layer, seed):
    g = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(layer.in_features)
    layer.weight.data = torch.empty(layer.weight.shape).uniform_(-bound, bound, generator=g)
    if layer.bias is not None:
        layer.bias.data = torch.empty(layer.bias.shape).uniform_(-bound, bound, generator=g)
""",
        "on nn.Linear(64, 64, dtype=torch.float64): it changed weight's requires_grad or dtype",
    ),
    (
        "reseed-generator-not-passed",
        "check_reseed_linear_(reseed_linear_)",
        """
import math
import torch
from torch import nn

def reseed_linear_(layer, seed):
    generator = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(layer.in_features)
    nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5))
    if layer.bias is not None:
        nn.init.uniform_(layer.bias, -bound, bound)
""",
        "changed the global random number generator",
    ),
    (
        "reseed-kaiming-default-a",
        "check_reseed_linear_(reseed_linear_)",
        """
import math
import torch
from torch import nn

def reseed_linear_(layer, seed):
    generator = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(layer.in_features)
    nn.init.kaiming_uniform_(layer.weight, generator=generator)
    if layer.bias is not None:
        nn.init.uniform_(layer.bias, -bound, bound, generator=generator)
""",
        "kaiming_uniform_'s default a=0",
    ),
    (
        "reseed-uniform-default-range",
        "check_reseed_linear_(reseed_linear_)",
        """
import torch
from torch import nn

def reseed_linear_(layer, seed):
    generator = torch.Generator().manual_seed(seed)
    for param in layer.parameters():
        nn.init.uniform_(param, generator=generator)
""",
        "uniform_'s default range is [0, 1)",
    ),
    (
        "reseed-weight-only",
        "check_reseed_linear_(reseed_linear_)",
        """
import math
import torch
from torch import nn

def reseed_linear_(layer, seed):
    generator = torch.Generator().manual_seed(seed)
    nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5), generator=generator)
""",
        "left the bias as it was",
    ),
    (
        "reseed-bias-zero",
        "check_reseed_linear_(reseed_linear_)",
        """
import math
import torch
from torch import nn

def reseed_linear_(layer, seed):
    generator = torch.Generator().manual_seed(seed)
    nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5), generator=generator)
    if layer.bias is not None:
        nn.init.zeros_(layer.bias)
""",
        "the bias should be drawn from",
    ),
    (
        "reseed-bias-bound-from-out-features",
        "check_reseed_linear_(reseed_linear_)",
        """
import math
import torch
from torch import nn

def reseed_linear_(layer, seed):
    generator = torch.Generator().manual_seed(seed)
    nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5), generator=generator)
    if layer.bias is not None:
        bound = 1 / math.sqrt(layer.out_features)
        nn.init.uniform_(layer.bias, -bound, bound, generator=generator)
""",
        "with the weight's fan-in",
    ),
    (
        # The chapter's reference before issue 20: it crashed on a bias=False layer.
        "reseed-bias-false-crashes",
        "check_reseed_linear_(reseed_linear_)",
        """
import math
import torch
from torch import nn

def reseed_linear_(layer, seed):
    generator = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(layer.in_features)
    nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5), generator=generator)
    nn.init.uniform_(layer.bias, -bound, bound, generator=generator)
""",
        "skip the bias when it is None",
    ),
    (
        "reseed-new-parameters",
        "check_reseed_linear_(reseed_linear_)",
        """
import math
import torch
from torch import nn

def reseed_linear_(layer, seed):
    generator = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(layer.in_features)
    weight = torch.rand(layer.weight.shape, generator=generator) * 2 * bound - bound
    layer.weight = nn.Parameter(weight)
    if layer.bias is not None:
        bias = torch.rand(layer.bias.shape, generator=generator) * 2 * bound - bound
        layer.bias = nn.Parameter(bias)
""",
        "replaced weight with a new tensor",
    ),
    (
        "reseed-ignores-seed",
        "check_reseed_linear_(reseed_linear_)",
        """
import math
import torch
from torch import nn

def reseed_linear_(layer, seed):
    generator = torch.Generator().manual_seed(0)
    bound = 1 / math.sqrt(layer.in_features)
    nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5), generator=generator)
    if layer.bias is not None:
        nn.init.uniform_(layer.bias, -bound, bound, generator=generator)
""",
        "seeds 7 and 8 gave the same numbers",
    ),
    (
        "reseed-generator-made-once",
        "check_reseed_linear_(reseed_linear_)",
        """
import math
import torch
from torch import nn

_generator = torch.Generator()

def reseed_linear_(layer, seed):
    if _generator.initial_seed() != seed:
        _generator.manual_seed(seed)
    bound = 1 / math.sqrt(layer.in_features)
    nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5), generator=_generator)
    if layer.bias is not None:
        nn.init.uniform_(layer.bias, -bound, bound, generator=_generator)
""",
        "the same seed gave different numbers",
    ),
    # --- init_weights: more answers written differently, and more mistakes readers make ---
    (
        "trunc-positional-and-data-zero",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, 0.0, 0.02, -0.04, 0.04)
        if module.bias is not None:
            module.bias.data.zero_()
""",
        "✓ correct",
    ),
    (
        "trunc-every-linear-below",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    for m in module.modules():
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02, a=-2 * 0.02, b=2 * 0.02)
            if m.bias is not None:
                nn.init.constant_(m.bias, 0.0)
""",
        "✓ correct",
    ),
    (
        "trunc-float32-draw-then-copy",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    if not isinstance(module, nn.Linear):
        return
    draw = torch.empty(module.weight.shape)
    nn.init.trunc_normal_(draw, std=0.02, a=-0.04, b=0.04)
    with torch.no_grad():
        module.weight.copy_(draw)
        if module.bias is not None:
            module.bias.zero_()
""",
        "✓ correct",
    ),
    (
        "trunc-where-loop",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    if isinstance(module, nn.Linear):
        with torch.no_grad():
            w = torch.randn(module.weight.shape, dtype=torch.float64) * 0.02
            while True:
                outside = w.abs() > 0.04
                if not outside.any():
                    break
                w = torch.where(outside, torch.randn_like(w) * 0.02, w)
            module.weight.copy_(w)
            if module.bias is not None:
                module.bias.zero_()
""",
        "✓ correct",
    ),
    (
        "trunc-reference-itself",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02, a=-0.04, b=0.04)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "✓ correct",
    ),
    (
        "trunc-plain-normal",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, std=0.02)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "trunc_normal_'s a and b are absolute bounds",
    ),
    (
        "trunc-seeded-inside",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    if isinstance(module, nn.Linear):
        torch.manual_seed(0)
        nn.init.trunc_normal_(module.weight, std=0.02, a=-0.04, b=0.04)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "came out identical",
    ),
    (
        "trunc-data-assigned-float32",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    if isinstance(module, nn.Linear):
        module.weight.data = nn.init.trunc_normal_(torch.empty(module.weight.shape), std=0.02, a=-0.04, b=0.04)
        if module.bias is not None:
            module.bias.data = torch.zeros(module.bias.shape)
""",
        "changed weight's requires_grad or dtype",
    ),
    (
        "trunc-skips-frozen",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    if isinstance(module, nn.Linear) and module.weight.requires_grad:
        nn.init.trunc_normal_(module.weight, std=0.02, a=-0.04, b=0.04)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "a frozen layer is initialized too",
    ),
    (
        "trunc-grad-mode-off",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    torch.set_grad_enabled(False)
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02, a=-0.04, b=0.04)
        if module.bias is not None:
            module.bias.zero_()
""",
        "grad mode",
    ),
    (
        "trunc-one-std-bounds",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02, a=-0.02, b=0.02)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "a normal with std 0.02 cut at ±0.04",
    ),
    (
        "trunc-every-matrix-named-weight",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    weight = getattr(module, "weight", None)
    if isinstance(weight, torch.Tensor) and weight.dim() == 2:
        nn.init.trunc_normal_(weight, std=0.02, a=-0.04, b=0.04)
        bias = getattr(module, "bias", None)
        if isinstance(bias, torch.Tensor):
            nn.init.zeros_(bias)
""",
        "initialize nn.Linear layers only",
    ),
    (
        "trunc-bias-drawn-too",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    if isinstance(module, nn.Linear):
        for p in module.parameters(recurse=False):
            nn.init.trunc_normal_(p, std=0.02, a=-0.04, b=0.04)
""",
        "the biases should be zero",
    ),
    (
        "trunc-module-level-generator",
        "check_init_weights(init_weights)",
        """
_generator = torch.Generator().manual_seed(0)

def init_weights(module):
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02, a=-0.04, b=0.04, generator=_generator)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "the same torch.manual_seed gave different weights",
    ),
    (
        "trunc-clamp-in-place",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    if isinstance(module, nn.Linear):
        with torch.no_grad():
            module.weight.normal_(0, 0.02).clamp_(-0.04, 0.04)
            if module.bias is not None:
                module.bias.zero_()
""",
        "clamping piles the tails onto the bounds",
    ),
    (
        "trunc-puts-eval",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    module.eval()
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02, a=-0.04, b=0.04)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "changed train()/eval() mode",
    ),
    (
        "trunc-default-dtype-leak",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    torch.set_default_dtype(torch.float64)
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02, a=-0.04, b=0.04)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
""",
        "default dtype",
    ),
    # --- conv_fan_in: more answers written differently, and more mistakes readers make ---
    (
        "fan-in-shape-numel",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    return conv.weight.shape[1:].numel()
""",
        "✓ correct",
    ),
    (
        "fan-in-numel-per-filter",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    return conv.weight.numel() // conv.out_channels
""",
        "✓ correct",
    ),
    (
        "fan-in-torch-helper",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    fan_in, _ = nn.init._calculate_fan_in_and_fan_out(conv.weight)
    return fan_in
""",
        "✓ correct",
    ),
    (
        "fan-in-reduce",
        "check_conv_fan_in(conv_fan_in)",
        """
import functools
import operator

def conv_fan_in(conv):
    return functools.reduce(operator.mul, conv.kernel_size, conv.in_channels // conv.groups)
""",
        "✓ correct",
    ),
    (
        "fan-in-reference-itself",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    return conv.in_channels // conv.groups * math.prod(conv.kernel_size)
""",
        "✓ correct",
    ),
    (
        "fan-in-three-sizes",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    w = conv.weight
    return w.size(1) * w.size(2) * w.size(3)
""",
        "kernel_size has one entry per spatial dimension",
    ),
    (
        "fan-in-first-and-last-kernel",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    return conv.in_channels * conv.kernel_size[0] * conv.kernel_size[-1]
""",
        "✗ for",
    ),
    (
        "fan-in-nonzero-entries",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    return int((conv.weight[0] != 0).sum())
""",
        "✗ for a zero-initialized Conv2d(4, 4, 3) you returned 0, expected 36",
    ),
    (
        "fan-in-tensor-prod",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    return torch.tensor(conv.weight.shape[1:]).prod()
""",
        "return an int",
    ),
    (
        "fan-in-true-division-math-prod",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    return conv.in_channels / conv.groups * math.prod(conv.kernel_size)
""",
        "return an int (use // to divide)",
    ),
    (
        "fan-in-probe-layer",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    probe = type(conv)(conv.in_channels, conv.out_channels, conv.kernel_size, groups=conv.groups)
    return probe.weight[0].numel()
""",
        "torch RNG",
    ),
    (
        "fan-in-default-dtype-leak",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    torch.set_default_dtype(conv.weight.dtype)
    return conv.weight[0].numel()
""",
        "default dtype",
    ),
    (
        "fan-in-out-per-group",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    return conv.out_channels // conv.groups * math.prod(conv.kernel_size)
""",
        "that is the fan-out",
    ),
    (
        "fan-in-eval-first",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    conv.eval()
    return conv.weight[0].numel()
""",
        "changed train()/eval() mode",
    ),
    # --- reseed_linear_: more answers written differently, and more mistakes readers make ---
    (
        "reseed-device-generator-uniform",
        "check_reseed_linear_(reseed_linear_)",
        """
def reseed_linear_(layer, seed):
    g = torch.Generator(device=layer.weight.device).manual_seed(seed)
    bound = layer.in_features ** -0.5
    with torch.no_grad():
        layer.weight.uniform_(-bound, bound, generator=g)
        if layer.bias is not None:
            layer.bias.uniform_(-bound, bound, generator=g)
""",
        "✓ correct",
    ),
    (
        "reseed-rand-then-copy",
        "check_reseed_linear_(reseed_linear_)",
        """
def reseed_linear_(layer, seed):
    g = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(layer.weight.shape[1])
    with torch.no_grad():
        for p in (layer.weight, layer.bias):
            if p is None:
                continue
            fresh = torch.rand(p.shape, generator=g) * 2 * bound - bound
            p.copy_(fresh)
""",
        "✓ correct",
    ),
    (
        "reseed-init-helpers-fan-in",
        "check_reseed_linear_(reseed_linear_)",
        """
def reseed_linear_(layer, seed):
    g = torch.Generator().manual_seed(seed)
    fan_in, _ = nn.init._calculate_fan_in_and_fan_out(layer.weight)
    bound = 1 / math.sqrt(fan_in)
    nn.init.uniform_(layer.weight, -bound, bound, generator=g)
    if layer.bias is not None:
        nn.init.uniform_(layer.bias, -bound, bound, generator=g)
""",
        "✓ correct",
    ),
    (
        "reseed-reference-itself",
        "check_reseed_linear_(reseed_linear_)",
        """
def reseed_linear_(layer, seed):
    generator = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(layer.in_features)
    nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5), generator=generator)
    if layer.bias is not None:
        nn.init.uniform_(layer.bias, -bound, bound, generator=generator)
""",
        "✓ correct",
    ),
    (
        "reseed-bound-without-sqrt",
        "check_reseed_linear_(reseed_linear_)",
        """
def reseed_linear_(layer, seed):
    g = torch.Generator().manual_seed(seed)
    bound = 1 / layer.in_features
    nn.init.uniform_(layer.weight, -bound, bound, generator=g)
    if layer.bias is not None:
        nn.init.uniform_(layer.bias, -bound, bound, generator=g)
""",
        "evenly",
    ),
    (
        "reseed-normal-not-uniform",
        "check_reseed_linear_(reseed_linear_)",
        """
def reseed_linear_(layer, seed):
    g = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(layer.in_features)
    nn.init.normal_(layer.weight, std=bound, generator=g)
    if layer.bias is not None:
        nn.init.normal_(layer.bias, std=bound, generator=g)
""",
        "beyond 1/sqrt(in_features)",
    ),
    (
        "reseed-new-parameter",
        "check_reseed_linear_(reseed_linear_)",
        """
def reseed_linear_(layer, seed):
    g = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(layer.in_features)
    w = torch.empty_like(layer.weight).uniform_(-bound, bound, generator=g)
    layer.weight = nn.Parameter(w)
    if layer.bias is not None:
        layer.bias = nn.Parameter(torch.empty_like(layer.bias).uniform_(-bound, bound, generator=g))
""",
        "replaced weight with a new tensor",
    ),
    (
        "reseed-skips-frozen",
        "check_reseed_linear_(reseed_linear_)",
        """
def reseed_linear_(layer, seed):
    if not layer.weight.requires_grad:
        return
    generator = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(layer.in_features)
    nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5), generator=generator)
    if layer.bias is not None:
        nn.init.uniform_(layer.bias, -bound, bound, generator=generator)
""",
        "the weight is unchanged",
    ),
    (
        "reseed-unfreezes",
        "check_reseed_linear_(reseed_linear_)",
        """
def reseed_linear_(layer, seed):
    generator = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(layer.in_features)
    nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5), generator=generator)
    if layer.bias is not None:
        nn.init.uniform_(layer.bias, -bound, bound, generator=generator)
    layer.requires_grad_(True)
""",
        "changed weight's requires_grad or dtype",
    ),
    (
        "reseed-grad-mode-leak",
        "check_reseed_linear_(reseed_linear_)",
        """
def reseed_linear_(layer, seed):
    torch.set_grad_enabled(False)
    generator = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(layer.in_features)
    layer.weight.uniform_(-bound, bound, generator=generator)
    if layer.bias is not None:
        layer.bias.uniform_(-bound, bound, generator=generator)
""",
        "grad mode",
    ),
    (
        "reseed-bias-guard-wraps-weight",
        "check_reseed_linear_(reseed_linear_)",
        """
def reseed_linear_(layer, seed):
    generator = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(layer.in_features)
    if layer.bias is not None:
        nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5), generator=generator)
        nn.init.uniform_(layer.bias, -bound, bound, generator=generator)
""",
        "the weight is unchanged",
    ),
    (
        "reseed-adds-to-old-weights",
        "check_reseed_linear_(reseed_linear_)",
        """
def reseed_linear_(layer, seed):
    generator = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(layer.in_features)
    with torch.no_grad():
        layer.weight.mul_(0.5).add_(torch.rand(layer.weight.shape, generator=generator, dtype=layer.weight.dtype) * bound - bound / 2)
        if layer.bias is not None:
            layer.bias.uniform_(-bound, bound, generator=generator)
""",
        "✗",
    ),
    (
        "reseed-hashes-seed-into-global",
        "check_reseed_linear_(reseed_linear_)",
        """
def reseed_linear_(layer, seed):
    state = torch.get_rng_state()
    torch.default_generator.manual_seed(seed)
    layer.reset_parameters()
    torch.set_rng_state(state)
""",
        "✓ correct",
    ),
    # --- init_weights: more answers written differently, and more mistakes readers make ---
    (
        "trunc-inverse-cdf",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    if isinstance(module, nn.Linear):
        with torch.no_grad():
            std = 0.02
            low, high = [0.5 * (1 + math.erf(v / math.sqrt(2))) for v in (-2.0, 2.0)]
            u = torch.empty(module.weight.shape, dtype=torch.float64).uniform_(2 * low - 1, 2 * high - 1)
            module.weight.copy_(torch.erfinv(u) * std * math.sqrt(2))
            if module.bias is not None:
                module.bias.zero_()
""",
        "✓ correct",
    ),
    (
        "trunc-inverse-cdf-in-dtype",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    if isinstance(module, nn.Linear):
        with torch.no_grad():
            w = module.weight
            low, high = [0.5 * (1 + math.erf(v / math.sqrt(2))) for v in (-2.0, 2.0)]
            w.uniform_(2 * low - 1, 2 * high - 1)
            w.erfinv_()
            w.mul_(0.02 * math.sqrt(2))
            w.clamp_(-0.04, 0.04)
            if module.bias is not None:
                module.bias.zero_()
""",
        "✓ correct",
    ),
    # --- init_weights: more answers written differently, and more mistakes readers make ---
    (
        "trunc-redraw-whole-tensor",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    if isinstance(module, nn.Linear):
        with torch.no_grad():
            module.weight.normal_(0, 0.02)
            while (module.weight.abs() > 0.04).any():
                module.weight.normal_(0, 0.02)
            if module.bias is not None:
                module.bias.zero_()
""",
        "did not return within",
    ),
    # --- init_weights: more answers written differently, and more mistakes readers make ---
    (
        "i-classname",
        "check_init_weights(init_weights)",
        """
def init_weights(m):
    if isinstance(m, torch.nn.modules.linear.Linear):
        torch.nn.init.trunc_normal_(m.weight.data, mean=0.0, std=0.02, a=-0.04, b=0.04)
        if getattr(m, "bias", None) is not None:
            m.bias.data.fill_(0.0)
""",
        "✓ correct",
    ),
    (
        "i-parameters-loop",
        "check_init_weights(init_weights)",
        """
def init_weights(module):
    if isinstance(module, nn.Linear):
        for name, param in module.named_parameters(recurse=False):
            if name == "weight":
                nn.init.trunc_normal_(param, std=0.02, a=-0.04, b=0.04)
            else:
                nn.init.zeros_(param)
""",
        "✓ correct",
    ),
    # --- conv_fan_in: more answers written differently, and more mistakes readers make ---
    (
        "k-shape",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    out_channels, in_per_group, *kernel = conv.weight.shape
    fan = in_per_group
    for k in kernel:
        fan *= k
    return fan
""",
        "✓ correct",
    ),
    (
        "k-correct-fan",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    return nn.init._calculate_correct_fan(conv.weight, "fan_in")
""",
        "✓ correct",
    ),
    (
        "k-int-tensor-prod",
        "check_conv_fan_in(conv_fan_in)",
        """
def conv_fan_in(conv):
    return int(torch.tensor(conv.weight.shape[1:]).prod())
""",
        "✓ correct",
    ),
    # --- reseed_linear_: more answers written differently, and more mistakes readers make ---
    (
        "r-two-calls-one-gen",
        "check_reseed_linear_(reseed_linear_)",
        """
def reseed_linear_(layer, seed):
    gen = torch.Generator()
    gen.manual_seed(seed)
    fan_in = layer.weight.size(1)
    bound = 1.0 / math.sqrt(fan_in)
    with torch.no_grad():
        layer.weight.copy_(torch.empty_like(layer.weight, dtype=torch.float32).uniform_(-bound, bound, generator=gen))
        if layer.bias is not None:
            layer.bias.copy_(torch.empty_like(layer.bias, dtype=torch.float32).uniform_(-bound, bound, generator=gen))
""",
        "✓ correct",
    ),
    (
        "r-kaiming-both-init-helpers",
        "check_reseed_linear_(reseed_linear_)",
        """
def reseed_linear_(layer: nn.Linear, seed: int) -> None:
    g = torch.Generator(device="cpu")
    g.manual_seed(seed)
    torch.nn.init.kaiming_uniform_(layer.weight, a=5 ** 0.5, generator=g)
    if layer.bias is not None:
        fan_in, _ = torch.nn.init._calculate_fan_in_and_fan_out(layer.weight)
        bound = 1 / fan_in ** 0.5 if fan_in > 0 else 0
        torch.nn.init.uniform_(layer.bias, -bound, bound, generator=g)
""",
        "✓ correct",
    ),
]
