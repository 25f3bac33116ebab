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

    def reset_parameters(self):
        with torch.no_grad():
            self.weight.fill_(1.0)
            if self.bias is not None:
                self.bias.zero_()

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

    def reset_parameters(self):
        nn.init.ones_(self.weight)
        if self.bias is not None:
            nn.init.zeros_(self.bias)

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
        "the statement names the attribute",  # issue 37
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
        "the map rounds to 0 in float32",  # issue 37
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
        "make_positive changed global state that the caller owns: torch RNG",
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
    # --- affine: more answers written differently, and more mistakes readers make ---
    (
        "affine-bias-none-attribute-mul-add",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.full((num_features,), 1.0, device=device, dtype=dtype))
        self.bias = nn.Parameter(torch.zeros(num_features, device=device, dtype=dtype)) if bias else None

    def reset_parameters(self):
        with torch.no_grad():
            self.weight.fill_(1.0)
            if self.bias is not None:
                self.bias.zero_()

    def forward(self, X):
        out = X.mul(self.weight)
        return out.add(self.bias) if self.bias is not None else out
""",
        "✓ correct",
    ),
    (
        "affine-factory-kwargs-einsum",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_features = num_features
        self.weight = nn.Parameter(torch.empty(num_features, **factory_kwargs))
        if bias:
            self.bias = nn.Parameter(torch.empty(num_features, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        with torch.no_grad():
            self.weight.fill_(1.0)
            if self.bias is not None:
                self.bias.fill_(0.0)

    def forward(self, X):
        out = torch.einsum("...i,i->...i", X, self.weight)
        return out if self.bias is None else out + self.bias
""",
        "✓ correct",
    ),
    (
        "affine-ones-like-broadcast-view",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        weight = torch.ones(num_features, device=device, dtype=dtype)
        self.weight = nn.Parameter(weight)
        self.register_parameter("bias", nn.Parameter(torch.zeros_like(weight)) if bias else None)

    def reset_parameters(self):
        nn.init.ones_(self.weight)
        if self.bias is not None:
            nn.init.zeros_(self.bias)

    def forward(self, X):
        shape = (1,) * (X.dim() - 1) + (-1,)
        out = X * self.weight.view(shape)
        if self.bias is not None:
            out = out + self.bias.view(shape)
        return out
""",
        "✓ correct",
    ),
    (
        "affine-inline-init-no-reset",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.weight = nn.Parameter(torch.ones(num_features, **factory))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, **factory))
        else:
            self.register_parameter("bias", None)

    def forward(self, X):
        out = X * self.weight
        return out if self.bias is None else out + self.bias
""",
        "Affine has no reset_parameters(): after skip_init (or to_empty)",
    ),
    (
        "affine-reset-does-nothing",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.weight = nn.Parameter(torch.ones(num_features, **factory))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, **factory))
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self):
        pass  # the starting values are set in __init__

    def forward(self, X):
        out = X * self.weight
        return out if self.bias is None else out + self.bias
""",
        "reset_parameters() must set the starting values in place",
    ),
    (
        "affine-reference-itself",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.weight = nn.Parameter(torch.empty(num_features, **factory))
        if bias:
            self.bias = nn.Parameter(torch.empty(num_features, **factory))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.ones_(self.weight)
        if self.bias is not None:
            nn.init.zeros_(self.bias)

    def forward(self, X):
        out = X * self.weight
        return out if self.bias is None else out + self.bias
""",
        "✓ correct",
    ),
    (
        "affine-diagonal-matmul",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.weight = nn.Parameter(torch.ones(num_features, **factory))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, **factory))
        else:
            self.register_parameter("bias", None)

    def forward(self, X):
        out = X @ torch.diag(self.weight)
        return out if self.bias is None else out + self.bias
