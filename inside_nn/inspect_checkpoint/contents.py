"""Findings about what the file holds, shared by every format: the state dict's place, its tensors, ties,
devices, and NaN/inf values."""

from __future__ import annotations

from collections import Counter, defaultdict

from inside_nn.inspect_checkpoint.checkpoint_report import _dtype_name, _mib, _names
from inside_nn.inspect_checkpoint.files import _device_here
from inside_nn.inspect_checkpoint.pickle_reader import _Obj, _Pickle
from inside_nn.inspect_checkpoint.scan import _floating, _readable
from inside_nn.inspect_checkpoint.state import _InspectionState
from inside_nn.inspect_checkpoint.state_dict import (
    _KNOWN_PREFIXES,
    _find_state_dict,
    _path_text,
    _summary,
)
from inside_nn.inspect_checkpoint.tensors import _sub_tensors, _tensor_of, _walk
from inside_nn.inspect_checkpoint.weights_only import _swapped


class _Contents(_InspectionState):
    """Findings on the state dict and its tensors, whatever the format (part of _Inspection)."""

    def _describe(self, parsed: _Pickle, small: dict, fmt: str) -> None:
        """The format, the state dict in the pickle, its tensors and ties."""
        root = parsed.root
        if small.get("byteorder") == "big":
            fmt += "; big-endian (torch.load byte-swaps every storage; values not checked for NaN/inf here)"
            self.scanner.values = False
        if self.format == "zip" and _swapped(small.get("byteorder")):  # torch.load byte-swaps it here
            fmt += (
                "; never load it with map_location='meta': torch byte-swaps a meta storage and the process dies "
                "(a segfault in torch 2.13); load it to the CPU"
            )
        self.sd = _find_state_dict(root, self._fit if self.model is not None else None)
        self.entries = self.sd.entries
        # every tensor the pickle rebuilds, once each (what torch.load reads), named by its state-dict key if it
        # has one, else by where it sits in the file (["optimizer"]["state"][0]["exp_avg"])
        key_of = {id(node): key for key, node in self.entries.items()}
        # the tensors inside an entry that is no tensor itself (a quantized Linear's (weight, bias) tuple)
        inside = {}
        for key, node in self.entries.items():
            if _tensor_of(node, key) is None:
                inside.update((id(n), key) for _, _, n in _walk(node, "", set()))
        self.all_tensors, self.held = [], []
        for _, t, node in _walk(root, "", set()):
            entry, holder = key_of.get(id(node)), inside.get(id(node))
            t.key = entry or holder or f"ckpt{t.key}"
            subs = list(_sub_tensors(node, t.key))
            self.all_tensors += [t, *subs]
            self.held += subs if entry is not None else [t, *subs] if holder is not None else []
        self._structure_findings(root)
        self._fit_note()
        # one _Tensor per state-dict key (two keys of one tied tensor are two entries): what load_state_dict reads
        self.tensors = [t for t in (_tensor_of(node, key) for key, node in self.entries.items()) if t is not None]
        total = sum(t.nbytes for t in self.tensors)
        self.add("note", "format", "", f"{fmt}; {_mib(self.f.size)}")
        self._tensor_findings(total)

    def _structure_findings(self, root) -> None:
        """Where the state dict sits: nested in a training checkpoint, a whole pickled module, or nowhere."""
        sd = self.sd
        if sd.how == "nested":
            others = ", ".join(f"{k}: {v}" for k, v in sd.others[:8] if isinstance(k, str))
            lightning = any(k == "pytorch-lightning_version" for k, _ in sd.others)
            kind = "a Lightning checkpoint" if lightning else "a training checkpoint"
            alt = (
                f"; other dicts of tensors: {', '.join(_path_text(p) for p in sd.alternatives[:4])}"
                if sd.alternatives
                else ""
            )
            self.add(
                "note",
                "nested checkpoint",
                _path_text(sd.path),
                f"{kind}: the state dict is ckpt{_path_text(sd.path)} ({len(sd.entries)} entries), next to "
                f"{others or 'nothing else'}{alt}. Load it with sd = torch.load(path){_path_text(sd.path)}",
            )
        elif sd.how == "module":
            cls = root.func if isinstance(root, _Obj) else "?"
            self.add(
                "error",
                "pickled module",
                "",
                f"a whole pickled nn.Module ({cls}), not a state dict: torch.load(weights_only=True) refuses it, and "
                "weights_only=False imports its class from the code that saved it (which must still exist, "
                "unchanged) and runs it. Its state dict, read from the pickle here, has "
                f"{len(sd.entries)} entries: re-save model.state_dict() from a trusted environment",
            )
        elif sd.how == "none":
            what = _summary(root)
            found = f" (top-level entries: {', '.join(f'{k}: {v}' for k, v in sd.others[:8])})" if sd.others else ""
            tensors = len(self.all_tensors)
            self.add(
                "note" if tensors or self.refused else "warning",
                "no state dict",
                "",
                f"no state dict (a dict of tensors keyed by name) in the file: it holds {what}{found}, with "
                f"{tensors} tensor(s) in all; load_state_dict needs a dict of tensors",
            )

    def _tensor_findings(self, total: int) -> None:
        """The state dict's tensors: counts and dtypes, devices they were saved from, meta tensors, then how
        they share storages. `total`: their bytes."""
        ts = self.tensors
        if not ts:
            return
        dtypes = Counter(_dtype_name(t.dtype) for t in ts)
        largest = max(ts, key=lambda t: t.nbytes)
        params = sum(t.numel for t in ts if t.dtype is not None and (t.dtype.is_floating_point or t.dtype.is_complex))
        self.add(
            "note",
            "tensors",
            "",
            f"{len(ts)} tensors, {_mib(total)} ({params:,} floating values): "
            + ", ".join(f"{d} ×{n}" for d, n in dtypes.most_common())
            + f"; largest {largest.key} ({largest.describe()}, {_mib(largest.nbytes)})",
        )
        locations = Counter(t.location for t in ts if t.location not in ("cpu", "?", "meta"))
        if locations:
            shown = ", ".join(f"{n} tensor(s) on {loc}" for loc, n in locations.most_common())
            missing = sorted({loc for loc in locations if not _device_here(loc)})
            here = f" (this machine has no {', '.join(missing)})" if missing else ""
            self.add(
                "warning" if missing else "note",
                "device",
                "",
                f"saved from an accelerator ({shown}): torch.load puts each storage back on the device it was "
                f"saved from, and fails on a machine without that device{here}; load with map_location='cpu' (or "
                "the device you have)",
            )
        meta = [t.key for t in ts if t.location == "meta" or t.kind == "meta"]
        if meta:
            self.add(
                "warning",
                "tensors",
                meta[0],
                f"{len(meta)} tensor(s) saved from the meta device ({_names(meta)}): shapes without values; loading "
                "them into a model raises (copy_: Cannot copy out of meta tensor), except into a model on meta or "
                "with assign=True, which keeps them without values",
            )
        self._storage_findings(ts)

    def _storage_findings(self, ts: list) -> None:
        """Keys over one storage: ties (the same view under several keys), different views of one storage,
        and storages much larger than what their tensors view (dead bytes torch.save writes)."""
        # ties: keys over one storage
        by_storage = defaultdict(list)
        for t in ts:
            if t.storage is not None:
                by_storage[(t.storage, t.view[0] if t.view else None)].append(t)
        for (storage, _), group in by_storage.items():
            if len(group) < 2:
                continue
            same = defaultdict(list)
            for t in group:
                same[(t.offset, t.shape, t.stride, t.dtype)].append(t.key)
            for keys in same.values():
                if len(keys) > 1:
                    self.tied_notes[frozenset(keys)] = len(self.findings)
                    self.add(
                        "note",
                        "tied keys",
                        keys[0],
                        f"{len(keys)} keys share one storage (data/{storage}), the same view: {', '.join(keys)}. A tie, "
                        "saved once; the default load_state_dict copies it into each name (a tied model stays tied), "
                        "assign=True hands each name its own Parameter over one storage",
                    )
            if len(same) > 1:
                keys = [t.key for t in group]
                self.add(
                    "note",
                    "shared storage",
                    keys[0],
                    f"{len(keys)} keys are different views of one storage (data/{storage}): {_names(keys)}; "
                    "torch.save writes the whole storage once, and loading keeps them views of one another",
                )
        for (storage, _), group in by_storage.items():
            t0 = group[0]
            if t0.storage_numel is None or not t0.storage_numel:
                continue
            viewed = set()
            for t in group:
                span = t.span()
                if span is not None:
                    viewed.add(span)
            covered, last = 0, 0
            for a, b in sorted(viewed):
                a = max(a, last)
                if b > a:
                    covered += b - a
                    last = b
            dead = (t0.storage_numel - covered) * t0.itemsize
            if dead > max(2**20, covered * t0.itemsize):
                self.add(
                    "note",
                    "shared storage",
                    t0.key,
                    f"storage data/{storage} holds {_mib(t0.storage_numel * t0.itemsize)}, of which its tensors "
                    f"({_names([t.key for t in group], 3)}) view {_mib(covered * t0.itemsize)}: torch.save writes "
                    "a view's whole storage; .clone() views before saving",
                )

    def _outside_state_dict(self) -> list:
        """The tensors of the file that are not in the state dict nor held by one of its tensors (an EMA copy,
        the optimizer's moments, a second model): a resumed run or an evaluation with the EMA reads them."""
        return [t for t in self.all_tensors if t.key.startswith("ckpt")]

    def _to_scan(self) -> list:
        """Every tensor whose values the report checks: the state dict's, the tensors its entries are made of,
        and the rest of the file (each format's reader scans these, within the budget)."""
        return [*self.tensors, *self.held, *self._outside_state_dict()]

    def _outside_values(self) -> None:
        """One finding for every NaN/inf outside the state dict: load_state_dict never reads them, but resuming
        (optimizer.load_state_dict) or evaluating with an EMA copy does."""
        bad = [t for t in self._outside_state_dict() if t.nan or t.inf]
        if not bad:
            return
        shown = "; ".join(
            f"{t.key}: " + " and ".join(f"{n:,} {what}" for n, what in ((t.nan, "NaN"), (t.inf, "±inf")) if n)
            for t in bad[:3]
        )
        more = f"; and {len(bad) - 3} more" if len(bad) > 3 else ""
        self.add(
            "warning",
            "non-finite",
            bad[0].key,
            f"{len(bad)} tensor(s) outside the state dict hold non-finite values ({shown}{more}): the model loads "
            "cleanly, but resuming from this file (the optimizer's state) or evaluating with these weights (an EMA "
            "copy) carries them into every step; keep the last checkpoint saved before the run diverged",
        )

    def _non_finite(self) -> list:
        """(key, NaN, inf, what it is) for every state-dict entry with non-finite values: its own, or those of
        the tensors it is made of (a sparse tensor's values, a quantized Linear's packed bias), which are its
        values as much."""
        inner = defaultdict(list)
        for t in self.held:
            inner[t.key].append(t)
        rows = []
        for t in self.tensors:
            parts = inner.pop(t.key, [])
            nan, inf = t.nan + sum(p.nan for p in parts), t.inf + sum(p.inf for p in parts)
            if nan or inf:
                stored = sum(p.numel for p in parts if _readable(p.dtype))
                where = f"among the {stored:,} values it stores" if nan + inf > t.nan + t.inf else None
                rows.append((t.key, nan, inf, f"{t.key} ({t.describe()})", where or f"of its {t.numel:,} values"))
        for key, parts in inner.items():
            nan, inf = sum(p.nan for p in parts), sum(p.inf for p in parts)
            if nan or inf:
                made = ", ".join(p.describe() for p in parts[:4])
                stored = sum(p.numel for p in parts if _readable(p.dtype))
                rows.append((key, nan, inf, f"{key} (made of {made})", f"among their {stored:,} floating values"))
        return rows

    def _values(self) -> None:
        """NaN/inf findings, and what the budget left unread."""
        self._outside_values()
        params = set()
        if self.model is not None:
            for name, _ in self.model.named_parameters(remove_duplicate=False):
                params.update({name, *(p + name for p in _KNOWN_PREFIXES)})
        for key, nan, inf, what, where in self._non_finite():
            parts = [f"{n:,} {kind}" for n, kind in ((nan, "NaN"), (inf, "±inf")) if n]
            if nan or key in params or key.endswith("_packed_params"):  # a quantized Linear's weight and bias
                severity, why = (
                    "error",
                    "every output it touches is non-finite (a diverged run saved, or damaged bytes)",
                )
            elif self.model is not None:
                severity, why = (
                    "note",
                    "a buffer of the model, not a parameter: observers and running extremes start at ±inf",
                )
            else:
                severity, why = (
                    "warning",
                    "fatal in a weight; legitimate in a statistic (observers' min_val/max_val start at ±inf)",
                )
            self.add(severity, "non-finite", key, f"{what} holds {' and '.join(parts)} {where}: {why}")
        uninitialized = [t.key for t in self.tensors if t.kind == "uninitialized"]
        if uninitialized:
            self.add(
                "warning",
                "lazy",
                uninitialized[0],
                f"{len(uninitialized)} entries are uninitialized lazy parameters or buffers ({_names(uninitialized)}): "
                "saved before the dry run, they hold no shape and no values; run one forward, then save",
            )
        floating = [t for t in self.tensors if _floating(t.dtype) and t.span() is not None and t.kind != "meta"]
        missed = [t for t in floating if not t.scanned]
        if missed:
            total = sum(t.nbytes for t in missed)
            reasons = []
            if self.scanner.unscanned:
                reasons.append(
                    f"past the scan budget of {_mib(self.scan_bytes)} (inspect_checkpoint(path, scan_bytes=None), "
                    "or inside-nn checkpoint --scan all, reads them all)"
                )
            if self.scanner.skipped:
                reasons.append(f"{_names(self.scanner.skipped, 3)}: views too sparse to read in bounded pieces")
            if not self.scanner.values:
                reasons.append("big-endian storages")
            unread = sorted(
                {f"{_dtype_name(t.dtype)}, {t.itemsize} byte(s) an element" for t in missed if not _readable(t.dtype)}
            )
            if unread:
                reasons.append(
                    f"dtypes whose values this report does not decode ({'; '.join(unread)}): sized, never converted"
                )
            if self.scanner.not_read:
                reasons.append(self.scanner.not_read)
            why = "; ".join(reasons) or "their bytes are not stored where a reader could check them"
            self.add(
                "note",
                "not scanned",
                missed[0].key,
                f"{len(missed)} floating tensor(s), {_mib(total)}, not checked for NaN/inf "
                f"({_names(t.key for t in missed)}): {why}",
            )
        elif self.scanner.unscanned:
            self.add(
                "note",
                "not scanned",
                "",
                f"{len(self.scanner.unscanned)} record(s) not read for their CRC, past the scan budget of "
                f"{_mib(self.scan_bytes)} (scan_bytes=None, or --scan all, reads them all)",
            )
