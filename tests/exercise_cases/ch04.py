"""Answers that tests/test_exercises.py runs through chapter 04's checkers."""

NOTEBOOK = "04_custom_layers"
CASES = [
    # id, the check call, the answer's source, and what the single printed line must contain.
    # Right answers: expect "✓ correct". Wrong answers: expect the hint text (the line must start with "✗").
    # --- Affine
    (
        "affine-plain-none",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features)) if bias else None

    def forward(self, X):
        return X * self.weight + (0 if self.bias is None else self.bias)
""",
        "✓ correct",
    ),
    (
        "affine-addcmul",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, n, bias=True):
        super().__init__()
        self.register_parameter("weight", nn.Parameter(torch.ones(n)))
        self.register_parameter("bias", nn.Parameter(torch.zeros(n)) if bias else None)

    def forward(self, inputs):
        if self.bias is None:
            return inputs * self.weight
        return torch.addcmul(self.bias, inputs, self.weight)
""",
        "✓ correct",
    ),
    (
        "affine-data-in-forward",
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
        out = X * self.weight.data
        return out if self.bias is None else out + self.bias.data
""",
        "`.data` or `.detach()` in forward",
    ),
    (
        "affine-frozen-zero-bias",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features), requires_grad=bias)

    def forward(self, X):
        return X * self.weight + self.bias
""",
        "still has a bias parameter",
    ),
    (
        "affine-plain-tensor-bias",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_features))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features))
        else:
            self.bias = torch.zeros(num_features)

    def forward(self, X):
        return X * self.weight + self.bias
""",
        "not None: register None",
    ),
    (
        "affine-no-bias-attribute",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True):
        super().__init__()
        self.use_bias = bias
        self.weight = nn.Parameter(torch.ones(num_features))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features))

    def forward(self, X):
        return X * self.weight + self.bias if self.use_bias else X * self.weight
""",
        "has no attribute bias",
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
        "each followed by a ReLU",
    ),
    # --- make_positive
    (
        "positive-softplus",
        "check_make_positive(make_positive)",
        """
def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", nn.Softplus())
    return layer
""",
        "✓ correct",
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
""",
        "✓ correct",
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
        "positive-clamp",
        "check_make_positive(make_positive)",
        """
class Clamp(nn.Module):
    def forward(self, X):
        return X.clamp(min=0)


def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", Clamp())
    return layer
""",
        "exactly 0",
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
        "no gradient reached",
    ),
]
