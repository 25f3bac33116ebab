"""What one inspection has found so far: the state every part of the inspection reads and adds to."""

from __future__ import annotations

from torch import nn

from inside_nn.inspect_checkpoint.checkpoint_report import _finding
from inside_nn.inspect_checkpoint.files import _File
from inside_nn.inspect_checkpoint.scan import _Scanner
from inside_nn.inspect_checkpoint.state_dict import _StateDict
from inside_nn.inspect_checkpoint.tensors import _Tensor
from inside_nn.report import Finding


class _InspectionState:
    """What one inspection has found so far. Every part of the inspection (one mixin per format or concern)
    reads the file through `f`, adds findings with `add`, and fills in the facts the report returns."""

    def __init__(self, path: str, model: nn.Module | None, scan_bytes: int | None):
        self.path = path
        self.model = model
        self.scan_bytes = scan_bytes
        self.findings: list[Finding] = []
        self.format = None
        self.tensors: list[_Tensor] = []  # every tensor of the state dict
        # every tensor the file rebuilds, the state dict's and the others' (an optimizer's state, ...)
        self.all_tensors: list[_Tensor] = []
        # the tensors a state-dict entry is made of, named by its key: a sparse tensor's indices and values, a
        # quantized Linear's packed weight and bias (_packed_params), a nested tensor's buffer, a DTensor's local one
        self.held: list[_Tensor] = []
        self.sd: _StateDict | None = None
        self.entries: dict = {}  # state-dict key -> node
        self.records: list[dict] = []
        self.prefix = ""
        self.f: _File | None = None
        self.dir_scanned = 0  # tensor bytes the shards of a directory read
        self.scanner: _Scanner | None = None
        self.refused = False  # weights_only refuses the file
        self.load_outcome: str | None = None  # set by _against when every key fits
        self.fits: dict = {}  # id(entries) -> (keys with the model's shape, keys of the model's, keys), by _fit
        self.tied_notes: dict = {}  # frozenset of tied keys -> index of their "tied keys" note

    def add(self, severity: str, kind: str, path: str, message: str) -> None:
        """One finding, linked to the book's section for its kind (SECTIONS)."""
        self.findings.append(_finding(severity, kind, path, message))

    def not_a_checkpoint(self, why: str) -> None:
        """The one error a file that is no checkpoint gets, with the reason."""
        self.add("error", "not a checkpoint", "", f"not a checkpoint: {why}")
