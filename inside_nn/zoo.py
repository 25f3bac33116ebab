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
"""

from __future__ import annotations

import copy
import dataclasses
import math
import shutil
import tempfile
import warnings
from collections.abc import Callable

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import parametrize, prune

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
    "plain-list-aliases-registered": (
        "a plain list attribute holding modules or tensors that are also registered"
    ),
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
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return fn()


def build(name: str, seed: int = 0) -> nn.Module:
    """MODELS[name].build() under torch.manual_seed(seed), without touching the caller's RNG."""
    return _seeded(MODELS[name].build, seed)


def inputs(name: str, seed: int = 0) -> tuple:
    """MODELS[name].inputs() under torch.manual_seed(seed), without touching the caller's RNG."""
    return _seeded(MODELS[name].inputs, seed)


def _tokens(batch: int = 2, length: int = 8, vocab: int = 64) -> torch.Tensor:
    return torch.randint(0, vocab, (batch, length))


# --------------------------------------------------------------------------------------------------
# Hugging Face GPT-2 (transformers 4.2x): Conv1D with weight (in, out), a persistent bool causal mask
# `bias` and a `masked_bias`, _init_weights through post_init, lm_head tied to wte.


@dataclasses.dataclass
class GPT2Config:
    vocab_size: int = 64
    n_positions: int = 32
    n_embd: int = 16
    n_layer: int = 2
    n_head: int = 2
    layer_norm_epsilon: float = 1e-5
    initializer_range: float = 0.02
    pdrop: float = 0.1


