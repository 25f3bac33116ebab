"""Against a model, by running its load: the model's own load_state_dict on a meta copy (dry_run.py) decides
which keys are missing, unexpected or raise; then what that run cannot see: values copy_ refuses (sparse, meta,
quantized), a tie fed two different values, casts that overflow. Also which of several dicts of tensors fits
the model, and the error when there is nothing to compare the model with."""

from __future__ import annotations

import math
import re
from collections import OrderedDict

import torch
from torch import nn

from inside_nn.inspect_checkpoint.checkpoint_report import _dtype_name, _names
from inside_nn.inspect_checkpoint.dry_run import _DryRun, _shape, copy_fails, dry_run, meta_value, plain_metadata
from inside_nn.inspect_checkpoint.state import _InspectionState
from inside_nn.inspect_checkpoint.state_dict import _path_text
from inside_nn.inspect_checkpoint.tensors import _Tensor, _tensor_of

_NAMED = (re.compile(r"size mismatch for (.+?): copying"), re.compile(r'parameter named "([^"]+)"'))


# (what the value is, what to do), by the kind of value copy_ refuses
_ADVICE = {
    "sparse": (
        "a sparse tensor, and load_state_dict copies it into the model's dense one",
        "make them dense first, sd[k] = sd[k].to_dense()",
    ),
    "meta": (
        "saved from the meta device: a shape without values, nothing to copy",
        "save the model again once its weights are real",
    ),
    "quantized": (
        "a quantized tensor, and the model's is not",
        "dequantize first, sd[k] = sd[k].dequantize(), or load it into the quantized model it came from",
    ),
}


