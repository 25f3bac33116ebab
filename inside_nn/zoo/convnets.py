"""Convolutional networks in small: torchvision's ResNet, detectron2's FPN and the DARTS search network."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

# --------------------------------------------------------------------------------------------------
# torchvision ResNet: BasicBlock / Bottleneck with BatchNorm, the kaiming loop in __init__, and
# zero_init_residual zeroing bn2.weight / bn3.weight. Only the widths are small (inplanes 8, not 64).


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    return nn.Conv2d(
        in_planes,
        out_planes,
        kernel_size=3,
        stride=stride,
        padding=dilation,
        groups=groups,
        bias=False,
        dilation=dilation,
    )


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, norm_layer=nn.BatchNorm2d):
        super().__init__()
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, norm_layer=nn.BatchNorm2d):
        super().__init__()
        width = planes
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)


class ResNet(nn.Module):
    def __init__(
        self,
        block,
        layers,
        num_classes=10,
        zero_init_residual=False,
        widths=(8, 16, 32, 64),
    ):
        super().__init__()
        self._norm_layer = nn.BatchNorm2d
        self.inplanes = widths[0]
        self.dilation = 1
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, widths[0], layers[0])
        self.layer2 = self._make_layer(block, widths[1], layers[1], stride=2)
        self.layer3 = self._make_layer(block, widths[2], layers[2], stride=2)
        self.layer4 = self._make_layer(block, widths[3], layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(widths[3] * block.expansion, num_classes)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

        # Zero-initialize the last BN in each residual branch, so that the residual branch starts
        # with zeros, and each residual block behaves like an identity.
        if zero_init_residual:
            for m in self.modules():
                if isinstance(m, Bottleneck) and m.bn3.weight is not None:
                    nn.init.constant_(m.bn3.weight, 0)
                elif isinstance(m, BasicBlock) and m.bn2.weight is not None:
                    nn.init.constant_(m.bn2.weight, 0)

    def _make_layer(self, block, planes, blocks, stride=1):
        norm_layer = self._norm_layer
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                conv1x1(self.inplanes, planes * block.expansion, stride),
                norm_layer(planes * block.expansion),
            )
        layers = [block(self.inplanes, planes, stride, downsample, norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


# --------------------------------------------------------------------------------------------------
# detectron2 FPN: lateral and output convs registered with add_module under stage names, and also
# kept in plain Python lists (lateral_convs reversed) that forward iterates.


def c2_xavier_fill(module):
    nn.init.kaiming_uniform_(module.weight, a=1)
    if module.bias is not None:
        nn.init.constant_(module.bias, 0)


class TinyBottomUp(nn.Module):
    """Stands in for the ResNet backbone: named stages res2..res4 at strides 4, 8, 16."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, kernel_size=3, stride=4, padding=1)
        self.res3 = nn.Conv2d(8, 16, kernel_size=3, stride=2, padding=1)
        self.res4 = nn.Conv2d(16, 32, kernel_size=3, stride=2, padding=1)
        self._out_features = ["res2", "res3", "res4"]
        self._out_feature_channels = {"res2": 8, "res3": 16, "res4": 32}
        self._out_feature_strides = {"res2": 4, "res3": 8, "res4": 16}

    def forward(self, x):
        res2 = F.relu(self.stem(x))
        res3 = F.relu(self.res3(res2))
        return {"res2": res2, "res3": res3, "res4": F.relu(self.res4(res3))}


class FPN(nn.Module):
    def __init__(self, bottom_up, in_features, out_channels):
        super().__init__()
        input_shapes = bottom_up._out_feature_channels
        strides = [bottom_up._out_feature_strides[f] for f in in_features]
        in_channels_per_feature = [input_shapes[f] for f in in_features]
        lateral_convs = []
        output_convs = []
        for idx, in_channels in enumerate(in_channels_per_feature):
            lateral_conv = nn.Conv2d(in_channels, out_channels, kernel_size=1)
            output_conv = nn.Conv2d(out_channels, out_channels, kernel_size=3, stride=1, padding=1)
            c2_xavier_fill(lateral_conv)
            c2_xavier_fill(output_conv)
            stage = int(math.log2(strides[idx]))
            self.add_module(f"fpn_lateral{stage}", lateral_conv)
            self.add_module(f"fpn_output{stage}", output_conv)
            lateral_convs.append(lateral_conv)
            output_convs.append(output_conv)
        # Place convs into top-down order (from low to high resolution)
        # to make the top-down computation in forward clearer.
        self.lateral_convs = lateral_convs[::-1]
        self.output_convs = output_convs[::-1]
        self.in_features = tuple(in_features)
        self.bottom_up = bottom_up
        self._out_features = [f"p{int(math.log2(s))}" for s in strides]

    def forward(self, x):
        bottom_up_features = self.bottom_up(x)
        results = []
        prev_features = self.lateral_convs[0](bottom_up_features[self.in_features[-1]])
        results.append(self.output_convs[0](prev_features))
        for idx, (lateral_conv, output_conv) in enumerate(zip(self.lateral_convs, self.output_convs)):
            if idx > 0:
                features = bottom_up_features[self.in_features[-idx - 1]]
                top_down_features = F.interpolate(prev_features, scale_factor=2.0, mode="nearest")
                prev_features = lateral_conv(features) + top_down_features
                results.insert(0, output_conv(prev_features))
        return dict(zip(self._out_features, results))


