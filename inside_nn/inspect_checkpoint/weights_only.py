"""What torch.load(weights_only=True) will do: the pickle's globals against weights_only's allowlist (dangerous
calls named, never run), and torch.load itself with every storage on the meta device."""

from __future__ import annotations

import pickle
import pickletools
import re
import sys
import warnings
from collections import defaultdict

import torch

from inside_nn.inspect_checkpoint.allow_list import AllowList, resolve, runs_code
from inside_nn.inspect_checkpoint.checkpoint_report import _names, _short
from inside_nn.inspect_checkpoint.pickle_reader import _Global, _Pickle
from inside_nn.inspect_checkpoint.state import _InspectionState


def _swapped(byteorder: str | None) -> bool:
    """Whether torch.load byte-swaps the storages of a zip file with this byteorder record (None: none), as
    torch.serialization decides it on this machine."""
    from torch.serialization import LoadEndianness, get_default_load_endianness

    if byteorder is None:
        default = get_default_load_endianness()
        if default == LoadEndianness.NATIVE:
            return False
        byteorder = "big" if default == LoadEndianness.BIG else "little"
    return byteorder in ("little", "big") and byteorder != sys.byteorder


def _unpickle_on_meta(stream):
    """torch's weights_only unpickler over one pickle of torch.save (zip or legacy), each storage it names made
    on meta at its declared size: what weights_only=True builds, with no tensor data read and nothing
    byte-swapped."""
    from torch import _weights_only_unpickler as wo

    def persistent_load(pid):
        typename, storage_type, _key, _location, numel = pid[:5]
        if typename != "storage":
            raise RuntimeError(f"a persistent id of type {typename!r}")
        dtype = torch.uint8 if storage_type is torch.UntypedStorage else storage_type.dtype
        untyped = torch.UntypedStorage(numel * torch._utils._element_size(dtype), device="meta")
        return torch.storage.TypedStorage(wrap_storage=untyped, dtype=dtype, _internal=True)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        unpickler = wo.Unpickler(stream, encoding="utf-8")
        unpickler.persistent_load = persistent_load
        return unpickler.load()


