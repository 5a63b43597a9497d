"""A BERT encoder with its masked-LM head in plain PyTorch, with the state_dict names and
layouts of Hugging Face's BertForMaskedLM (bert.embeddings.{word, position, token_type}_embeddings
and LayerNorm, bert.encoder.layer.<i>.{attention.self.{query, key, value},
attention.output.{dense, LayerNorm}, intermediate.dense, output.{dense, LayerNorm}},
cls.predictions.{transform.dense, transform.LayerNorm, bias}; the decoder tied to the word
embedding).

It is the zoo's `bert` and `bert-base` (compiler/zoo/bert.cpp) written for PyTorch:
scripts/torch_reference.py builds it to check a simulated step. Post-norm layers, GELU in its
erf form, layer norms with eps 1e-12, every token of type 0, the padding mask Hugging Face's
(attention_mask [N, T] of 1 and 0, added to the scores as (1 - mask) times the dtype's lowest
value), no pooler. Dropout is Hugging Face's, at its module paths (bert.embeddings.dropout,
<layer>.attention.self.dropout, <layer>.attention.output.dropout, <layer>.output.dropout):
`dropout` is BERT's hidden_dropout_prob, `attention_dropout` its attention_probs_dropout_prob;
both default to 0, as the zoo's --dropout and --attention-dropout do.

    model = BERT(layers=2, heads=4, width=64, vocab=128, positions=32)
    logits = model(ids)                       # ids [N, T] int64 -> [N, T, vocab]
    logits = model(ids, attention_mask)       # with padding (1 attend, 0 padding)
    loss = lm_loss(logits, labels)            # labels [N, T], -100 ignored
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from gpt_model import extended_attention_mask  # the same padding mask as GPT-2's
from gpt_model import lm_loss  # noqa: F401  (the same loss: cross-entropy, -100 ignored)

# name -> (layers, heads, width, seq_len, vocab, positions), as compiler/zoo/zoo.cpp registers
PRESETS = {
    "bert": (2, 4, 64, 32, 128, 32),
    "bert-base": (12, 12, 768, 512, 30522, 512),
}

EPS = 1e-12


class Embeddings(nn.Module):
    def __init__(self, width, vocab, positions, dropout):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, width)
        self.position_embeddings = nn.Embedding(positions, width)
        self.token_type_embeddings = nn.Embedding(2, width)
        self.LayerNorm = nn.LayerNorm(width, eps=EPS)
        self.dropout = nn.Dropout(dropout)

    def forward(self, ids):
        t = ids.shape[1]
        pos = torch.arange(t, device=ids.device)
        types = torch.zeros(t, dtype=torch.long, device=ids.device)
        h = self.word_embeddings(ids) + self.position_embeddings(pos)
        return self.dropout(self.LayerNorm(h + self.token_type_embeddings(types)))


class SelfAttention(nn.Module):
    def __init__(self, width, heads, attention_dropout):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(width, width)
        self.key = nn.Linear(width, width)
        self.value = nn.Linear(width, width)
        self.dropout = nn.Dropout(attention_dropout)

    def forward(self, x, mask=None):
        n, t, d = x.shape
        hd = d // self.heads

        def split(y):
            return y.view(n, t, self.heads, hd).transpose(1, 2)

        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        if mask is not None:
            att = att + mask
        att = torch.softmax(att, dim=-1)
        att = self.dropout(att)
        return (att @ v).transpose(1, 2).reshape(n, t, d)


class DenseNorm(nn.Module):
    """BertSelfOutput and BertOutput: dense, residual add, LayerNorm."""

    def __init__(self, width_in, width, dropout):
        super().__init__()
        self.dense = nn.Linear(width_in, width)
        self.LayerNorm = nn.LayerNorm(width, eps=EPS)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, residual):
        return self.LayerNorm(self.dropout(self.dense(x)) + residual)


class Attention(nn.Module):
    def __init__(self, width, heads, dropout, attention_dropout):
        super().__init__()
        self.self = SelfAttention(width, heads, attention_dropout)
        self.output = DenseNorm(width, width, dropout)

    def forward(self, x, mask=None):
        return self.output(self.self(x, mask), x)


class Intermediate(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.dense = nn.Linear(width, 4 * width)

    def forward(self, x):
        return F.gelu(self.dense(x))


class Layer(nn.Module):
    def __init__(self, width, heads, dropout, attention_dropout):
        super().__init__()
        self.attention = Attention(width, heads, dropout, attention_dropout)
        self.intermediate = Intermediate(width)
        self.output = DenseNorm(4 * width, width, dropout)

    def forward(self, x, mask=None):
        a = self.attention(x, mask)
        return self.output(self.intermediate(a), a)


class Encoder(nn.Module):
    def __init__(self, layers, heads, width, dropout, attention_dropout):
        super().__init__()
        self.layer = nn.ModuleList(Layer(width, heads, dropout, attention_dropout)
                                   for _ in range(layers))


class Bert(nn.Module):
    def __init__(self, layers, heads, width, vocab, positions, dropout, attention_dropout):
        super().__init__()
        self.embeddings = Embeddings(width, vocab, positions, dropout)
        self.encoder = Encoder(layers, heads, width, dropout, attention_dropout)


class Transform(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.dense = nn.Linear(width, width)
        self.LayerNorm = nn.LayerNorm(width, eps=EPS)

    def forward(self, x):
        return self.LayerNorm(F.gelu(self.dense(x)))


class Predictions(nn.Module):
    def __init__(self, width, vocab):
        super().__init__()
        self.transform = Transform(width)
        self.bias = nn.Parameter(torch.zeros(vocab))


class Cls(nn.Module):
    def __init__(self, width, vocab):
        super().__init__()
        self.predictions = Predictions(width, vocab)


class BERT(nn.Module):
    def __init__(self, layers, heads, width, vocab, positions, dropout=0.0,
                 attention_dropout=0.0):
        super().__init__()
        self.bert = Bert(layers, heads, width, vocab, positions, dropout, attention_dropout)
        self.cls = Cls(width, vocab)
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, 0.0, 0.02)
            if isinstance(m, nn.Linear):
                nn.init.zeros_(m.bias)

    def forward(self, ids, attention_mask=None):
        h = self.bert.embeddings(ids)
        mask = extended_attention_mask(attention_mask, h.dtype)
        for layer in self.bert.encoder.layer:
            h = layer(h, mask)
        h = self.cls.predictions.transform(h)
        # The decoder, tied to the word embedding, plus its own bias.
        return h @ self.bert.embeddings.word_embeddings.weight.t() + self.cls.predictions.bias