class Conv1D(nn.Module):
    """transformers.pytorch_utils.Conv1D: a Linear whose weight is stored transposed, (in, out)."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.empty(nx, nf))
        self.bias = nn.Parameter(torch.zeros(nf))
        nn.init.normal_(self.weight, std=0.02)

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


class NewGELUActivation(nn.Module):
    def forward(self, input):
        return (
            0.5
            * input
            * (
                1.0
                + torch.tanh(
                    math.sqrt(2.0 / math.pi)
                    * (input + 0.044715 * torch.pow(input, 3.0))
                )
            )
        )


class GPT2Attention(nn.Module):
    def __init__(self, config):
        super().__init__()
        max_positions = config.n_positions
        self.register_buffer(
            "bias",
            torch.tril(
                torch.ones((max_positions, max_positions), dtype=torch.bool)
            ).view(1, 1, max_positions, max_positions),
        )
        self.register_buffer("masked_bias", torch.tensor(-1e4))
        self.embed_dim = config.n_embd
        self.num_heads = config.n_head
        self.head_dim = self.embed_dim // self.num_heads
        self.c_attn = Conv1D(3 * self.embed_dim, self.embed_dim)
        self.c_proj = Conv1D(self.embed_dim, self.embed_dim)
        self.attn_dropout = nn.Dropout(config.pdrop)
        self.resid_dropout = nn.Dropout(config.pdrop)

    def _split_heads(self, tensor):
        new_shape = tensor.size()[:-1] + (self.num_heads, self.head_dim)
        return tensor.view(new_shape).permute(0, 2, 1, 3)

    def _attn(self, query, key, value):
        attn_weights = torch.matmul(query, key.transpose(-1, -2))
        attn_weights = attn_weights / torch.full(
            [], value.size(-1) ** 0.5, dtype=attn_weights.dtype
        )
        query_length, key_length = query.size(-2), key.size(-2)
        causal_mask = self.bias[
            :, :, key_length - query_length : key_length, :key_length
        ]
        mask_value = torch.full(
            [], torch.finfo(attn_weights.dtype).min, dtype=attn_weights.dtype
        )
        attn_weights = torch.where(causal_mask, attn_weights, mask_value)
        attn_weights = nn.functional.softmax(attn_weights, dim=-1)
        attn_weights = self.attn_dropout(attn_weights)
        return torch.matmul(attn_weights, value)

    def forward(self, hidden_states):
        query, key, value = self.c_attn(hidden_states).split(self.embed_dim, dim=2)
        query, key, value = map(self._split_heads, (query, key, value))
        attn_output = self._attn(query, key, value)
        attn_output = attn_output.permute(0, 2, 1, 3).contiguous()
        attn_output = attn_output.view(attn_output.size()[:-2] + (self.embed_dim,))
        return self.resid_dropout(self.c_proj(attn_output))


class GPT2MLP(nn.Module):
    def __init__(self, intermediate_size, config):
        super().__init__()
        self.c_fc = Conv1D(intermediate_size, config.n_embd)
        self.c_proj = Conv1D(config.n_embd, intermediate_size)
        self.act = NewGELUActivation()
        self.dropout = nn.Dropout(config.pdrop)

    def forward(self, hidden_states):
        return self.dropout(self.c_proj(self.act(self.c_fc(hidden_states))))


class GPT2Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)
        self.attn = GPT2Attention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)
        self.mlp = GPT2MLP(4 * config.n_embd, config)

    def forward(self, hidden_states):
        hidden_states = hidden_states + self.attn(self.ln_1(hidden_states))
        return hidden_states + self.mlp(self.ln_2(hidden_states))


class GPT2PreTrainedModel(nn.Module):
    """The PreTrainedModel habits: post_init() = apply(_init_weights) and then tie_weights()."""

    def post_init(self):
        self.apply(self._init_weights)
        self.tie_weights()

    def tie_weights(self):
        pass

    def _init_weights(self, module):
        std = self.config.initializer_range
        if isinstance(module, (nn.Linear, Conv1D)):
            module.weight.data.normal_(mean=0.0, std=std)
            if module.bias is not None:
                module.bias.data.zero_()
        elif isinstance(module, nn.Embedding):
            module.weight.data.normal_(mean=0.0, std=std)
        elif isinstance(module, nn.LayerNorm):
            module.bias.data.zero_()
            module.weight.data.fill_(1.0)
        for name, p in module.named_parameters():
            if name == "c_proj.weight":
                p.data.normal_(mean=0.0, std=std / math.sqrt(2 * self.config.n_layer))


class GPT2Model(GPT2PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = nn.Embedding(config.n_positions, config.n_embd)
        self.drop = nn.Dropout(config.pdrop)
        self.h = nn.ModuleList([GPT2Block(config) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)
        self.post_init()

    def forward(self, input_ids):
        position_ids = torch.arange(input_ids.size(-1)).unsqueeze(0)
        hidden_states = self.drop(self.wte(input_ids) + self.wpe(position_ids))
        for block in self.h:
            hidden_states = block(hidden_states)
        return self.ln_f(hidden_states)


class GPT2LMHeadModel(GPT2PreTrainedModel):
    _tied_weights_keys = ("lm_head.weight",)

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = GPT2Model(config)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.post_init()

    def get_input_embeddings(self):
        return self.transformer.wte

    def get_output_embeddings(self):
        return self.lm_head

    def tie_weights(self):
        self.get_output_embeddings().weight = self.get_input_embeddings().weight

    def forward(self, input_ids):
        return self.lm_head(self.transformer(input_ids))


# --------------------------------------------------------------------------------------------------
# Hugging Face LLaMA (transformers 4.3x): RMSNorm without reset_parameters, rotary embedding per
# attention layer with non-persistent inv_freq / cos_cached / sin_cached, GQA, SwiGLU MLP.


@dataclasses.dataclass
class LlamaConfig:
    vocab_size: int = 64
    hidden_size: int = 16
    intermediate_size: int = 32
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    max_position_embeddings: int = 32
    rope_theta: float = 10000.0
    rms_norm_eps: float = 1e-6
    initializer_range: float = 0.02


class LlamaRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


class LlamaRotaryEmbedding(nn.Module):
    def __init__(self, dim, max_position_embeddings=2048, base=10000, device=None):
        super().__init__()
        self.dim = dim
        self.max_position_embeddings = max_position_embeddings
        self.base = base
        inv_freq = 1.0 / (
            self.base ** (torch.arange(0, self.dim, 2).float().to(device) / self.dim)
        )
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self._set_cos_sin_cache(
            seq_len=max_position_embeddings,
            device=self.inv_freq.device,
            dtype=torch.get_default_dtype(),
        )

    def _set_cos_sin_cache(self, seq_len, device, dtype):
        self.max_seq_len_cached = seq_len
        t = torch.arange(
            self.max_seq_len_cached, device=device, dtype=self.inv_freq.dtype
        )
        freqs = torch.outer(t, self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos().to(dtype), persistent=False)
        self.register_buffer("sin_cached", emb.sin().to(dtype), persistent=False)

    def forward(self, x, seq_len=None):
        if seq_len > self.max_seq_len_cached:
            self._set_cos_sin_cache(seq_len=seq_len, device=x.device, dtype=x.dtype)
        return (
            self.cos_cached[:seq_len].to(dtype=x.dtype),
            self.sin_cached[:seq_len].to(dtype=x.dtype),
        )


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, position_ids):
    cos = cos[position_ids].unsqueeze(1)
    sin = sin[position_ids].unsqueeze(1)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


def repeat_kv(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(
        batch, num_key_value_heads, n_rep, slen, head_dim
    )
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


class LlamaAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.hidden_size = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.head_dim = self.hidden_size // self.num_heads
        self.num_key_value_heads = config.num_key_value_heads
        self.num_key_value_groups = self.num_heads // self.num_key_value_heads
        self.max_position_embeddings = config.max_position_embeddings
        self.rope_theta = config.rope_theta
        self.q_proj = nn.Linear(
            self.hidden_size, self.num_heads * self.head_dim, bias=False
        )
        self.k_proj = nn.Linear(
            self.hidden_size, self.num_key_value_heads * self.head_dim, bias=False
        )
        self.v_proj = nn.Linear(
            self.hidden_size, self.num_key_value_heads * self.head_dim, bias=False
        )
        self.o_proj = nn.Linear(
            self.num_heads * self.head_dim, self.hidden_size, bias=False
        )
        self._init_rope()

    def _init_rope(self):
        self.rotary_emb = LlamaRotaryEmbedding(
            self.head_dim,
            max_position_embeddings=self.max_position_embeddings,
            base=self.rope_theta,
        )

    def forward(self, hidden_states, attention_mask, position_ids):
        bsz, q_len, _ = hidden_states.size()
        query_states = self.q_proj(hidden_states)
        key_states = self.k_proj(hidden_states)
        value_states = self.v_proj(hidden_states)
        query_states = query_states.view(bsz, q_len, self.num_heads, self.head_dim)
        key_states = key_states.view(
            bsz, q_len, self.num_key_value_heads, self.head_dim
        )
        value_states = value_states.view(
            bsz, q_len, self.num_key_value_heads, self.head_dim
        )
        query_states, key_states, value_states = (
            s.transpose(1, 2) for s in (query_states, key_states, value_states)
        )
        cos, sin = self.rotary_emb(value_states, seq_len=q_len)
        query_states, key_states = apply_rotary_pos_emb(
            query_states, key_states, cos, sin, position_ids
        )
        key_states = repeat_kv(key_states, self.num_key_value_groups)
        value_states = repeat_kv(value_states, self.num_key_value_groups)
        attn_weights = torch.matmul(
            query_states, key_states.transpose(2, 3)
        ) / math.sqrt(self.head_dim)
        attn_weights = attn_weights + attention_mask
        attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32)
        attn_output = torch.matmul(attn_weights.to(query_states.dtype), value_states)
        attn_output = attn_output.transpose(1, 2).reshape(bsz, q_len, self.hidden_size)
        return self.o_proj(attn_output)


class LlamaMLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.gate_proj = nn.Linear(
            config.hidden_size, config.intermediate_size, bias=False
        )
        self.up_proj = nn.Linear(
            config.hidden_size, config.intermediate_size, bias=False
        )
        self.down_proj = nn.Linear(
            config.intermediate_size, config.hidden_size, bias=False
        )
        self.act_fn = nn.SiLU()

    def forward(self, x):
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


class LlamaDecoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.hidden_size = config.hidden_size
        self.self_attn = LlamaAttention(config)
        self.mlp = LlamaMLP(config)
        self.input_layernorm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_attention_layernorm = LlamaRMSNorm(
            config.hidden_size, eps=config.rms_norm_eps
        )

    def forward(self, hidden_states, attention_mask, position_ids):
        residual = hidden_states
        hidden_states = self.self_attn(
            self.input_layernorm(hidden_states), attention_mask, position_ids
        )
        hidden_states = residual + hidden_states
        residual = hidden_states
        return residual + self.mlp(self.post_attention_layernorm(hidden_states))


class LlamaPreTrainedModel(GPT2PreTrainedModel):
    def _init_weights(self, module):
        std = self.config.initializer_range
        if isinstance(module, nn.Linear):
            module.weight.data.normal_(mean=0.0, std=std)
            if module.bias is not None:
                module.bias.data.zero_()
        elif isinstance(module, nn.Embedding):
            module.weight.data.normal_(mean=0.0, std=std)
            if module.padding_idx is not None:
                module.weight.data[module.padding_idx].zero_()


class LlamaModel(LlamaPreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.padding_idx = 0
        self.embed_tokens = nn.Embedding(
            config.vocab_size, config.hidden_size, self.padding_idx
        )
        self.layers = nn.ModuleList(
            [LlamaDecoderLayer(config) for _ in range(config.num_hidden_layers)]
        )
        self.norm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_init()

    def forward(self, input_ids):
        seq_length = input_ids.shape[1]
        position_ids = torch.arange(seq_length).unsqueeze(0)
        hidden_states = self.embed_tokens(input_ids)
        mask = torch.full(
            (seq_length, seq_length), torch.finfo(hidden_states.dtype).min
        )
        attention_mask = torch.triu(mask, diagonal=1)[None, None]
        for decoder_layer in self.layers:
            hidden_states = decoder_layer(hidden_states, attention_mask, position_ids)
        return self.norm(hidden_states)


class LlamaForCausalLM(LlamaPreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.model = LlamaModel(config)
        self.vocab_size = config.vocab_size
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.post_init()

    def forward(self, input_ids):
        return self.lm_head(self.model(input_ids)).float()


# --------------------------------------------------------------------------------------------------
# Hugging Face T5 (transformers 4.3x): one `shared` Embedding module handed to both stacks, so
# shared.weight, encoder.embed_tokens.weight and decoder.embed_tokens.weight are three names of one
# Parameter; T5LayerNorm without bias or reset_parameters; relative position bias in the first block.


@dataclasses.dataclass
class T5Config:
    vocab_size: int = 64
    d_model: int = 16
    d_kv: int = 8
    d_ff: int = 32
    num_layers: int = 2
    num_heads: int = 2
    relative_attention_num_buckets: int = 8
    relative_attention_max_distance: int = 16
    dropout_rate: float = 0.1
    layer_norm_epsilon: float = 1e-6
    initializer_factor: float = 1.0
    is_decoder: bool = False


class T5LayerNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        variance = hidden_states.to(torch.float32).pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states


class T5DenseActDense(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.wi = nn.Linear(config.d_model, config.d_ff, bias=False)
        self.wo = nn.Linear(config.d_ff, config.d_model, bias=False)
        self.dropout = nn.Dropout(config.dropout_rate)
        self.act = nn.ReLU()

    def forward(self, hidden_states):
        return self.wo(self.dropout(self.act(self.wi(hidden_states))))


class T5LayerFF(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.DenseReluDense = T5DenseActDense(config)
        self.layer_norm = T5LayerNorm(config.d_model, eps=config.layer_norm_epsilon)
        self.dropout = nn.Dropout(config.dropout_rate)

    def forward(self, hidden_states):
        forwarded_states = self.DenseReluDense(self.layer_norm(hidden_states))
        return hidden_states + self.dropout(forwarded_states)


class T5Attention(nn.Module):
    def __init__(self, config, has_relative_attention_bias=False):
        super().__init__()
        self.is_decoder = config.is_decoder
        self.has_relative_attention_bias = has_relative_attention_bias
        self.relative_attention_num_buckets = config.relative_attention_num_buckets
        self.relative_attention_max_distance = config.relative_attention_max_distance
        self.d_model = config.d_model
        self.key_value_proj_dim = config.d_kv
        self.n_heads = config.num_heads
        self.dropout = config.dropout_rate
        self.inner_dim = self.n_heads * self.key_value_proj_dim
        self.q = nn.Linear(self.d_model, self.inner_dim, bias=False)
        self.k = nn.Linear(self.d_model, self.inner_dim, bias=False)
        self.v = nn.Linear(self.d_model, self.inner_dim, bias=False)
        self.o = nn.Linear(self.inner_dim, self.d_model, bias=False)
        if self.has_relative_attention_bias:
            self.relative_attention_bias = nn.Embedding(
                self.relative_attention_num_buckets, self.n_heads
            )

    @staticmethod
    def _relative_position_bucket(
        relative_position, bidirectional=True, num_buckets=32, max_distance=128
    ):
        relative_buckets = 0
        if bidirectional:
            num_buckets //= 2
            relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
            relative_position = torch.abs(relative_position)
        else:
            relative_position = -torch.min(
                relative_position, torch.zeros_like(relative_position)
            )
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact
        relative_position_if_large = max_exact + (
            torch.log(relative_position.float() / max_exact)
            / math.log(max_distance / max_exact)
            * (num_buckets - max_exact)
        ).to(torch.long)
        relative_position_if_large = torch.min(
            relative_position_if_large,
            torch.full_like(relative_position_if_large, num_buckets - 1),
        )
        relative_buckets += torch.where(
            is_small, relative_position, relative_position_if_large
        )
        return relative_buckets

    def compute_bias(self, query_length, key_length):
        context_position = torch.arange(query_length, dtype=torch.long)[:, None]
        memory_position = torch.arange(key_length, dtype=torch.long)[None, :]
        relative_position = memory_position - context_position
        relative_position_bucket = self._relative_position_bucket(
            relative_position,
            bidirectional=(not self.is_decoder),
            num_buckets=self.relative_attention_num_buckets,
            max_distance=self.relative_attention_max_distance,
        )
        values = self.relative_attention_bias(relative_position_bucket)
        return values.permute([2, 0, 1]).unsqueeze(0)

    def forward(
        self, hidden_states, mask=None, key_value_states=None, position_bias=None
    ):
        batch_size, seq_length = hidden_states.shape[:2]
        source = hidden_states if key_value_states is None else key_value_states

        def shape(states):
            return states.view(
                batch_size, -1, self.n_heads, self.key_value_proj_dim
            ).transpose(1, 2)

        query_states = shape(self.q(hidden_states))
        key_states = shape(self.k(source))
        value_states = shape(self.v(source))
        scores = torch.matmul(query_states, key_states.transpose(3, 2))
        if position_bias is None:
            if self.has_relative_attention_bias:
                position_bias = self.compute_bias(seq_length, key_states.shape[2])
            else:
                position_bias = torch.zeros(
                    (1, self.n_heads, seq_length, key_states.shape[2]),
                    dtype=scores.dtype,
                )
            if mask is not None:
                position_bias = position_bias + mask
        scores = scores + position_bias
        attn_weights = nn.functional.softmax(scores.float(), dim=-1).type_as(scores)
        attn_weights = nn.functional.dropout(
            attn_weights, p=self.dropout, training=self.training
        )
        attn_output = torch.matmul(attn_weights, value_states)
        attn_output = (
            attn_output.transpose(1, 2)
            .contiguous()
            .view(batch_size, -1, self.inner_dim)
        )
        return self.o(attn_output), position_bias


class T5LayerSelfAttention(nn.Module):
    def __init__(self, config, has_relative_attention_bias=False):
        super().__init__()
        self.SelfAttention = T5Attention(config, has_relative_attention_bias)
        self.layer_norm = T5LayerNorm(config.d_model, eps=config.layer_norm_epsilon)
        self.dropout = nn.Dropout(config.dropout_rate)

    def forward(self, hidden_states, mask=None, position_bias=None):
        attention_output, position_bias = self.SelfAttention(
            self.layer_norm(hidden_states), mask=mask, position_bias=position_bias
        )
        return hidden_states + self.dropout(attention_output), position_bias


class T5LayerCrossAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.EncDecAttention = T5Attention(config, has_relative_attention_bias=False)
        self.layer_norm = T5LayerNorm(config.d_model, eps=config.layer_norm_epsilon)
        self.dropout = nn.Dropout(config.dropout_rate)

    def forward(self, hidden_states, key_value_states):
        attention_output, _ = self.EncDecAttention(
            self.layer_norm(hidden_states), key_value_states=key_value_states
        )
        return hidden_states + self.dropout(attention_output)


class T5Block(nn.Module):
    def __init__(self, config, has_relative_attention_bias=False):
        super().__init__()
        self.is_decoder = config.is_decoder
        self.layer = nn.ModuleList()
        self.layer.append(T5LayerSelfAttention(config, has_relative_attention_bias))
        if self.is_decoder:
            self.layer.append(T5LayerCrossAttention(config))
        self.layer.append(T5LayerFF(config))

    def forward(self, hidden_states, mask, position_bias, encoder_hidden_states=None):
        hidden_states, position_bias = self.layer[0](hidden_states, mask, position_bias)
        if self.is_decoder:
            hidden_states = self.layer[1](hidden_states, encoder_hidden_states)
        return self.layer[-1](hidden_states), position_bias


class T5Stack(nn.Module):
    def __init__(self, config, embed_tokens=None):
        super().__init__()
        self.embed_tokens = embed_tokens
        self.is_decoder = config.is_decoder
        self.block = nn.ModuleList(
            [
                T5Block(config, has_relative_attention_bias=bool(i == 0))
                for i in range(config.num_layers)
            ]
        )
        self.final_layer_norm = T5LayerNorm(
            config.d_model, eps=config.layer_norm_epsilon
        )
        self.dropout = nn.Dropout(config.dropout_rate)

    def forward(self, input_ids, encoder_hidden_states=None):
        hidden_states = self.dropout(self.embed_tokens(input_ids))
        mask = None
        if self.is_decoder:
            length = input_ids.shape[1]
            mask = torch.triu(
                torch.full((length, length), torch.finfo(hidden_states.dtype).min),
                diagonal=1,
            )
        position_bias = None
        for layer_module in self.block:
            hidden_states, position_bias = layer_module(
                hidden_states, mask, position_bias, encoder_hidden_states
            )
        return self.dropout(self.final_layer_norm(hidden_states))


class T5PreTrainedModel(GPT2PreTrainedModel):
    def _init_weights(self, module):
        factor = self.config.initializer_factor
        d_model, d_kv, n_heads = (
            self.config.d_model,
            self.config.d_kv,
            self.config.num_heads,
        )
        if isinstance(module, T5LayerNorm):
            module.weight.data.fill_(factor * 1.0)
        elif isinstance(module, T5Model):
            module.shared.weight.data.normal_(mean=0.0, std=factor * 1.0)
        elif isinstance(module, T5DenseActDense):
            module.wi.weight.data.normal_(mean=0.0, std=factor * (d_model**-0.5))
            module.wo.weight.data.normal_(
                mean=0.0, std=factor * (self.config.d_ff**-0.5)
            )
        elif isinstance(module, T5Attention):
            module.q.weight.data.normal_(
                mean=0.0, std=factor * ((d_model * d_kv) ** -0.5)
            )
            module.k.weight.data.normal_(mean=0.0, std=factor * (d_model**-0.5))
            module.v.weight.data.normal_(mean=0.0, std=factor * (d_model**-0.5))
            module.o.weight.data.normal_(
                mean=0.0, std=factor * ((n_heads * d_kv) ** -0.5)
            )
            if module.has_relative_attention_bias:
                module.relative_attention_bias.weight.data.normal_(
                    mean=0.0, std=factor * (d_model**-0.5)
                )


class T5Model(T5PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.shared = nn.Embedding(config.vocab_size, config.d_model)
        encoder_config = copy.deepcopy(config)
        encoder_config.is_decoder = False
        self.encoder = T5Stack(encoder_config, self.shared)
        decoder_config = copy.deepcopy(config)
        decoder_config.is_decoder = True
        self.decoder = T5Stack(decoder_config, self.shared)
        self.post_init()

    def get_input_embeddings(self):
        return self.shared

    def tie_weights(self):
        self.encoder.embed_tokens = self.shared
        self.decoder.embed_tokens = self.shared

    def forward(self, input_ids, decoder_input_ids):
        encoder_hidden_states = self.encoder(input_ids)
        return self.decoder(
            decoder_input_ids, encoder_hidden_states=encoder_hidden_states
        )


# --------------------------------------------------------------------------------------------------
# Swin Transformer (microsoft/Swin-Transformer): WindowAttention with a relative_position_bias_table
# Parameter and a persistent int64 relative_position_index buffer; `attn_mask` registered as a buffer
# that is None in unshifted blocks.


def window_partition(x, window_size):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size, window_size, W // window_size, window_size, C)
    return (
        x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size, window_size, C)
    )


def window_reverse(windows, window_size, H, W):
    B = int(windows.shape[0] / (H * W / window_size / window_size))
    x = windows.view(
        B, H // window_size, W // window_size, window_size, window_size, -1
    )
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, -1)


class Mlp(nn.Module):
    def __init__(self, in_features, hidden_features=None, out_features=None, drop=0.0):
        super().__init__()
        out_features = out_features or in_features
        hidden_features = hidden_features or in_features
        self.fc1 = nn.Linear(in_features, hidden_features)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden_features, out_features)
        self.drop = nn.Dropout(drop)

    def forward(self, x):
        return self.drop(self.fc2(self.drop(self.act(self.fc1(x)))))


class WindowAttention(nn.Module):
    def __init__(
        self, dim, window_size, num_heads, qkv_bias=True, attn_drop=0.0, proj_drop=0.0
    ):
        super().__init__()
        self.dim = dim
        self.window_size = window_size  # Wh, Ww
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = head_dim**-0.5
        self.relative_position_bias_table = nn.Parameter(
            torch.zeros((2 * window_size[0] - 1) * (2 * window_size[1] - 1), num_heads)
        )
        coords_h = torch.arange(self.window_size[0])
        coords_w = torch.arange(self.window_size[1])
        coords = torch.stack(torch.meshgrid([coords_h, coords_w], indexing="ij"))
        coords_flatten = torch.flatten(coords, 1)
        relative_coords = coords_flatten[:, :, None] - coords_flatten[:, None, :]
        relative_coords = relative_coords.permute(1, 2, 0).contiguous()
        relative_coords[:, :, 0] += self.window_size[0] - 1
        relative_coords[:, :, 1] += self.window_size[1] - 1
        relative_coords[:, :, 0] *= 2 * self.window_size[1] - 1
        relative_position_index = relative_coords.sum(-1)
        self.register_buffer("relative_position_index", relative_position_index)
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(proj_drop)
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x, mask=None):
        B_, N, C = x.shape
        qkv = self.qkv(x).reshape(B_, N, 3, self.num_heads, C // self.num_heads)
        qkv = qkv.permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        q = q * self.scale
        attn = q @ k.transpose(-2, -1)
        relative_position_bias = self.relative_position_bias_table[
            self.relative_position_index.view(-1)
        ].view(N, N, -1)
        relative_position_bias = relative_position_bias.permute(2, 0, 1).contiguous()
        attn = attn + relative_position_bias.unsqueeze(0)
        if mask is not None:
            nW = mask.shape[0]
            attn = attn.view(B_ // nW, nW, self.num_heads, N, N) + mask.unsqueeze(
                1
            ).unsqueeze(0)
            attn = attn.view(-1, self.num_heads, N, N)
        attn = self.attn_drop(self.softmax(attn))
        x = (attn @ v).transpose(1, 2).reshape(B_, N, C)
        return self.proj_drop(self.proj(x))


class SwinTransformerBlock(nn.Module):
    def __init__(
        self,
        dim,
        input_resolution,
        num_heads,
        window_size=4,
        shift_size=0,
        mlp_ratio=2.0,
    ):
        super().__init__()
        self.dim = dim
        self.input_resolution = input_resolution
        self.window_size = window_size
        self.shift_size = shift_size
        self.norm1 = nn.LayerNorm(dim)
        self.attn = WindowAttention(
            dim, window_size=(window_size, window_size), num_heads=num_heads
        )
        self.drop_path = nn.Identity()
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(in_features=dim, hidden_features=int(dim * mlp_ratio))
        if self.shift_size > 0:
            H, W = self.input_resolution
            img_mask = torch.zeros((1, H, W, 1))
            slices = (
                slice(0, -self.window_size),
                slice(-self.window_size, -self.shift_size),
                slice(-self.shift_size, None),
            )
            cnt = 0
            for h in slices:
                for w in slices:
                    img_mask[:, h, w, :] = cnt
                    cnt += 1
            mask_windows = window_partition(img_mask, self.window_size)
            mask_windows = mask_windows.view(-1, self.window_size * self.window_size)
            attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
            attn_mask = attn_mask.masked_fill(attn_mask != 0, -100.0).masked_fill(
                attn_mask == 0, 0.0
            )
        else:
            attn_mask = None
        self.register_buffer("attn_mask", attn_mask)

    def forward(self, x):
        H, W = self.input_resolution
        B, _, C = x.shape
        shortcut = x
        x = self.norm1(x).view(B, H, W, C)
        if self.shift_size > 0:
            x = torch.roll(x, shifts=(-self.shift_size, -self.shift_size), dims=(1, 2))
        x_windows = window_partition(x, self.window_size)
        x_windows = x_windows.view(-1, self.window_size * self.window_size, C)
        attn_windows = self.attn(x_windows, mask=self.attn_mask)
        attn_windows = attn_windows.view(-1, self.window_size, self.window_size, C)
        x = window_reverse(attn_windows, self.window_size, H, W)
        if self.shift_size > 0:
            x = torch.roll(x, shifts=(self.shift_size, self.shift_size), dims=(1, 2))
        x = shortcut + self.drop_path(x.view(B, H * W, C))
        return x + self.drop_path(self.mlp(self.norm2(x)))


class PatchEmbed(nn.Module):
    """Swin's and timm's PatchEmbed: a strided Conv2d `proj`, then an optional `norm`."""

    def __init__(
        self, img_size=16, patch_size=2, in_chans=3, embed_dim=16, norm_layer=None
    ):
        super().__init__()
        self.img_size = (img_size, img_size)
        self.patch_size = (patch_size, patch_size)
        self.grid_size = (img_size // patch_size, img_size // patch_size)
        self.num_patches = self.grid_size[0] * self.grid_size[1]
        self.proj = nn.Conv2d(
            in_chans, embed_dim, kernel_size=patch_size, stride=patch_size
        )
        self.norm = norm_layer(embed_dim) if norm_layer else nn.Identity()

    def forward(self, x):
        return self.norm(self.proj(x).flatten(2).transpose(1, 2))


class SwinTransformer(nn.Module):
    def __init__(
        self,
        img_size=16,
        patch_size=2,
        num_classes=10,
        embed_dim=16,
        num_heads=2,
        window_size=4,
    ):
        super().__init__()
        self.patch_embed = PatchEmbed(img_size, patch_size, 3, embed_dim, nn.LayerNorm)
        resolution = self.patch_embed.grid_size
        self.pos_drop = nn.Dropout(p=0.0)
        self.layers = nn.ModuleList(
            [
                nn.Sequential(
                    *(
                        SwinTransformerBlock(
                            embed_dim,
                            resolution,
                            num_heads,
                            window_size=window_size,
                            shift_size=0 if (i % 2 == 0) else window_size // 2,
                        )
                        for i in range(2)
                    )
                )
            ]
        )
        self.norm = nn.LayerNorm(embed_dim)
        self.avgpool = nn.AdaptiveAvgPool1d(1)
        self.head = nn.Linear(embed_dim, num_classes)
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)
            if m.bias is not None:
                nn.init.constant_(m.bias, 0)
        elif isinstance(m, nn.LayerNorm):
            nn.init.constant_(m.bias, 0)
            nn.init.constant_(m.weight, 1.0)

    def no_weight_decay_keywords(self):
        return {"relative_position_bias_table"}

    def forward(self, x):
        x = self.pos_drop(self.patch_embed(x))
        for layer in self.layers:
            x = layer(x)
        x = self.avgpool(self.norm(x).transpose(1, 2))
        return self.head(torch.flatten(x, 1))


# --------------------------------------------------------------------------------------------------
# timm VisionTransformer: cls_token and pos_embed as Parameters of the top module (which has no
# reset_parameters), LayerScale `gamma`, patch_embed.proj, init_weights in the timm order.


class Attention(nn.Module):
    def __init__(self, dim, num_heads=8, qkv_bias=False, attn_drop=0.0, proj_drop=0.0):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim**-0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.q_norm = nn.Identity()
        self.k_norm = nn.Identity()
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, x):
        B, N, C = x.shape
        qkv = (
            self.qkv(x)
            .reshape(B, N, 3, self.num_heads, self.head_dim)
            .permute(2, 0, 3, 1, 4)
        )
        q, k, v = qkv.unbind(0)
        q, k = self.q_norm(q), self.k_norm(k)
        x = F.scaled_dot_product_attention(
            q, k, v, dropout_p=self.attn_drop.p if self.training else 0.0
        )
        x = x.transpose(1, 2).reshape(B, N, C)
        return self.proj_drop(self.proj(x))


class LayerScale(nn.Module):
    def __init__(self, dim, init_values=1e-5, inplace=False):
        super().__init__()
        self.inplace = inplace
        self.gamma = nn.Parameter(init_values * torch.ones(dim))

    def forward(self, x):
        return x.mul_(self.gamma) if self.inplace else x * self.gamma


class TimmMlp(nn.Module):
    def __init__(self, in_features, hidden_features, drop=0.0):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden_features)
        self.act = nn.GELU()
        self.drop1 = nn.Dropout(drop)
        self.norm = nn.Identity()
        self.fc2 = nn.Linear(hidden_features, in_features)
        self.drop2 = nn.Dropout(drop)

    def forward(self, x):
        return self.drop2(self.fc2(self.norm(self.drop1(self.act(self.fc1(x))))))


class Block(nn.Module):
    def __init__(self, dim, num_heads, mlp_ratio=4.0, qkv_bias=True, init_values=None):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.attn = Attention(dim, num_heads=num_heads, qkv_bias=qkv_bias)
        self.ls1 = (
            LayerScale(dim, init_values=init_values) if init_values else nn.Identity()
        )
        self.drop_path1 = nn.Identity()
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        self.mlp = TimmMlp(dim, int(dim * mlp_ratio))
        self.ls2 = (
            LayerScale(dim, init_values=init_values) if init_values else nn.Identity()
        )
        self.drop_path2 = nn.Identity()

    def forward(self, x):
        x = x + self.drop_path1(self.ls1(self.attn(self.norm1(x))))
        return x + self.drop_path2(self.ls2(self.mlp(self.norm2(x))))


def init_weights_vit_timm(module, name=""):
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    elif hasattr(module, "init_weights"):
        module.init_weights()


def named_apply(fn, module, name="", depth_first=True, include_root=False):
    if not depth_first and include_root:
        fn(module=module, name=name)
    for child_name, child_module in module.named_children():
        child_name = f"{name}.{child_name}" if name else child_name
        named_apply(fn, child_module, child_name, depth_first, include_root=True)
    if depth_first and include_root:
        fn(module=module, name=name)
    return module


class VisionTransformer(nn.Module):
    def __init__(
        self,
        img_size=16,
        patch_size=4,
        num_classes=10,
        embed_dim=16,
        depth=2,
        num_heads=2,
        init_values=1e-5,
    ):
        super().__init__()
        self.num_classes = num_classes
        self.global_pool = "token"
        self.num_features = self.embed_dim = embed_dim
        self.num_prefix_tokens = 1
        self.patch_embed = PatchEmbed(img_size, patch_size, 3, embed_dim)
        num_patches = self.patch_embed.num_patches
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
        embed_len = num_patches + self.num_prefix_tokens
        self.pos_embed = nn.Parameter(torch.randn(1, embed_len, embed_dim) * 0.02)
        self.pos_drop = nn.Dropout(p=0.0)
        self.patch_drop = nn.Identity()
        self.norm_pre = nn.Identity()
        self.blocks = nn.Sequential(
            *[
                Block(embed_dim, num_heads, init_values=init_values)
                for _ in range(depth)
            ]
        )
        self.norm = nn.LayerNorm(embed_dim, eps=1e-6)
        self.fc_norm = nn.Identity()
        self.head_drop = nn.Dropout(0.0)
        self.head = nn.Linear(self.embed_dim, num_classes)
        self.init_weights()

    def init_weights(self):
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.normal_(self.cls_token, std=1e-6)
        named_apply(init_weights_vit_timm, self)

    def no_weight_decay(self):
        return {"pos_embed", "cls_token"}

    def _pos_embed(self, x):
        x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
        return self.pos_drop(x + self.pos_embed)

    def forward(self, x):
        x = self.norm_pre(self.patch_drop(self._pos_embed(self.patch_embed(x))))
        x = self.norm(self.blocks(x))
        return self.head(self.head_drop(self.fc_norm(x[:, 0])))


# --------------------------------------------------------------------------------------------------
# torchvision ResNet: BasicBlock / Bottleneck with BatchNorm, the kaiming loop in __init__, and
# zero_init_residual zeroing bn2.weight / bn3.weight. Only the widths are small (inplanes 8, not 64).


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    return nn.Conv2d(
        in_planes,
        out_planes,
        kernel_size=3,
        stride=stride,
        padding=dilation,
        groups=groups,
        bias=False,
        dilation=dilation,
    )


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(
        self, inplanes, planes, stride=1, downsample=None, norm_layer=nn.BatchNorm2d
    ):
        super().__init__()
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(
        self, inplanes, planes, stride=1, downsample=None, norm_layer=nn.BatchNorm2d
    ):
        super().__init__()
        width = planes
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)


class ResNet(nn.Module):
    def __init__(
        self,
        block,
        layers,
        num_classes=10,
        zero_init_residual=False,
        widths=(8, 16, 32, 64),
    ):
        super().__init__()
        self._norm_layer = nn.BatchNorm2d
        self.inplanes = widths[0]
        self.dilation = 1
        self.conv1 = nn.Conv2d(
            3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False
        )
        self.bn1 = nn.BatchNorm2d(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, widths[0], layers[0])
        self.layer2 = self._make_layer(block, widths[1], layers[1], stride=2)
        self.layer3 = self._make_layer(block, widths[2], layers[2], stride=2)
        self.layer4 = self._make_layer(block, widths[3], layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(widths[3] * block.expansion, num_classes)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

        # Zero-initialize the last BN in each residual branch, so that the residual branch starts
        # with zeros, and each residual block behaves like an identity.
        if zero_init_residual:
            for m in self.modules():
                if isinstance(m, Bottleneck) and m.bn3.weight is not None:
                    nn.init.constant_(m.bn3.weight, 0)
                elif isinstance(m, BasicBlock) and m.bn2.weight is not None:
                    nn.init.constant_(m.bn2.weight, 0)

    def _make_layer(self, block, planes, blocks, stride=1):
        norm_layer = self._norm_layer
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                conv1x1(self.inplanes, planes * block.expansion, stride),
                norm_layer(planes * block.expansion),
            )
        layers = [block(self.inplanes, planes, stride, downsample, norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


# --------------------------------------------------------------------------------------------------
# pytorch/examples word_language_model: RNNModel with tie_weights (decoder.weight = encoder.weight)
# and init_weights written with nn.init on the encoder and decoder.


class RNNModel(nn.Module):
    def __init__(
        self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False
    ):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            if nhid != ninp:
                raise ValueError(
                    "When using the tied flag, nhid must be equal to emsize"
                )
            self.decoder.weight = self.encoder.weight
        self.init_weights()
        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output).view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == "LSTM":
            return (
                weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid),
            )
        return weight.new_zeros(self.nlayers, bsz, self.nhid)


def _lstm_lm_inputs():
    tokens = torch.randint(0, 64, (8, 2))  # (seq, batch), as the example feeds it
    return tokens, (torch.zeros(2, 2, 16), torch.zeros(2, 2, 16))


# --------------------------------------------------------------------------------------------------
# detectron2 FPN: lateral and output convs registered with add_module under stage names, and also
# kept in plain Python lists (lateral_convs reversed) that forward iterates.


def c2_xavier_fill(module):
    nn.init.kaiming_uniform_(module.weight, a=1)
    if module.bias is not None:
        nn.init.constant_(module.bias, 0)


class TinyBottomUp(nn.Module):
    """Stands in for the ResNet backbone: named stages res2..res4 at strides 4, 8, 16."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, kernel_size=3, stride=4, padding=1)
        self.res3 = nn.Conv2d(8, 16, kernel_size=3, stride=2, padding=1)
        self.res4 = nn.Conv2d(16, 32, kernel_size=3, stride=2, padding=1)
        self._out_features = ["res2", "res3", "res4"]
        self._out_feature_channels = {"res2": 8, "res3": 16, "res4": 32}
        self._out_feature_strides = {"res2": 4, "res3": 8, "res4": 16}

    def forward(self, x):
        res2 = F.relu(self.stem(x))
        res3 = F.relu(self.res3(res2))
        return {"res2": res2, "res3": res3, "res4": F.relu(self.res4(res3))}


