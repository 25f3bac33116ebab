"""Answers that tests/test_exercises.py runs through chapter 04's checkers."""

NOTEBOOK = "04_custom_layers"
CASES = [
    # id, the check call, the answer's source, and what the single printed line must contain.
    # Right answers: expect "✓ correct". Wrong answers: expect the hint text (the line must start with "✗").
    # --- Affine
    (
        "affine-conditional-expression",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_features, device=device, dtype=dtype))
        self.bias = nn.Parameter(torch.zeros(num_features, device=device, dtype=dtype)) if bias else None

    def forward(self, X):
        return X * self.weight + (0 if self.bias is None else self.bias)
""",
        "✓ correct",
    ),
    (
        "affine-addcmul-register",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, n, bias=True, device=None, dtype=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.register_parameter("weight", nn.Parameter(torch.ones(n, **kw)))
        self.register_parameter("bias", nn.Parameter(torch.zeros(n, **kw)) if bias else None)

    def forward(self, inputs):
        if self.bias is None:
            return inputs * self.weight
        return torch.addcmul(self.bias, inputs, self.weight)
""",
        "✓ correct",
    ),
    (
        "affine-empty-then-init",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(num_features, device=device, dtype=dtype))
        if bias:
            self.bias = nn.Parameter(torch.empty(num_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.ones_(self.weight)
        if self.bias is not None:
            nn.init.zeros_(self.bias)

    def forward(self, X):
        return X * self.weight if self.bias is None else X * self.weight + self.bias
""",
        "✓ correct",
    ),
    (
        "affine-data-in-forward",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_features, device=device, dtype=dtype))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)

    def forward(self, X):
        out = X * self.weight.data
        return out if self.bias is None else out + self.bias.data
""",
        ".data or .detach() in forward cuts the layer out of autograd",
    ),
    (
        "affine-frozen-zero-bias",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_features, device=device, dtype=dtype))
        self.bias = nn.Parameter(torch.zeros(num_features, device=device, dtype=dtype), requires_grad=bias)

    def forward(self, X):
        return X * self.weight + self.bias
""",
        "Affine(5, bias=False) registers ['weight', 'bias']; expected ['weight']",
    ),
    (
        "affine-plain-tensor-bias",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_features, device=device, dtype=dtype))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, device=device, dtype=dtype))
        else:
            self.bias = torch.zeros(num_features, device=device, dtype=dtype)

    def forward(self, X):
        return X * self.weight + self.bias
""",
        "not None; register None with self.register_parameter('bias', None)",
    ),
    (
        "affine-no-bias-attribute",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.use_bias = bias
        self.weight = nn.Parameter(torch.ones(num_features, device=device, dtype=dtype))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, device=device, dtype=dtype))

    def forward(self, X):
        return X * self.weight + self.bias if self.use_bias else X * self.weight
""",
        "has no attribute bias",
    ),
    (
        "affine-no-factory-arguments",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_features))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features))
        else:
            self.register_parameter("bias", None)

    def forward(self, X):
        out = X * self.weight
        return out if self.bias is None else out + self.bias
""",
        "take device=None, dtype=None, as nn.Linear does",
    ),
    (
        "affine-ignores-dtype",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_features, device=device))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, device=device))
        else:
            self.register_parameter("bias", None)

    def forward(self, X):
        out = X * self.weight
        return out if self.bias is None else out + self.bias
""",
        "Affine(3, dtype=torch.float64).weight is (3,) float32 on cpu; expected (3,) float64 on cpu",
    ),
    (
        "affine-ignores-device",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_features, dtype=dtype))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)

    def forward(self, X):
        out = X * self.weight
        return out if self.bias is None else out + self.bias
""",
        "Affine(4, device='meta').weight is (4,) float32 on cpu; expected (4,) float32 on meta",
    ),
    (
        "affine-matrix-weight",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.eye(num_features, device=device, dtype=dtype))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)

    def forward(self, X):
        out = X @ self.weight
        return out if self.bias is None else out + self.bias
