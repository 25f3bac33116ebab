"""Against a model: the prefix the report would strip (with or without a model), and what
model.load_state_dict(sd) would do: missing and unexpected keys (as the model's own load, run on meta by
load_run.py, reports them), shapes, dtypes, ties, non-persistent buffers."""

from __future__ import annotations

from collections import defaultdict

import torch
from torch import nn

from inside_nn.inspect_checkpoint.checkpoint_report import (
    FIX_PREFIX,
    _count,
    _dtype_name,
    _names,
    _shape_text,
)
from inside_nn.inspect_checkpoint.dry_run import copy_fails, custom_load_code
from inside_nn.inspect_checkpoint.limits import SHOWN
from inside_nn.inspect_checkpoint.state import _InspectionState
from inside_nn.inspect_checkpoint.state_dict import (
    _KNOWN_PREFIXES,
    _common_prefixes,
    _path_text,
    _summary,
)
from inside_nn.inspect_checkpoint.tensors import _Tensor, _tensor_of
from inside_nn.inspect_module import one_line


class _Against(_InspectionState):
    """The prefix to strip, and the comparison with a model: what load_state_dict would do (part of _Inspection)."""

    def _prefix_without_model(self) -> None:
        keys = [k for k in self.entries if isinstance(k, str)]
        if not keys:
            return
        for prefix in _KNOWN_PREFIXES:
            share = sum(k.startswith(prefix) for k in keys)
            if share:
                self.prefix = prefix if share == len(keys) else ""
                self.add(
                    "warning",
                    "prefix",
                    prefix,
                    self._prefix_message(prefix, share, len(keys)),
                )
                return
        lightning = self.sd is not None and self.sd.path == ("state_dict",)
        common = _common_prefixes(keys)
        if lightning and common and len(keys) > 1:
            prefix = common[0]
            self.add(
                "note",
                "prefix",
                prefix,
                f'all {len(keys)} keys start with "{prefix}", the attribute the LightningModule kept its network '
                f"under: to load them into the bare network, {FIX_PREFIX.format(prefix=prefix)}",
            )

    def _prefix_message(self, prefix: str, share: int, n: int) -> str:
        who = {
            "module.": "DistributedDataParallel's (or DataParallel's) module.",
            "_orig_mod.": "torch.compile's _orig_mod.",
            "module._orig_mod.": "module._orig_mod. (a compiled model wrapped in DDP)",
            "_orig_mod.module.": "_orig_mod.module. (a DDP model compiled)",
        }.get(prefix, f'"{prefix}" (a wrapper\'s attribute name) as a')
        where = f"sd = torch.load(path){_path_text(self.sd.path)}; " if self.sd and self.sd.path else ""
        fix = f"{where}{FIX_PREFIX.format(prefix=prefix)} (in place; it renames _metadata too)"
        if share < n:
            return (
                f"{share} of {n} keys carry {who} prefix (a state dict merged from a wrapped and an unwrapped "
                f"model?): strip it with {fix}, which renames only those keys"
            )
        again = (
            ". Save model.module.state_dict() (DDP) or model._orig_mod.state_dict() (compile) next time"
            if prefix in _KNOWN_PREFIXES
            else ""
        )
        return (
            f"all {n} keys carry {who} prefix: the unwrapped model reports every key missing and unexpected. "
            f"Strip it before loading: {fix}{again}"
        )

    def _against(self, model: nn.Module) -> None:
        """What model.load_state_dict(sd) would do with the file's state dict: the prefix to strip or add,
        ties, missing and unexpected keys, shapes and dtypes, non-persistent buffers; and, when every key
        fits, the sentence the report closes with (load_outcome)."""
        try:
            expected = model.state_dict(keep_vars=True)
        except Exception as error:  # noqa: BLE001
            self.add(
                "error",
                "missing keys",
                "",
                f"model.state_dict() raises: {one_line(error)}",
            )
            return
        file_keys = [k for k in self.entries if isinstance(k, str)]
        model_keys = list(expected)
        strip, add = _best_renaming(file_keys, model_keys)
        if (strip or add) and self._loads_as_saved(model, expected, file_keys):
            strip = add = ""  # the model's own load code takes the file's names (a _load_from_state_dict renames)
        mapping = {_renamed(k, strip, add): k for k in file_keys}  # model key -> file key
        self._renaming_finding(strip, add, file_keys)
        # the model's own load, on a meta copy: which keys it reports missing and unexpected, what it raises
        run = self._run_load(model, expected, mapping, strip, add)
        run.untried = run.untried or (run.failed is not None and bool(custom_load_code(model)))
        missing, unexpected = self._load_keys(run, model_keys, expected, mapping)
        non_persistent = _non_persistent_buffers(model)
        ties = _model_ties(model, expected)
        tie_missing, tie_hint = self._tie_findings(ties, mapping)
        real_missing = [k for k in missing if k not in tie_missing]
        self._key_findings(
            strip,
            real_missing,
            tie_hint,
            unexpected,
            [mapping.get(k, k) for k in unexpected],
            {n for n, _ in non_persistent},
        )
        casts = self._shape_findings(model_keys, expected, mapping)
        raising = self._load_errors(run, expected, mapping)
        shapes = [f.path for f in self.findings if f.kind == "shape mismatch"]
        fed_twice = self._fed_twice(ties, mapping, model_keys)
        overflow = self._overflow_findings(casts, expected, mapping)
        if real_missing or unexpected:
            self._strict_false_finding(shapes, model_keys, missing, unexpected, raising)
        on_meta = self._buffer_findings(non_persistent)
        fits = not (strip or add or missing or unexpected or raising or on_meta or tie_missing or fed_twice or overflow)
        if fits:
            self.load_outcome = _outcome(run, len(model_keys), sum(len(keys) for keys in casts.values()))

    def _loads_as_saved(self, model: nn.Module, expected: dict, file_keys: list) -> bool:
        """Whether the model's own load, run on a meta copy, takes the file's keys as they are: nothing missing,
        unexpected or raised (then no prefix is to be renamed, whatever the names look like)."""
        run = self._run_load(model, expected, {k: k for k in file_keys}, "", "")
        return run.failed is None and not (run.missing or run.unexpected or run.errors)

    def _renaming_finding(self, strip: str, add: str, file_keys: list) -> None:
        """The prefix finding of the renaming _best_renaming chose: strip the file's, add the model's, or both."""
        if strip and not add:
            self.prefix = strip
            share = sum(k.startswith(strip) for k in file_keys)
            self.add(
                "warning",
                "prefix",
                strip,
                self._prefix_message(strip, share, len(file_keys)),
            )
        elif add and not strip:
            wrapper = "model." + add.removesuffix(".")
            self.add(
                "warning",
                "prefix",
                add,
                f"the model's keys carry \"{add}\" (it is wrapped) and the file's do not: load into the module it "
                f"wraps, {wrapper}.load_state_dict(sd)",
            )
        elif strip and add:
            self.prefix = strip
            self.add(
                "warning",
                "prefix",
                strip,
                f'the file\'s keys carry "{strip}" where the model\'s carry "{add}": rename them, sd = '
                f'{{"{add}" + k.removeprefix("{strip}"): v for k, v in sd.items()}}',
            )

    def _tie_findings(self, ties: list, mapping: dict) -> tuple[list, dict]:
        """Findings on the model's ties (one tensor under several names) against the file: names a safetensors
        file dropped, and ties that assign=True would split. Returns (the tied names the file lacks, which
        safetensors dropped; {name the file lacks: the present name it is tied to}, outside safetensors)."""
        tie_missing, tie_hint, dropped, splits = [], {}, [], []
        for names in ties:
            present = [n for n in names if n in mapping]
            absent = [n for n in names if n not in mapping]
            if present and absent and self.format != "safetensors":
                tie_hint.update((n, present[0]) for n in absent)
            elif present and absent:
                tie_missing += absent
                dropped += [f"{n} (tied to {present[0]})" for n in absent]
            if len(present) > 1:
                in_file = [self.entries.get(mapping[n]) for n in present]
                in_file = [t if isinstance(t, _Tensor) else _tensor_of(t, "") for t in in_file]
                one = len({t.storage for t in in_file if t is not None}) == 1
                if one:
                    # the file's "tied keys" note is this same tie: one finding says it, the model's
                    self._drop_tied_keys_note({mapping[n] for n in present})
                splits.append(f"{' = '.join(present)}{' (one storage in the file)' if one else ''}")
        if dropped:
            self.add(
                "warning",
                "safetensors tie",
                tie_missing[0],
                f"the file lacks {_count(len(dropped), 'name')} that the model ties to a name it has: "
                f"{_names(dropped, 4)}. safetensors cannot store a tie, and safetensors.torch.save_model keeps "
                "one name of each; safetensors.torch.load_model(model, path) loads the file and keeps the ties. "
                f"load_state_dict(sd) raises Missing key(s) {_names(tie_missing, 3)}; load_state_dict(sd, "
                "strict=False) fills them through the names they are tied to, but it would also skip any other "
                "missing key without a word: check its missing_keys, or use load_model",
            )
        if splits:
            # A note, not a warning: the default load keeps the tie; only assign=True (meta-built models)
            # splits it, so a clean checkpoint of a tied model must not read as a problem.
            self.add(
                "note",
                "split tie",
                splits[0].split(" = ")[0],
                f"the model ties {_names(splits, 4)} (one Parameter under several names); "
                "load_state_dict(sd, assign=True) hands each name its own Parameter from the file: the tie is gone, "
                "the optimizer sees separate tensors and they drift apart. The default load (copy into the existing "
                "tensor) keeps the tie; after assign=True, re-tie (e.g. model.tie_weights())",
            )
        return tie_missing, tie_hint

    def _key_findings(
        self,
        strip: str,
        real_missing: list,
        tie_hint: dict,
        unexpected: list,
        unexpected_file: list,
        np_names: set,
    ) -> None:
        """Missing keys (those no tie fills) and unexpected keys, as load_state_dict(sd) would raise them."""
        if real_missing:
            self.add(
                "error",
                "missing keys",
                real_missing[0],
                f"{len(real_missing)} key(s) the model expects are not in the file"
                + (f' (after stripping "{strip}")' if strip else "")
                + f": {_names(real_missing)}. load_state_dict(sd) raises; strict=False leaves them at their initial "
                "values"
                + "".join(
                    f"; {k} is tied to {tie_hint[k]} in the model, so strict=False still fills it"
                    for k in real_missing[:SHOWN]
                    if k in tie_hint
                ),
            )
        if unexpected:
            notes = [k for k in unexpected if k in np_names]
            extra = (
                f"; {_names(notes, 3)} name non-persistent buffer(s) of the model (saved by an older version of "
                "its code, when they were persistent): safe to drop"
                if notes
                else ""
            )
            self.add(
                "error",
                "unexpected keys",
                unexpected_file[0],
                f"{len(unexpected)} key(s) in the file the model does not have: {_names(unexpected_file)}. "
                f"load_state_dict(sd) raises; strict=False ignores them{extra}",
            )

    def _shape_findings(self, model_keys: list, expected: dict, mapping: dict) -> dict:
        """Shape mismatches (load_state_dict raises), dtype casts (it casts without a word) and lazy parameters
        (it materializes them). Returns the casts: {(file dtype, model dtype): keys}."""
        lazy, casts = [], defaultdict(list)
        for name in model_keys:
            if name not in mapping:
                continue
            target = expected[name]
            node = self.entries[mapping[name]]
            t = node if isinstance(node, _Tensor) else _tensor_of(node, mapping[name])
            if name.endswith("_extra_state") or not isinstance(target, torch.Tensor):
                continue
            if t is None:
                self.add(
                    "error",
                    "shape mismatch",
                    mapping[name],
                    f"the file holds {_summary(node)} at {mapping[name]}, not a tensor: load_state_dict raises "
                    "('expected torch.Tensor or Tensor-like object from checkpoint')",
                )
                continue
            if isinstance(target, nn.parameter.UninitializedTensorMixin):
                lazy.append(name)
                continue
            model_shape = tuple(target.shape)
            if t.shape is not None and t.shape != model_shape and not (model_shape == () and t.shape == (1,)):
                self.add(
                    "error",
                    "shape mismatch",
                    mapping[name],
                    f"size mismatch for {name}: the file holds {_shape_text(t.shape)}, the model "
                    f"{_shape_text(model_shape)}: load_state_dict raises, with strict=False too (a different "
                    "configuration: vocabulary, width, number of classes?)",
                )
            elif t.dtype is not None and t.dtype != target.dtype and copy_fails(t, target) is None:
                casts[(t.dtype, target.dtype)].append(mapping[name])  # (a value copy_ refuses is a load error)
        for (have, want), keys in casts.items():
            how = (
                f"casts to {_dtype_name(want)}, discarding the imaginary part (torch says only UserWarning: "
                "Casting complex values to real discards the imaginary part)"
                if have.is_complex and not want.is_complex
                else f"casts to {_dtype_name(want)} without a word"
            )
            self.add(
                "warning",
                "dtype mismatch",
                keys[0],
                f"{len(keys)} tensor(s) are {_dtype_name(have)} in the file and {_dtype_name(want)} in the model "
                f"({_names(keys)}): load_state_dict copies and {how}; assign=True would put {_dtype_name(have)} into "
                "the model",
            )
        if lazy:
            self.add(
                "note",
                "lazy",
                lazy[0],
                f"{len(lazy)} lazy parameter(s) not materialized yet ({_names(lazy)}): load_state_dict materializes "
                "them with the file's shapes",
            )
        return casts

    def _strict_false_finding(
        self, raising: list, model_keys: list, missing: list, unexpected: list, failing: list = ()
    ) -> None:
        """What load_state_dict(sd, strict=False) would do where keys are missing or unexpected. raising: the
        keys of size mismatches; failing: every key whose load raises."""
        loaded = len(model_keys) - len(missing)
        outcome = (
            f"still raises, for the size mismatch of {_names(raising, 3)} (strict=False skips keys, not shapes)"
            if raising
            else f"still raises, for {_names(failing, 3)} (strict=False skips keys, not values it cannot load)"
            if failing
            else f"would load {loaded} of {len(model_keys)} keys without an error, leaving {len(missing)} at "
            f"their initial values and dropping {len(unexpected)} from the file: check its return value "
            "(missing_keys, unexpected_keys)"
        )
        self.add(
            "warning",
            "strict=False",
            "",
            f"load_state_dict(sd, strict=False) {outcome}",
        )

    def _buffer_findings(self, non_persistent: list) -> list:
        """The model's non-persistent buffers, in no checkpoint: an error for those on meta now (returned), a
        note for the others."""
        on_meta = [n for n, buf in non_persistent if bool(getattr(buf, "is_meta", False))]
        elsewhere = [n for n, _ in non_persistent if n not in on_meta]
        if on_meta:
            self.add(
                "error",
                "non-persistent buffer",
                on_meta[0],
                f"{len(on_meta)} non-persistent buffer(s) on meta now ({_names(on_meta)}): in no checkpoint, so "
                "load_state_dict never sets them, and load_state_dict(assign=True) leaves them on meta; the first "
                "forward fails. Recompute them after loading (the module's own init code for them)",
            )
        if elsewhere:
            self.add(
                "note",
                "non-persistent buffer",
                elsewhere[0],
                f"{len(elsewhere)} non-persistent buffer(s) ({_names(elsewhere)}): in no checkpoint, so "
                "load_state_dict never sets them; a model built on meta and loaded with assign=True keeps them on "
                "meta: recompute them after materializing",
            )
        return on_meta

    def _drop_tied_keys_note(self, keys: set) -> None:
        """Remove the file's "tied keys" note about exactly these keys (the model's tie note says it)."""
        at = self.tied_notes.pop(frozenset(keys), None)
        if at is not None:
            del self.findings[at]
            self.tied_notes = {k: i - (i > at) for k, i in self.tied_notes.items()}