class FPN(nn.Module):
    def __init__(self, bottom_up, in_features, out_channels):
        super().__init__()
        input_shapes = bottom_up._out_feature_channels
        strides = [bottom_up._out_feature_strides[f] for f in in_features]
        in_channels_per_feature = [input_shapes[f] for f in in_features]
        lateral_convs = []
        output_convs = []
        for idx, in_channels in enumerate(in_channels_per_feature):
            lateral_conv = nn.Conv2d(in_channels, out_channels, kernel_size=1)
            output_conv = nn.Conv2d(
                out_channels, out_channels, kernel_size=3, stride=1, padding=1
            )
            c2_xavier_fill(lateral_conv)
            c2_xavier_fill(output_conv)
            stage = int(math.log2(strides[idx]))
            self.add_module(f"fpn_lateral{stage}", lateral_conv)
            self.add_module(f"fpn_output{stage}", output_conv)
            lateral_convs.append(lateral_conv)
            output_convs.append(output_conv)
        # Place convs into top-down order (from low to high resolution)
        # to make the top-down computation in forward clearer.
        self.lateral_convs = lateral_convs[::-1]
        self.output_convs = output_convs[::-1]
        self.in_features = tuple(in_features)
        self.bottom_up = bottom_up
        self._out_features = [f"p{int(math.log2(s))}" for s in strides]

    def forward(self, x):
        bottom_up_features = self.bottom_up(x)
        results = []
        prev_features = self.lateral_convs[0](bottom_up_features[self.in_features[-1]])
        results.append(self.output_convs[0](prev_features))
        for idx, (lateral_conv, output_conv) in enumerate(
            zip(self.lateral_convs, self.output_convs)
        ):
            if idx > 0:
                features = bottom_up_features[self.in_features[-idx - 1]]
                top_down_features = F.interpolate(
                    prev_features, scale_factor=2.0, mode="nearest"
                )
                prev_features = lateral_conv(features) + top_down_features
                results.insert(0, output_conv(prev_features))
        return dict(zip(self._out_features, results))


