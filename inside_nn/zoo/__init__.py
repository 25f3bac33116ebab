"""A zoo of real architectures in small, each written the way its code base writes it.

Every entry keeps the module and attribute names, the registration style (Parameter, buffer persistent or
not, plain attribute), and the init, tie and hook habits of the code it comes from, at widths small enough
that it builds in milliseconds on a CPU. Only torch is needed: the Hugging Face, timm, torchvision,
detectron2 and DARTS parts are re-implemented here, in small, as those code bases write them.

    from inside_nn import zoo

    model = zoo.build("gpt2")                 # seeded, leaves the caller's RNG untouched
    out = model(*zoo.inputs("gpt2"))          # example inputs; () where forward cannot or must not run
    zoo.MODELS["gpt2"].traits                 # facts about its state, from TRAITS below

The "ddp" entry wraps its model in DistributedDataParallel, which needs a process group: if none exists,
`build("ddp")` starts a one-process gloo group on a FileStore in a temporary directory (no port, no
network). `teardown()` destroys that group again if, and only if, the zoo started it.

This module holds the registry (MODELS, TRAITS, build, inputs); the architectures live by family, and
every name is also importable from here:

    language             GPT-2, LLaMA, Mixtral's sparse MoE block (Hugging Face)
    encoders             T5 and BERT (Hugging Face)
    vision_transformers  Swin Transformer, timm's VisionTransformer
    convnets             torchvision's ResNet, detectron2's FPN, the DARTS search network
    reparametrized       pruning, weight_norm, spectral_norm, LoRA, orthogonal
    shapes               a tied LSTM LM, a GCN, a VQ-VAE, lazy and meta-built models, common shapes
    wrappers             DistributedDataParallel, torch.compile, torch.fx (and teardown)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import torch
from torch import nn

# Every family's classes and functions, re-exported: `zoo.VisionTransformer`, `zoo.BasicBlock` and the
# rest are where they were when the zoo was one module, and the registry below builds from them.
from inside_nn.zoo.convnets import (  # noqa: F401
    FPN,
    OPS,
    PRIMITIVES,
    BasicBlock,
    Bottleneck,
    DartsNetwork,
    MixedOp,
    ReLUConvBN,
    ResNet,
    SearchCell,
    TinyBottomUp,
    Zero,
    c2_xavier_fill,
    conv1x1,
    conv3x3,
)
from inside_nn.zoo.encoders import (  # noqa: F401
    BertAttention,
    BertConfig,
    BertEmbeddings,
    BertEncoder,
    BertIntermediate,
    BertLayer,
    BertModel,
    BertPooler,
    BertSelfAttention,
    BertSelfOutput,
    T5Attention,
    T5Block,
    T5Config,
    T5DenseActDense,
    T5LayerCrossAttention,
    T5LayerFF,
    T5LayerNorm,
    T5LayerSelfAttention,
    T5Model,
    T5PreTrainedModel,
    T5Stack,
)
from inside_nn.zoo.language import (  # noqa: F401
    GPT2MLP,
    Conv1D,
    GPT2Attention,
    GPT2Block,
    GPT2Config,
    GPT2LMHeadModel,
    GPT2Model,
    GPT2PreTrainedModel,
    LlamaAttention,
    LlamaConfig,
    LlamaDecoderLayer,
    LlamaForCausalLM,
    LlamaMLP,
    LlamaModel,
    LlamaPreTrainedModel,
    LlamaRMSNorm,
    LlamaRotaryEmbedding,
    MixtralBlockSparseTop2MLP,
    MixtralConfig,
    MixtralSparseMoeBlock,
    NewGELUActivation,
    _hidden,
    apply_rotary_pos_emb,
    repeat_kv,
    rotate_half,
)
from inside_nn.zoo.reparametrized import (  # noqa: F401
    LRELU_SLOPE,
    Chomp1d,
    LeNet,
    LoRAMLP,
    LoRAParametrization,
    OrthogonalRNNCell,
    ResBlock2,
    SNDiscriminator,
    TemporalBlock,
    TemporalConvNet,
    _pruned,
    get_padding,
    hifigan_init_weights,
)
from inside_nn.zoo.shapes import (  # noqa: F401
    GCN,
    EncoderRNN,
    ExtraStateNet,
    FineTuner,
    GraphConvolution,
    MetaTinyLM,
    NoisyTopKRouter,
    QATNet,
    Quantize,
    ResnetBlock,
    ResnetBlock2D,
    ResnetGenerator,
    RNNModel,
    ScaledConv2d,
    TinyUNet,
    TinyVQVAE,
    TransformerClassifier,
    _image,
    _lazy_cnn,
    _lazy_cnn_dry,
    _lstm_lm_inputs,
    _meta_half,
    _vq_half,
    get_timestep_embedding,
)
from inside_nn.zoo.vision_transformers import (  # noqa: F401
    Attention,
    Block,
    LayerScale,
    Mlp,
    PatchEmbed,
    SwinTransformer,
    SwinTransformerBlock,
    TimmMlp,
    VisionTransformer,
    WindowAttention,
    init_weights_vit_timm,
    named_apply,
    window_partition,
    window_reverse,
)
from inside_nn.zoo.wrappers import ConvBNNet, ScaledMLP, _compiled, _ddp, _fx, teardown  # noqa: F401

__all__ = ["MODELS", "TRAITS", "Spec", "build", "inputs", "teardown"]

# The vocabulary of `Spec.traits`: each one is a fact a test can check on the built model.
TRAITS = {
    "tied": "one Parameter reachable under two or more names",
    "shared-module": "one submodule registered under two or more names",
    "persistent-buffer": "a buffer that state_dict() saves",
    "non-persistent-buffer": "a buffer that state_dict() leaves out",
    "int-buffer": "a buffer of an integer dtype (counters, indices, zero points)",
    "bool-buffer": "a buffer of dtype torch.bool",
    "half-buffer": "a floating buffer in float16 or bfloat16",
    "none-buffer": "a buffer slot registered as None (register_buffer(name, None))",
    "computed-buffer": "a buffer __init__ computes from a formula (causal mask, inv_freq, an index table)",
    "parametrized": "a parametrization registered with torch.nn.utils.parametrize",
    "hook-weight": "a weight recomputed from other parameters by a forward pre-hook",
    "plain-tensor-attribute": "a tensor held as a plain attribute (neither Parameter nor buffer)",
    "plain-list-aliases-registered": ("a plain list attribute holding modules or tensors that are also registered"),
    "plain-list-unregistered": "a plain list attribute holding modules or tensors that are not registered",
    "lazy-uninitialized": "an UninitializedParameter or UninitializedBuffer (lazy module before its dry run)",
    "meta": "a parameter or buffer on the meta device",
    "sparse": "a sparse tensor among the model's state",
    "wrapper": "a DistributedDataParallel or torch.compile wrapper around the real model",
    "fx": "a torch.fx.GraphModule",
    "batchnorm": "a BatchNorm layer (running statistics, num_batches_tracked)",
    "rnn": "a cuDNN-style RNN (LSTM, GRU) with flat weights",
    "no-reset-parameters-leaf": "a module owning parameters directly but without reset_parameters()",
    "frozen": "a parameter with requires_grad=False",
    "extra-state": "a module overriding get_extra_state()",
    "zero-init-weight": "a weight matrix or norm scale that __init__ sets to zeros",
    "generator": "a torch.Generator kept as an attribute",
}


@dataclasses.dataclass(frozen=True)
class Spec:
    name: str
    build: Callable[[], nn.Module]
    inputs: Callable[[], tuple]
    about: str
    traits: frozenset[str]


def _seeded(fn: Callable, seed: int):
    """fn() with the CPU generator seeded, restored afterwards. Only the CPU generator: every zoo model and
    input is made on the CPU, and torch.manual_seed would also reseed (and leave reseeded, fork_rng(devices=[])
    restores the CPU alone) every accelerator's generator, at a stack trace per device type (milliseconds)."""
    with torch.random.fork_rng(devices=[]):
        torch.default_generator.manual_seed(seed)
        return fn()