""",
        "each output entry depends on its own input entry only",
    ),
    (
        "affine-float32-unless-told",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype or torch.float32}
        self.weight = nn.Parameter(torch.ones(num_features, **factory))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, **factory))
        else:
            self.register_parameter("bias", None)

    def forward(self, X):
        out = X * self.weight
        return out if self.bias is None else out + self.bias
""",
        "after torch.set_default_dtype(torch.float64).weight is (4,) float32 on cpu; expected (4,) float64 on cpu",
    ),
    (
        "affine-cpu-unless-told",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        factory = {"device": device or "cpu", "dtype": dtype}
        self.weight = nn.Parameter(torch.ones(num_features, **factory))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, **factory))
        else:
            self.register_parameter("bias", None)

    def forward(self, X):
        out = X * self.weight
        return out if self.bias is None else out + self.bias
""",
        "leave None as None",
    ),
    (
        "affine-bias-dtype-forgotten",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_features, device=device, dtype=dtype))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, device=device))
        else:
            self.register_parameter("bias", None)

    def forward(self, X):
        out = X * self.weight
        return out if self.bias is None else out + self.bias
""",
        "Affine(3, dtype=torch.float64).bias is (3,) float32 on cpu; expected (3,) float64 on cpu",
    ),
    (
        "affine-parameter-then-to",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_features)).to(device=device, dtype=dtype)
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features)).to(device=device, dtype=dtype)
        else:
            self.register_parameter("bias", None)

    def forward(self, X):
        out = X * self.weight
        return out if self.bias is None else out + self.bias
""",
        "registers []",
    ),
    (
        "affine-bias-added-when-none",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.weight = nn.Parameter(torch.ones(num_features, **factory))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, **factory))
        else:
            self.register_parameter("bias", None)

    def forward(self, X):
        return X * self.weight + self.bias
""",
        "Affine(5, bias=False)'s forward: it raised TypeError",
    ),
    (
        "affine-random-draw-in-init",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.weight = nn.Parameter(torch.randn(num_features, **factory))
        nn.init.ones_(self.weight)
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, **factory))
        else:
            self.register_parameter("bias", None)

    def forward(self, X):
        out = X * self.weight
        return out if self.bias is None else out + self.bias
""",
        "torch RNG",
    ),
    (
        "affine-float32-forward",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.weight = nn.Parameter(torch.ones(num_features, **factory))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, **factory))
        else:
            self.register_parameter("bias", None)

    def forward(self, X):
        out = X.float() * self.weight.float()
        return out if self.bias is None else out + self.bias.float()
""",
        "Affine(3, dtype=torch.float64)'s output is (2, 4, 3) float32 on cpu; expected (2, 4, 3) float64 on cpu",
    ),
    (
        "affine-default-dtype-leak",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        if dtype is not None:
            torch.set_default_dtype(dtype)
        self.weight = nn.Parameter(torch.ones(num_features, device=device))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, device=device))
        else:
            self.register_parameter("bias", None)

    def forward(self, X):
        out = X * self.weight
        return out if self.bias is None else out + self.bias
""",
        "default dtype",
    ),
    (
        "affine-frozen-bias",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.weight = nn.Parameter(torch.ones(num_features, **factory))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, **factory), requires_grad=False)
        else:
            self.register_parameter("bias", None)

    def forward(self, X):
        out = X * self.weight
        return out if self.bias is None else out + self.bias
""",
        "Affine(5).bias does not require grad",
    ),
    # --- tower: more answers written differently, and more mistakes readers make ---
    (
        "tower-sequential-with-relus",
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
        "tower-module-dict-clamp",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleDict({f"linear{i}": nn.Linear(width, width) for i in range(depth)})

    def forward(self, X):
        for layer in self.layers.values():
            X = layer(X).clamp(min=0)
        return X
""",
        "✓ correct",
    ),
    (
        "tower-reduce-in-place-relu",
        "check_tower(Tower)",
        """
import functools

class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(depth):
            self.layers.append(nn.Linear(width, width))

    def forward(self, X):
        return functools.reduce(lambda h, layer: F.relu(layer(h), inplace=True), self.layers, X)
""",
        "✓ correct",
    ),
    (
        "tower-reference-itself",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, X):
        for layer in self.layers:
            X = torch.relu(layer(X))
        return X
""",
        "✓ correct",
    ),
    (
        "tower-where-relu",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, X):
        for layer in self.layers:
            X = layer(X)
            X = torch.where(X > 0, X, torch.zeros_like(X))
        return X
