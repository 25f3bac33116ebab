"""inspect_checkpoint against a model predicts the load by running it (issue 37, category 1).

Each test plants a file written the way a real code base writes it (an old torchvision ResNet's BatchNorm, a
vocoder saved with the old weight_norm, a module that upgrades its own keys, a Hugging Face model saved untied,
a sparse embedding, weights left on meta, an optimizer's state, a diffusers EMA, a GAN's two networks, a model
cast to half), and checks the report against what model.load_state_dict really does with the file.
"""

from __future__ import annotations

import copy
import threading
import warnings
from collections import OrderedDict

import pytest
import torch
from torch import nn

from inside_nn import cli
from inside_nn.inspect_checkpoint import dry_run, inspect_checkpoint, zip_layout


def kinds(report, severity=None) -> set[str]:
    return {f.kind for f in report.findings if severity is None or f.severity == severity}


def errors(report) -> set[str]:
    return kinds(report, "error")


def real_load(model: nn.Module, path, **options):
    """What model.load_state_dict(torch.load(path)) does on a copy: its return value, or the RuntimeError."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sd = torch.load(path, weights_only=True)
    try:
        return copy.deepcopy(model).load_state_dict(sd, **options)
    except RuntimeError as error:
        return error


def resnet_stem() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(
        OrderedDict(
            conv1=nn.Conv2d(3, 8, 3, bias=False),
            bn1=nn.BatchNorm2d(8),
            relu=nn.ReLU(),
            layer1=nn.Sequential(nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8)),
        )
    )


# ----------------------------------------------------------------------------------------------------------------
# The model's own load code decides: versions in _metadata, load hooks


def test_an_old_batchnorm_checkpoint_loads_and_a_new_one_without_the_counter_does_not(tmp_path):
    model = resnet_stem()
    old = model.state_dict()  # what torchvision 0.3 saved: BatchNorm version 1, no num_batches_tracked
    for key in [k for k in old if k.endswith("num_batches_tracked")]:
        del old[key]
    for name in ("bn1", "layer1.1"):
        old._metadata[name]["version"] = 1
    torch.save(old, tmp_path / "resnet_old.pth")
    assert not isinstance(real_load(model, tmp_path / "resnet_old.pth"), RuntimeError)
    report = inspect_checkpoint(tmp_path / "resnet_old.pth", model)
    assert not errors(report), report
    (hook,) = report.of_kind("load hook")
    assert "bn1.num_batches_tracked" in hook.message and "layer1.1.num_batches_tracked" in hook.message
    assert report.load_outcome is not None
    # the same keys missing from a version-2 save: the load raises, and so does the report
    new = model.state_dict()
    del new["bn1.num_batches_tracked"]
    torch.save(new, tmp_path / "resnet_new.pth")
    assert isinstance(real_load(model, tmp_path / "resnet_new.pth"), RuntimeError)
    report = inspect_checkpoint(tmp_path / "resnet_new.pth", model)
    (missing,) = report.of_kind("missing keys")
    assert missing.path == "bn1.num_batches_tracked" and "load hook" not in kinds(report)
    # and behind DDP's prefix (the _metadata renamed with the keys, as consume_prefix_in_state_dict_if_present does)
    ddp = OrderedDict(("module." + k, v) for k, v in old.items())
    ddp._metadata = OrderedDict((f"module.{k}" if k else "module", v) for k, v in old._metadata.items())
    torch.save(ddp, tmp_path / "resnet_ddp.pth")
    report = inspect_checkpoint(tmp_path / "resnet_ddp.pth", model)
    assert not errors(report) and report.prefix == "module.", report


def test_a_vocoder_saved_with_the_old_weight_norm_loads_into_the_parametrized_one(tmp_path):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.nn.utils.weight_norm is deprecated: old code still saved with it
        old = nn.Sequential(nn.utils.weight_norm(nn.Conv1d(4, 8, 3)), nn.LeakyReLU(), nn.Conv1d(8, 1, 3))
    torch.save(old.state_dict(), tmp_path / "generator.pt")  # 0.weight_g, 0.weight_v
    new = nn.Sequential(nn.utils.parametrizations.weight_norm(nn.Conv1d(4, 8, 3)), nn.LeakyReLU(), nn.Conv1d(8, 1, 3))
    assert not isinstance(real_load(new, tmp_path / "generator.pt"), RuntimeError)
    report = inspect_checkpoint(tmp_path / "generator.pt", new)
    assert not errors(report) and not kinds(report, "warning"), report
    (hook,) = report.of_kind("load hook")
    assert "0.weight_g" in hook.message and "0.parametrizations.weight.original0" in hook.message


class UpgradingAttention(nn.Module):
    """An attention block that renamed its fused projection (qkv -> in_proj) and upgrades old files itself."""

    def __init__(self, dim=8):
        super().__init__()
        self.in_proj = nn.Linear(dim, 3 * dim)
        self.out_proj = nn.Linear(dim, dim)
        self._register_load_state_dict_pre_hook(self._upgrade)

    def _upgrade(self, state_dict, prefix, *args):
        for name in ("weight", "bias"):
            old = f"{prefix}qkv.{name}"
            if old in state_dict:
                state_dict[f"{prefix}in_proj.{name}"] = state_dict.pop(old)


def test_a_module_that_upgrades_its_own_keys(tmp_path):
    model = nn.Sequential(UpgradingAttention(), nn.LayerNorm(8))
    sd = {k.replace("in_proj", "qkv"): v for k, v in model.state_dict().items()}
    torch.save(sd, tmp_path / "attention_v1.pt")
    assert not isinstance(real_load(model, tmp_path / "attention_v1.pt"), RuntimeError)
    report = inspect_checkpoint(tmp_path / "attention_v1.pt", model)
    assert not errors(report), report
    assert "0.qkv.weight" in report.of_kind("load hook")[0].message
    # a shape the hook cannot fix still raises, named by the load
    sd["0.qkv.weight"] = torch.zeros(4, 8)
    torch.save(sd, tmp_path / "attention_bad.pt")
    assert isinstance(real_load(model, tmp_path / "attention_bad.pt"), RuntimeError)
    assert errors(inspect_checkpoint(tmp_path / "attention_bad.pt", model)) & {"shape mismatch", "load error"}


def test_a_model_that_cannot_be_copied_is_compared_by_name(tmp_path):
    model = nn.Sequential(nn.Linear(2, 2))
    model.lock = threading.Lock()  # a data loader's lock, a file handle: deepcopy refuses them
    torch.save(model.state_dict(), tmp_path / "lin.pt")
    report = inspect_checkpoint(tmp_path / "lin.pt", model)
    assert not errors(report) and "cannot pickle" in report.of_kind("load hook")[0].message


def test_a_load_too_slow_to_run_is_compared_by_name(tmp_path, monkeypatch):
    model = resnet_stem()
    torch.save(model.state_dict(), tmp_path / "stem.pt")
    # torch's own load filters a module's keys once per child: a flat ModuleList of 25,000 layers takes minutes
    monkeypatch.setattr(dry_run, "COST_LIMIT", 0)
    report = inspect_checkpoint(tmp_path / "stem.pt", model)
    assert "minutes of work" in report.of_kind("load hook")[0].message
    assert not errors(report) and report.load_outcome is not None


# ----------------------------------------------------------------------------------------------------------------
# What the meta run cannot see: values copy_ refuses, a tie fed twice, casts that overflow


class TinyLM(nn.Module):
    """GPT-2's layout: the output projection tied to the token embedding (tie_word_embeddings=True)."""

    def __init__(self, tie=True):
        super().__init__()
        self.wte = nn.Embedding(16, 8)
        self.ln_f = nn.LayerNorm(8)
        self.lm_head = nn.Linear(8, 16, bias=False)
        if tie:
            self.lm_head.weight = self.wte.weight