class _LoadRun(_InspectionState):
    """The model's own load, run on meta, and what only the file's values show (part of _Inspection)."""

    def _fit(self, entries: dict) -> tuple[int, int]:
        """How well a dict of tensors fits the model: (keys with the model's shape, keys the model has), after
        the renaming the comparison would choose. Kept in self.fits for the note that says which was chosen."""
        from inside_nn.inspect_checkpoint.against import _best_renaming, _renamed

        try:
            expected = self.model.state_dict(keep_vars=True)
        except Exception:  # noqa: BLE001 (the comparison says it)
            return 0, 0
        keys = [k for k in entries if isinstance(k, str)]
        strip, add = _best_renaming(keys, list(expected))
        shapes = names = 0
        for k in keys:
            target = expected.get(_renamed(k, strip, add))
            if target is None:
                continue
            names += 1
            t = entries[k] if isinstance(entries[k], _Tensor) else _tensor_of(entries[k], k)
            if t is not None and isinstance(target, torch.Tensor) and t.shape == _shape(target):
                shapes += 1
        self.fits[id(entries)] = (shapes, names, len(keys))
        return shapes, names

    def _fit_note(self) -> None:
        """With a model and several dicts of tensors in the file: which one the comparison takes, and why."""
        sd = self.sd
        if self.model is None or sd is None or len(sd.candidates) < 2:
            return
        rows = [(path, self.fits.get(id(entries), (0, 0, len(entries)))) for path, entries, _ in sd.candidates]
        (best, top), rest = rows[0], rows[1:]
        said = ", ".join(f"ckpt{_path_text(p)} {s} of {n}" for p, (s, _, n) in rest[:4])
        same = [p for p, fit in rest if fit[:2] == top[:2]]
        tie = (
            f"; ckpt{_path_text(same[0])} fits as well (an EMA copy or a second model of the same kind?): the report "
            f"compares ckpt{_path_text(best)}; to load the other, sd = torch.load(path){_path_text(same[0])}"
            if same
            else ""
        )
        self.add(
            "note",
            "nested checkpoint",
            _path_text(best),
            f"{len(rows)} dicts of tensors in the file; ckpt{_path_text(best)} fits the model best ({top[0]} of its "
            f"{top[2]} tensors have a name and shape of the model's), so it is the one compared (the others: "
            f"{said}){tie}",
        )

    def _no_comparison(self) -> None:
        """A model was given and the file holds nothing to compare it with: an error, not a silent exit 0."""
        if self.sd is None:
            why = "no state dict could be read from the file (the findings above say why)"
        else:
            held = ", ".join(f"{k}: {v}" for k, v in self.sd.others[:6] if isinstance(k, str))
            why = "the file holds no dict of tensors keyed by name" + (f" (it holds {held})" if held else "")
        self.add(
            "error",
            "no comparison",
            "",
            f"a model was given, but there is nothing in the file to compare it with: {why}. model.load_state_dict "
            "needs the model's names with tensors: given this file's contents it raises (every key missing), and "
            "strict=False loads nothing. An optimizer's state, an EMA's list of shadow tensors or an empty dict is "
            "no model's weights: find the file that holds them",
        )

    def _run_load(self, model: nn.Module, expected: dict, mapping: dict, strip: str, add: str) -> _DryRun:
        """The model's own load_state_dict, on a meta copy, with the file's entries (renamed as the report
        advises) as meta tensors and the file's _metadata (renamed the same way)."""

        def sd():
            return {m: meta_value(self.entries[f], f, expected.get(m)) for m, f in mapping.items()}

        if self.sd is not None and self.sd.how == "module":  # a pickled module's versions are its class's, now
            metadata = getattr(expected, "_metadata", None)
        else:
            metadata = plain_metadata(self.sd.node if self.sd is not None else None)
            metadata = _renamed_metadata(metadata, strip, add) if metadata is not None else None
        return dry_run(model, sd, metadata)

    def _load_keys(self, run: _DryRun, model_keys: list, expected: dict, mapping: dict) -> tuple[list, list]:
        """The missing and unexpected keys (model names) the model's own load reports; a note for those the
        comparison by name would have called missing or unexpected and the load accepts. By name where the load
        could not be run."""
        missing = [k for k in model_keys if k not in mapping]
        unexpected = [k for k in mapping if k not in expected]
        if run.failed is not None:
            self.add(
                "warning" if run.untried else "note",
                "load hook",
                "",
                f"{run.failed}: keys are compared by name, without the model's own load code (its "
                "_load_from_state_dict and load hooks, which may rename or fill keys)"
                + (
                    "; that code, not tried here, runs on the file's values in the real load and may still raise "
                    "(a hook that checks a value)"
                    if run.untried
                    else ""
                ),
            )
            return missing, unexpected
        order = {k: i for i, k in enumerate([*model_keys, *mapping])}
        ran_missing = sorted(dict.fromkeys(run.missing), key=lambda k: order.get(k, len(order)))
        ran_unexpected = sorted(dict.fromkeys(run.unexpected), key=lambda k: order.get(k, len(order)))
        run.dropped = sorted(run.dropped, key=lambda k: order.get(k, len(order)))
        if run.dropped:
            self.add(
                "note",
                "load hook",
                run.dropped[0],
                f"the model's load_state_dict post-hooks remove {_names(run.dropped, 4)} from missing_keys: the file "
                "lacks them and load_state_dict(sd) raises nothing, but nothing loads them: they stay as the model "
                "initialized them (a new head to fine-tune?)",
            )
        filled = [k for k in missing if k not in set(ran_missing) and k not in set(run.dropped)]
        taken = [mapping[k] for k in unexpected if k not in set(ran_unexpected)]
        if filled or taken:
            parts = [f"fills {_names(filled, 4)}, which the file lacks" for _ in filled[:1]]
            parts += [f"takes {_names(taken, 4)}, names the model does not have" for _ in taken[:1]]
            self.add(
                "note",
                "load hook",
                (filled or taken)[0],
                f"the model's own load code (its _load_from_state_dict and load_state_dict pre-hooks, run here on "
                f"a meta copy with the file's _metadata versions) {' and '.join(parts)}: load_state_dict(sd) raises "
                "nothing for them (an older save of the same modules: BatchNorm's num_batches_tracked, "
                "weight_norm's weight_g/weight_v, a renamed attribute)",
            )
        return ran_missing, ran_unexpected

    def _load_errors(self, run: _DryRun, expected: dict, mapping: dict) -> list:
        """What the load raises beyond missing and unexpected keys: the shape findings the model's own load
        confirms (those it accepts are dropped, with a note), the errors it raises that the comparison by name
        did not see, and the copies it would fail on. Returns the file keys whose load raises."""
        inverse = {f: m for m, f in mapping.items()}
        shape = [f for f in self.findings if f.kind == "shape mismatch"]
        raising = [f.path for f in shape]
        if run.failed is None:
            named, other = {}, []
            for error in run.errors:
                hit = next((m for m in (p.search(error) for p in _NAMED) if m), None)
                if hit:
                    named[hit.group(1)] = error
                else:
                    other.append(error)
            accepted = [f for f in shape if inverse.get(f.path) not in named]
            for f in accepted:
                self.findings.remove(f)
            raising = [f.path for f in shape if f not in accepted]
            if accepted:
                self.add(
                    "note",
                    "load hook",
                    accepted[0].path,
                    f"the model's own load code takes {_names([f.path for f in accepted], 4)} although the file's "
                    "value differs from the model's tensor in shape or kind: load_state_dict(sd) raises nothing for "
                    "them",
                )
            unsaid = [e for k, e in named.items() if mapping.get(k) not in raising] + other
            if unsaid:
                keys = [mapping.get(k, k) for k, e in named.items() if e in unsaid]
                self.add(
                    "error",
                    "load error",
                    keys[0] if keys else "",
                    f"model.load_state_dict(sd) raises, from the model's own load code (run here on a meta copy): "
                    f"{_names(unsaid, 3)}. strict=False raises too",
                )
                raising += keys
        return raising + self._copy_findings(expected, mapping, raising)

    def _copy_findings(self, expected: dict, mapping: dict, raising: list) -> list:
        """Values load_state_dict's copy_ refuses (the meta run copies nothing): sparse, meta, quantized."""
        by_key = {t.key: t for t in self.tensors}
        failing = {}
        for name, key in mapping.items():
            t = by_key.get(key)
            error = copy_fails(t, expected.get(name)) if t is not None and key not in raising else None
            if error is not None:
                failing.setdefault("meta" if t.location == "meta" else t.kind, []).append((name, key, error))
        for kind, rows in failing.items():
            name, key, error = rows[0]
            what, fix = _ADVICE[kind]
            self.add(
                "error",
                "load error",
                key,
                f"{len(rows)} value(s) in the file cannot be copied into the model ({_names(k for _, k, _ in rows)}): "
                f"{key} is {what}. load_state_dict(sd) raises, with strict=False too (While copying the parameter "
                f'named "{name}" ...: {error}): {fix}',
            )
        return [key for rows in failing.values() for _, key, _ in rows]

    def _fed_twice(self, ties: list, mapping: dict, model_keys: list) -> bool:
        """A tie of the model fed by two different tensors of the file: the default load copies each into the
        one tensor in turn, and the last (in the model's state-dict order) wins without a word. Returns whether
        such a tie was found."""
        by_key = {t.key: t for t in self.tensors}
        order = {k: i for i, k in enumerate(model_keys)}
        found = False
        for names in ties:
            present = sorted((n for n in names if n in mapping), key=lambda n: order.get(n, 0))
            ts = [by_key.get(mapping[n]) for n in present]
            if len(present) < 2 or None in ts or len({(t.shape, t.dtype) for t in ts}) > 1:
                continue
            if len({(t.storage, t.offset, t.stride) for t in ts}) == 1 and ts[0].storage is not None:
                continue  # one tensor in the file under both names: a tie saved as a tie
            digests = {t.digest for t in ts}
            if len(digests) == 1 and None not in digests and all(t.scanned for t in ts):
                continue  # two copies of the same values: whichever wins, the model gets them
            known = None not in digests and all(t.scanned for t in ts)
            winner, losers = mapping[present[-1]], [mapping[n] for n in present[:-1]]
            found = True
            self.add(
                "error" if known else "warning",
                "tie fed twice",
                losers[0],
                f"the model ties {' = '.join(present)} (one tensor under {len(present)} names), and the file holds "
                + ("different values" if known else "two separate tensors (their values not compared: not read)")
                + f" for them: load_state_dict(sd) copies each into the one tensor in turn, so {winner} wins and "
                f"{_names(losers, 3)} is lost without an error, strict or not. The file comes from a model without "
                "this tie (tie_word_embeddings=False?): build the model untied, or keep the tie knowing which "
                "value it gets",
            )
        return found

    def _overflow_findings(self, casts: dict, expected: dict, mapping: dict) -> list:
        """Casts to a dtype that cannot hold the values as read: floating values beyond a narrower floating dtype's
        largest (they load as ±inf, or saturate or turn NaN where it has no inf), integers outside a narrower
        integer dtype's range (they wrap around) or beyond a floating one's largest."""
        by_key = {t.key: t for t in self.tensors}
        over = []
        for (have, want), keys in casts.items():
            rows = [
                (k, top) for k in keys if k in by_key for top in [_beyond(by_key[k], have, want)] if top is not None
            ]
            if not rows:
                continue
            over += [k for k, _ in rows]
            key, top = rows[0]
            if want.is_floating_point:
                limit = torch.finfo(want).max
                what = f"values beyond {_dtype_name(want)}'s largest ({limit:.6g})"
                shown = f"{key} up to {top:.6g}"
            else:
                info = torch.iinfo(want)
                what = f"values outside {_dtype_name(want)}'s range ({info.min:,} to {info.max:,})"
                shown = f"{key} holds {top:,}"
            self.add(
                "error",
                "dtype mismatch",
                key,
                f"{len(rows)} tensor(s) hold {what} ({_names(k for k, _ in rows)}; {shown}): load_state_dict casts "
                f"them to {_dtype_name(want)} and {_cast_result(top, have, want)}. Keep the model in "
                f"{_dtype_name(have)}" + (", or rescale" if have.is_floating_point else ""),
            )
        return over