""",
        "the output differs on NaN and inf",
    ),
    (
        "tower-relu-before-layer",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, X):
        for layer in self.layers:
            X = layer(torch.relu(X))
        return X
""",
        "the output differs",
    ),
    (
        "tower-extra-draw",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))
        self.noise_scale = torch.rand(())

    def forward(self, X):
        for layer in self.layers:
            X = torch.relu(layer(X))
        return X
""",
        "building it drew other random numbers",
    ),
    (
        "tower-seeded-init",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        torch.manual_seed(0)
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, X):
        for layer in self.layers:
            X = torch.relu(layer(X))
        return X
""",
        "the initial values differ",
    ),
    (
        "tower-reversed-list",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        layers = [nn.Linear(width, width) for _ in range(depth)]
        self.layers = nn.ModuleList(reversed(layers))

    def forward(self, X):
        for layer in self.layers:
            X = torch.relu(layer(X))
        return X
""",
        "the initial values differ",
    ),
    (
        "tower-float32-forward",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, X):
        X = X.float()
        for layer in self.layers:
            X = torch.relu(layer.float()(X))
        return X
""",
        "✗",
    ),
    (
        "tower-grad-off-in-forward",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, X):
        torch.set_grad_enabled(False)
        for layer in self.layers:
            X = torch.relu(layer(X))
        return X