def test_an_untied_file_feeds_a_tied_model_twice(tmp_path):
    st = pytest.importorskip("safetensors.torch")
    torch.manual_seed(0)
    untied, tied = TinyLM(tie=False), TinyLM()
    st.save_file(untied.state_dict(), tmp_path / "model.safetensors")  # Hugging Face, tie_word_embeddings=False
    torch.save(untied.state_dict(), tmp_path / "model.pt")
    for path in (tmp_path / "model.safetensors", tmp_path / "model.pt"):
        report = inspect_checkpoint(path, tied)
        (twice,) = report.of_kind("tie fed twice")
        assert twice.severity == "error" and twice.path == "wte.weight", report
        assert "lm_head.weight wins" in twice.message and report.load_outcome is None
    # what the load does: the last name in state-dict order wins, the other value is gone
    loaded = copy.deepcopy(tied)
    loaded.load_state_dict(untied.state_dict())
    assert torch.equal(loaded.wte.weight, untied.lm_head.weight)
    # values not read: a warning that says so; the same values under both names: nothing to say
    report = inspect_checkpoint(tmp_path / "model.pt", tied, scan_bytes=0)
    assert report.of_kind("tie fed twice")[0].severity == "warning"
    same = {k: v.clone() for k, v in tied.state_dict().items()}
    torch.save(same, tmp_path / "same.pt")
    report = inspect_checkpoint(tmp_path / "same.pt", tied)
    assert "tie fed twice" not in kinds(report) and not errors(report), report


