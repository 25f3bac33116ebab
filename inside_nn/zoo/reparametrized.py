"""Reparametrized weights in small: pruning, weight_norm, spectral_norm, LoRA and orthogonal
parametrizations, in their old hook forms and their parametrize forms."""

from __future__ import annotations

import math
import warnings

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import parametrize, prune

# --------------------------------------------------------------------------------------------------
# Reparametrized weights: torch.nn.utils.prune, weight_norm and spectral_norm in their old hook
# forms and their parametrize forms, a LoRA parametrization, orthogonal.


class LeNet(nn.Module):
    """The MLP of the pruning tutorial: fc1 pruned with l1_unstructured."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def _pruned():
    model = LeNet()
    prune.l1_unstructured(model.fc1, name="weight", amount=0.3)
    return model


class Chomp1d(nn.Module):
    def __init__(self, chomp_size):
        super().__init__()
        self.chomp_size = chomp_size

    def forward(self, x):
        return x[:, :, : -self.chomp_size].contiguous()


class TemporalBlock(nn.Module):
    """locuslab/TCN: weight_norm (the old hook form) on every conv; init_weights then writes
    normal_(0, 0.01) into conv.weight, the tensor the hook recomputes before every forward."""

    def __init__(self, n_inputs, n_outputs, kernel_size, stride, dilation, padding, dropout=0.2):
        super().__init__()
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "`torch.nn.utils.weight_norm` is deprecated")
            self.conv1 = nn.utils.weight_norm(
                nn.Conv1d(
                    n_inputs,
                    n_outputs,
                    kernel_size,
                    stride=stride,
                    padding=padding,
                    dilation=dilation,
                )
            )
            self.conv2 = nn.utils.weight_norm(
                nn.Conv1d(
                    n_outputs,
                    n_outputs,
                    kernel_size,
                    stride=stride,
                    padding=padding,
                    dilation=dilation,
                )
            )
        self.chomp1 = Chomp1d(padding)
        self.relu1 = nn.ReLU()
        self.dropout1 = nn.Dropout(dropout)
        self.chomp2 = Chomp1d(padding)
        self.relu2 = nn.ReLU()
        self.dropout2 = nn.Dropout(dropout)
        self.net = nn.Sequential(
            self.conv1, self.chomp1, self.relu1, self.dropout1,
            self.conv2, self.chomp2, self.relu2, self.dropout2,
        )  # fmt: skip
        self.downsample = nn.Conv1d(n_inputs, n_outputs, 1) if n_inputs != n_outputs else None
        self.relu = nn.ReLU()
        self.init_weights()

    def init_weights(self):
        self.conv1.weight.data.normal_(0, 0.01)
        self.conv2.weight.data.normal_(0, 0.01)
        if self.downsample is not None:
            self.downsample.weight.data.normal_(0, 0.01)

    def forward(self, x):
        out = self.net(x)
        res = x if self.downsample is None else self.downsample(x)
        return self.relu(out + res)


class TemporalConvNet(nn.Module):
    def __init__(self, num_inputs=3, num_channels=(8, 8), kernel_size=2, dropout=0.2):
        super().__init__()
        layers = []
        for i, out_channels in enumerate(num_channels):
            dilation_size = 2**i
            in_channels = num_inputs if i == 0 else num_channels[i - 1]
            layers += [
                TemporalBlock(
                    in_channels,
                    out_channels,
                    kernel_size,
                    stride=1,
                    dilation=dilation_size,
                    padding=(kernel_size - 1) * dilation_size,
                    dropout=dropout,
                )
            ]
        self.network = nn.Sequential(*layers)

    def forward(self, x):
        return self.network(x)


LRELU_SLOPE = 0.1


def get_padding(kernel_size, dilation=1):
    return int((kernel_size * dilation - dilation) / 2)


def hifigan_init_weights(m, mean=0.0, std=0.01):
    if m.__class__.__name__.find("Conv") != -1:
        m.weight.data.normal_(mean, std)


class ResBlock2(nn.Module):
    """HiFi-GAN's ResBlock2 with torch.nn.utils.parametrizations.weight_norm, as newer ports write it;
    the init (normal_ on conv.weight) is applied before weight_norm, where it still takes effect."""

    def __init__(self, channels=8, kernel_size=3, dilation=(1, 3)):
        super().__init__()
        convs = []
        for d in dilation:
            conv = nn.Conv1d(
                channels,
                channels,
                kernel_size,
                1,
                dilation=d,
                padding=get_padding(kernel_size, d),
            )
            hifigan_init_weights(conv)
            convs.append(nn.utils.parametrizations.weight_norm(conv))
        self.convs = nn.ModuleList(convs)

    def forward(self, x):
        for c in self.convs:
            xt = F.leaky_relu(x, LRELU_SLOPE)
            x = c(xt) + x
        return x

    def remove_weight_norm(self):
        for c in self.convs:
            parametrize.remove_parametrizations(c, "weight")


class SNDiscriminator(nn.Module):
    """An SN-GAN discriminator with the old torch.nn.utils.spectral_norm hook form: weight_orig
    Parameter, weight_u / weight_v buffers, `weight` a plain attribute the pre-hook recomputes."""

    def __init__(self, sn=nn.utils.spectral_norm):
        super().__init__()
        self.main = nn.Sequential(
            sn(nn.Conv2d(3, 8, 4, 2, 1)),
            nn.LeakyReLU(0.1),
            sn(nn.Conv2d(8, 16, 4, 2, 1)),
            nn.LeakyReLU(0.1),
        )
        self.fc = sn(nn.Linear(16 * 4 * 4, 1))

    def forward(self, x):
        return self.fc(self.main(x).flatten(1))


class LoRAParametrization(nn.Module):
    """LoRA as a parametrization (the minLoRA / torch tutorial form): W + B @ A * scale, B zeros."""

    def __init__(self, fan_in, fan_out, rank=2, lora_alpha=1):
        super().__init__()
        self.lora_A = nn.Parameter(torch.zeros(rank, fan_in))
        self.lora_B = nn.Parameter(torch.zeros(fan_out, rank))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.scale = lora_alpha / rank

    def forward(self, original_weights):
        return original_weights + torch.matmul(self.lora_B, self.lora_A) * self.scale


class LoRAMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 10)
        for p in self.parameters():
            p.requires_grad_(False)
        for layer in (self.fc1, self.fc2):
            fan_out, fan_in = layer.weight.shape
            parametrize.register_parametrization(layer, "weight", LoRAParametrization(fan_in, fan_out))

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class OrthogonalRNNCell(nn.Module):
    """An orthogonal recurrent cell (the expRNN idea) with torch.nn.utils.parametrizations.orthogonal."""

    def __init__(self, input_size=8, hidden_size=16):
        super().__init__()
        self.input_kernel = nn.Linear(input_size, hidden_size, bias=False)
        self.recurrent_kernel = nn.utils.parametrizations.orthogonal(nn.Linear(hidden_size, hidden_size, bias=False))
        self.nonlinearity = nn.Tanh()

    def forward(self, x, hidden):
        return self.nonlinearity(self.input_kernel(x) + self.recurrent_kernel(hidden))