""",
        "grad mode",
    ),
    (
        "tower-threshold-relu",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, X):
        for layer in self.layers:
            X = F.threshold(layer(X), 0.0, 0.0)
        return X
""",
        "✓ correct",
    ),
    (
        "tower-deepcopies-one-layer",
        "check_tower(Tower)",
        """
import copy

class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        first = nn.Linear(width, width)
        self.layers = nn.ModuleList(copy.deepcopy(first) for _ in range(depth))

    def forward(self, X):
        for layer in self.layers:
            X = torch.relu(layer(X))
        return X
""",
        "the initial values differ",
    ),
    # --- make_positive: more answers written differently, and more mistakes readers make ---
    (
        "positive-softplus-beta-two",
        "check_make_positive(make_positive)",
        """
def make_positive(layer):
    return parametrize.register_parametrization(layer, "weight", nn.Softplus(beta=2.0))
""",
        "✓ correct",
    ),
    (
        "positive-sigmoid-module",
        "check_make_positive(make_positive)",
        """
class Sigmoid(nn.Module):
    def forward(self, W):
        return torch.sigmoid(W)

def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", Sigmoid())
    return layer
""",
        "a map that saturates",  # issue 37
    ),
    (
        "positive-log1p-exp",
        "check_make_positive(make_positive)",
        """
class SoftplusByHand(nn.Module):
    def forward(self, W):
        return torch.log1p(torch.exp(W))

def make_positive(layer):
    torch.nn.utils.parametrize.register_parametrization(layer, "weight", SoftplusByHand())
    return layer
""",
        "✓ correct",
    ),
    (
        "positive-reference-itself",
        "check_make_positive(make_positive)",
        """
def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", nn.Softplus())
    return layer
""",
        "✓ correct",
    ),
    (
        "positive-square",
        "check_make_positive(make_positive)",
        """
class Square(nn.Module):
    def forward(self, W):
        return W ** 2

def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", Square())
    return layer
""",
        "weights are not > 0 right after make_positive",
    ),
    (
        "positive-square-plus-eps",
        "check_make_positive(make_positive)",
        """
class Square(nn.Module):
    def forward(self, W):
        return W * W + 1e-3

def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", Square())
    return layer
""",
        "entries get zero gradient",
    ),
    (
        "positive-relu-plus-eps",
        "check_make_positive(make_positive)",
        """
class ReluEps(nn.Module):
    def forward(self, W):
        return F.relu(W) + 1e-3

def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", ReluEps())
    return layer
""",
        "entries get zero gradient",
    ),
    (
        "positive-exp-minus-max",
        "check_make_positive(make_positive)",
        """
class StableExp(nn.Module):
    def forward(self, W):
        return torch.exp(W - W.max())

def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", StableExp())
    return layer
""",
        "map each entry on its own",
    ),
    (
        "positive-new-weight-then-register",
        "check_make_positive(make_positive)",
        """
def make_positive(layer):
    layer.weight = nn.Parameter(layer.weight.detach().clone())
    parametrize.register_parametrization(layer, "weight", nn.Softplus())
    return layer
""",
        "parametrizations.weight.original is a new Parameter",
    ),
    (
        "positive-unfreezes",
        "check_make_positive(make_positive)",
        """
def make_positive(layer):
    layer.requires_grad_(True)
    parametrize.register_parametrization(layer, "weight", nn.Softplus())
    return layer
""",
        "the stored weight has requires_grad=True",
    ),
    (
        "positive-float32-map",
        "check_make_positive(make_positive)",
        """
class Positive(nn.Module):
    def forward(self, W):
        return F.softplus(W.float())

def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", Positive(), unsafe=True)
    return layer
""",
        "layer.weight is (2, 3) float32 on cpu; expected (2, 3) float64 on cpu",
    ),
    (
        "positive-eval",
        "check_make_positive(make_positive)",
        """
def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", nn.Softplus())
    return layer.eval()
""",
        "changed train()/eval() mode",
    ),
    (
        "positive-bias-too",
        "check_make_positive(make_positive)",
        """
def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", nn.Softplus())
    if getattr(layer, "bias", None) is not None:
        parametrize.register_parametrization(layer, "bias", nn.Softplus())
    return layer
""",
        "named_parameters() has",
    ),
    # --- affine: more answers written differently, and more mistakes readers make ---
    (
        "a-inplace-intermediate",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_features, device=device, dtype=dtype))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, device=device, dtype=dtype))
        else:
            self.bias = None

    def reset_parameters(self):
        with torch.no_grad():
            self.weight.fill_(1.0)
            if self.bias is not None:
                self.bias.zero_()

    def forward(self, X):
        out = X * self.weight
        if self.bias is not None:
            out = out + self.bias
        return out
""",
        "✓ correct",
    ),
    (
        "a-bias-buffer-none",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.weight = nn.Parameter(torch.ones(num_features, **kw))
        self.bias = nn.Parameter(torch.zeros(num_features, **kw)) if bias else None

    def reset_parameters(self):
        nn.init.ones_(self.weight)
        if self.bias is not None:
            nn.init.zeros_(self.bias)

    def extra_repr(self):
        return f"{self.weight.shape[0]}, bias={self.bias is not None}"

    def forward(self, X):
        return torch.addcmul(self.bias, X, self.weight) if self.bias is not None else X * self.weight
""",
        "✓ correct",
    ),
    # --- make_positive: more answers written differently, and more mistakes readers make ---
    (
        "p-exp-class-with-inverse",
        "check_make_positive(make_positive)",
        """
class Exp(nn.Module):
    def forward(self, X):
        return X.exp()

def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", Exp())
    return layer
""",
        "✓ correct",
    ),
    (
        "p-softplus-eps-function",
        "check_make_positive(make_positive)",
        """
import torch.nn.functional as F
class Pos(nn.Module):
    def __init__(self, eps=1e-4):
        super().__init__()
        self.eps = eps
    def forward(self, W):
        return F.softplus(W) + self.eps

def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", Pos())
    return layer
""",
        "✓ correct",
    ),
    # --- tower: more answers written differently, and more mistakes readers make ---
    (
        "tower-matmul-by-hand",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, X):
        for layer in self.layers:
            X = (X @ layer.weight.T + layer.bias).clamp_min(0)
        return X
