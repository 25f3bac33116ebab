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
        "data_ptr() is 0 for every tensor on meta",  # issue 37: a model built on meta
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
        "parameters in bfloat16 your count is 75; expected 103; you count only names ending in weight or bias",
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
        "freeze changed global state that the caller owns: grad mode",
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
        "✗ on the zoo's `extra-state`",  # crashes on get_extra_state()'s non-tensor entry
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
        "snapshot-deepcopy-of-the-model",
        "check_snapshot(snapshot)",
        """
import copy

def snapshot(model):
    return copy.deepcopy(model).state_dict()
""",
        "copy.deepcopy fails on a model holding computed tensors (pruning",
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
        "`0.weight` is torch.float32 (5, 3); expected torch.float64 (5, 3)",
    ),
    # --- count_unique: more answers written differently, and more mistakes readers make ---
    (
        "count-dict-by-id",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    unique = {id(p): p for p in model.parameters()}
    return sum(p.numel() for p in unique.values())
""",
        "✓ correct",
    ),
    (
        "count-storage-dedup-review",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    by_storage = {p.untyped_storage().data_ptr(): p for p in model.parameters()}
    return sum(p.numel() for p in by_storage.values())
""",
        "data_ptr() is 0 for every tensor on meta",  # issue 37: a model built on meta
    ),
    (
        "count-math-prod-shapes",
        "check_count_unique(count_unique)",
        """
import math

def count_unique(model):
    return sum(math.prod(p.shape) for p in model.parameters())
""",
        "✓ correct",
    ),
    (
        "count-modules-with-seen-set",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    seen, total = set(), 0
    for module in model.modules():
        for p in module.parameters(recurse=False):
            if id(p) not in seen:
                seen.add(id(p))
                total += p.nelement()
    return total
""",
        "✓ correct",
    ),
    (
        "count-reference-itself",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return sum(p.numel() for p in model.parameters())
""",
        "✓ correct",
    ),
    (
        "count-modules-recurse-false-no-dedup",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return sum(p.numel() for m in model.modules() for p in m.parameters(recurse=False))
""",
        "your count is 268; expected 220",
    ),
    (
        "count-named-modules-remove-duplicate-false",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return sum(
        p.numel()
        for _, m in model.named_modules(remove_duplicate=False)
        for p in m.parameters(recurse=False)
    )
""",
        "your count is",
    ),
    (
        "count-dedup-by-shape",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return sum({tuple(p.shape): p.numel() for p in model.parameters()}.values())
""",
        "your count is",
    ),
    (
        "count-keep-vars-parameters",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    state = model.state_dict(keep_vars=True)
    return sum(v.numel() for v in state.values() if isinstance(v, nn.Parameter))
""",
        "you count a tied weight once per name",
    ),
    (
        "count-matrices-only",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return sum(p.numel() for p in model.parameters() if p.dim() > 1)
""",
        "your count is",
    ),
    (
        "count-switches-grad-off",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    torch.set_grad_enabled(False)
    return sum(p.numel() for p in model.parameters())
""",
        "changed global state that the caller owns: grad mode",
    ),
    (
        "count-puts-model-in-eval",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    model.eval()
    return sum(p.numel() for p in model.parameters())
""",
        "count_unique changed train()/eval() mode",
    ),
    (
        "count-unfreezes-to-count",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    model.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
""",
        "count_unique set requires_grad=True",
    ),
    (
        "count-returns-float",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return float(sum(p.numel() for p in model.parameters()))
""",
        "returned an object of type float",
    ),
    (
        "count-linear-layers-only",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    total = 0
    for m in model.modules():
        if isinstance(m, nn.Linear):
            total += m.weight.numel() + (m.bias.numel() if m.bias is not None else 0)
    return total
""",
        "your count is",
    ),
    (
        "count-casts-to-float32",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    model.float()
    return sum(p.numel() for p in model.parameters())
""",
        "changed the values of",
    ),
    (
        "count-seeds-the-rng",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    torch.manual_seed(0)
    return sum(p.numel() for p in model.parameters())
""",
        "torch RNG",
    ),
    (
        "count-parameters-to-vector",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return torch.nn.utils.parameters_to_vector(model.parameters()).numel()
""",
        "on a model without parameters: it raised",
    ),
    (
        "count-state-dict-extra-state",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    seen = {}
    for name, t in model.state_dict(keep_vars=True).items():
        if t.requires_grad or name.endswith(("weight", "bias")):
            seen[id(t)] = t.numel()
    return sum(seen.values())
""",
        "✗",
    ),
    # --- freeze: more answers written differently, and more mistakes readers make ---
    (
        "freeze-apply-own-parameters",
        "check_freeze(freeze)",
        """
def freeze(module):
    def own(m):
        for p in m.parameters(recurse=False):
            p.requires_grad_(False)
    module.apply(own)
""",
        "✓ correct",
    ),
    (
        "freeze-detach-in-place",
        "check_freeze(freeze)",
        """
def freeze(module):
    for p in module.parameters():
        p.detach_()
""",
        "✓ correct",
    ),
    (
        "freeze-every-name-no-grad-block",
        "check_freeze(freeze)",
        """
def freeze(module):
    with torch.no_grad():
        for _, p in module.named_parameters(remove_duplicate=False):
            p.requires_grad = False
    return module
""",
        "✓ correct",
    ),
    (
        "freeze-reference-itself",
        "check_freeze(freeze)",
        """
def freeze(module):
    for parameter in module.parameters():
        parameter.requires_grad_(False)
""",
        "✓ correct",
    ),
    (
        "freeze-clears-grads-only",
        "check_freeze(freeze)",
        """
def freeze(module):
    for p in module.parameters():
        p.grad = None
""",
        "freeze left",
    ),
    (
        "freeze-train-false",
        "check_freeze(freeze)",
        """
def freeze(module):
    module.train(False)
""",
        "eval() does not stop gradients",
    ),
    (
        "freeze-toggles-flags",
        "check_freeze(freeze)",
        """
def freeze(module):
    for p in module.parameters():
        p.requires_grad_(not p.requires_grad)
""",
        "which was frozen; freezing only turns flags off",
    ),
    (
        "freeze-matrices-only",
        "check_freeze(freeze)",
        """
def freeze(module):
    for p in module.parameters():
        if p.dim() > 1:
            p.requires_grad_(False)
""",
        "freeze left",
    ),
    (
        "freeze-weight-and-bias-names",
        "check_freeze(freeze)",
        """
def freeze(module):
    for name, p in module.named_parameters():
        if "weight" in name or "bias" in name:
            p.requires_grad_(False)
""",
        "freeze left `cls_token`",
    ),
    (
        "freeze-state-dict-keep-vars",
        "check_freeze(freeze)",
        """
def freeze(module):
    for t in module.state_dict(keep_vars=True).values():
        t.requires_grad_(False)
""",
        "state_dict() also holds non-tensor extra state",
    ),
    (
        "freeze-plus-global-no-grad",
        "check_freeze(freeze)",
        """
def freeze(module):
    module.requires_grad_(False)
    torch.set_grad_enabled(False)
""",
        "grad mode",
    ),
    (
        "freeze-with-a-hook",
        "check_freeze(freeze)",
        """
def freeze(module):
    module.requires_grad_(False)
    module.register_forward_hook(lambda m, i, o: o)
""",
        "added or removed hooks",
    ),
    (
        "freeze-register-new-frozen",
        "check_freeze(freeze)",
        """
def freeze(module):
    for m in module.modules():
        for name, p in list(m._parameters.items()):
            if p is not None:
                m.register_parameter(name, nn.Parameter(p.data, requires_grad=False))
""",
        "is a new Parameter",
    ),
    (
        "freeze-children-recursive-misses-root",
        "check_freeze(freeze)",
        """
def freeze(module):
    for child in module.children():
        for p in child.parameters():
            p.requires_grad = False
""",
        "freeze left",
    ),
    (
        "freeze-casts-float32",
        "check_freeze(freeze)",
        """
def freeze(module):
    module.float().requires_grad_(False)
""",
        "changed the values of",
    ),
    # --- snapshot: more answers written differently, and more mistakes readers make ---
    (
        "snapshot-keep-vars-detach-clone",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {k: v.detach().clone() for k, v in model.state_dict(keep_vars=True).items()}
""",
        "✗ on the zoo's `extra-state`",  # crashes on get_extra_state()'s non-tensor entry
    ),
    (
        "snapshot-ordered-dict-no-grad",
        "check_snapshot(snapshot)",
        """
from collections import OrderedDict

def snapshot(model):
    with torch.no_grad():
        return OrderedDict((k, torch.clone(v)) for k, v in model.state_dict().items())
""",
        "✗ on the zoo's `extra-state`",  # crashes on get_extra_state()'s non-tensor entry
    ),
    (
        "snapshot-empty-like-copy",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    copies = {}
    for name, tensor in model.state_dict().items():
        copies[name] = torch.empty_like(tensor).copy_(tensor)
    return copies
""",
        "✗ on the zoo's `extra-state`",  # crashes on get_extra_state()'s non-tensor entry
    ),
    (
        "snapshot-to-copy-true",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {k: v.to(v.device, copy=True) for k, v in model.state_dict().items()}
""",
        "✗ on the zoo's `extra-state`",  # crashes on get_extra_state()'s non-tensor entry
    ),
    (
        "snapshot-reference-itself",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {name: tensor.clone() for name, tensor in model.state_dict().items()}
""",
        "✗ on the zoo's `extra-state`",  # crashes on get_extra_state()'s non-tensor entry
    ),
    (
        "snapshot-detach-only",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {k: v.detach() for k, v in model.state_dict().items()}
""",
        "shares memory with the live model",
    ),
    (
        "snapshot-data",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {k: v.data for k, v in model.state_dict().items()}
""",
        "shares memory with the live model",
    ),
    (
        "snapshot-dict-of-state-dict",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return dict(model.state_dict())
""",
        "shares memory with the live model",
    ),
    (
        "snapshot-contiguous",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {k: v.contiguous() for k, v in model.state_dict().items()}
""",
        "shares memory with the live model",
    ),
    (
        "snapshot-floats-only",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {k: v.clone() for k, v in model.state_dict().items() if v.is_floating_point()}
""",
        "misses the buffers",
    ),
    (
        "snapshot-numpy",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}
""",
        "✗",
    ),
    (
        "snapshot-lists",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {k: v.tolist() for k, v in model.state_dict().items()}
""",
        "not a tensor",
    ),
    (
        "snapshot-named-parameters-clone",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {n: p.clone() for n, p in model.named_parameters()}
""",
        "✗",
    ),
    (
        "snapshot-eval-first",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    model.eval()
    return {k: v.clone() for k, v in model.state_dict().items()}
""",
        "snapshot changed train()/eval() mode",
    ),
    (
        "snapshot-no-grad-leak",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    torch.set_grad_enabled(False)
    return {k: v.clone() for k, v in model.state_dict().items()}
""",
        "grad mode",
    ),
    (
        "snapshot-half-precision",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {k: (v.half() if v.is_floating_point() else v).clone() for k, v in model.state_dict().items()}
""",
        "is torch.float16",
    ),
    (
        "snapshot-params-cloned-buffers-shared",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    params = {n for n, _ in model.named_parameters(remove_duplicate=False)}
    return {k: (v.clone() if k in params else v) for k, v in model.state_dict().items()}
""",
        "shares memory with the live model",
    ),
    # --- freeze: more answers written differently, and more mistakes readers make ---
    (
        "freeze-forward-under-no-grad",
        "check_freeze(freeze)",
        """
def freeze(module):
    module.requires_grad_(False)
    module.forward = torch.no_grad()(module.forward)
""",
        "added the method `forward`",
    ),
    # --- count_unique: more answers written differently, and more mistakes readers make ---
    (
        "c-sum-torch-numel-recurse",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return sum(torch.numel(p) for p in model.parameters(recurse=True))
""",
        "✓ correct",
    ),
    (
        "c-np-prod-int",
        "check_count_unique(count_unique)",
        """
import numpy as np
def count_unique(model):
    return int(sum(np.prod(p.shape) for p in model.parameters()))
""",
        "✓ correct",
    ),
    (
        "c-dict-named",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return sum(p.numel() for p in dict(model.named_parameters()).values())
""",
        "✓ correct",
    ),
    (
        "c-data-ptr",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return sum({p.data_ptr(): p.numel() for p in model.parameters()}.values())
""",
        "data_ptr() is 0 for every tensor on meta",  # issue 37: a model built on meta
    ),
    (
        "count-skips-scalars",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    return sum(p.numel() for p in model.parameters() if p.dim() > 0)
""",
        "on a CLIP-style head with a 0-dim `logit_scale` parameter in float64 your count is 32; expected 33",
    ),
    (
        "count-len-of-rows",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    total = 0
    for p in model.parameters():
        total += len(p) * (p[0].numel() if p.dim() > 1 else 1)
    return total
""",
        "len() of a 0-d tensor",
    ),
    # --- freeze: more answers written differently, and more mistakes readers make ---
    (
        "f-list-comp",
        "check_freeze(freeze)",
        """
def freeze(module):
    [p.requires_grad_(False) for p in module.parameters()]
""",
        "✓ correct",
    ),
    (
        "f-return-requires-grad",
        "check_freeze(freeze)",
        """
def freeze(module):
    return module.requires_grad_(requires_grad=False)
""",
        "✓ correct",
    ),
    (
        "f-modules-loop-setattr-flag",
        "check_freeze(freeze)",
        """
def freeze(module):
    for m in module.modules():
        for p in m._parameters.values():
            if p is not None:
                p.requires_grad = False
""",
        "✓ correct",
    ),
    # --- snapshot: more answers written differently, and more mistakes readers make ---
    (
        "s-torch-tensor",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {k: torch.tensor(v) for k, v in model.state_dict().items()}
""",
        "✗ on the zoo's `extra-state`",  # crashes on get_extra_state()'s non-tensor entry
    ),
    (
        "s-dedup-ties",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    copies, out = {}, {}
    for k, v in model.state_dict().items():
        key = (v.data_ptr(), v.dtype, tuple(v.shape)) if v.layout == torch.strided else id(v)
        if key not in copies:
            copies[key] = v.detach().clone()
        out[k] = copies[key]
    return out
""",
        "✗ on the zoo's `extra-state`",  # crashes on get_extra_state()'s non-tensor entry
    ),
    (
        "s-save-to-file",
        "check_snapshot(snapshot)",
        """
import os, tempfile
def snapshot(model):
    path = os.path.join(tempfile.mkdtemp(), "snap.pt")
    torch.save(model.state_dict(), path)
    return torch.load(path)
""",
        "✓ correct",
    ),
    (
        "s-clone-detach-ordered",
        "check_snapshot(snapshot)",
        """
from collections import OrderedDict
def snapshot(model):
    sd = model.state_dict()
    out = OrderedDict()
    for k in sd:
        out[k] = sd[k].clone().detach()
    return out
""",
        "✗ on the zoo's `extra-state`",  # crashes on get_extra_state()'s non-tensor entry
    ),
    # --- issue 37: categories the families never tried ---
    (
        "count-dedup-by-data-ptr",
        "check_count_unique(count_unique)",
        """
def count_unique(model):
    sizes = {p.data_ptr(): p.numel() for p in model.parameters()}  # one entry per memory
    return sum(sizes.values())
""",
        "data_ptr() is 0 for every tensor on meta",
    ),
    (
        "freeze-patches-train",
        "check_freeze(freeze)",
        """
def freeze(module):
    module.requires_grad_(False)
    module.train = lambda mode=True: module  # frozen statistics too: a later model.train() leaves it alone
""",
        "added the method `train`",
    ),
    (
        "snapshot-adds-restore-method",
        "check_snapshot(snapshot)",
        """
import copy


def snapshot(model):
    saved = {k: v.clone() if isinstance(v, torch.Tensor) else copy.deepcopy(v) for k, v in model.state_dict().items()}
    model.restore = lambda: model.load_state_dict(saved)  # handy: model.restore()
    return saved
""",
        "added the method `restore`",
    ),
    (
        "snapshot-extra-state-by-reference",
        "check_snapshot(snapshot)",
        """
def snapshot(model):
    return {k: v.detach().clone() if isinstance(v, torch.Tensor) else v for k, v in model.state_dict().items()}
""",
        "(extra state) changed when training went on",
    ),
    (
        "snapshot-buffers-once",
        "check_snapshot(snapshot)",
        """
import copy


def snapshot(model):
    kept = model.state_dict()
    snap = {n: p.detach().clone() for n, p in model.named_parameters(remove_duplicate=False)}
    snap.update({n: b.clone() for n, b in model.named_buffers() if n in kept})
    snap.update({n: copy.deepcopy(v) for n, v in kept.items() if not isinstance(v, torch.Tensor)})
    return snap
""",
        "misses the buffers",
    ),
]
