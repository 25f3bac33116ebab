"""Answers that tests/test_exercises.py runs through chapter 8's checkers."""

NOTEBOOK = "08_inspect_your_model"
CASES = [
    # --- plain_tensor_names: right ---
    (
        "plain-recursive-walk",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    def tensors(value):
        if isinstance(value, torch.Tensor):
            yield value
        elif isinstance(value, (list, tuple)):
            for item in value:
                yield from tensors(item)
        elif isinstance(value, dict):
            for item in value.values():
                yield from tensors(item)

    found = set()
    for path, module in model.named_modules():
        for name, value in module.__dict__.items():
            if name.startswith("_") and name in ("_parameters", "_buffers", "_modules"):
                continue
            if any(True for _ in tensors(value)):
                found.add(".".join(p for p in (path, name) if p))
    return found
""",
        "✓ correct",
    ),
    (
        "plain-pytree-leaves",
        "check_plain_tensor_names(plain_tensor_names)",
        """
import torch.utils._pytree as pytree

def plain_tensor_names(model):
    registered = {"_parameters", "_buffers", "_modules"}
    out = set()
    for prefix, module in model.named_modules():
        for name, value in vars(module).items():
            if name in registered:
                continue
            leaves = pytree.tree_leaves(value)
            if any(isinstance(leaf, torch.Tensor) for leaf in leaves):
                out.add(f"{prefix}.{name}".lstrip("."))
    return out
""",
        "✓ correct",
    ),
    (
        "plain-by-exclusion",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    def has_tensor(v, depth=0):
        if torch.is_tensor(v):
            return True
        items = v.values() if isinstance(v, dict) else v if isinstance(v, (list, tuple)) else ()
        return depth < 5 and any(has_tensor(i, depth + 1) for i in items)

    result = set()
    for path, module in model.named_modules():
        known = set(module._parameters) | set(module._buffers) | set(module._modules)
        for name in vars(module):
            if name.startswith("_") or name in known:
                if name in ("_parameters", "_buffers", "_modules"):
                    continue
            if has_tensor(vars(module)[name]):
                result.add(path + "." + name if path else name)
    return result
""",
        "✓ correct",
    ),
    # --- plain_tensor_names: wrong ---
    (
        "plain-root-only",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    return {n for n, v in vars(model).items()
            if n not in ("_parameters", "_buffers", "_modules") and isinstance(v, torch.Tensor)}
""",
        "named_modules()",
    ),
    (
        "plain-direct-tensors-only",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    names = set()
    for path, module in model.named_modules():
        for name, value in vars(module).items():
            if isinstance(value, torch.Tensor):
                names.add(f"{path}.{name}" if path else name)
    return names
""",
        "inside a list, tuple or dict",
    ),
    (
        "plain-skips-parameters-in-lists",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    def plain(v):
        if isinstance(v, nn.Parameter):
            return False
        if isinstance(v, torch.Tensor):
            return True
        if isinstance(v, dict):
            v = list(v.values())
        return isinstance(v, (list, tuple)) and any(plain(x) for x in v)

    names = set()
    for path, module in model.named_modules():
        for name, value in vars(module).items():
            if name not in ("_parameters", "_buffers", "_modules") and plain(value):
                names.add(f"{path}.{name}" if path else name)
    return names
""",
        "a Parameter in a plain list",
    ),
    (
        "plain-includes-registries",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    def holds(v):
        if isinstance(v, torch.Tensor):
            return True
        if isinstance(v, dict):
            v = list(v.values())
        return isinstance(v, (list, tuple)) and any(holds(x) for x in v)

    return {f"{p}.{n}" if p else n
            for p, m in model.named_modules() for n, v in vars(m).items() if holds(v)}
""",
        "skip `_parameters`",
    ),
    (
        "plain-via-dir-getattr",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    names = set()
    for path, module in model.named_modules():
        for name in dir(module):
            if name.startswith("__"):
                continue
            try:
                value = getattr(module, name)
            except Exception:
                continue
            if isinstance(value, torch.Tensor):
                names.add(f"{path}.{name}" if path else name)
    return names
""",
        "registered parameters and buffers are not plain",
    ),
    (
        "plain-attribute-names-without-path",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    def holds(v):
        if isinstance(v, torch.Tensor):
            return True
        if isinstance(v, dict):
            v = list(v.values())
        return isinstance(v, (list, tuple)) and any(holds(x) for x in v)

    return {n for m in model.modules() for n, v in vars(m).items()
            if n not in ("_parameters", "_buffers", "_modules") and holds(v)}
""",
        "prefix the module path",
    ),
    (
        "plain-returns-list",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    def holds(v):
        if isinstance(v, torch.Tensor):
            return True
        if isinstance(v, dict):
            v = list(v.values())
        return isinstance(v, (list, tuple)) and any(holds(x) for x in v)

    return sorted(f"{p}.{n}" if p else n for p, m in model.named_modules()
                  for n, v in vars(m).items()
                  if n not in ("_parameters", "_buffers", "_modules") and holds(v))
""",
        "return a set of names",
    ),
    (
        "plain-skips-underscore-names",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    def holds(v):
        if isinstance(v, torch.Tensor):
            return True
        if isinstance(v, dict):
            v = list(v.values())
        return isinstance(v, (list, tuple)) and any(holds(x) for x in v)

    return {f"{p}.{n}" if p else n for p, m in model.named_modules()
            for n, v in vars(m).items() if not n.startswith("_") and holds(v)}
""",
        "`_cache` included",
    ),
    # --- ddp_buffer_bytes: right ---
    (
        "bytes-element-size",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    return sum(b.numel() * b.element_size() for _, b in model.named_buffers())
""",
        "✓ correct",
    ),
    (
        "bytes-identity-set",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    seen, total = set(), 0
    for module in model.modules():
        for buffer in module._buffers.values():
            if buffer is not None and id(buffer) not in seen:
                seen.add(id(buffer))
                total += buffer.numel() * buffer.dtype.itemsize
    return total
""",
        "✓ correct",
    ),
    (
        "bytes-loop",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    total = 0
    for name, buffer in model.named_buffers(remove_duplicate=True):
        total += int(buffer.nbytes)
    return total
""",
        "✓ correct",
    ),
    # --- ddp_buffer_bytes: wrong ---
    (
        "bytes-state-dict",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    return sum(t.nbytes for t in model.state_dict().values())
""",
        "not parameters",
    ),
    (
        "bytes-persistent-only",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    params = {n for n, _ in model.named_parameters()}
    return sum(t.nbytes for n, t in model.state_dict().items() if n not in params)
""",
        "non-persistent and integer ones too",
    ),
    (
        "bytes-floating-only",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    return sum(b.nbytes for b in model.buffers() if b.is_floating_point())
""",
        "non-persistent and integer ones too",
    ),
    (
        "bytes-numel-times-four",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    return sum(b.numel() for b in model.buffers()) * 4
""",
        "not every buffer holds 4-byte floats",
    ),
    (
        "bytes-duplicates",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    return sum(b.nbytes for _, b in model.named_buffers(remove_duplicate=False))
""",
        "sent once",
    ),
    (
        "bytes-storage",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    return sum(b.untyped_storage().nbytes() for b in model.buffers())
""",
        "the storage a view shares",
    ),
    (
        "bytes-numel",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    return sum(b.numel() for b in model.buffers())
""",
        "count bytes, not elements",
    ),
    (
        "bytes-mib-float",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    return sum(b.nbytes for b in model.buffers()) / 2**20
""",
        "as an int",
    ),
    # --- tied_groups: right ---
    (
        "ties-by-is",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    pairs = list(model.named_parameters(remove_duplicate=False))
    groups = set()
    for name, p in pairs:
        names = frozenset(n for n, q in pairs if q is p)
        if len(names) > 1:
            groups.add(names)
    return groups
""",
        "✓ correct",
    ),
    (
        "ties-walk-modules",
        "check_tied_groups(tied_groups)",
        """
from collections import defaultdict

def tied_groups(model):
    where = defaultdict(set)
    for path, module in model.named_modules(remove_duplicate=False):
        for name, p in module._parameters.items():
            if p is not None:
                where[id(p)].add(f"{path}.{name}" if path else name)
    return {frozenset(v) for v in where.values() if len(v) >= 2}
""",
        "✓ correct",
    ),
    (
        "ties-dict-of-lists",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    by_object = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        by_object.setdefault(p, set()).add(name)
    return set(map(frozenset, filter(lambda s: len(s) > 1, by_object.values())))
""",
        "✓ correct",
    ),
    # --- tied_groups: wrong ---
    (
        "ties-default-named-parameters",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    names_of = {}
    for name, p in model.named_parameters():
        names_of.setdefault(id(p), []).append(name)
    return {frozenset(v) for v in names_of.values() if len(v) > 1}
""",
        "remove_duplicate=False",
    ),
    (
        "ties-by-data-ptr",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    names_of = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        names_of.setdefault(p.data_ptr(), []).append(name)
    return {frozenset(v) for v in names_of.values() if len(v) > 1}
""",
        "data_ptr() is 0 on meta",
    ),
    (
        "ties-by-equal-values",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    items = list(model.named_parameters(remove_duplicate=False))
    groups = set()
    for name, p in items:
        same = frozenset(n for n, q in items if q.shape == p.shape and torch.equal(q, p))
        if len(same) > 1:
            groups.add(same)
    return groups
""",
        "equal values",
    ),
    (
        "ties-keeps-singletons",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    names_of = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        names_of.setdefault(id(p), set()).add(name)
    return {frozenset(v) for v in names_of.values()}
""",
        "a name alone is not a tie",
    ),
    (
        "ties-shared-modules-only",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    paths_of = {}
    for path, module in model.named_modules(remove_duplicate=False):
        paths_of.setdefault(id(module), []).append(path)
    groups = set()
    for paths in paths_of.values():
        if len(paths) > 1:
            module = model.get_submodule(paths[0])
            for pname, _ in module.named_parameters():
                groups.add(frozenset(f"{p}.{pname}" for p in paths))
    return groups
""",
        "✗ on a tied language model",
    ),
    (
        "ties-data-identity",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    names_of = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        names_of.setdefault(id(p.data), []).append(name)
    return {frozenset(v) for v in names_of.values() if len(v) > 1}
""",
        "compare the Parameter objects",
    ),
    (
        "ties-list-of-lists",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    names_of = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        names_of.setdefault(id(p), []).append(name)
    return [sorted(v) for v in names_of.values() if len(v) > 1]
""",
        "return a set of frozensets",
    ),
]