# --------------------------------------------------------------------------------------------------
# DARTS (quark0/darts, model_search.py): architecture weights alphas_normal / alphas_reduce as plain
# tensors with requires_grad=True (Variable(...).cuda() there, the CPU here), listed in a plain
# self._arch_parameters next to the registered network weights.

PRIMITIVES = ["none", "skip_connect", "avg_pool_3x3", "conv_3x3"]


class Zero(nn.Module):
    def __init__(self, stride):
        super().__init__()
        self.stride = stride

    def forward(self, x):
        return x[:, :, :: self.stride, :: self.stride].mul(0.0)


class ReLUConvBN(nn.Module):
    def __init__(self, C_in, C_out, kernel_size, stride, padding, affine=True):
        super().__init__()
        self.op = nn.Sequential(
            nn.ReLU(inplace=False),
            nn.Conv2d(
                C_in, C_out, kernel_size, stride=stride, padding=padding, bias=False
            ),
            nn.BatchNorm2d(C_out, affine=affine),
        )

    def forward(self, x):
        return self.op(x)


OPS = {
    "none": lambda C, stride, affine: Zero(stride),
    "avg_pool_3x3": lambda C, stride, affine: nn.AvgPool2d(
        3, stride=stride, padding=1, count_include_pad=False
    ),
    "skip_connect": lambda C, stride, affine: (
        nn.Identity() if stride == 1 else ReLUConvBN(C, C, 1, stride, 0, affine=affine)
    ),
    "conv_3x3": lambda C, stride, affine: ReLUConvBN(C, C, 3, stride, 1, affine=affine),
}


