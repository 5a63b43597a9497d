"""Small models written in plain PyTorch that exercise ops torchvision's CNNs do not use, for
the ONNX workflow's end-to-end checks: scripts/export_onnx.py exports them by name and
scripts/torch_reference.py builds them by name to check a simulated step.

softmax_probe: a softmax over the channels of a map (ONNX Softmax on axis 1: a transpose view
in the importer) gating the map, and a scaled softmax over the pixels (axis -1 after a
reshape: attention pooling, the scale a constant Mul) weighting it before the pool.
"""

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


# name -> builder(channels, classes)
PROBES = {"softmax_probe": SoftmaxProbe}