""",
        "Affine(5).weight is (5, 5) float32 on cpu; expected (5,) float32 on cpu",
    ),
    (
        "affine-in-place-on-input",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_features, device=device, dtype=dtype))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)

    def forward(self, X):
        X *= self.weight
        return X if self.bias is None else X + self.bias
""",
        "Affine(5) changed its input in place",
    ),
    # --- Tower
    (
        "tower-sequential",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        blocks = []
        for _ in range(depth):
            blocks += [nn.Linear(width, width), nn.ReLU()]
        self.layers = nn.Sequential(*blocks)

    def forward(self, X):
        return self.layers(X)
""",
        "✓ correct",
    ),
    (
        "tower-append",
        "check_tower(Tower)",
        """
import torch.nn.functional as F


class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(depth):
            self.layers.append(nn.Linear(width, width))

    def forward(self, x):
        for i in range(len(self.layers)):
            x = F.relu(self.layers[i](x))
        return x
""",
        "✓ correct",
    ),
    (
        "tower-add-module",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleDict()
        for i in range(depth):
            self.layers[f"linear{i}"] = nn.Linear(width, width)

    def forward(self, X):
        for layer in self.layers.values():
            X = layer(X).clamp(min=0)
        return X
""",
        "✓ correct",
    ),
    (
        "tower-setattr-property",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.depth = depth
        for i in range(depth):
            setattr(self, f"layer{i}", nn.Linear(width, width))

    @property
    def layers(self):
        return [getattr(self, f"layer{i}") for i in range(self.depth)]

    def forward(self, X):
        for layer in self.layers:
            X = torch.relu(layer(X))
        return X
""",
        "✓ correct",
    ),
    (
        "tower-plain-list",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = [nn.Linear(width, width) for _ in range(depth)]

    def forward(self, X):
        for layer in self.layers:
            X = torch.relu(layer(X))
        return X
""",
        "plain Python list",
    ),
    (
        "tower-repeated-module",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(width, width)] * depth)

    def forward(self, X):
        for layer in self.layers:
            X = torch.relu(layer(X))
        return X
""",
        "share one weight",
    ),
    (
        "tower-plain-list-first-registered",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = [nn.Linear(width, width) for _ in range(depth)]
        self.register_module("first", self.layers[0])

    def forward(self, X):
        for layer in self.layers:
            X = torch.relu(layer(X))
        return X
""",
        "self.layers is a plain Python list, so parameters() misses layers",
    ),
    (
        "tower-plain-list-last-registered",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = [nn.Linear(width, width) for _ in range(depth - 1)]
        self.last = nn.Linear(width, width)

    def forward(self, X):
        for layer in self.layers:
            X = torch.relu(layer(X))
        return torch.relu(self.last(X))
""",
        "self.layers is a plain Python list",
    ),
    (
        "tower-sequential-one-layer-repeated",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        layer = nn.Linear(width, width)
        self.layers = nn.Sequential(*[layer for _ in range(depth)])

    def forward(self, X):
        for layer in self.layers:
            X = torch.relu(layer(X))
        return X
""",
        "share one weight",
    ),
    (
        "tower-no-relu",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, X):
        for layer in self.layers:
            X = layer(X)
        return X
""",
        "apply the layers in order, each followed by a ReLU",
    ),
    (
        "tower-relu-only-at-end",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, X):
        for layer in self.layers:
            X = layer(X)
        return torch.relu(X)
""",
        "Tower(4, 3): the output differs",
    ),
    (
        "tower-reversed-order",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, X):
        for layer in reversed(self.layers):
            X = torch.relu(layer(X))
        return X
""",
        "the output differs",
    ),
    (
        "tower-no-bias",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width, bias=False) for _ in range(depth))

    def forward(self, X):
        for layer in self.layers:
            X = torch.relu(layer(X))
        return X
""",
        "expected 3 nn.Linear(4, 4) layers with bias",
    ),
    (
        "tower-reinitialized",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))
        for layer in self.layers:
            nn.init.xavier_uniform_(layer.weight)

    def forward(self, X):
        for layer in self.layers:
            X = torch.relu(layer(X))
        return X