class MixedOp(nn.Module):
    def __init__(self, C, stride):
        super().__init__()
        self._ops = nn.ModuleList()
        for primitive in PRIMITIVES:
            op = OPS[primitive](C, stride, False)
            if "pool" in primitive:
                op = nn.Sequential(op, nn.BatchNorm2d(C, affine=False))
            self._ops.append(op)

    def forward(self, x, weights):
        return sum(w * op(x) for w, op in zip(weights, self._ops))


class SearchCell(nn.Module):
    def __init__(self, steps, C, reduction):
        super().__init__()
        self.reduction = reduction
        self._steps = steps
        self._ops = nn.ModuleList()
        for i in range(self._steps):
            for j in range(1 + i):
                stride = 2 if reduction and j < 1 else 1
                self._ops.append(MixedOp(C, stride))

    def forward(self, s0, weights):
        states = [s0]
        offset = 0
        for _ in range(self._steps):
            s = sum(
                self._ops[offset + j](h, weights[offset + j])
                for j, h in enumerate(states)
            )
            offset += len(states)
            states.append(s)
        return torch.cat(states[-self._steps :], dim=1)


class DartsNetwork(nn.Module):
    def __init__(self, C=4, num_classes=10, steps=2):
        super().__init__()
        self._C = C
        self._num_classes = num_classes
        self._steps = steps
        self.stem = nn.Sequential(
            nn.Conv2d(3, C, 3, padding=1, bias=False), nn.BatchNorm2d(C)
        )
        self.cells = nn.ModuleList(
            [
                SearchCell(steps, C, reduction=False),
                SearchCell(steps, C, reduction=True),
            ]
        )
        self.preprocess = nn.Conv2d(C * steps, C, 1, bias=False)
        self.global_pooling = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(C * steps, num_classes)
        self._initialize_alphas()

    def _initialize_alphas(self):
        k = sum(1 for i in range(self._steps) for n in range(1 + i))
        num_ops = len(PRIMITIVES)
        self.alphas_normal = (1e-3 * torch.randn(k, num_ops)).requires_grad_(True)
        self.alphas_reduce = (1e-3 * torch.randn(k, num_ops)).requires_grad_(True)
        self._arch_parameters = [self.alphas_normal, self.alphas_reduce]

    def arch_parameters(self):
        return self._arch_parameters

    def forward(self, input):
        s = self.stem(input)
        s = self.cells[0](s, F.softmax(self.alphas_normal, dim=-1))
        s = self.cells[1](self.preprocess(s), F.softmax(self.alphas_reduce, dim=-1))
        out = self.global_pooling(s)
        return self.classifier(out.view(out.size(0), -1))


# --------------------------------------------------------------------------------------------------
# Reparametrized weights: torch.nn.utils.prune, weight_norm and spectral_norm in their old hook
# forms and their parametrize forms, a LoRA parametrization, orthogonal.