def _beyond(t: _Tensor, have: torch.dtype, want: torch.dtype):
    """The value of t (as read) that `want` cannot hold, or None: its largest finite |value| beyond a floating
    dtype's largest, or the extreme of an integer tensor outside an integer dtype's range."""
    if want.is_complex or want == torch.bool or have.is_complex:
        return None
    if want.is_floating_point:
        limit = torch.finfo(want).max
        if have.is_floating_point:
            return t.absmax if (t.absmax or 0) > limit else None
        top = max(t.extremes, key=abs) if t.extremes is not None else 0
        return top if abs(top) > limit else None
    if have.is_floating_point or t.extremes is None:
        return None  # floating into integer: truncated, which the cast warning says
    info = torch.iinfo(want)
    lo, hi = t.extremes
    return hi if hi > info.max else lo if lo < info.min else None


def _cast_result(value, have: torch.dtype, want: torch.dtype) -> str:
    """What copy_ makes of `value` (of dtype `have`) in `want`, in words: tried on the one value."""
    try:
        source = torch.tensor([value], dtype=torch.float64 if have.is_floating_point else torch.int64)
        result = torch.empty(1, dtype=want).copy_(source.to(have))
        got = result.double().item() if want.is_floating_point else int(result.item())
    except Exception:  # noqa: BLE001 (a dtype this torch cannot make here: say the usual)
        return "they overflow"
    if not want.is_floating_point:
        return f"they wrap around ({value:,} becomes {got:,})"
    if math.isinf(got):
        return "they become ±inf"
    if math.isnan(got):
        return f"they become NaN ({_dtype_name(want)} has no inf)"
    return f"they saturate to ±{got:.6g} ({_dtype_name(want)} has no inf)"


def _renamed_metadata(metadata: OrderedDict, strip: str, add: str) -> OrderedDict:
    """The _metadata keys (module paths, "" for the root) renamed as the state dict's keys are."""
    out = OrderedDict()
    for key, value in metadata.items():
        if strip and key == strip[:-1]:
            key = ""
        elif strip and key.startswith(strip):
            key = key[len(strip) :]
        if add:
            key = add + key if key else add[:-1]
        out[key] = value
    return out