def test_sparse_and_meta_values_make_the_load_raise(tmp_path):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(10, 4), nn.Linear(4, 2))
    sd = model.state_dict()
    sparse = dict(sd, **{"0.weight": sd["0.weight"].to_sparse()})  # a sparse embedding's gradient-era save
    torch.save(sparse, tmp_path / "sparse.pt")
    on_meta = dict(sd, **{"1.weight": torch.empty(2, 4, device="meta")})  # saved before to_empty/materializing
    torch.save(on_meta, tmp_path / "meta.pt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # quantized dtypes are deprecated in torch 2.13; files with them are not
        qint8 = torch.quantize_per_tensor(sd["1.weight"], 0.05, 0, torch.qint8)
    quantized = dict(sd, **{"1.weight": qint8})
    torch.save(quantized, tmp_path / "quantized.pt")  # a post-training-quantized export, into the float model
    for name, key in (("sparse.pt", "0.weight"), ("meta.pt", "1.weight"), ("quantized.pt", "1.weight")):
        assert isinstance(real_load(model, tmp_path / name), RuntimeError)
        report = inspect_checkpoint(tmp_path / name, model)
        (error,) = report.of_kind("load error")
        assert error.severity == "error" and error.path == key, report
        assert report.load_outcome is None and "dtype mismatch" not in kinds(report)


def test_a_cast_that_overflows_is_an_error(tmp_path):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4))
    sd = model.state_dict()
    sd["0.bias"] = torch.tensor([1.0, -2.0, 1e5, 3.0])  # fine in float32, beyond float16's 65504
    torch.save(sd, tmp_path / "fp32.pt")
    half = copy.deepcopy(model).half()
    report = inspect_checkpoint(tmp_path / "fp32.pt", half)
    overflow = [f for f in report.of_kind("dtype mismatch") if f.severity == "error"]
    assert [f.path for f in overflow] == ["0.bias"] and "±inf" in overflow[0].message, report
    half.load_state_dict(sd)
    assert torch.isinf(half[0].bias).any()  # what the report said
    report = inspect_checkpoint(tmp_path / "fp32.pt", copy.deepcopy(model).bfloat16())  # bfloat16 holds 1e5
    assert not errors(report), report


# ----------------------------------------------------------------------------------------------------------------
# Which dict of tensors, and nothing to compare