def build(name: str, seed: int = 0) -> nn.Module:
    """MODELS[name].build() with the CPU generator seeded with `seed`, without touching the caller's RNG."""
    return _seeded(MODELS[name].build, seed)


def inputs(name: str, seed: int = 0) -> tuple:
    """MODELS[name].inputs() with the CPU generator seeded with `seed`, without touching the caller's RNG."""
    return _seeded(MODELS[name].inputs, seed)


def _tokens(batch: int = 2, length: int = 8, vocab: int = 64) -> torch.Tensor:
    return torch.randint(0, vocab, (batch, length))


# --------------------------------------------------------------------------------------------------
# The registry.


def _spec(name, build, inputs, about, *traits):
    unknown = set(traits) - TRAITS.keys()
    if unknown:
        raise ValueError(f"{name}: traits not in TRAITS: {sorted(unknown)}")
    return Spec(name, build, inputs, about, frozenset(traits))


def _no_inputs():
    return ()


_SPECS = [
    _spec(
        "gpt2",
        lambda: GPT2LMHeadModel(GPT2Config()),
        lambda: (_tokens(),),
        "HF GPT-2 (4.2x): Conv1D with (in, out) weights and no reset_parameters, persistent bool "
        "causal-mask buffer `bias` and `masked_bias`, post_init, lm_head tied to wte",
        "tied",
        "persistent-buffer",
        "bool-buffer",
        "computed-buffer",
        "no-reset-parameters-leaf",
    ),
    _spec(
        "llama",
        lambda: LlamaForCausalLM(LlamaConfig()),
        lambda: (_tokens(),),
        "HF LLaMA (4.3x): RMSNorm, rotary embedding per layer with non-persistent inv_freq and "
        "cos/sin caches, GQA (4 heads, 2 KV heads), SwiGLU MLP, untied lm_head",
        "non-persistent-buffer",
        "computed-buffer",
        "no-reset-parameters-leaf",
    ),
    _spec(
        "t5",
        lambda: T5Model(T5Config()),
        lambda: (_tokens(), _tokens(length=6)),
        "HF T5Model: one `shared` Embedding module handed to encoder and decoder (three names, "
        "one Parameter), T5LayerNorm, relative attention bias in the first block",
        "tied",
        "shared-module",
        "no-reset-parameters-leaf",
    ),
    _spec(
        "swin",
        SwinTransformer,
        _image,
        "Swin Transformer: WindowAttention with a relative_position_bias_table Parameter and a "
        "persistent int64 relative_position_index buffer; attn_mask buffer None when unshifted",
        "persistent-buffer",
        "int-buffer",
        "computed-buffer",
        "none-buffer",
        "no-reset-parameters-leaf",
    ),
    _spec(
        "vit",
        VisionTransformer,
        _image,
        "timm ViT: patch_embed.proj, cls_token and pos_embed Parameters on the top module, "
        "LayerScale ls1.gamma / ls2.gamma, init_weights with trunc_normal_ and named_apply",
        "no-reset-parameters-leaf",
    ),
    _spec(
        "resnet",
        lambda: ResNet(BasicBlock, [1, 1, 1, 1], zero_init_residual=True),
        lambda: _image(size=32),
        "torchvision ResNet-10 with BasicBlock: kaiming loop in __init__, zero_init_residual=True "
        "zeroes every bn2.weight; widths 8..64 instead of 64..512",
        "batchnorm",
        "persistent-buffer",
        "int-buffer",
        "zero-init-weight",
    ),
    _spec(
        "resnet-bottleneck",
        lambda: ResNet(Bottleneck, [1, 1, 1, 1], zero_init_residual=True, widths=(4, 8, 8, 8)),
        lambda: _image(size=32),
        "torchvision ResNet with Bottleneck blocks (expansion 4): zero_init_residual=True zeroes every bn3.weight",
        "batchnorm",
        "persistent-buffer",
        "int-buffer",
        "zero-init-weight",
    ),
    _spec(
        "lstm-lm",
        lambda: RNNModel("LSTM", 64, 16, 16, 2, dropout=0.2, tie_weights=True),
        _lstm_lm_inputs,
        "pytorch/examples word_language_model: 2-layer LSTM, decoder.weight = encoder.weight",
        "tied",
        "rnn",
        "plain-list-aliases-registered",
    ),
    _spec(
        "fpn",
        lambda: FPN(TinyBottomUp(), ["res2", "res3", "res4"], out_channels=8),
        lambda: _image(size=32),
        "detectron2 FPN: fpn_lateral{stage} / fpn_output{stage} via add_module and the same convs "
        "in plain lists self.lateral_convs / self.output_convs (reversed)",
        "plain-list-aliases-registered",
    ),
    _spec(
        "darts",
        DartsNetwork,
        lambda: _image(size=8),
        "DARTS search network: MixedOp cells, alphas_normal / alphas_reduce plain tensors with "
        "requires_grad=True in a plain list self._arch_parameters, not registered",
        "plain-tensor-attribute",
        "plain-list-unregistered",
        "batchnorm",
        "persistent-buffer",
        "int-buffer",
    ),
    _spec(
        "prune",
        _pruned,
        lambda: (torch.randn(2, 16),),
        "torch.nn.utils.prune.l1_unstructured(fc1, 'weight', 0.3): fc1.weight_orig Parameter, "
        "fc1.weight_mask buffer, fc1.weight a plain tensor a forward pre-hook recomputes",
        "hook-weight",
        "persistent-buffer",
        "plain-tensor-attribute",
    ),
    _spec(
        "weight-norm-hook",
        TemporalConvNet,
        lambda: (torch.randn(2, 3, 16),),
        "locuslab TCN: old torch.nn.utils.weight_norm (weight_g, weight_v, pre-hook) on every "
        "conv, registered both as conv1 and as net.0; init_weights writes normal_ into the "
        "recomputed conv.weight",
        "hook-weight",
        "shared-module",
        "tied",
        "plain-tensor-attribute",
    ),
    _spec(
        "weight-norm",
        ResBlock2,
        lambda: (torch.randn(2, 8, 16),),
        "HiFi-GAN ResBlock2 with torch.nn.utils.parametrizations.weight_norm: "
        "parametrizations.weight.original0 / original1",
        "parametrized",
        "no-reset-parameters-leaf",
    ),
    _spec(
        "spectral-norm-hook",
        SNDiscriminator,
        _image,
        "SN-GAN discriminator with old torch.nn.utils.spectral_norm: weight_orig Parameter, "
        "weight_u / weight_v buffers, weight a plain tensor recomputed by a pre-hook",
        "hook-weight",
        "persistent-buffer",
        "plain-tensor-attribute",
    ),
    _spec(
        "spectral-norm",
        lambda: SNDiscriminator(sn=nn.utils.parametrizations.spectral_norm),
        _image,
        "the same discriminator with torch.nn.utils.parametrizations.spectral_norm: "
        "parametrizations.weight.original, _u / _v buffers inside the parametrization",
        "parametrized",
        "no-reset-parameters-leaf",
        "persistent-buffer",
    ),
    _spec(
        "lora",
        LoRAMLP,
        lambda: (torch.randn(2, 16),),
        "LoRA via parametrize.register_parametrization: frozen base weight as "
        "parametrizations.weight.original, lora_A (kaiming) and lora_B (zeros) trainable",
        "parametrized",
        "no-reset-parameters-leaf",
        "frozen",
        "zero-init-weight",
    ),
    _spec(
        "orthogonal",
        OrthogonalRNNCell,
        lambda: (torch.randn(2, 8), torch.randn(2, 16)),
        "an orthogonal RNN cell with torch.nn.utils.parametrizations.orthogonal on "
        "recurrent_kernel (matrix_exp, a `base` buffer in the parametrization)",
        "parametrized",
        "no-reset-parameters-leaf",
        "persistent-buffer",
    ),
    _spec(
        "gcn-buffer",
        lambda: GCN(adj_as_buffer=True),
        lambda: (torch.randn(6, 8),),
        "pygcn GCN (GraphConvolution with its own reset_parameters) with the sparse COO "
        "adjacency registered as a buffer",
        "sparse",
        "persistent-buffer",
        "computed-buffer",
    ),
    _spec(
        "gcn-attr",
        lambda: GCN(adj_as_buffer=False),
        lambda: (torch.randn(6, 8),),
        "pygcn GCN with the sparse COO adjacency kept as a plain attribute self.adj",
        "sparse",
        "plain-tensor-attribute",
    ),
    _spec(
        "vq-ema",
        _vq_half,
        lambda: (torch.randn(2, 3, 16, 16).half(),),
        "VQ-VAE-2 (rosinality) Quantize: EMA codebook buffers embed / cluster_size / embed_avg "
        "updated in place by forward, the whole model .half()-ed",
        "half-buffer",
        "persistent-buffer",
    ),
    _spec(
        "lazy-cnn",
        _lazy_cnn,
        _image,
        "LazyConv2d, LazyBatchNorm2d, LazyLinear before the dry run (UninitializedParameter)",
        "lazy-uninitialized",
        "batchnorm",
        "persistent-buffer",
        "int-buffer",
    ),
    _spec(
        "lazy-cnn-dry",
        _lazy_cnn_dry,
        _image,
        "the same lazy CNN after its dry run under no_grad in eval mode (now Conv2d, BatchNorm2d, Linear)",
        "batchnorm",
        "persistent-buffer",
        "int-buffer",
    ),
    _spec(
        "meta-half",
        _meta_half,
        _no_inputs,
        "built under torch.device('meta'); embed and encoder materialized with to_empty and reset, head still on meta",
        "meta",
        "no-reset-parameters-leaf",
    ),
    _spec(
        "ddp",
        _ddp,
        _image,
        "DistributedDataParallel around a Conv-BN net, gloo, world size 1 (the zoo starts a "
        "FileStore process group if none exists; zoo.teardown() ends it); keys start with module.",
        "wrapper",
        "batchnorm",
        "persistent-buffer",
        "int-buffer",
        "plain-list-aliases-registered",
    ),
    _spec(
        "compiled",
        _compiled,
        _no_inputs,
        "torch.compile(model) before any call: an OptimizedModule holding _orig_mod (never run "
        "here); keys start with _orig_mod.",
        "wrapper",
        "batchnorm",
        "persistent-buffer",
        "int-buffer",
    ),
    _spec(
        "fx",
        _fx,
        lambda: (torch.randn(2, 16),),
        "torch.fx.symbolic_trace of an MLP with a non-persistent buffer: the GraphModule "
        "re-registers it as a persistent one",
        "fx",
        "persistent-buffer",
    ),
    _spec(
        "moe",
        lambda: MixtralSparseMoeBlock(MixtralConfig()),
        _hidden,
        "HF Mixtral sparse MoE block: gate Linear and experts (w1, w2, w3) in nn.ModuleList",
    ),
    _spec(
        "moe-list",
        lambda: MixtralSparseMoeBlock(MixtralConfig(), plain_list=True),
        _hidden,
        "the same MoE block with its experts in a plain Python list: only the gate is registered",
        "plain-list-unregistered",
    ),
    _spec(
        "bert",
        lambda: BertModel(BertConfig()),
        lambda: (_tokens(),),
        "HF BERT (4.1x): position_ids a persistent int64 buffer, token_type_ids a non-persistent "
        "one, LayerNorm named LayerNorm, _init_weights through post_init",
        "persistent-buffer",
        "non-persistent-buffer",
        "int-buffer",
        "computed-buffer",
    ),
    _spec(
        "extra-state",
        ExtraStateNet,
        _image,
        "a conv net whose ScaledConv2d layers keep a recipe and an amax history through "
        "get_extra_state / set_extra_state (Transformer Engine style)",
        "extra-state",
    ),
    _spec(
        "frozen-backbone",
        FineTuner,
        lambda: _image(size=32),
        "torchvision fine-tuning: ResNet backbone with requires_grad=False, a fresh fc head",
        "frozen",
        "batchnorm",
        "persistent-buffer",
        "int-buffer",
    ),
    _spec(
        "unet",
        TinyUNet,
        lambda: (torch.randn(2, 3, 16, 16), torch.tensor([10, 500])),
        "a diffusers-style UNet: ResnetBlock2D with GroupNorm, SiLU and time_emb_proj, sinusoidal timestep embedding",
    ),
    _spec(
        "transformer",
        TransformerClassifier,
        lambda: (_tokens(),),
        "nn.TransformerEncoder of deep-copied TransformerEncoderLayers; MultiheadAttention has "
        "in_proj_weight and only _reset_parameters",
        "no-reset-parameters-leaf",
    ),
    _spec(
        "gru",
        EncoderRNN,
        lambda: (_tokens(),),
        "a seq2seq bidirectional GRU encoder calling self.gru.flatten_parameters() in forward",
        "rnn",
        "plain-list-aliases-registered",
    ),
    _spec(
        "cyclegan",
        ResnetGenerator,
        _image,
        "CycleGAN ResnetGenerator with InstanceNorm2d (weight, bias, running stats all None), "
        "init via net.apply(init_func)",
        "none-buffer",
    ),
    _spec(
        "qat",
        QATNet,
        lambda: (torch.randn(2, 16),),
        "torch.ao FakeQuantize with MovingAverageMinMaxObserver: uint8 enable flags, int32 "
        "zero_point, min_val / max_val, plus a num_batches_tracked counter",
        "int-buffer",
        "persistent-buffer",
    ),
    _spec(
        "noisy-router",
        NoisyTopKRouter,
        _hidden,
        "noisy top-k gating: zero-initialized w_gate / w_noise on a module without "
        "reset_parameters, its own torch.Generator, plain float settings",
        "generator",
        "zero-init-weight",
        "no-reset-parameters-leaf",
    ),
]

MODELS: dict[str, Spec] = {spec.name: spec for spec in _SPECS}