""",
        "the initial values differ",
    ),
    (
        "tower-relu-in-place-on-input",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, X):
        X.relu_()
        for layer in self.layers:
            X = torch.relu(layer(X))
        return X
""",
        "changed its input in place",
    ),
    # --- make_positive
    (
        "positive-exp-module",
        "check_make_positive(make_positive)",
        """
class Exp(nn.Module):
    def forward(self, W):
        return W.exp()


def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", Exp())
    return layer
""",
        "✓ correct",
    ),
    (
        "positive-elu-plus-one",
        "check_make_positive(make_positive)",
        """
import torch.nn.functional as F


class EluPlusOne(nn.Module):
    def forward(self, W):
        return F.elu(W) + 1


def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", EluPlusOne())
    return layer
""",
        "✓ correct",
    ),
    (
        "positive-softplus-sequential-eps",
        "check_make_positive(make_positive)",
        """
class AddEps(nn.Module):
    def forward(self, W):
        return W + 1e-4


def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", nn.Sequential(nn.Softplus(), AddEps()))
    return layer
""",
        "✓ correct",
    ),
    (
        "positive-softplus-right-inverse-keeps-start",
        "check_make_positive(make_positive)",
        """
import torch.nn.functional as F


class PositiveSoftplus(nn.Module):
    def forward(self, W):
        return F.softplus(W)

    def right_inverse(self, W):
        return W.expm1().log()


def make_positive(layer):
    with torch.no_grad():
        start = layer.weight.abs() + 1e-3
    parametrize.register_parametrization(layer, "weight", PositiveSoftplus())
    layer.weight = start
    return layer
""",
        "✓ correct",
    ),
    (
        "positive-shift-by-minimum",
        "check_make_positive(make_positive)",
        """
class ShiftUp(nn.Module):
    def forward(self, W):
        return W - W.min().detach() + 1e-3


def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", ShiftUp())
    return layer
""",
        "on nn.Linear(6, 4) with weights in [-3, 3] changing one entry of parametrizations.weight.original changed",
    ),
    (
        "positive-softmax",
        "check_make_positive(make_positive)",
        """
class Softmax(nn.Module):
    def forward(self, W):
        return W.flatten().softmax(0).view_as(W)


def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", Softmax())
    return layer
""",
        "map each entry on its own",
    ),
    (
        "positive-redraws-start",
        "check_make_positive(make_positive)",
        """
def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", nn.Softplus())
    with torch.no_grad():
        layer.parametrizations.weight.original.normal_(-3.0, 0.1)
    return layer
""",
        "make_positive drew from the global random number generator",
    ),
    (
        "positive-one-time-abs",
        "check_make_positive(make_positive)",
        """
def make_positive(layer):
    with torch.no_grad():
        layer.weight.abs_()
    return layer
""",
        "one-time change",
    ),
    (
        "positive-new-parameter",
        "check_make_positive(make_positive)",
        """
def make_positive(layer):
    layer.weight = nn.Parameter(layer.weight.detach().exp())
    return layer
""",
        "is not parametrized",
    ),
    (
        "positive-clamp-min-eps",
        "check_make_positive(make_positive)",
        """
class Clamp(nn.Module):
    def forward(self, X):
        return X.clamp(min=1e-3)


def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", Clamp())
    return layer
""",
        "on nn.Linear(6, 4) with weights in [-3, 3] 14 of 24 entries get zero gradient",
    ),
    (
        "positive-relu",
        "check_make_positive(make_positive)",
        """
def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", nn.ReLU())
    return layer
""",
        "weights are not > 0 right after make_positive",
    ),
    (
        "positive-abs-eps",
        "check_make_positive(make_positive)",
        """
class AbsPlusEps(nn.Module):
    def forward(self, X):
        return X.abs() + 1e-6


def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", AbsPlusEps())
    return layer
""",
        "on a zero-initialized nn.Linear(4, 3, bias=False) 12 of 12 entries get zero gradient",
    ),
    (
        "positive-detached",
        "check_make_positive(make_positive)",
        """
class DetachedExp(nn.Module):
    def forward(self, X):
        return X.detach().exp()


def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", DetachedExp())
    return layer
""",
        "no gradient reaches parametrizations.weight.original",
    ),
    (
        "positive-no-return",
        "check_make_positive(make_positive)",
        """
def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", nn.Softplus())
""",
        "should return the layer it was given",
    ),
    (
        "positive-log-right-inverse",
        "check_make_positive(make_positive)",
        """
class Exp(nn.Module):
    def forward(self, W):
        return W.exp()

    def right_inverse(self, W):
        return W.log()  # keep the current values


def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", Exp())
    return layer
""",
        "weights are not > 0 right after make_positive",
    ),
]