# --------------------------------------------------------------------------------------------------
# DARTS (quark0/darts, model_search.py): architecture weights alphas_normal / alphas_reduce as plain
# tensors with requires_grad=True (Variable(...).cuda() there, the CPU here), listed in a plain
# self._arch_parameters next to the registered network weights.

PRIMITIVES = ["none", "skip_connect", "avg_pool_3x3", "conv_3x3"]


class Zero(nn.Module):
    def __init__(self, stride):
        super().__init__()
        self.stride = stride

    def forward(self, x):
        return x[:, :, :: self.stride, :: self.stride].mul(0.0)


class ReLUConvBN(nn.Module):
    def __init__(self, C_in, C_out, kernel_size, stride, padding, affine=True):
        super().__init__()
        self.op = nn.Sequential(
            nn.ReLU(inplace=False),
            nn.Conv2d(C_in, C_out, kernel_size, stride=stride, padding=padding, bias=False),
            nn.BatchNorm2d(C_out, affine=affine),
        )

    def forward(self, x):
        return self.op(x)


OPS = {
    "none": lambda C, stride, affine: Zero(stride),
    "avg_pool_3x3": lambda C, stride, affine: nn.AvgPool2d(3, stride=stride, padding=1, count_include_pad=False),
    "skip_connect": lambda C, stride, affine: (
        nn.Identity() if stride == 1 else ReLUConvBN(C, C, 1, stride, 0, affine=affine)
    ),
    "conv_3x3": lambda C, stride, affine: ReLUConvBN(C, C, 3, stride, 1, affine=affine),
}


class MixedOp(nn.Module):
    def __init__(self, C, stride):
        super().__init__()
        self._ops = nn.ModuleList()
        for primitive in PRIMITIVES:
            op = OPS[primitive](C, stride, False)
            if "pool" in primitive:
                op = nn.Sequential(op, nn.BatchNorm2d(C, affine=False))
            self._ops.append(op)

    def forward(self, x, weights):
        return sum(w * op(x) for w, op in zip(weights, self._ops))


class SearchCell(nn.Module):
    def __init__(self, steps, C, reduction):
        super().__init__()
        self.reduction = reduction
        self._steps = steps
        self._ops = nn.ModuleList()
        for i in range(self._steps):
            for j in range(1 + i):
                stride = 2 if reduction and j < 1 else 1
                self._ops.append(MixedOp(C, stride))

    def forward(self, s0, weights):
        states = [s0]
        offset = 0
        for _ in range(self._steps):
            s = sum(self._ops[offset + j](h, weights[offset + j]) for j, h in enumerate(states))
            offset += len(states)
            states.append(s)
        return torch.cat(states[-self._steps :], dim=1)


class DartsNetwork(nn.Module):
    def __init__(self, C=4, num_classes=10, steps=2):
        super().__init__()
        self._C = C
        self._num_classes = num_classes
        self._steps = steps
        self.stem = nn.Sequential(nn.Conv2d(3, C, 3, padding=1, bias=False), nn.BatchNorm2d(C))
        self.cells = nn.ModuleList(
            [
                SearchCell(steps, C, reduction=False),
                SearchCell(steps, C, reduction=True),
            ]
        )
        self.preprocess = nn.Conv2d(C * steps, C, 1, bias=False)
        self.global_pooling = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(C * steps, num_classes)
        self._initialize_alphas()

    def _initialize_alphas(self):
        k = sum(1 for i in range(self._steps) for n in range(1 + i))
        num_ops = len(PRIMITIVES)
        self.alphas_normal = (1e-3 * torch.randn(k, num_ops)).requires_grad_(True)
        self.alphas_reduce = (1e-3 * torch.randn(k, num_ops)).requires_grad_(True)
        self._arch_parameters = [self.alphas_normal, self.alphas_reduce]

    def arch_parameters(self):
        return self._arch_parameters

    def forward(self, input):
        s = self.stem(input)
        s = self.cells[0](s, F.softmax(self.alphas_normal, dim=-1))
        s = self.cells[1](self.preprocess(s), F.softmax(self.alphas_reduce, dim=-1))
        out = self.global_pooling(s)
        return self.classifier(out.view(out.size(0), -1))