def _outcome(run, n: int, cast: int) -> str:
    """The sentence the report closes with when every key fits: what model.load_state_dict(sd) will do, or, where
    the model's own load code could not be tried, that it may still raise."""
    casts = f" ({cast} cast to the model's dtype)" if cast else ""
    if run.untried:
        return (
            f"By name, the file holds all {_count(n, 'key')} the model expects: none missing, none unexpected, every "
            f"shape fits{casts}; but the model's own load code could not be tried on a meta copy, so "
            "model.load_state_dict(sd) may still raise."
        )
    if run.dropped:
        return (
            f"model.load_state_dict(sd) will raise nothing and load {n - len(run.dropped)} of the {_count(n, 'key')} "
            f"the model expects: {_names(run.dropped, 3)} stay as the model initialized them (its post-hooks drop "
            f"them from missing_keys); none unexpected, every shape fits{casts}."
        )
    return (
        f"model.load_state_dict(sd) will load all {_count(n, 'key')} the model expects: none missing, none "
        f"unexpected, every shape fits{casts}."
    )


def _renamed(k: str, strip: str, add: str) -> str:
    return add + (k[len(strip) :] if strip and k.startswith(strip) else k)


def _best_renaming(file_keys: list, model_keys: list) -> tuple[str, str]:
    """(prefix to strip from the file's keys, prefix to add) that makes the most of them model keys: a
    wrapper's known prefix, or a common prefix of either side backed by many keys ("", "" when none helps)."""
    model_set = set(model_keys)
    strips = ["", *_KNOWN_PREFIXES, *_common_prefixes(file_keys)]
    adds = ["", *_KNOWN_PREFIXES, *_common_prefixes(model_keys)]
    best = ("", "", len({k for k in file_keys if k in model_set}))
    for strip in strips:
        for add in adds:
            if (strip or add) and strip != add:
                score = len({_renamed(k, strip, add) for k in file_keys} & model_set)
                known = strip in ("", *_KNOWN_PREFIXES) and add in (
                    "",
                    *_KNOWN_PREFIXES,
                )
                # a prefix that is not a wrapper's needs the evidence of many keys, not one coincidence
                if score > best[2] and (known or score >= max(2, len(model_set) // 2)):
                    best = (strip, add, score)
    return best[0], best[1]


def _model_ties(model: nn.Module, expected: dict) -> list[list[str]]:
    """The model's ties: the state-dict names of each tensor registered under more than one."""
    names_of = defaultdict(list)
    for name, t in [
        *model.named_parameters(remove_duplicate=False),
        *model.named_buffers(remove_duplicate=False),
    ]:
        if name in expected:
            names_of[id(t)].append(name)
    return [names for names in names_of.values() if len(names) > 1]


def _non_persistent_buffers(model: nn.Module) -> list:
    """(name, buffer) of every non-persistent buffer of the model."""
    non_persistent = []
    for prefix, module in model.named_modules():
        for name in module._non_persistent_buffers_set:
            buf = module._buffers.get(name)
            if buf is not None:
                non_persistent.append((f"{prefix}.{name}" if prefix else name, buf))
    return non_persistent
