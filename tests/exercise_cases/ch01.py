"""Answers that tests/test_exercises.py runs through chapter 1's checkers."""

NOTEBOOK = "01_parameter_management"
CASES = [
    # id, the check call, the answer's source, and what the single printed line must contain.
    # Right answers: expect "✓ correct". Wrong answers: expect the hint text (the line must start with "✗").
    # --- count_unique ---
    (
        "count-by-identity",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    seen = {}
    for _, p in model.named_parameters(remove_duplicate=False):
        seen[id(p)] = p.numel()
    return sum(seen.values())
""",
        "✓ correct",
    ),
    (
        "count-state-dict-dedup-by-pointer",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    names = {n for n, _ in model.named_parameters(remove_duplicate=False)}
    unique = {t.data_ptr(): t.numel() for n, t in model.state_dict().items() if n in names}
    return sum(unique.values())
""",
        "✓ correct",
    ),
    (
        "count-named-parameters-loop",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    total = 0
    for _, parameter in model.named_parameters():
        total += parameter.numel()
    return total
""",
        "✓ correct",
    ),
    (
        "count-set-of-parameters",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return sum(map(torch.numel, set(model.parameters())))
""",
        "✓ correct",
    ),
    (
        "count-state-dict-tied-twice",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return sum(t.numel() for t in model.state_dict().values())
""",
        "on a model that reuses one nn.Linear twice your count is 202; expected 130; you count a tied weight once per name",
    ),
    (
        "count-remove-duplicate-false",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return sum(p.numel() for _, p in model.named_parameters(remove_duplicate=False))
""",
        "you count a tied weight once per name",
    ),
    (
        "count-state-dict-dedup-includes-buffers",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return sum({t.data_ptr(): t.numel() for t in model.state_dict().values()}.values())
""",
        "includes buffers",
    ),
    (
        "count-trainable-only",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
""",
        "you skip frozen parameters",
    ),
    (
        "count-tensors-not-numbers",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return len(list(model.parameters()))
""",
        "counted tensors, not numbers",
    ),
    (
        "count-weight-bias-names-only",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    total = 0
    for name, p in model.named_parameters():
        if name.endswith("weight") or name.endswith("bias"):
            total += p.numel()
    return total
""",
        "parameters your count is 75; expected 103; you count only names ending in weight or bias",
    ),
    (
        "count-layer-types",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    layers = [m for m in model.modules() if isinstance(m, (nn.Linear, nn.Conv2d, nn.BatchNorm2d))]
    return sum(p.numel() for m in layers for p in m.parameters(recurse=False))
""",
        "on a language model whose output projection is tied to its embedding your count is",
    ),
    (
        "count-returns-tensor",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return torch.tensor([p.numel() for p in model.parameters()]).sum()
""",
        "returned an object of type Tensor; return a Python int",
    ),
    (
        "count-numpy-sum",
        "check_count_unique(count_unique)",
        """
import numpy as np


def count_unique(model):
    return np.sum([p.numel() for p in model.parameters()])
""",
        "returned an object of type int64; return a Python int",
    ),
    (
        "count-raises",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return sum(p.size for p in model.parameters())
""",
        "it raised TypeError",
    ),
    # --- freeze ---
    (
        "freeze-requires-grad-underscore",
        "check_freeze(freeze)",
        """
def freeze(module):
    module.requires_grad_(False)
""",
        "✓ correct",
    ),
    (
        "freeze-attribute-per-parameter",
        "check_freeze(freeze)",
        """
def freeze(module):
    for _, parameter in module.named_parameters():
        parameter.requires_grad = False
""",
        "✓ correct",
    ),
    (
        "freeze-module-by-module-returns-it",
        "check_freeze(freeze)",
        """
def freeze(module):
    for submodule in module.modules():
        for parameter in submodule.parameters(recurse=False):
            parameter.requires_grad_(False)
    return module
""",
        "✓ correct",
    ),
    (
        "freeze-eval",
        "check_freeze(freeze)",
        """
def freeze(module):
    module.eval()
""",
        "eval() does not stop gradients",
    ),
    (
        "freeze-and-eval",
        "check_freeze(freeze)",
        """
def freeze(module):
    module.requires_grad_(False)
    module.eval()
""",
        "freeze changed train()/eval() mode",
    ),
    (
        "freeze-module-attribute",
        "check_freeze(freeze)",
        """
def freeze(module):
    module.requires_grad = False
""",
        "only sets a plain attribute",
    ),
    (
        "freeze-detach",
        "check_freeze(freeze)",
        """
def freeze(module):
    for parameter in module.parameters():
        parameter = parameter.detach()
""",
        "left `0.weight` with requires_grad=True; expected False",
    ),
    (
        "freeze-weights-only",
        "check_freeze(freeze)",
        """
def freeze(module):
    for name, parameter in module.named_parameters():
        if name.endswith("weight"):
            parameter.requires_grad_(False)
""",
        "left `0.bias` with requires_grad=True",
    ),
    (
        "freeze-children-only",
        "check_freeze(freeze)",
        """
def freeze(module):
    for child in module.children():
        child.requires_grad_(False)
""",
        "freezing `0` of an MLP: freeze left `0.weight` with requires_grad=True",
    ),
    (
        "freeze-own-parameters-only",
        "check_freeze(freeze)",
        """
def freeze(module):
    for parameter in module.parameters(recurse=False):
        parameter.requires_grad_(False)
""",
        "freezing all of a ViT-style model",
    ),
    (
        "freeze-new-frozen-parameters",
        "check_freeze(freeze)",
        """
def freeze(module):
    for submodule in module.modules():
        for name, parameter in list(submodule.named_parameters(recurse=False)):
            setattr(submodule, name, nn.Parameter(parameter.detach(), requires_grad=False))
""",
        "is a new Parameter; the optimizer still holds the old, trainable one",
    ),
    (
        "freeze-global-grad-mode",
        "check_freeze(freeze)",
        """
import torch

def freeze(module):
    torch.set_grad_enabled(False)
""",
        "switched autograd off for the whole program",
    ),
    # --- snapshot ---
    (
        "snapshot-deepcopy",
        "check_snapshot(snapshot)",
        """
import copy

def snapshot(model):
    return copy.deepcopy(model.state_dict())
""",
        "✓ correct",
    ),
    (
        "snapshot-detach-clone-cpu",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {k: v.detach().clone().cpu() for k, v in model.state_dict().items()}
""",
        "✓ correct",
    ),
    (
        "snapshot-save-load",
        "check_snapshot(snapshot)",
        """
import io
import torch

def snapshot(model):
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=True)
""",
        "✓ correct",
    ),
    (
        "snapshot-copy-of-model",
        "check_snapshot(snapshot)",
        """
import copy

def snapshot(model):
    return copy.deepcopy(model).state_dict()
""",
        "✓ correct",
    ),
    (
        "snapshot-alias",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return model.state_dict()
""",
        "changed when training went on: it shares memory with the live model",
    ),
    (
        "snapshot-shallow-dict-copy",
        "check_snapshot(snapshot)",
        """
import copy

def snapshot(model):
    return copy.copy(model.state_dict())
""",
        "shares memory with the live model",
    ),
    (
        "snapshot-cpu-is-no-copy-on-cpu",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {k: v.cpu() for k, v in model.state_dict().items()}
""",
        "shares memory with the live model",
    ),
    (
        "snapshot-parameters-only",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {n: p.detach().clone() for n, p in model.named_parameters()}
""",
        "state_dict() lists a tied tensor under each name",
    ),
    (
        "snapshot-every-parameter-name-no-buffers",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    named = model.named_parameters(remove_duplicate=False)
    return {n: p.detach().clone() for n, p in named}
""",
        "misses the buffers ['1.num_batches_tracked', '1.running_mean', '1.running_var']",
    ),
    (
        "snapshot-parameters-and-every-buffer",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    tensors = dict(model.named_parameters(remove_duplicate=False))
    tensors.update(model.named_buffers())
    return {n: t.detach().clone() for n, t in tensors.items()}
""",
        "a non-persistent buffer that state_dict() leaves out",
    ),
    (
        "snapshot-keep-vars-clone",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {k: v.clone() for k, v in model.state_dict(keep_vars=True).items()}
""",
        "requires grad",
    ),
    (
        "snapshot-float-copies",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {k: v.float().clone() for k, v in model.state_dict().items()}
""",
        "`1.num_batches_tracked` is torch.float32",
    ),
]