class LeNet(nn.Module):
    """The MLP of the pruning tutorial: fc1 pruned with l1_unstructured."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def _pruned():
    model = LeNet()
    prune.l1_unstructured(model.fc1, name="weight", amount=0.3)
    return model


class Chomp1d(nn.Module):
    def __init__(self, chomp_size):
        super().__init__()
        self.chomp_size = chomp_size

    def forward(self, x):
        return x[:, :, : -self.chomp_size].contiguous()


class TemporalBlock(nn.Module):
    """locuslab/TCN: weight_norm (the old hook form) on every conv; init_weights then writes
    normal_(0, 0.01) into conv.weight, the tensor the hook recomputes before every forward."""

    def __init__(
        self, n_inputs, n_outputs, kernel_size, stride, dilation, padding, dropout=0.2
    ):
        super().__init__()
        with warnings.catch_warnings():
            warnings.filterwarnings(
                "ignore", "`torch.nn.utils.weight_norm` is deprecated"
            )
            self.conv1 = nn.utils.weight_norm(
                nn.Conv1d(
                    n_inputs,
                    n_outputs,
                    kernel_size,
                    stride=stride,
                    padding=padding,
                    dilation=dilation,
                )
            )
            self.conv2 = nn.utils.weight_norm(
                nn.Conv1d(
                    n_outputs,
                    n_outputs,
                    kernel_size,
                    stride=stride,
                    padding=padding,
                    dilation=dilation,
                )
            )
        self.chomp1 = Chomp1d(padding)
        self.relu1 = nn.ReLU()
        self.dropout1 = nn.Dropout(dropout)
        self.chomp2 = Chomp1d(padding)
        self.relu2 = nn.ReLU()
        self.dropout2 = nn.Dropout(dropout)
        self.net = nn.Sequential(
            self.conv1, self.chomp1, self.relu1, self.dropout1,
            self.conv2, self.chomp2, self.relu2, self.dropout2,
        )  # fmt: skip
        self.downsample = (
            nn.Conv1d(n_inputs, n_outputs, 1) if n_inputs != n_outputs else None
        )
        self.relu = nn.ReLU()
        self.init_weights()

    def init_weights(self):
        self.conv1.weight.data.normal_(0, 0.01)
        self.conv2.weight.data.normal_(0, 0.01)
        if self.downsample is not None:
            self.downsample.weight.data.normal_(0, 0.01)

    def forward(self, x):
        out = self.net(x)
        res = x if self.downsample is None else self.downsample(x)
        return self.relu(out + res)


class TemporalConvNet(nn.Module):
    def __init__(self, num_inputs=3, num_channels=(8, 8), kernel_size=2, dropout=0.2):
        super().__init__()
        layers = []
        for i, out_channels in enumerate(num_channels):
            dilation_size = 2**i
            in_channels = num_inputs if i == 0 else num_channels[i - 1]
            layers += [
                TemporalBlock(
                    in_channels,
                    out_channels,
                    kernel_size,
                    stride=1,
                    dilation=dilation_size,
                    padding=(kernel_size - 1) * dilation_size,
                    dropout=dropout,
                )
            ]
        self.network = nn.Sequential(*layers)

    def forward(self, x):
        return self.network(x)


LRELU_SLOPE = 0.1


def get_padding(kernel_size, dilation=1):
    return int((kernel_size * dilation - dilation) / 2)


def hifigan_init_weights(m, mean=0.0, std=0.01):
    if m.__class__.__name__.find("Conv") != -1:
        m.weight.data.normal_(mean, std)


class ResBlock2(nn.Module):
    """HiFi-GAN's ResBlock2 with torch.nn.utils.parametrizations.weight_norm, as newer ports write it;
    the init (normal_ on conv.weight) is applied before weight_norm, where it still takes effect."""

    def __init__(self, channels=8, kernel_size=3, dilation=(1, 3)):
        super().__init__()
        convs = []
        for d in dilation:
            conv = nn.Conv1d(
                channels,
                channels,
                kernel_size,
                1,
                dilation=d,
                padding=get_padding(kernel_size, d),
            )
            hifigan_init_weights(conv)
            convs.append(nn.utils.parametrizations.weight_norm(conv))
        self.convs = nn.ModuleList(convs)

    def forward(self, x):
        for c in self.convs:
            xt = F.leaky_relu(x, LRELU_SLOPE)
            x = c(xt) + x
        return x

    def remove_weight_norm(self):
        for c in self.convs:
            parametrize.remove_parametrizations(c, "weight")


class SNDiscriminator(nn.Module):
    """An SN-GAN discriminator with the old torch.nn.utils.spectral_norm hook form: weight_orig
    Parameter, weight_u / weight_v buffers, `weight` a plain attribute the pre-hook recomputes."""

    def __init__(self, sn=nn.utils.spectral_norm):
        super().__init__()
        self.main = nn.Sequential(
            sn(nn.Conv2d(3, 8, 4, 2, 1)),
            nn.LeakyReLU(0.1),
            sn(nn.Conv2d(8, 16, 4, 2, 1)),
            nn.LeakyReLU(0.1),
        )
        self.fc = sn(nn.Linear(16 * 4 * 4, 1))

    def forward(self, x):
        return self.fc(self.main(x).flatten(1))


class LoRAParametrization(nn.Module):
    """LoRA as a parametrization (the minLoRA / torch tutorial form): W + B @ A * scale, B zeros."""

    def __init__(self, fan_in, fan_out, rank=2, lora_alpha=1):
        super().__init__()
        self.lora_A = nn.Parameter(torch.zeros(rank, fan_in))
        self.lora_B = nn.Parameter(torch.zeros(fan_out, rank))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.scale = lora_alpha / rank

    def forward(self, original_weights):
        return original_weights + torch.matmul(self.lora_B, self.lora_A) * self.scale


class LoRAMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 10)
        for p in self.parameters():
            p.requires_grad_(False)
        for layer in (self.fc1, self.fc2):
            fan_out, fan_in = layer.weight.shape
            parametrize.register_parametrization(
                layer, "weight", LoRAParametrization(fan_in, fan_out)
            )

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class OrthogonalRNNCell(nn.Module):
    """An orthogonal recurrent cell (the expRNN idea) with torch.nn.utils.parametrizations.orthogonal."""

    def __init__(self, input_size=8, hidden_size=16):
        super().__init__()
        self.input_kernel = nn.Linear(input_size, hidden_size, bias=False)
        self.recurrent_kernel = nn.utils.parametrizations.orthogonal(
            nn.Linear(hidden_size, hidden_size, bias=False)
        )
        self.nonlinearity = nn.Tanh()

    def forward(self, x, hidden):
        return self.nonlinearity(self.input_kernel(x) + self.recurrent_kernel(hidden))


# --------------------------------------------------------------------------------------------------
# Kipf's pygcn: GraphConvolution with a FloatTensor weight and its own reset_parameters; the sparse
# COO adjacency either registered as a buffer or kept as a plain attribute.


class GraphConvolution(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = nn.Parameter(torch.FloatTensor(in_features, out_features))
        if bias:
            self.bias = nn.Parameter(torch.FloatTensor(out_features))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.weight.size(1))
        self.weight.data.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.data.uniform_(-stdv, stdv)

    def forward(self, input, adj):
        output = torch.spmm(adj, torch.mm(input, self.weight))
        return output + self.bias if self.bias is not None else output


def _normalized_ring_adjacency(n=6):
    """A ring graph with self-loops, row-normalized as pygcn does, as a sparse COO tensor."""
    rows = torch.arange(n).repeat_interleave(3)
    cols = torch.stack(
        [torch.arange(n), (torch.arange(n) + 1) % n, (torch.arange(n) - 1) % n], 1
    )
    values = torch.full((3 * n,), 1.0 / 3)
    indices = torch.stack([rows, cols.flatten()])
    return torch.sparse_coo_tensor(
        indices, values, (n, n), check_invariants=True
    ).coalesce()


class GCN(nn.Module):
    def __init__(self, nfeat=8, nhid=16, nclass=4, dropout=0.5, adj_as_buffer=True):
        super().__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout
        if adj_as_buffer:
            self.register_buffer("adj", _normalized_ring_adjacency())
        else:
            self.adj = _normalized_ring_adjacency()

    def forward(self, x):
        x = F.relu(self.gc1(x, self.adj))
        x = F.dropout(x, self.dropout, training=self.training)
        return F.log_softmax(self.gc2(x, self.adj), dim=1)


# --------------------------------------------------------------------------------------------------
# rosinality/vq-vae-2-pytorch Quantize: the EMA codebook kept in buffers (embed, cluster_size,
# embed_avg) and updated in place in forward; here the whole model has been .half()-ed.


class Quantize(nn.Module):
    def __init__(self, dim, n_embed, decay=0.99, eps=1e-5):
        super().__init__()
        self.dim = dim
        self.n_embed = n_embed
        self.decay = decay
        self.eps = eps
        embed = torch.randn(dim, n_embed)
        self.register_buffer("embed", embed)
        self.register_buffer("cluster_size", torch.zeros(n_embed))
        self.register_buffer("embed_avg", embed.clone())

    def forward(self, input):
        flatten = input.reshape(-1, self.dim)
        dist = (
            flatten.pow(2).sum(1, keepdim=True)
            - 2 * flatten @ self.embed
            + self.embed.pow(2).sum(0, keepdim=True)
        )
        _, embed_ind = (-dist).max(1)
        embed_onehot = F.one_hot(embed_ind, self.n_embed).type(flatten.dtype)
        embed_ind = embed_ind.view(*input.shape[:-1])
        quantize = F.embedding(embed_ind, self.embed.transpose(0, 1))
        if self.training:
            embed_onehot_sum = embed_onehot.sum(0)
            embed_sum = flatten.transpose(0, 1) @ embed_onehot
            self.cluster_size.data.mul_(self.decay).add_(
                embed_onehot_sum, alpha=1 - self.decay
            )
            self.embed_avg.data.mul_(self.decay).add_(embed_sum, alpha=1 - self.decay)
            n = self.cluster_size.sum()
            cluster_size = (
                (self.cluster_size + self.eps) / (n + self.n_embed * self.eps) * n
            )
            embed_normalized = self.embed_avg / cluster_size.unsqueeze(0)
            self.embed.data.copy_(embed_normalized)
        diff = (quantize.detach() - input).pow(2).mean()
        quantize = input + (quantize - input).detach()
        return quantize, diff, embed_ind


class TinyVQVAE(nn.Module):
    def __init__(self, embed_dim=4, n_embed=16):
        super().__init__()
        self.enc = nn.Conv2d(3, embed_dim, 4, stride=4)
        self.quantize = Quantize(embed_dim, n_embed)
        self.dec = nn.ConvTranspose2d(embed_dim, 3, 4, stride=4)

    def forward(self, input):
        quant = self.enc(input).permute(0, 2, 3, 1)
        quant, diff, _ = self.quantize(quant)
        return self.dec(quant.permute(0, 3, 1, 2)), diff


def _vq_half():
    return TinyVQVAE().half()


# --------------------------------------------------------------------------------------------------
# Lazy modules (chapter 3), before and after the dry run; a meta-built model half materialized.


def _lazy_cnn():
    return nn.Sequential(
        nn.LazyConv2d(8, 3, padding=1),
        nn.LazyBatchNorm2d(),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.LazyLinear(10),
    )


def _image(channels=3, size=16, batch=2):
    return (torch.randn(batch, channels, size, size),)


def _lazy_cnn_dry():
    """Chapter 3's dry run: no gradients, evaluation mode (the running statistics stay untouched)."""
    net = _lazy_cnn()
    net.eval()
    with torch.no_grad():
        net(*_image())
    return net.train()


class MetaTinyLM(nn.Module):
    def __init__(self, vocab=64, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.encoder = nn.TransformerEncoderLayer(
            dim, 2, 32, dropout=0.0, batch_first=True
        )
        self.head = nn.Linear(dim, vocab)

    def forward(self, input_ids):
        return self.head(self.encoder(self.embed(input_ids)))


def _meta_half():
    """Built under torch.device("meta"); only `embed` and `encoder` materialized (and reset)."""
    with torch.device("meta"):
        model = MetaTinyLM()
    model.embed.to_empty(device="cpu")
    model.embed.reset_parameters()
    model.encoder.to_empty(device="cpu")
    for m in model.encoder.modules():
        if hasattr(m, "reset_parameters"):
            m.reset_parameters()
    model.encoder.self_attn._reset_parameters()
    return model


# --------------------------------------------------------------------------------------------------
# Wrappers: DistributedDataParallel (gloo, world size 1), torch.compile, torch.fx.

_OWN_GROUP: dict[str, str] = {}


def _ensure_process_group():
    if dist.is_initialized():
        return
    tmpdir = tempfile.mkdtemp(prefix="inside_nn_zoo_")
    store = dist.FileStore(f"{tmpdir}/store", 1)
    dist.init_process_group("gloo", store=store, rank=0, world_size=1)
    _OWN_GROUP["tmpdir"] = tmpdir


def teardown() -> None:
    """Destroy the process group that build("ddp") started, if it started one."""
    tmpdir = _OWN_GROUP.pop("tmpdir", None)
    if tmpdir is None:
        return
    if dist.is_initialized():
        dist.destroy_process_group()
    shutil.rmtree(tmpdir, ignore_errors=True)


class ConvBNNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        return self.fc(self.pool(F.relu(self.bn(self.conv(x)))).flatten(1))


def _ddp():
    _ensure_process_group()
    return nn.parallel.DistributedDataParallel(ConvBNNet())


def _compiled():
    # The first torch.compile imports inductor, whose import chain calls the deprecated
    # torch.jit.script_method (torch/utils/mkldnn.py); that warning is torch's, not ours.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "`torch.jit.script_method` is deprecated")
        return torch.compile(ConvBNNet())


class ScaledMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 10)
        self.register_buffer("scale", torch.full((10,), 0.5), persistent=False)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x))) * self.scale