class _WeightsOnly(_InspectionState):
    """What torch.load(weights_only=True) would accept or refuse (part of _Inspection)."""

    # A function giving a fresh stream at the pickle, where the file is read by the unpickler alone (_meta_load)
    meta_pickle = None

    def _globals(self, parsed: _Pickle) -> None:
        """What the pickle imports and calls, against weights_only's allowlist: what runs code named (never run,
        never imported), the data classes with the allow-list that loads the file, tried before it is shown."""
        from torch import _weights_only_unpickler as wo

        allowed = set(wo._get_allowed_globals()) | set(wo._get_user_allowed_globals())
        refused = []
        for g, pos in parsed.globals:
            if str(g) not in allowed and g not in [r for r, _ in refused]:
                refused.append((g, pos))
        if not refused:
            return
        self.refused = True
        calls = defaultdict(list)
        for obj in parsed.calls:
            if isinstance(obj.func, _Global):
                calls[obj.func].append(obj)
        dangerous = [(g, pos) for g, pos in refused if runs_code(g.module, g.name, resolve(g.module, g.name))]
        for g, pos in dangerous:
            args = ""
            for obj in calls.get(g, [])[:1]:
                shown = ", ".join(repr(a)[:80] for a in obj.args if isinstance(a, str | bytes | int | float))
                args = f"({shown})" if shown else "(...)"
            self.add(
                "error",
                "unsafe pickle",
                "",
                f"the pickle imports {g}{' and calls it ' + str(g) + args if args else ''} (opcode at byte {pos}): "
                "code that runs the moment the file is unpickled. torch.load(weights_only=True), the default since "
                "torch 2.6, refuses it; weights_only=False, pickle.load or an older torch would run it. Not run "
                "here: treat the file as hostile and delete it",
            )
        others = [(g, pos) for g, pos in refused if (g, pos) not in dangerous]
        if others:
            names = [str(g) for g, _ in others]
            modules = {g.module.partition(".")[0] for g, _ in others}
            self.add(
                "error",
                "weights_only",
                "",
                f"the pickle names {len(names)} global(s) outside weights_only's allowlist ({_names(names)}): "
                f"torch.load(weights_only=True), the default since torch 2.6, refuses the file; weights_only=False "
                f"would import {', '.join(sorted(modules))} and build them (code of those classes runs). "
                + self._allow_list_advice(others, bool(dangerous)),
            )

    def _allow_list_advice(self, others: list, dangerous: bool) -> str:
        """The safe_globals list that loads the file, found by re-trying the load on meta (nothing read, nothing
        byte-swapped); only a list that worked is shown, else what else the file needs."""
        if dangerous:
            return "Allow nothing in it: the file also runs code (above)"
        if self.format not in ("zip", "legacy"):
            if any(str(g) == "torch.distributed.checkpoint.metadata.Metadata" for g, _ in others):
                return (
                    "It is the .metadata of a torch.distributed.checkpoint (DCP) save, not a file to torch.load: "
                    "load its folder with torch.distributed.checkpoint.load, or convert it with "
                    "torch.distributed.checkpoint.format_utils.dcp_to_torch_save"
                )
            return "Not a torch.save file: no allow-list makes torch.load read it"
        allow = AllowList()
        for g, _ in others:
            allow.add(str(g), g.module, g.name)
        if allow.needs:
            return f"No allow-list loads it as it is: {'; '.join(allow.needs)}"
        worked, said = allow.search(self._meta_load)
        if worked:
            plain = (
                f" ({_names(allow.as_dict, 3)}: a dict subclass, which torch's weights_only unpickler loads only "
                "as a plain dict, its attributes dropped)"
                if allow.as_dict
                else ""
            )
            return (
                f"If you trust the file, load it with this allow-list, which torch.load was seen to accept here "
                f"(on meta){plain}: {allow.text()}; or re-save plain values (a dict, float(x), vars(args))"
            )
        if allow.as_dict:
            allow.needs.append(
                f"{_names(allow.as_dict, 3)} is a dict subclass, which torch's weights_only unpickler cannot build "
                "(it fills only dict, OrderedDict and Counter, and the subclass does not load as a plain dict)"
            )
        why = "; ".join(allow.needs) or f"with {allow.text()}, torch.load still refuses it: {said[:300]}"
        return (
            f"No allow-list loads it: {why}. If you trust the file, torch.load(path, weights_only=False) loads it "
            "(running its classes' code); re-save it with plain values"
        )

    def _meta_load(self):
        """What torch.load(weights_only=True) builds, every storage on meta (no tensor data read); raises what
        it raises. Where torch.load itself cannot be asked on meta (`meta_pickle` set: a file torch would
        byte-swap, or the legacy format), torch's weights_only unpickler reads the pickle alone."""
        if self.meta_pickle is not None:
            return _unpickle_on_meta(self.meta_pickle())
        with warnings.catch_warnings(), self.f.reopen() as opened:
            warnings.simplefilter("ignore")
            return torch.load(opened, weights_only=True, map_location="meta")

    def _torch_load_meta(self) -> None:
        """torch.load with weights_only=True and every storage on meta: what the reader that loads says. Where the
        meta path itself fails (it computes storage offsets its own way), torch.load(mmap=True) confirms instead:
        it maps the file and reads no tensor data either. Not for a compressed record: torch 2.6 inflates it
        even for meta, and mmap=True would map the compressed bytes. A file torch would byte-swap (`meta_pickle`
        set) is never loaded: torch byte-swaps a meta storage and the process dies (a segfault)."""
        if self.refused or any(f.kind == "compressed record" for f in self.findings):
            return
        try:
            self._meta_load()
            return
        except pickle.UnpicklingError as error:
            self._refused_by_torch(error)
            return
        except Exception as error:  # noqa: BLE001 (what the reader says is the finding)
            first = error
        if self.meta_pickle is None and not self.path.endswith(".safetensors"):  # (safetensors: torch.load's)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    torch.load(self.path, weights_only=True, mmap=True, map_location="cpu")
                return
            except Exception as error:  # noqa: BLE001
                first = error
        self._refused_by_torch(first)

    def _refused_by_torch(self, error: Exception) -> None:
        text = " ".join(str(error).split())
        if isinstance(error, pickle.UnpicklingError) or "Weights only load failed" in text:
            self.refused = True
            said = text.partition("WeightsUnpickler error: ")[2] or text
            said = said.split(" Check the documentation")[0]
            operand = re.search(r"Unsupported operand (\d+)", said)
            if operand and chr(int(operand.group(1))) in pickletools.code2op:
                op = pickletools.code2op[chr(int(operand.group(1)))]
                said += f" (the pickle opcode {op.name}, of pickle protocol {op.proto}: torch.save writes protocol 2)"
            self.add(
                "error",
                "weights_only",
                "",
                f"torch.load(weights_only=True), the default since torch 2.6, refuses the file: {said[:300]}",
            )
        else:
            self.add(
                "error",
                "not a checkpoint",
                "",
                f"not a checkpoint: torch.load(weights_only=True) fails on it: {_short(error)}",
            )