def test_the_sub_dict_that_fits_the_model_is_chosen(tmp_path):
    torch.manual_seed(0)
    generator = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    discriminator = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(), nn.Linear(16, 1))
    torch.save(
        {"generator": generator.state_dict(), "discriminator": discriminator.state_dict(), "epoch": 7},
        tmp_path / "gan.pt",
    )
    report = inspect_checkpoint(tmp_path / "gan.pt", discriminator)
    assert report.state_dict_path == '["discriminator"]' and not errors(report), report
    assert any('ckpt["discriminator"] fits the model best' in f.message for f in report.of_kind("nested checkpoint"))
    assert inspect_checkpoint(tmp_path / "gan.pt", generator).state_dict_path == '["generator"]'
    # a model and its EMA: both fit; the model's is compared, and the note names the other
    torch.save({"model": generator.state_dict(), "model_ema": generator.state_dict()}, tmp_path / "ema.pt")
    report = inspect_checkpoint(tmp_path / "ema.pt", generator)
    assert report.state_dict_path == '["model"]'
    assert any('ckpt["model_ema"] fits as well' in f.message for f in report.of_kind("nested checkpoint"))


def test_a_model_and_nothing_to_compare_it_with_is_an_error(tmp_path, monkeypatch, capsys):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    opt = torch.optim.AdamW(model.parameters())
    model(torch.randn(2, 4)).sum().backward()
    opt.step()
    torch.save(opt.state_dict(), tmp_path / "optimizer.pt")
    # diffusers' EMAModel.state_dict(): the shadow parameters as a list, no names
    ema = {"decay": 0.9999, "optimization_step": 10, "shadow_params": [p.detach().clone() for p in model.parameters()]}
    torch.save(ema, tmp_path / "ema.pt")
    torch.save({}, tmp_path / "empty.pt")
    (tmp_path / "my_model.py").write_text(
        "from torch import nn\n\ndef build():\n    return nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))\n"
    )
    monkeypatch.chdir(tmp_path)
    for name in ("optimizer.pt", "ema.pt", "empty.pt"):
        assert "no comparison" not in kinds(inspect_checkpoint(tmp_path / name))  # without a model: no error
        report = inspect_checkpoint(tmp_path / name, model)
        assert "no comparison" in errors(report), report
        assert cli.main(["checkpoint", name, "--model", "my_model.py:build"]) == 1
        assert "ERROR   no comparison" in capsys.readouterr().out
    torch.save(model.state_dict(), tmp_path / "model.pt")
    assert cli.main(["checkpoint", "model.pt", "--model", "my_model.py:build"]) == 0


# ----------------------------------------------------------------------------------------------------------------
# Past the report's limits: described as far as torch's reader goes, with what was skipped said


def test_past_the_record_limit_the_contents_are_still_described(tmp_path, monkeypatch):
    model = resnet_stem()
    torch.save(model.state_dict(), tmp_path / "many.pt")
    monkeypatch.setattr(zip_layout, "ENTRY_LIMIT", 4)  # 200,000 records in a real file: minutes to write
    report = inspect_checkpoint(tmp_path / "many.pt", model)
    (layout,) = report.of_kind("archive layout")
    assert "CRCs" in layout.message and "not checked" in layout.message
    assert {t["key"] for t in report.tensors} == set(model.state_dict()), report
    assert not errors(report) and report.load_outcome is not None
    assert "directory was not read" in report.of_kind("not scanned")[0].message