def _fx():
    return torch.fx.symbolic_trace(ScaledMLP())


# --------------------------------------------------------------------------------------------------
# Mixture of experts: Mixtral's sparse MoE block (experts in nn.ModuleList, w1/w2/w3 per expert), and
# the same with the experts in a plain Python list, which registers nothing.


@dataclasses.dataclass
class MixtralConfig:
    hidden_size: int = 16
    intermediate_size: int = 32
    num_local_experts: int = 4
    num_experts_per_tok: int = 2


class MixtralBlockSparseTop2MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ffn_dim = config.intermediate_size
        self.hidden_dim = config.hidden_size
        self.w1 = nn.Linear(self.hidden_dim, self.ffn_dim, bias=False)
        self.w2 = nn.Linear(self.ffn_dim, self.hidden_dim, bias=False)
        self.w3 = nn.Linear(self.hidden_dim, self.ffn_dim, bias=False)
        self.act_fn = nn.SiLU()

    def forward(self, hidden_states):
        return self.w2(self.act_fn(self.w1(hidden_states)) * self.w3(hidden_states))


class MixtralSparseMoeBlock(nn.Module):
    def __init__(self, config, plain_list=False):
        super().__init__()
        self.hidden_dim = config.hidden_size
        self.ffn_dim = config.intermediate_size
        self.num_experts = config.num_local_experts
        self.top_k = config.num_experts_per_tok
        self.gate = nn.Linear(self.hidden_dim, self.num_experts, bias=False)
        experts = [MixtralBlockSparseTop2MLP(config) for _ in range(self.num_experts)]
        self.experts = experts if plain_list else nn.ModuleList(experts)

    def forward(self, hidden_states):
        batch_size, sequence_length, hidden_dim = hidden_states.shape
        hidden_states = hidden_states.view(-1, hidden_dim)
        router_logits = self.gate(hidden_states)
        routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected_experts = torch.topk(
            routing_weights, self.top_k, dim=-1
        )
        routing_weights /= routing_weights.sum(dim=-1, keepdim=True)
        routing_weights = routing_weights.to(hidden_states.dtype)
        final_hidden_states = torch.zeros_like(hidden_states)
        expert_mask = F.one_hot(selected_experts, num_classes=self.num_experts).permute(
            2, 1, 0
        )
        for expert_idx in range(self.num_experts):
            expert_layer = self.experts[expert_idx]
            idx, top_x = torch.where(expert_mask[expert_idx])
            current_state = hidden_states[None, top_x].reshape(-1, hidden_dim)
            current_hidden_states = (
                expert_layer(current_state) * routing_weights[top_x, idx, None]
            )
            final_hidden_states.index_add_(0, top_x, current_hidden_states)
        return final_hidden_states.reshape(
            batch_size, sequence_length, hidden_dim
        ), router_logits


def _hidden(batch=2, length=8, dim=16):
    return (torch.randn(batch, length, dim),)


# --------------------------------------------------------------------------------------------------
# Hugging Face BERT (transformers 4.1x): `position_ids` a persistent int64 buffer, `token_type_ids`
# a non-persistent one (4.31 made position_ids non-persistent too); the attention/output naming.


@dataclasses.dataclass
class BertConfig:
    vocab_size: int = 64
    hidden_size: int = 16
    num_hidden_layers: int = 2
    num_attention_heads: int = 2
    intermediate_size: int = 32
    max_position_embeddings: int = 32
    type_vocab_size: int = 2
    pad_token_id: int = 0
    layer_norm_eps: float = 1e-12
    hidden_dropout_prob: float = 0.1
    initializer_range: float = 0.02


class BertEmbeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.word_embeddings = nn.Embedding(
            config.vocab_size, config.hidden_size, padding_idx=config.pad_token_id
        )
        self.position_embeddings = nn.Embedding(
            config.max_position_embeddings, config.hidden_size
        )
        self.token_type_embeddings = nn.Embedding(
            config.type_vocab_size, config.hidden_size
        )
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.position_embedding_type = "absolute"
        self.register_buffer(
            "position_ids", torch.arange(config.max_position_embeddings).expand((1, -1))
        )
        self.register_buffer(
            "token_type_ids",
            torch.zeros(self.position_ids.size(), dtype=torch.long),
            persistent=False,
        )

    def forward(self, input_ids):
        seq_length = input_ids.size(1)
        position_ids = self.position_ids[:, :seq_length]
        token_type_ids = self.token_type_ids[:, :seq_length].expand(
            input_ids.size(0), seq_length
        )
        embeddings = (
            self.word_embeddings(input_ids)
            + self.token_type_embeddings(token_type_ids)
            + self.position_embeddings(position_ids)
        )
        return self.dropout(self.LayerNorm(embeddings))


class BertSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_attention_heads = config.num_attention_heads
        self.attention_head_size = config.hidden_size // config.num_attention_heads
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(config.hidden_size, self.all_head_size)
        self.key = nn.Linear(config.hidden_size, self.all_head_size)
        self.value = nn.Linear(config.hidden_size, self.all_head_size)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def transpose_for_scores(self, x):
        new_x_shape = x.size()[:-1] + (
            self.num_attention_heads,
            self.attention_head_size,
        )
        return x.view(new_x_shape).permute(0, 2, 1, 3)

    def forward(self, hidden_states):
        query_layer = self.transpose_for_scores(self.query(hidden_states))
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        value_layer = self.transpose_for_scores(self.value(hidden_states))
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
        attention_scores = attention_scores / math.sqrt(self.attention_head_size)
        attention_probs = self.dropout(nn.functional.softmax(attention_scores, dim=-1))
        context_layer = (
            torch.matmul(attention_probs, value_layer).permute(0, 2, 1, 3).contiguous()
        )
        return context_layer.view(context_layer.size()[:-2] + (self.all_head_size,))


class BertSelfOutput(nn.Module):
    def __init__(self, config, input_size=None):
        super().__init__()
        self.dense = nn.Linear(input_size or config.hidden_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states, input_tensor):
        return self.LayerNorm(self.dropout(self.dense(hidden_states)) + input_tensor)


class BertAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.self = BertSelfAttention(config)
        self.output = BertSelfOutput(config)

    def forward(self, hidden_states):
        return self.output(self.self(hidden_states), hidden_states)


class BertIntermediate(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.intermediate_size)
        self.intermediate_act_fn = nn.GELU()

    def forward(self, hidden_states):
        return self.intermediate_act_fn(self.dense(hidden_states))


class BertLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = BertAttention(config)
        self.intermediate = BertIntermediate(config)
        self.output = BertSelfOutput(config, input_size=config.intermediate_size)

    def forward(self, hidden_states):
        attention_output = self.attention(hidden_states)
        return self.output(self.intermediate(attention_output), attention_output)


class BertEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.layer = nn.ModuleList(
            [BertLayer(config) for _ in range(config.num_hidden_layers)]
        )

    def forward(self, hidden_states):
        for layer_module in self.layer:
            hidden_states = layer_module(hidden_states)
        return hidden_states


