"""A GPT-2-style decoder-only language model in plain PyTorch, with the state_dict names and
layouts of Hugging Face's GPT2LMHeadModel (transformer.wte, transformer.wpe,
transformer.h.<i>.{ln_1, attn.c_attn, attn.c_proj, ln_2, mlp.c_fc, mlp.c_proj},
transformer.ln_f; Conv1D weights stored [in, out]; the LM head tied to transformer.wte).

It is the zoo's `gpt` and `gpt2-small` (compiler/zoo/gpt.cpp) written for PyTorch:
scripts/torch_reference.py builds it to check a simulated step, and scripts/export_onnx.py
exports it. GELU is the tanh form (GPT-2's gelu_new). Dropout is Hugging Face's, at its
module paths (transformer.drop, transformer.h.<i>.attn.attn_dropout, .attn.resid_dropout and
.mlp.dropout): `dropout` is GPT-2's embd_pdrop and resid_pdrop, `attention_dropout` its
attn_pdrop; both default to 0, as the zoo's --dropout and --attention-dropout do.

    model = GPT(layers=2, heads=4, width=64, vocab=128, positions=32)
    logits = model(ids)                       # ids [N, T] int64 -> [N, T, vocab]
    logits = model(ids, attention_mask)       # with padding (1 attend, 0 padding), as HF's
    loss = lm_loss(logits, labels)            # labels [N, T], -100 ignored
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

# name -> (layers, heads, width, seq_len, vocab, positions), as compiler/zoo/zoo.cpp registers
PRESETS = {
    "gpt": (2, 4, 64, 32, 128, 32),
    "gpt2-small": (12, 12, 768, 1024, 50257, 1024),
}


class Conv1D(nn.Module):
    """Hugging Face's Conv1D: a linear layer whose weight is stored [in, out]."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_features, out_features).normal_(0.0, 0.02))
        self.bias = nn.Parameter(torch.zeros(out_features))

    def forward(self, x):
        return torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight).reshape(
            *x.shape[:-1], self.weight.shape[1])


class Attention(nn.Module):
    def __init__(self, width, heads, dropout=0.0, attention_dropout=0.0):
        super().__init__()
        self.heads = heads
        self.c_attn = Conv1D(width, 3 * width)
        self.c_proj = Conv1D(width, width)
        self.attn_dropout = nn.Dropout(attention_dropout)
        self.resid_dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        n, t, d = x.shape
        q, k, v = self.c_attn(x).split(d, dim=2)
        q = q.view(n, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(n, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(n, t, self.heads, d // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // self.heads))
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        att = att.masked_fill(~causal, float("-inf"))
        if mask is not None:
            att = att + mask
        att = self.attn_dropout(torch.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).reshape(n, t, d)
        return self.resid_dropout(self.c_proj(y))


class Mlp(nn.Module):
    def __init__(self, width, dropout=0.0):
        super().__init__()
        self.c_fc = Conv1D(width, 4 * width)
        self.c_proj = Conv1D(4 * width, width)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(F.gelu(self.c_fc(x), approximate="tanh")))


class Block(nn.Module):
    def __init__(self, width, heads, dropout=0.0, attention_dropout=0.0):
        super().__init__()
        self.ln_1 = nn.LayerNorm(width)
        self.attn = Attention(width, heads, dropout, attention_dropout)
        self.ln_2 = nn.LayerNorm(width)
        self.mlp = Mlp(width, dropout)

    def forward(self, x, mask=None):
        x = x + self.attn(self.ln_1(x), mask)
        return x + self.mlp(self.ln_2(x))


class Transformer(nn.Module):
    def __init__(self, layers, heads, width, vocab, positions, dropout, attention_dropout):
        super().__init__()
        self.wte = nn.Embedding(vocab, width)
        self.wpe = nn.Embedding(positions, width)
        self.drop = nn.Dropout(dropout)
        self.h = nn.ModuleList(Block(width, heads, dropout, attention_dropout)
                               for _ in range(layers))
        self.ln_f = nn.LayerNorm(width)

    def forward(self, ids, attention_mask=None):
        """GPT2Model: the hidden states after ln_f. (Its own forward, so the exporter names
        the nodes inside it /transformer/...; their module paths.)"""
        t = ids.shape[1]
        pos = torch.arange(t, device=ids.device)
        h = self.drop(self.wte(ids) + self.wpe(pos))
        mask = extended_attention_mask(attention_mask, h.dtype)
        for block in self.h:
            h = block(h, mask)
        return self.ln_f(h)


class GPT(nn.Module):
    def __init__(self, layers, heads, width, vocab, positions, dropout=0.0,
                 attention_dropout=0.0):
        super().__init__()
        self.transformer = Transformer(layers, heads, width, vocab, positions, dropout,
                                       attention_dropout)

    def forward(self, ids, attention_mask=None):
        h = self.transformer(ids, attention_mask)
        return h @ self.transformer.wte.weight.t()  # the LM head, tied


def extended_attention_mask(attention_mask, dtype):
    """Hugging Face's additive padding mask [N, 1, 1, T] from attention_mask [N, T] (1 attend,
    0 padding): (1 - mask) * the lowest value of dtype; None for None."""
    if attention_mask is None:
        return None
    return (1.0 - attention_mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min


def lm_loss(logits, labels):
    """The next-token cross-entropy over every position; labels -100 are ignored."""
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1),
                           ignore_index=-100)


def from_state_dict_names(weights, shapes, heads):
    """A GPT whose shape is read from its state_dict names and shapes (`shapes`: name ->
    shape); the head count, which no shape shows, is given."""
    layers = len([w for w in weights if w.startswith("transformer.h.") and
                  w.endswith(".ln_1.weight")])
    vocab, width = shapes["transformer.wte.weight"]
    positions = shapes["transformer.wpe.weight"][0]
    return GPT(layers, heads, width, vocab, positions)
