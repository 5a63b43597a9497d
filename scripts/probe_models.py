"""Small models written in plain PyTorch that exercise ops torchvision's CNNs do not use, for
the ONNX workflow's end-to-end checks: scripts/export_onnx.py exports them by name and
scripts/torch_reference.py builds them by name to check a simulated step.

softmax_probe: a softmax over the channels of a map (ONNX Softmax on axis 1: a transpose view
in the importer) gating the map, and a scaled softmax over the pixels (axis -1 after a
reshape: attention pooling, the scale a constant Mul) weighting it before the pool.

attention_probe: one pre-norm transformer block over image patches, its self-attention written
as GPT-2 writes it (one Linear for q, k and v split three ways, heads split by view and
transpose, q @ k^T scaled, softmax, @ v, heads merged back), a GELU MLP, a final layer norm,
mean pooling over the tokens and a classifier.

causal_attention_probe: the same block with a decoder's causal mask added to the scores (a
[T, T] constant, 0 on and below the diagonal and -inf above, as GPT-2's `bias` buffer masks).
"""

import math

import torch
import torch.nn as nn


class SoftmaxProbe(nn.Module):
    def __init__(self, channels=3, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, 8, 3, padding=1)
        self.relu = nn.ReLU()
        self.gate = nn.Conv2d(8, 8, 1)
        self.score = nn.Conv2d(8, 1, 1)
        self.fc = nn.Linear(8, classes)

    def forward(self, x):
        h = self.relu(self.conv1(x))
        h = h * torch.softmax(self.gate(h), dim=1)
        s = self.score(h)
        n, _, height, width = s.shape
        a = torch.softmax(s.reshape(n, 1, height * width) * 0.5, dim=-1)
        p = (h * a.reshape(n, 1, height, width)).mean(dim=(2, 3))
        return self.fc(p)


class AttentionProbe(nn.Module):
    def __init__(self, channels=3, classes=10, width=32, heads=4, patch=4, causal=False):
        super().__init__()
        self.heads = heads
        self.causal = causal
        self.patch = nn.Conv2d(channels, width, patch, stride=patch)
        self.ln_1 = nn.LayerNorm(width)
        self.c_attn = nn.Linear(width, 3 * width)
        self.c_proj = nn.Linear(width, width)
        self.ln_2 = nn.LayerNorm(width)
        self.mlp_fc = nn.Linear(width, 4 * width)
        self.gelu = nn.GELU()
        self.mlp_proj = nn.Linear(4 * width, width)
        self.ln_f = nn.LayerNorm(width)
        self.fc = nn.Linear(width, classes)

    def attention(self, x):
        n, t, d = x.shape
        q, k, v = self.c_attn(x).split(d, dim=2)
        q = q.view(n, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(n, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(n, t, self.heads, d // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // self.heads))
        if self.causal:
            att = att + torch.full((t, t), float("-inf")).triu(1)
        att = torch.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(n, t, d)
        return self.c_proj(y)

    def forward(self, x):
        h = self.patch(x).flatten(2).transpose(1, 2)
        h = h + self.attention(self.ln_1(h))
        h = h + self.mlp_proj(self.gelu(self.mlp_fc(self.ln_2(h))))
        return self.fc(self.ln_f(h).mean(dim=1))


# name -> builder(channels, classes)
class CausalAttentionProbe(AttentionProbe):
    def __init__(self, channels=3, classes=10):
        super().__init__(channels, classes, causal=True)


PROBES = {"softmax_probe": SoftmaxProbe, "attention_probe": AttentionProbe,
          "causal_attention_probe": CausalAttentionProbe}