class BertPooler(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.activation = nn.Tanh()

    def forward(self, hidden_states):
        return self.activation(self.dense(hidden_states[:, 0]))


class BertModel(GPT2PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embeddings = BertEmbeddings(config)
        self.encoder = BertEncoder(config)
        self.pooler = BertPooler(config)
        self.post_init()

    def _init_weights(self, module):
        std = self.config.initializer_range
        if isinstance(module, nn.Linear):
            module.weight.data.normal_(mean=0.0, std=std)
            if module.bias is not None:
                module.bias.data.zero_()
        elif isinstance(module, nn.Embedding):
            module.weight.data.normal_(mean=0.0, std=std)
            if module.padding_idx is not None:
                module.weight.data[module.padding_idx].zero_()
        elif isinstance(module, nn.LayerNorm):
            module.bias.data.zero_()
            module.weight.data.fill_(1.0)

    def forward(self, input_ids):
        sequence_output = self.encoder(self.embeddings(input_ids))
        return sequence_output, self.pooler(sequence_output)


# --------------------------------------------------------------------------------------------------
# Common shapes: extra_state, a frozen backbone, a UNet with GroupNorm, nn.TransformerEncoder, a GRU
# encoder calling flatten_parameters, CycleGAN's ResnetGenerator, a QAT model with torch.ao's
# FakeQuantize, a noisy-gating model with its own torch.Generator and plain float settings.


class ScaledConv2d(nn.Conv2d):
    """A Conv2d carrying non-tensor state through get_extra_state/set_extra_state (the way
    Transformer Engine keeps its FP8 metadata): an amax history length and a recipe name."""

    def __init__(self, *args, recipe="delayed", **kwargs):
        super().__init__(*args, **kwargs)
        self.recipe = recipe
        self.amax_history = [0.0] * 4

    def get_extra_state(self):
        return {"recipe": self.recipe, "amax_history": list(self.amax_history)}

    def set_extra_state(self, state):
        self.recipe = state["recipe"]
        self.amax_history = list(state["amax_history"])

    def forward(self, input):
        amax = float(input.detach().abs().max())
        self.amax_history = self.amax_history[1:] + [amax]
        return super().forward(input)


class ExtraStateNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = ScaledConv2d(3, 8, 3, padding=1)
        self.conv2 = ScaledConv2d(8, 8, 3, padding=1, recipe="current")
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        x = F.relu(self.conv2(F.relu(self.conv1(x))))
        return self.fc(x.mean((2, 3)))


class FineTuner(nn.Module):
    """Transfer learning as the torchvision tutorial writes it: a ResNet backbone frozen with
    requires_grad = False, its fc replaced by a fresh trainable head."""

    def __init__(self, num_classes=4):
        super().__init__()
        self.backbone = ResNet(BasicBlock, [1, 1, 1, 1])
        for param in self.backbone.parameters():
            param.requires_grad = False
        self.backbone.fc = nn.Linear(self.backbone.fc.in_features, num_classes)

    def forward(self, x):
        return self.backbone(x)


class ResnetBlock2D(nn.Module):
    """diffusers ResnetBlock2D: GroupNorm, SiLU, time_emb_proj, conv_shortcut when widths differ."""

    def __init__(self, in_channels, out_channels, temb_channels, groups=4, eps=1e-6):
        super().__init__()
        self.norm1 = nn.GroupNorm(groups, in_channels, eps=eps, affine=True)
        self.conv1 = nn.Conv2d(
            in_channels, out_channels, kernel_size=3, stride=1, padding=1
        )
        self.time_emb_proj = nn.Linear(temb_channels, out_channels)
        self.norm2 = nn.GroupNorm(groups, out_channels, eps=eps, affine=True)
        self.dropout = nn.Dropout(0.0)
        self.conv2 = nn.Conv2d(
            out_channels, out_channels, kernel_size=3, stride=1, padding=1
        )
        self.nonlinearity = nn.SiLU()
        self.conv_shortcut = None
        if in_channels != out_channels:
            self.conv_shortcut = nn.Conv2d(in_channels, out_channels, kernel_size=1)

    def forward(self, input_tensor, temb):
        hidden_states = self.conv1(self.nonlinearity(self.norm1(input_tensor)))
        temb = self.time_emb_proj(self.nonlinearity(temb))[:, :, None, None]
        hidden_states = self.nonlinearity(self.norm2(hidden_states + temb))
        hidden_states = self.conv2(self.dropout(hidden_states))
        if self.conv_shortcut is not None:
            input_tensor = self.conv_shortcut(input_tensor)
        return input_tensor + hidden_states


def get_timestep_embedding(timesteps, embedding_dim, max_period=10000):
    half_dim = embedding_dim // 2
    exponent = (
        -math.log(max_period) * torch.arange(half_dim, dtype=torch.float32) / half_dim
    )
    emb = timesteps[:, None].float() * torch.exp(exponent)[None, :]
    return torch.cat([torch.cos(emb), torch.sin(emb)], dim=-1)


class TinyUNet(nn.Module):
    def __init__(self, in_channels=3, block_out_channels=(8, 16), temb_channels=16):
        super().__init__()
        c0, c1 = block_out_channels
        self.temb_channels = temb_channels
        self.time_embedding = nn.Sequential(
            nn.Linear(temb_channels, temb_channels),
            nn.SiLU(),
            nn.Linear(temb_channels, temb_channels),
        )
        self.conv_in = nn.Conv2d(in_channels, c0, kernel_size=3, padding=1)
        self.down = nn.ModuleList([ResnetBlock2D(c0, c1, temb_channels)])
        self.downsample = nn.Conv2d(c1, c1, 3, stride=2, padding=1)
        self.mid = ResnetBlock2D(c1, c1, temb_channels)
        self.up = nn.ModuleList([ResnetBlock2D(c1 * 2, c0, temb_channels)])
        self.conv_norm_out = nn.GroupNorm(4, c0, eps=1e-6)
        self.conv_act = nn.SiLU()
        self.conv_out = nn.Conv2d(c0, in_channels, kernel_size=3, padding=1)

    def forward(self, sample, timestep):
        temb = self.time_embedding(get_timestep_embedding(timestep, self.temb_channels))
        h = self.down[0](self.conv_in(sample), temb)
        skip = h
        h = self.mid(self.downsample(h), temb)
        h = F.interpolate(h, scale_factor=2.0, mode="nearest")
        h = self.up[0](torch.cat([h, skip], dim=1), temb)
        return self.conv_out(self.conv_act(self.conv_norm_out(h)))


class TransformerClassifier(nn.Module):
    """nn.TransformerEncoder as its docs write it: one TransformerEncoderLayer deep-copied N times
    (so every layer starts as an exact copy), MultiheadAttention with in_proj_weight and
    _reset_parameters (no public reset_parameters)."""

    def __init__(self, vocab=64, d_model=16, nhead=2, num_layers=2):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_model)
        encoder_layer = nn.TransformerEncoderLayer(
            d_model, nhead, dim_feedforward=32, dropout=0.1, batch_first=True
        )
        self.transformer_encoder = nn.TransformerEncoder(encoder_layer, num_layers)
        self.classifier = nn.Linear(d_model, 4)

    def forward(self, src):
        return self.classifier(self.transformer_encoder(self.embedding(src)).mean(1))


class EncoderRNN(nn.Module):
    """A seq2seq GRU encoder that calls flatten_parameters() in forward (a no-op on the CPU)."""

    def __init__(self, input_size=64, hidden_size=16, n_layers=2):
        super().__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(
            hidden_size, hidden_size, n_layers, batch_first=True, bidirectional=True
        )

    def forward(self, input_seq):
        self.gru.flatten_parameters()
        outputs, hidden = self.gru(self.embedding(input_seq))
        return outputs[:, :, : self.hidden_size] + outputs[
            :, :, self.hidden_size :
        ], hidden


class ResnetBlock(nn.Module):
    def __init__(self, dim, norm_layer, use_bias):
        super().__init__()
        self.conv_block = nn.Sequential(
            nn.ReflectionPad2d(1),
            nn.Conv2d(dim, dim, kernel_size=3, padding=0, bias=use_bias),
            norm_layer(dim),
            nn.ReLU(True),
            nn.ReflectionPad2d(1),
            nn.Conv2d(dim, dim, kernel_size=3, padding=0, bias=use_bias),
            norm_layer(dim),
        )

    def forward(self, x):
        return x + self.conv_block(x)


class ResnetGenerator(nn.Module):
    """junyanz/pytorch-CycleGAN-and-pix2pix with norm='instance': InstanceNorm2d(affine=False,
    track_running_stats=False) registers weight, bias, running_mean, running_var as None."""

    def __init__(self, input_nc=3, output_nc=3, ngf=8, n_blocks=2):
        super().__init__()
        norm_layer = nn.InstanceNorm2d
        use_bias = True
        model = [
            nn.ReflectionPad2d(3),
            nn.Conv2d(input_nc, ngf, kernel_size=7, padding=0, bias=use_bias),
            norm_layer(ngf),
            nn.ReLU(True),
        ]
        model += [ResnetBlock(ngf, norm_layer, use_bias) for _ in range(n_blocks)]
        model += [
            nn.ReflectionPad2d(3),
            nn.Conv2d(ngf, output_nc, kernel_size=7, padding=0),
            nn.Tanh(),
        ]
        self.model = nn.Sequential(*model)
        self.apply(self.init_func)

    @staticmethod
    def init_func(m, init_gain=0.02):
        classname = m.__class__.__name__
        if hasattr(m, "weight") and (
            classname.find("Conv") != -1 or classname.find("Linear") != -1
        ):
            nn.init.normal_(m.weight.data, 0.0, init_gain)
            if hasattr(m, "bias") and m.bias is not None:
                nn.init.constant_(m.bias.data, 0.0)
        elif classname.find("BatchNorm2d") != -1:
            nn.init.normal_(m.weight.data, 1.0, init_gain)
            nn.init.constant_(m.bias.data, 0.0)

    def forward(self, input):
        return self.model(input)


class QATNet(nn.Module):
    """Quantization-aware training the torch.ao way: FakeQuantize modules with uint8 enable flags,
    an int32 zero_point and a MinMax/MovingAverage observer's min_val / max_val buffers."""

    def __init__(self):
        super().__init__()
        from torch.ao.quantization import FakeQuantize, MovingAverageMinMaxObserver

        self.input_fake_quant = FakeQuantize(
            observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255
        )
        self.fc1 = nn.Linear(16, 32)
        self.act_fake_quant = FakeQuantize(
            observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255
        )
        self.fc2 = nn.Linear(32, 10)
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))

    def forward(self, x):
        if self.training:
            self.num_batches_tracked.add_(1)
        x = F.relu(self.fc1(self.input_fake_quant(x)))
        return self.fc2(self.act_fake_quant(x))


class NoisyTopKRouter(nn.Module):
    """Noisy top-k gating (Shazeer et al.) with its own torch.Generator for the noise, and plain
    Python floats for its settings; nothing of that is in state_dict()."""

    def __init__(self, dim=16, num_experts=4, k=2, seed=1234):
        super().__init__()
        self.k = k
        self.noise_epsilon = 1e-2
        self.temperature = 1.0
        self.w_gate = nn.Parameter(torch.zeros(dim, num_experts))
        self.w_noise = nn.Parameter(torch.zeros(dim, num_experts))
        self.generator = torch.Generator().manual_seed(seed)

    def forward(self, x):
        clean_logits = x @ self.w_gate
        noise_stddev = F.softplus(x @ self.w_noise) + self.noise_epsilon
        noise = torch.randn(clean_logits.shape, generator=self.generator)
        logits = (clean_logits + noise * noise_stddev) / self.temperature
        top_logits, top_indices = logits.topk(self.k, dim=-1)
        gates = torch.zeros_like(logits).scatter(
            -1, top_indices, F.softmax(top_logits, dim=-1)
        )
        return gates


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
        lambda: ResNet(
            Bottleneck, [1, 1, 1, 1], zero_init_residual=True, widths=(4, 8, 8, 8)
        ),
        lambda: _image(size=32),
        "torchvision ResNet with Bottleneck blocks (expansion 4): zero_init_residual=True zeroes "
        "every bn3.weight",
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
        "the same lazy CNN after its dry run under no_grad in eval mode (now Conv2d, BatchNorm2d, "
        "Linear)",
        "batchnorm",
        "persistent-buffer",
        "int-buffer",
    ),
    _spec(
        "meta-half",
        _meta_half,
        _no_inputs,
        "built under torch.device('meta'); embed and encoder materialized with to_empty and reset, "
        "head still on meta",
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
        "a diffusers-style UNet: ResnetBlock2D with GroupNorm, SiLU and time_emb_proj, "
        "sinusoidal timestep embedding",
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