""",
        "✓ correct",
    ),
    (
        "tower-einsum",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, X):
        for layer in self.layers:
            X = torch.relu(torch.einsum("...i,oi->...o", X, layer.weight) + layer.bias)
        return X
""",
        "✓ correct",
    ),
    (
        "tower-addmm-flat",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, X):
        shape = X.shape
        H = X.reshape(-1, shape[-1])
        for layer in self.layers:
            H = torch.addmm(layer.bias, H, layer.weight.t()).relu()
        return H.reshape(shape)
""",
        "✓ correct",
    ),
    # --- issue 37: categories the families never tried ---
    (
        "tower-named-blocks",
        "check_tower(Tower)",
        """
class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, X):
        for block in self.blocks:
            X = torch.relu(block(X))
        return X
""",
        "the statement names the attribute: keep them in self.layers",
    ),
    (
        "positive-one-plus-tanh",
        "check_make_positive(make_positive)",
        """
class OnePlusTanh(nn.Module):
    def forward(self, W):
        return 1 + torch.tanh(W)  # in (0, 2), smooth


def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", OnePlusTanh())
    return layer
""",
        "the map rounds to 0 in float32",
    ),
    (
        "positive-softplus-by-hand-log-exp",
        "check_make_positive(make_positive)",
        """
class SoftplusByHand(nn.Module):
    def forward(self, W):
        return torch.log(1 + torch.exp(W))


def make_positive(layer):
    parametrize.register_parametrization(layer, "weight", SoftplusByHand())
    return layer
""",
        "the map rounds to 0 in float32",
    ),
    # --- issue 37: a caller's default device that is not the device given (the CPU under a meta default) ---
    (
        "affine-reset-makes-tensors-on-the-default-device",
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
        with torch.no_grad():
            self.weight.copy_(torch.ones(self.weight.shape))
            if self.bias is not None:
                self.bias.copy_(torch.zeros(self.bias.shape))

    def forward(self, X):
        out = X * self.weight
        return out if self.bias is None else out + self.bias
""",
        "lands on the caller's default device (meta here), not on the device given",
    ),
    (
        "affine-cpu-taken-for-the-default",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        factory = {"dtype": dtype}
        if device is not None and torch.device(device).type != "cpu":
            factory["device"] = device  # the CPU is where tensors go anyway
        self.weight = nn.Parameter(torch.ones(num_features, **factory))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_features, **factory))
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self):
        nn.init.ones_(self.weight)
        if self.bias is not None:
            nn.init.zeros_(self.bias)

    def forward(self, X):
        out = X * self.weight
        return out if self.bias is None else out + self.bias
""",
        "weight is (4,) float32 on meta; expected (4,) float32 on cpu: a tensor made without device= lands on the caller's default device",
    ),
    (
        "affine-reset-from-the-parameters-own-device",
        "check_affine(Affine)",
        """
class Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.weight = nn.Parameter(torch.empty(num_features, **kw))
        self.bias = nn.Parameter(torch.empty(num_features, **kw)) if bias else None
        self.reset_parameters()

    def reset_parameters(self):
        with torch.no_grad():
            self.weight.copy_(torch.ones_like(self.weight))
            if self.bias is not None:
                self.bias.copy_(torch.zeros(self.bias.shape, device=self.bias.device, dtype=self.bias.dtype))

    def forward(self, X):
        return torch.addcmul(self.bias, X, self.weight) if self.bias is not None else X * self.weight
""",
        "✓ correct",
    ),
]
