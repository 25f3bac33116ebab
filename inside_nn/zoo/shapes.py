"""Smaller architectures, each for the state it keeps: a tied LSTM language model, a graph convolution
network, a VQ-VAE codebook, lazy and meta-built models, and common shapes (extra state, frozen
backbones, a UNet, a GRU encoder, CycleGAN's generator, quantization-aware training, a router with
its own Generator)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from inside_nn.zoo.convnets import BasicBlock, ResNet

# --------------------------------------------------------------------------------------------------
# pytorch/examples word_language_model: RNNModel with tie_weights (decoder.weight = encoder.weight)
# and init_weights written with nn.init on the encoder and decoder.


class RNNModel(nn.Module):
    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            if nhid != ninp:
                raise ValueError("When using the tied flag, nhid must be equal to emsize")
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
    cols = torch.stack([torch.arange(n), (torch.arange(n) + 1) % n, (torch.arange(n) - 1) % n], 1)
    values = torch.full((3 * n,), 1.0 / 3)
    indices = torch.stack([rows, cols.flatten()])
    return torch.sparse_coo_tensor(indices, values, (n, n), check_invariants=True).coalesce()


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
        dist = flatten.pow(2).sum(1, keepdim=True) - 2 * flatten @ self.embed + self.embed.pow(2).sum(0, keepdim=True)
        _, embed_ind = (-dist).max(1)
        embed_onehot = F.one_hot(embed_ind, self.n_embed).type(flatten.dtype)
        embed_ind = embed_ind.view(*input.shape[:-1])
        quantize = F.embedding(embed_ind, self.embed.transpose(0, 1))
        if self.training:
            embed_onehot_sum = embed_onehot.sum(0)
            embed_sum = flatten.transpose(0, 1) @ embed_onehot
            self.cluster_size.data.mul_(self.decay).add_(embed_onehot_sum, alpha=1 - self.decay)
            self.embed_avg.data.mul_(self.decay).add_(embed_sum, alpha=1 - self.decay)
            n = self.cluster_size.sum()
            cluster_size = (self.cluster_size + self.eps) / (n + self.n_embed * self.eps) * n
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
        self.encoder = nn.TransformerEncoderLayer(dim, 2, 32, dropout=0.0, batch_first=True)
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
        self.conv1 = nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=1, padding=1)
        self.time_emb_proj = nn.Linear(temb_channels, out_channels)
        self.norm2 = nn.GroupNorm(groups, out_channels, eps=eps, affine=True)
        self.dropout = nn.Dropout(0.0)
        self.conv2 = nn.Conv2d(out_channels, out_channels, kernel_size=3, stride=1, padding=1)
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
    exponent = -math.log(max_period) * torch.arange(half_dim, dtype=torch.float32) / half_dim
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
        encoder_layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=32, dropout=0.1, batch_first=True)
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
        self.gru = nn.GRU(hidden_size, hidden_size, n_layers, batch_first=True, bidirectional=True)

    def forward(self, input_seq):
        self.gru.flatten_parameters()
        outputs, hidden = self.gru(self.embedding(input_seq))
        return outputs[:, :, : self.hidden_size] + outputs[:, :, self.hidden_size :], hidden


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
        if hasattr(m, "weight") and (classname.find("Conv") != -1 or classname.find("Linear") != -1):
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

        self.input_fake_quant = FakeQuantize(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255)
        self.fc1 = nn.Linear(16, 32)
        self.act_fake_quant = FakeQuantize(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255)
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
        gates = torch.zeros_like(logits).scatter(-1, top_indices, F.softmax(top_logits, dim=-1))
        return gates
