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
        m.bias.data.zero_()
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
                w[outside] = torch.randn(int(outside.sum())) * 0.02
                outside = w.abs() > 0.04
            if module.bias is not None:
                module.bias.fill_(0.0)
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
        "trunc-default-bounds",
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
        "trunc-every-parameter",
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
    # --- conv_fan_in ---
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
    # --- reseed_linear_ ---
    (
        "reseed-fork-rng-reset-parameters",
        "check_reseed_linear_(reseed_linear_)",
        """
import torch

def reseed_linear_(layer, seed):
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        layer.reset_parameters()
""",
        "✓ correct",
    ),
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
            p.copy_(torch.rand(p.shape, generator=g) * 2 * bound - bound)
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
        "changed the global random number generator",
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
    nn.init.uniform_(layer.weight, generator=generator)
    nn.init.uniform_(layer.bias, generator=generator)
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
    nn.init.zeros_(layer.bias)
""",
        "the bias should be drawn from",
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
    bias = torch.rand(layer.bias.shape, generator=generator) * 2 * bound - bound
    layer.weight = nn.Parameter(weight)
    layer.bias = nn.Parameter(bias)
""",
        "replaced the parameters instead of filling them in place",
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
    nn.init.uniform_(layer.bias, -bound, bound, generator=generator)
""",
        "seeds 7 and 8 gave the same numbers",
    ),
]