# Written to attack the checkers after they moved onto the harness, on zoo models (DARTS, pruned, spectral-normed, sparse GCN, LoRA, Swin, BERT, LLaMA, QAT, VQ-VAE, T5, GPT-2 on meta): answers written differently, and mistakes that slipped through before (sparse tensors skipped, bit widths from finfo/iinfo, a dtype table, a shared storage taken for a tie).
CASES += [
    (
        "plain-mapping-abc",
        "check_plain_tensor_names(plain_tensor_names)",
        """
from collections.abc import Mapping


def plain_tensor_names(model):
    def has_tensor(value):
        if isinstance(value, torch.Tensor):
            return True
        if isinstance(value, Mapping):
            return any(has_tensor(v) for v in value.values())
        if isinstance(value, (list, tuple)):
            return any(has_tensor(v) for v in value)
        return False

    found = set()
    for prefix, module in model.named_modules():
        for attr, value in module.__dict__.items():
            if attr in {"_parameters", "_buffers", "_modules"}:
                continue
            if has_tensor(value):
                found.add(".".join(filter(None, [prefix, attr])))
    return found
""",
        "✓ correct",
    ),
    (
        "plain-explicit-stack",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    names = set()
    for path, module in model.named_modules():
        for attr, value in vars(module).items():
            if attr in ("_parameters", "_buffers", "_modules"):
                continue
            stack = [value]
            while stack:
                item = stack.pop()
                if isinstance(item, torch.Tensor):
                    names.add(f"{path}.{attr}" if path else attr)
                    break
                if isinstance(item, dict):
                    stack.extend(item.values())
                elif isinstance(item, (list, tuple)):
                    stack.extend(item)
    return names
""",
        "✓ correct",
    ),
    (
        "plain-generator-of-tensors",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    def tensors_in(value):
        if isinstance(value, torch.Tensor):
            yield value
        elif isinstance(value, dict):
            for v in value.values():
                yield from tensors_in(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                yield from tensors_in(v)

    return {
        f"{path}.{name}".lstrip(".")
        for path, module in model.named_modules()
        for name, value in vars(module).items()
        if name not in ("_parameters", "_buffers", "_modules")
        and next(tensors_in(value), None) is not None
    }
""",
        "✓ correct",
    ),
    (
        "plain-dir-getattr-registered-excluded",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    names = set()
    for path, module in model.named_modules():
        registered = {n for n, _ in module.named_parameters(recurse=False)}
        registered |= {n for n, _ in module.named_buffers(recurse=False)}
        for attr in dir(module):
            if attr.startswith("__") or attr in registered:
                continue
            value = getattr(module, attr, None)
            if isinstance(value, torch.Tensor) or (
                isinstance(value, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in value)
            ):
                names.add(f"{path}.{attr}" if path else attr)
    return names
""",
        "✗ on",
    ),
    (
        "plain-dense-only",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    def holds(value):
        if isinstance(value, torch.Tensor):
            return value.layout == torch.strided  # sparse ones are not state
        if isinstance(value, dict):
            value = list(value.values())
        return isinstance(value, (list, tuple)) and any(holds(v) for v in value)

    return {
        f"{path}.{name}" if path else name
        for path, module in model.named_modules()
        for name, value in vars(module).items()
        if name not in ("_parameters", "_buffers", "_modules") and holds(value)
    }
""",
        "a sparse tensor",
    ),
    (
        "plain-trainable-only",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    def holds(value):
        if isinstance(value, torch.Tensor):
            return value.requires_grad  # what an optimizer would miss
        if isinstance(value, dict):
            value = list(value.values())
        return isinstance(value, (list, tuple)) and any(holds(v) for v in value)

    return {
        f"{path}.{name}" if path else name
        for path, module in model.named_modules()
        for name, value in vars(module).items()
        if name not in ("_parameters", "_buffers", "_modules") and holds(value)
    }
""",
        "✗ on",
    ),
    (
        "plain-one-level",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    names = set()
    for path, module in model.named_modules():
        for name, value in vars(module).items():
            if name in ("_parameters", "_buffers", "_modules"):
                continue
            items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else [value]
            if any(isinstance(v, torch.Tensor) for v in items):
                names.add(f"{path}.{name}" if path else name)
    return names
""",
        "is unregistered too",
    ),
    (
        "plain-sets-eval",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    model.eval()  # an inspection should not train anything
    return {
        f"{path}.{name}" if path else name
        for path, module in model.named_modules()
        for name, value in vars(module).items()
        if name not in ("_parameters", "_buffers", "_modules")
        and (isinstance(value, torch.Tensor) or (
            isinstance(value, (list, tuple, dict))
            and any(isinstance(v, torch.Tensor) for v in (value.values() if isinstance(value, dict) else value))
        ))
    }
""",
        "train()/eval()",
    ),
    (
        "plain-lists-only",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    names = set()
    for path, module in model.named_modules():
        for name, value in vars(module).items():
            if name in ("_parameters", "_buffers", "_modules"):
                continue
            if isinstance(value, torch.Tensor) or (
                isinstance(value, list) and any(isinstance(v, torch.Tensor) for v in value)
            ):
                names.add(f"{path}.{name}" if path else name)
    return names
""",
        "is unregistered too",
    ),
    (
        "plain-no-parameters",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    def holds(value):
        if isinstance(value, nn.Parameter):
            return False  # parameters are registered
        if isinstance(value, torch.Tensor):
            return True
        if isinstance(value, dict):
            value = list(value.values())
        return isinstance(value, (list, tuple)) and any(holds(v) for v in value)

    return {
        f"{path}.{name}" if path else name
        for path, module in model.named_modules()
        for name, value in vars(module).items()
        if name not in ("_parameters", "_buffers", "_modules") and holds(value)
    }
""",
        "a Parameter in a plain list",
    ),
    (
        "plain-slash-paths",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    def holds(value):
        if isinstance(value, torch.Tensor):
            return True
        if isinstance(value, dict):
            value = list(value.values())
        return isinstance(value, (list, tuple)) and any(holds(v) for v in value)

    return {
        "/".join(filter(None, [path.replace(".", "/"), name]))
        for path, module in model.named_modules()
        for name, value in vars(module).items()
        if name not in ("_parameters", "_buffers", "_modules") and holds(value)
    }
""",
        "✗ on",
    ),
    (
        "bytes-dedupe-by-id",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    seen, total = set(), 0
    for _, buffer in model.named_buffers(remove_duplicate=False):
        if id(buffer) not in seen:
            seen.add(id(buffer))
            total += buffer.numel() * buffer.element_size()
    return total
""",
        "✓ correct",
    ),
    (
        "bytes-dtype-itemsize",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    return sum(b.numel() * b.dtype.itemsize for b in model.buffers())
""",
        "✓ correct",
    ),
    (
        "bytes-named-buffers-int",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    total = 0
    for name, buffer in model.named_buffers():  # each tensor once
        total += int(buffer.nelement()) * buffer.element_size()
    return int(total)
""",
        "✓ correct",
    ),
    (
        "bytes-finfo-iinfo-bits",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    total = 0
    for b in model.buffers():
        info = torch.finfo(b.dtype) if b.is_floating_point() else torch.iinfo(b.dtype)
        total += b.numel() * info.bits // 8
    return total
""",
        "raised TypeError",
    ),
    (
        "bytes-dtype-table",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    size = {torch.float16: 2, torch.float64: 8, torch.int64: 8}
    return sum(b.numel() * size.get(b.dtype, 4) for b in model.buffers())
""",
        "follows its dtype",
    ),
    (
        "bytes-module-buffers-dicts",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    return sum(b.nbytes for m in model.modules() for b in m._buffers.values())
""",
        "✗ on",
    ),
    (
        "bytes-skips-scalars",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    return sum(b.nbytes for b in model.buffers() if b.dim() > 0)  # counters are not data
""",
        "DDP sends every buffer",
    ),
    (
        "bytes-names-not-tensors",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    buffers = dict(model.named_buffers(remove_duplicate=False))
    return sum(b.nbytes for b in buffers.values())
""",
        "sent once",
    ),
    (
        "bytes-persistent-from-state-dict",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    names = {n for n, _ in model.named_buffers()}
    return sum(t.nbytes for n, t in model.state_dict().items() if n in names)
""",
        "non-persistent",
    ),
    (
        "bytes-storage-nbytes",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    return sum(b.untyped_storage().nbytes() for b in model.buffers())
""",
        "the storage a view shares",
    ),
    (
        "bytes-float-buffers",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    return sum(b.nbytes for b in model.buffers() if b.is_floating_point())
""",
        "integer ones too",
    ),
    (
        "ties-pairwise-is",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    groups = []
    for name, p in model.named_parameters(remove_duplicate=False):
        for owner, names in groups:
            if owner is p:
                names.add(name)
                break
        else:
            groups.append((p, {name}))
    return {frozenset(names) for _, names in groups if len(names) > 1}
""",
        "✓ correct",
    ),
    (
        "ties-modules-with-duplicates",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    owners = {}
    for path, module in model.named_modules(remove_duplicate=False):
        for name, p in module._parameters.items():
            if p is not None:
                owners.setdefault(id(p), set()).add(f"{path}.{name}" if path else name)
    return {frozenset(v) for v in owners.values() if len(v) > 1}
""",
        "✓ correct",
    ),
    (
        "ties-parameter-as-key",
        "check_tied_groups(tied_groups)",
        """
import collections


def tied_groups(model):
    by_parameter = collections.defaultdict(set)
    for name, p in model.named_parameters(remove_duplicate=False):
        by_parameter[p].add(name)  # a Parameter hashes by identity
    return {frozenset(n) for n in by_parameter.values() if len(n) >= 2}
""",
        "✓ correct",
    ),
    (
        "ties-by-storage",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    by_storage = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        key = id(p) if p.is_meta else p.untyped_storage().data_ptr()  # meta has no storage
        by_storage.setdefault(key, set()).add(name)
    return {frozenset(n) for n in by_storage.values() if len(n) > 1}
""",
        "a shared storage are not a tie",
    ),
    (
        "ties-trainable-only",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    names_of = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        if p.requires_grad:  # frozen weights are not trained, so not tied in any useful sense
            names_of.setdefault(id(p), []).append(name)
    return {frozenset(n) for n in names_of.values() if len(n) > 1}
""",
        "keep frozen ones too",
    ),
    (
        "ties-deduplicated-modules",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    names_of = {}
    for path, module in model.named_modules():
        for name, p in module.named_parameters(recurse=False):
            names_of.setdefault(id(p), []).append(f"{path}.{name}" if path else name)
    return {frozenset(n) for n in names_of.values() if len(n) > 1}
""",
        "remove_duplicate=False",
    ),
    (
        "ties-equal-values",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    named = list(model.named_parameters(remove_duplicate=False))
    groups = []
    for name, p in named:
        for group in groups:
            q = group[0]
            if q.shape == p.shape and q.device == p.device and (p.is_meta or torch.equal(q, p)):
                group[1].add(name)
                break
        else:
            groups.append((p, {name}))
    return {frozenset(n) for _, n in groups if len(n) > 1}
""",
        "✗ on",
    ),
    (
        "ties-list-of-sets",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    names_of = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        names_of.setdefault(id(p), set()).add(name)
    return [names for names in names_of.values() if len(names) > 1]
""",
        "return a set of frozensets",
    ),
    (
        "ties-module-names",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    names_of = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        names_of.setdefault(id(p), set()).add(name.rpartition(".")[0])  # the owning module
    return {frozenset(n) for n in names_of.values() if len(n) > 1}
""",
        "name the parameters",
    ),
    (
        "ties-sets-eval",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    model.eval()
    names_of = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        names_of.setdefault(id(p), set()).add(name)
    return {frozenset(n) for n in names_of.values() if len(n) > 1}
""",
        "train()/eval()",
    ),
    (
        "ties-data-ptr",
        "check_tied_groups(tied_groups)",
        """
def tied_groups(model):
    names_of = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        names_of.setdefault(p.data_ptr(), set()).add(name)
    return {frozenset(n) for n in names_of.values() if len(n) > 1}
""",
        "data_ptr()",
    ),
    # --- issue 37: categories the families never tried ---
    (
        "plain-first-item-decides",
        "check_plain_tensor_names(plain_tensor_names)",
        """
def plain_tensor_names(model):
    def holds(value):
        if isinstance(value, torch.Tensor):
            return True
        if isinstance(value, dict):
            value = list(value.values())
        return isinstance(value, (list, tuple)) and len(value) > 0 and holds(value[0])  # a container of one kind

    names = set()
    for path, module in model.named_modules():
        for name, value in vars(module).items():
            if name not in ("_parameters", "_buffers", "_modules") and holds(value):
                names.add(f"{path}.{name}" if path else name)
    return names
""",
        "a tensor inside a list, tuple or dict",
    ),
    (
        "ddp-bytes-by-storage-address",
        "check_ddp_buffer_bytes(ddp_buffer_bytes)",
        """
def ddp_buffer_bytes(model):
    by_address = {b.untyped_storage().data_ptr(): b.nbytes for b in model.buffers()}  # a shared buffer once
    return sum(by_address.values())
""",
        "on meta every data_ptr() is 0",
    ),
]
