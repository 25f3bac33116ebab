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
        "count-state-dict-tied-twice",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return sum(t.numel() for t in model.state_dict().values())
""",
        "tied weight twice",
    ),
    (
        "count-remove-duplicate-false",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return sum(p.numel() for _, p in model.named_parameters(remove_duplicate=False))
""",
        "tied weight twice",
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
        "skips frozen parameters",
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
        "freeze-eval",
        "check_freeze(freeze)",
        """
def freeze(module):
    module.eval()
""",
        "eval() switches dropout and batch norm",
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
        "detach() makes a new tensor",
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
        "still require grad",
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
        "snapshot-alias",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return model.state_dict()
""",
        "share memory with the live model",
    ),
    (
        "snapshot-shallow-dict-copy",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return dict(model.state_dict())
""",
        "share memory with the live model",
    ),
    (
        "snapshot-cpu-is-no-copy-on-cpu",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {k: v.cpu() for k, v in model.state_dict().items()}
""",
        "share memory with the live model",
    ),
    (
        "snapshot-parameters-only",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {n: p.detach().clone() for n, p in model.named_parameters()}
""",
        "misses the buffers",
    ),
    (
        "snapshot-keep-vars-clone",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {k: v.clone() for k, v in model.state_dict(keep_vars=True).items()}
""",
        "still require grad",
    ),
]