class RenamesItsOwnKeys(nn.Module):
    """A model whose _load_from_state_dict maps an older layout's names (dense.*) onto its own (proj.*)."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        for name in ("weight", "bias"):
            if prefix + "dense." + name in state_dict:
                state_dict[prefix + "proj." + name] = state_dict.pop(prefix + "dense." + name)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)


def test_names_the_model_s_own_load_takes_as_they_are_get_no_rename_advice(tmp_path):
    """The names look like a prefix to change (dense. for proj.), but the model's load takes them: no warning,
    where a DDP-saved file (module.) still gets its prefix finding."""
    torch.save({"dense.weight": torch.randn(4, 4), "dense.bias": torch.randn(4)}, tmp_path / "old.pt")
    assert not isinstance(real_load(RenamesItsOwnKeys(), tmp_path / "old.pt"), RuntimeError)
    report = inspect_checkpoint(tmp_path / "old.pt", RenamesItsOwnKeys())
    assert report.of_kind("prefix") == [] and not errors(report), report
    torch.save({"module." + k: v for k, v in nn.Linear(4, 4).state_dict().items()}, tmp_path / "ddp.pt")
    assert [f.path for f in inspect_checkpoint(tmp_path / "ddp.pt", nn.Linear(4, 4)).of_kind("prefix")] == ["module."]


# ----------------------------------------------------------------------------------------------------------------
# An outside tester's cases: ties in a sharded folder, load hooks the meta run cannot judge, casts, inner tensors


def test_a_sharded_folder_without_the_tied_copy_is_fed_by_the_tie(tmp_path):
    import json

    st = pytest.importorskip("safetensors.torch")
    torch.manual_seed(0)
    model = TinyLM()
    sd = {k: v for k, v in model.state_dict().items() if k != "lm_head.weight"}  # Hugging Face drops the tie
    folder = tmp_path / "hf"
    folder.mkdir()
    weight_map = {}
    for i, keys in enumerate((["wte.weight"], ["ln_f.weight", "ln_f.bias"]), 1):
        name = f"model-{i:05d}-of-00002.safetensors"
        st.save_file({k: sd[k] for k in keys}, folder / name, {"format": "pt"})
        weight_map.update(dict.fromkeys(keys, name))
    (folder / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    report = inspect_checkpoint(folder, TinyLM())
    assert "missing keys" not in kinds(report) and not kinds(report, "warning"), report
    (tie,) = report.of_kind("tied keys")
    assert tie.severity == "note" and "lm_head.weight (tied to wte.weight)" in tie.message
    assert "1 through a tie" in report.load_outcome
    loaded = TinyLM()
    loaded.load_state_dict(sd, strict=False)
    assert torch.equal(loaded.lm_head.weight, sd["wte.weight"])  # what the note says
    # untied, the name is missing: from_pretrained leaves it freshly initialized
    report = inspect_checkpoint(folder, TinyLM(tie=False))
    assert report.of_kind("missing keys")[0].path == "lm_head.weight" and "tied keys" not in kinds(report)


class Checked(nn.Module):
    """A model whose load pre-hook checks a value of the file (a scale, a version tensor): .item() has no value
    on meta, so the meta run cannot try it."""

    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.ones(()))
        self.lin = nn.Linear(2, 2)
        self._register_load_state_dict_pre_hook(self._check, with_module=True)

    @staticmethod
    def _check(module, sd, prefix, *args):
        if sd[prefix + "scale"].item() > 100:
            raise ValueError("scale too large in checkpoint")


def test_a_hook_the_meta_copy_cannot_run_leaves_the_outcome_open(tmp_path):
    sd = Checked().state_dict()
    sd["scale"] = torch.tensor(1000.0)
    torch.save(sd, tmp_path / "checked.pt")
    with pytest.raises(ValueError, match="scale too large"):
        Checked().load_state_dict(torch.load(tmp_path / "checked.pt", weights_only=True))
    report = inspect_checkpoint(tmp_path / "checked.pt", Checked())
    (hook,) = report.of_kind("load hook")
    assert hook.severity == "warning" and "may still raise" in hook.message, report
    assert "will load" not in report.load_outcome and "may still raise" in report.load_outcome
    # a model deepcopy refuses, with a hook of its own: not tried either
    model = Checked()
    model.lock = threading.Lock()
    report = inspect_checkpoint(tmp_path / "checked.pt", model)
    assert report.of_kind("load hook")[0].severity == "warning" and "may still raise" in report.load_outcome


class FineTuned(nn.Module):
    """A backbone loaded into a model with a new head: a post-hook removes head.* from missing_keys."""

    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(4, 4)
        self.head = nn.Linear(4, 2)
        self.register_load_state_dict_post_hook(self._new_head)

    @staticmethod
    def _new_head(module, incompatible):
        for k in [k for k in incompatible.missing_keys if k.startswith("head.")]:
            incompatible.missing_keys.remove(k)


def test_keys_a_post_hook_hides_from_missing_keys_are_not_loaded(tmp_path):
    torch.save({k: v for k, v in FineTuned().state_dict().items() if k.startswith("backbone.")}, tmp_path / "bb.pt")
    model = FineTuned()
    head = model.head.weight.clone()
    assert real_load(model, tmp_path / "bb.pt").missing_keys == []
    model.load_state_dict(torch.load(tmp_path / "bb.pt", weights_only=True))
    assert torch.equal(model.head.weight, head)  # not filled: left as initialized
    report = inspect_checkpoint(tmp_path / "bb.pt", FineTuned())
    (hook,) = report.of_kind("load hook")
    assert hook.path == "head.weight" and "stay as the model initialized them" in hook.message, report
    assert "fills" not in hook.message and "load 2 of the 4 keys" in report.load_outcome


class Counter(nn.Module):
    def __init__(self, dtype=torch.int32):
        super().__init__()
        self.register_buffer("step", torch.zeros((), dtype=dtype))
        self.lin = nn.Linear(2, 2)


@pytest.mark.parametrize("fmt", ["pt", "safetensors"])
def test_integers_a_narrower_integer_cannot_hold_are_an_error(tmp_path, fmt):
    sd = Counter().state_dict()
    sd["step"] = torch.tensor(2**40 + 5)  # int64 in the file, int32 in the model
    path = tmp_path / f"step.{fmt}"
    if fmt == "pt":
        torch.save(sd, path)
    else:
        pytest.importorskip("safetensors.torch").save_file(sd, path)
    model = Counter()
    model.load_state_dict(sd)
    assert int(model.step) == 5  # wrapped, without a word
    report = inspect_checkpoint(path, Counter())
    (error,) = [f for f in report.of_kind("dtype mismatch") if f.severity == "error"]
    assert error.path == "step" and "wrap around (1,099,511,627,781 becomes 5)" in error.message, report
    # values that fit: the cast warning alone; and a byte into int8 past 127
    sd["step"] = torch.tensor(7)
    torch.save(sd, tmp_path / "fits.pt")
    assert not errors(inspect_checkpoint(tmp_path / "fits.pt", Counter()))
    sd["step"] = torch.tensor(200, dtype=torch.uint8)
    torch.save(sd, tmp_path / "byte.pt")
    report = inspect_checkpoint(tmp_path / "byte.pt", Counter(torch.int8))
    assert "200 becomes -56" in report.of_kind("dtype mismatch")[0].message, report


def test_what_a_narrow_cast_does_is_what_torch_does(tmp_path):
    model = nn.Linear(2, 2)
    sd = model.state_dict()
    sd["weight"][0, 0] = 1e5
    torch.save(sd, tmp_path / "big.pt")
    for dtype, said in (
        (torch.float16, None),
        (torch.float8_e4m3fn, "saturate to ±448"),
        (torch.float8_e4m3fnuz, "NaN"),
    ):
        target = copy.deepcopy(model).to(dtype) if dtype == torch.float16 else copy.deepcopy(model)
        if dtype != torch.float16:
            target.weight.data = target.weight.data.to(dtype)
        report = inspect_checkpoint(tmp_path / "big.pt", target)
        (error,) = [f for f in report.of_kind("dtype mismatch") if f.severity == "error"]
        assert (said or "±inf") in error.message and (said is None or "has no inf" in error.message), report
    # complex into real: torch warns and keeps the real part; the report says so
    torch.save({k: v.to(torch.complex64) * (1 + 1j) for k, v in model.state_dict().items()}, tmp_path / "c.pt")
    report = inspect_checkpoint(tmp_path / "c.pt", nn.Linear(2, 2))
    assert "discarding the imaginary part" in report.of_kind("dtype mismatch")[0].message, report
