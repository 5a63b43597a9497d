#!/usr/bin/python3
"""Cross-check one S2Train training step (simulator dump or reference interpreter) with PyTorch.

The directory is one of:
* a simulator dump: `s2sim run X.bin --functional --dump-all DIR` writes every tensor after the
  step, the executable's initial data (DIR/initial/) and DIR/manifest.json, format
  "s2sim-dump 1" (simulator/report/dump_manifest.h). The sgd instructions name each weight's
  gradient tensor and give lr, momentum and weight decay; the ReLU masks are the dumped ReLU
  outputs > 0 and the max-pool argmaxes the dumped idx operands. The executable does not name
  its model: it is recognised from the weight names (torchvision's state_dict names), or given
  with --model. A dump of N steps (--steps N) is compared with PyTorch's N steps on the same
  batch; with ReLU or max-pool decisions only under --own-decisions (the dump holds the last
  step's decisions, which PyTorch cannot follow through the earlier steps), never with dropout.
* a reference-interpreter step: `s2c reference MODEL --out-dir DIR` writes the step's inputs,
  results and forward decisions as .npy files and a manifest, format "s2train-reference-step 1"
  (compiler/driver/reference.h).

This script rebuilds the same model in PyTorch (torchvision's resnet18/34/50, vgg11 and, for
the zoo's vit and vit_b_16, VisionTransformer; scripts/gpt_model.py's GPT and
scripts/bert_model.py's BERT for the language models; our own mlp and lenet5 modules; all with
the same state_dict names; for a step compiled from an
ONNX export of scripts/export_onnx.py, any torchvision classification model, named with
--model unless recognised), loads the same weights,
running statistics and batch, runs one training step -- model.train(), F.cross_entropy (or,
with several loss terms, the dump's weighted sum of each auxiliary classifier's),
torch.optim.SGD(lr, momentum, weight_decay) -- and compares, per tensor,
max|ours - torch| / max|torch| (the absolute error where torch's tensor is all zero) for the
loss, every weight gradient, every updated weight and every updated running statistic.
A step compiled with --optimizer adamw runs torch.optim.AdamW instead (and compares its two
moments); one compiled with --clip-grad-norm X runs torch.nn.utils.clip_grad_norm_(X) between
the backward and the update: the gradients compared are those before clipping, and a
simulator dump's global norm is compared with the one clip_grad_norm_ returns.

PyTorch follows our forward decisions (each ReLU's and ReLU6's mask, each max-pool's argmax,
and each dropout's and stochastic depth's mask: they are drawn on the accelerator, so PyTorch
multiplies by ours). Decisions of an ONNX import are named after its nodes ("/layer1/layer1.0/relu_1/Relu")
and matched to the module calls they come from ("layer1.0.relu_2"). fp32 sums
in another order differ in the last bits, so a pre-activation within ~1e-6 of zero, or two
nearly equal values in a pooling window, may land on the other side in PyTorch and move one
gradient element by O(1), although both are right to rounding. Every element where PyTorch's
own choice differs is counted, and its margin -- |x| / max|x| for a ReLU, (max - chosen) /
max|x| for a pool -- is a row of the table like any other error, so a flip that is not a
near-tie still fails the check.

Some steps are ill-conditioned: batch norm over few values per channel (resnet18 on 32x32
images at batch 4 normalises 4 values per channel in layer4) amplifies rounding until
PyTorch's own float32 step is ~1e-4 away from its float64 step, so two correct float32
implementations can differ by more than 1e-4. --fp64-floor also runs the step in float64 (the
exact answer, to ~1e-13) and adds two columns: how far PyTorch's own float32 result is from it
("torch32 v 64", the conditioning), and how far ours is ("ours v 64", our accuracy).
--exact-factor F judges such a step by accuracy instead: it is accepted when every tensor of
ours is within max(--tolerance, F x w) of the float64 step, where w is PyTorch's float32
step's worst distance from it -- "no less accurate than PyTorch's float32, within F". A wrong
result is orders of magnitude beyond either. Tensors that are analytically zero (in mobilenet_v2
the bias gradient of each block's last batch norm: its output reaches the loss only through a
convolution and another batch norm, which cancels any per-channel shift) are pure rounding noise
in both float32 steps; those where PyTorch's float32 step is more than 1e-2 from the float64 one
are listed as rounding noise, left out of w, and each accepted when ours is within F x PyTorch's
own distance on it.

A mixed-precision step (s2c --precision bf16|fp16: the reference manifest's "precision", or a
dump's 16-bit weight copies) is compared with PyTorch's own step of that precision: CPU autocast
for bf16; for fp16, which CPU autocast lacks, Fp16Emulation (the operands and results of every
convolution and matrix product rounded to float16) with GradScalerEmulation when the step scales
its loss. --exact-factor F then judges it tensor by tensor: each tensor of ours within
max(--tolerance, F x PyTorch's own distance on that tensor) of the float64 step, and a flipped
decision a near-tie when its margin is within F x PyTorch's worst distance on any tensor.

It prints a table and the worst tensor, and exits 0 when every error is within what is
accepted, and 1 when one exceeds it or when the directory is not a usable step or a flag is
wrong (the message says which, naming the file).

Run with Debian's interpreter and packages: /usr/bin/python3 with python3-torch,
python3-torchvision and python3-numpy.
"""

import contextlib
import json
import os
import re
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

import bert_model
import gpt_model
from probe_models import PROBES
from script_args import Parser

REFERENCE_FORMAT = "s2train-reference-step 1"  # compiler/driver/reference.h
# A tensor PyTorch's float32 step gets further than this (relative) from its float64 step is
# rounding noise (see main()).
NOISE = 1e-2
SIM_DUMP_FORMAT = "s2sim-dump 1"  # simulator/report/dump_manifest.h


class InputError(Exception):
    """The reference directory is missing something or does not fit the model."""


PRECISIONS = ("fp32", "bf16", "fp16")  # s2c --precision
# What PyTorch's own step of each precision is.
OWN_STEP = {"fp32": "float32", "bf16": "bfloat16-autocast", "fp16": "float16-emulated"}


class Fp16Emulation(torch.overrides.TorchFunctionMode):
    """PyTorch's CPU autocast has no float16, so a step compiled with --precision fp16 is
    compared with this emulation of CUDA's float16 autocast in float32: the operands of every
    convolution and matrix product, and its result, are rounded to float16 (each a cast whose
    backward rounds the gradient to float16 too, as autocast's casts do); the products of two
    float16 values are exact in float32, which accumulates them."""

    # By name: the functions arrive as torch.conv2d, torch._C._nn.linear, Tensor.matmul, ...
    PE_OPS = {"conv2d", "linear", "matmul", "__matmul__", "bmm", "mm"}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if getattr(func, "__name__", None) not in self.PE_OPS:
            return func(*args, **kwargs)

        def half(t):
            if isinstance(t, torch.Tensor) and t.is_floating_point():
                return t.half().float()
            return t
        out = func(*[half(a) for a in args], **{k: half(v) for k, v in kwargs.items()})
        return half(out)


class GradScalerEmulation:
    """torch.cuda.amp.GradScaler, which needs CUDA, on the CPU: the loss times the scale
    (float32) for the backward; then every gradient checked for an inf or a NaN and unscaled by
    float32(1 / float64(scale)), the optimizers stepped only when none overflowed, and the scale
    moved as torch._amp_update_scale_ does (all in float32)."""

    def __init__(self, scaling):
        self.scale_value = np.float32(scaling["init_scale"])
        self.growth = np.float32(scaling["growth_factor"])
        self.backoff = np.float32(scaling["backoff_factor"])
        self.interval = int(scaling["growth_interval"])
        self.tracker = 0
        self.skipped = 0

    def scale(self, loss):
        return loss.float() * torch.tensor(float(self.scale_value), dtype=loss.dtype)

    def unscale(self, params):
        """scaler.unscale_(): checks and unscales the gradients in place (once per step), as
        before gradient clipping."""
        grads = [p.grad for p in params if p.grad is not None]
        self.found = any(not bool(torch.isfinite(g).all()) for g in grads)
        inv = float(np.float32(1.0 / np.float64(self.scale_value)))
        for g in grads:
            g.mul_(inv)
        self.unscaled = True

    def step(self, params, opts):
        params = list(params)
        if not getattr(self, "unscaled", False):
            self.unscale(params)
        self.unscaled = False
        found = self.found
        if found:
            self.skipped += 1
            self.scale_value = np.float32(self.scale_value * self.backoff)
            self.tracker = 0
            return
        for o in opts:
            o.step()
        self.tracker += 1
        if self.tracker == self.interval:
            grown = np.float32(self.scale_value * self.growth)
            if np.isfinite(grown):
                self.scale_value = grown
            self.tracker = 0


def precision_context(precision):
    """Where PyTorch computes the forward of a --precision step: float32 as it is, bfloat16
    under CPU autocast (master weights stay float32), float16 under Fp16Emulation."""
    if precision == "bf16":
        return torch.autocast("cpu", dtype=torch.bfloat16)
    if precision == "fp16":
        return Fp16Emulation()
    return contextlib.nullcontext()


class Mlp(nn.Module):
    """The zoo's mlp (compiler/zoo/mlp.cpp)."""

    def __init__(self, in_features, classes):
        super().__init__()
        self.fc1 = nn.Linear(in_features, 256)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(256, 128)
        self.relu2 = nn.ReLU()
        self.fc3 = nn.Linear(128, classes)

    def forward(self, x):
        x = torch.flatten(x, 1)
        x = self.relu1(self.fc1(x))
        x = self.relu2(self.fc2(x))
        return self.fc3(x)


class LeNet5(nn.Module):
    """The zoo's lenet5 (compiler/zoo/lenet5.cpp)."""

    def __init__(self, channels, height, width, classes):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, 6, 5)
        self.relu1 = nn.ReLU()
        self.pool1 = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.relu2 = nn.ReLU()
        self.pool2 = nn.MaxPool2d(2, 2)
        h = ((height - 4) // 2 - 4) // 2
        w = ((width - 4) // 2 - 4) // 2
        self.fc1 = nn.Linear(16 * h * w, 120)
        self.relu3 = nn.ReLU()
        self.fc2 = nn.Linear(120, 84)
        self.relu4 = nn.ReLU()
        self.fc3 = nn.Linear(84, classes)

    def forward(self, x):
        x = self.pool1(self.relu1(self.conv1(x)))
        x = self.pool2(self.relu2(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = self.relu3(self.fc1(x))
        x = self.relu4(self.fc2(x))
        return self.fc3(x)


def onnx_module_call(op, modules):
    """The zoo-style name (module path, "_N" for its Nth call) of an op an ONNX import named
    after its node: PyTorch's exporter names a node by its module scopes and type, e.g.
    "/features/features.1/conv/conv.0/conv.0.2/Clip". Each scope is its module's name relative
    to the nearest enclosing module that is not a container (so "conv.0.2" continues "conv"),
    and a module's second call gets the scope "relu_1". Names not starting with "/" are the
    zoo's own and stay."""
    if not op.startswith("/"):
        return op
    path, previous, call = "", None, 1
    for scope in op.split("/")[1:-1]:
        call = 1
        if previous is not None and scope.startswith(previous + "."):
            path += scope[len(previous):]
        else:
            base, _, count = scope.rpartition("_")
            candidate = path + "." + scope if path else scope
            if base and count.isdigit() and candidate not in modules:
                scope, call = base, int(count) + 1
            path = path + "." + scope if path else scope
        previous = scope
    return path if call == 1 else "%s_%d" % (path, call)


class Decisions:
    """Our forward decisions, handed out by op name, and PyTorch's disagreements with them."""

    def __init__(self, step):
        self.step = step
        self.expected = dict(step.decisions)
        self.source = {op: op for op in self.expected}  # our name -> the manifest's
        self.used = set()
        self.flips = {}  # op name -> (elements that differ, worst margin, max|x|, shape)

    def name_by_modules(self, modules):
        """Renames decisions an ONNX import named after its nodes to module-call names. A node
        inside a module that is not itself a ReLU, ReLU6, pool or dropout is a functional call
        (torch.nn.functional.relu in GoogLeNet's BasicConv2d, DenseNet's forward):
        "<module path>:<node>", e.g. "conv1:Relu", ":Relu" at the top."""
        renamed, source = {}, {}
        for op, op_type in self.expected.items():
            name = onnx_module_call(op, set(modules))
            base = name.rpartition("_")[0] if name not in modules else name
            if op.startswith("/") and not isinstance(modules.get(base, modules.get(name)),
                                                     DECIDED_MODULES):
                name = "%s:%s" % (name, op.rpartition("/")[2])
            if name in renamed:
                raise InputError("decisions '%s' and '%s' both belong to module call '%s'"
                                 % (source[name], op, name))
            renamed[name] = op_type
            source[name] = op
        self.expected, self.source = renamed, source

    def take(self, op, op_type):
        """Our decision for PyTorch's `op_type` call `op`, as a tensor of the dumped values."""
        if self.expected.get(op) != op_type:
            raise InputError("PyTorch's %s call '%s' has no %s decision in the manifest"
                             % (op_type, op, op_type))
        if op in self.used:
            raise InputError("decision '%s' used twice" % op)
        self.used.add(op)
        return torch.from_numpy(np.ascontiguousarray(self.step.decision(self.source[op])))

    def record(self, op, differ, margin, scale, shape):
        self.flips[op] = (int(differ), float(margin), float(scale), tuple(shape))

    def check_all_used(self):
        unused = [self.source[op] for op in self.expected if op not in self.used]
        if unused:
            raise InputError("decisions the PyTorch model never reached: %s" % unused)


class CalledModule(nn.Module):
    """A module that follows a decision per call. Op names follow the zoo: a module called
    again is <path>_2, _3."""

    def __init__(self, path, decisions):
        super().__init__()
        self.path, self.decisions, self.calls = path, decisions, 0

    def next_op(self):
        self.calls += 1
        return self.path if self.calls == 1 else "%s_%d" % (self.path, self.calls)

    def decision(self, op, op_type, shape):
        value = self.decisions.take(op, op_type)
        if tuple(value.shape) != tuple(shape):
            raise InputError("decision %s: shape %s, PyTorch's is %s"
                             % (op, tuple(value.shape), tuple(shape)))
        return value


class DecidedReLU(CalledModule):
    """ReLU with our mask."""

    def forward(self, x):
        op = self.next_op()
        mask = self.decision(op, "relu", x.shape) > 0
        with torch.no_grad():
            differ = mask != (x > 0)
            scale = x.abs().max()
            margin = x[differ].abs().max() / scale if differ.any() else torch.tensor(0.0)
            self.decisions.record(op, differ.sum(), margin, scale, x.shape)
        return x * mask


class DecidedReLU6(CalledModule):
    """ReLU6 on our side of each kink: our output y says where the gradient passes
    (0 < y < 6) and where the result is 6 (y >= 6)."""

    def forward(self, x):
        op = self.next_op()
        y = self.decision(op, "relu6", x.shape)
        passes, high = (y > 0) & (y < 6), y >= 6
        with torch.no_grad():
            differ = (passes != ((x > 0) & (x < 6))) | (high != (x >= 6))
            scale = x.abs().max()
            distance = torch.minimum(x.abs(), (x - 6).abs())
            margin = distance[differ].max() / scale if differ.any() else torch.tensor(0.0)
            self.decisions.record(op, differ.sum(), margin, scale, x.shape)
        return x * passes + 6.0 * high.to(x.dtype)


class DecidedDropout(CalledModule):
    """Dropout with our mask: x * mask, the mask already scaled by 1 / (1 - p) as PyTorch's
    own noise is. The mask must hold only 0 and that scale, at the module's p."""

    def __init__(self, path, p, decisions):
        super().__init__(path, decisions)
        self.p = p

    def forward(self, x):
        op = self.next_op()
        mask = self.decision(op, "dropout", x.shape).to(torch.float32)
        scale = torch.tensor(1.0, dtype=torch.float32) / torch.tensor(1.0 - self.p,
                                                                      dtype=torch.float32)
        if not torch.all((mask == 0) | (mask == scale)):
            raise InputError("dropout %s: the mask holds values other than 0 and %.9g = "
                             "1 / (1 - %g)" % (op, float(scale), self.p))
        self.decisions.record(op, 0, 0.0, float(scale), x.shape)
        return x * mask.to(x.dtype)


class DecidedStochasticDepth(CalledModule):
    """torchvision's StochasticDepth with our mask: x * mask, the mask [N,1,1,1] ("row") or
    [1,1,1,1] ("batch"), 0 or 1 / (1 - p) (scripts/export_onnx.py exports it as a dropout of
    ones, which the accelerator draws). p = 0 (or eval) is the identity, as in torchvision."""

    def __init__(self, path, module, decisions):
        super().__init__(path, decisions)
        self.p, self.mode = module.p, module.mode

    def forward(self, x):
        if not self.training or self.p == 0.0:
            return x
        op = self.next_op()
        shape = [x.shape[0]] + [1] * (x.dim() - 1) if self.mode == "row" else [1] * x.dim()
        mask = self.decision(op, "dropout", shape).to(torch.float32)
        scale = torch.tensor(1.0, dtype=torch.float32) / torch.tensor(1.0 - self.p,
                                                                      dtype=torch.float32)
        if not torch.all((mask == 0) | (mask == scale)):
            raise InputError("stochastic depth %s: the mask holds values other than 0 and %.9g"
                             % (op, float(scale)))
        self.decisions.record(op, 0, 0.0, float(scale), tuple(shape))
        return x * mask.to(x.dtype)


class DecidedMaxPool(CalledModule):
    """max_pool2d taking the element our argmax chose in every window."""

    def __init__(self, path, pool, decisions):
        super().__init__(path, decisions)
        self.pool = pool

    def forward(self, x):
        p = self.pool
        own, own_index = F.max_pool2d(x, p.kernel_size, p.stride, p.padding, p.dilation,
                                      ceil_mode=p.ceil_mode, return_indices=True)
        index = self.decision(self.path, "max_pool2d", own.shape)
        return follow_max_pool(self.decisions, self.path, x, own, own_index, index)


def follow_max_pool(decisions, op, x, own, own_index, index):
    """max_pool2d's result taking the element our argmax `index` chose in every window."""
    index = index.to(torch.int64)
    plane = x.shape[2] * x.shape[3]
    if index.numel() and (index.min() < 0 or index.max() >= plane):
        raise InputError("decision %s: an index outside the %dx%d input plane"
                         % (op, x.shape[2], x.shape[3]))
    y = x.flatten(2).gather(2, index.flatten(2)).view(own.shape)
    with torch.no_grad():
        differ = index != own_index
        scale = x.abs().max()
        margin = (own - y)[differ].abs().max() / scale if differ.any() else torch.tensor(0.0)
        decisions.record(op, differ.sum(), margin, scale, own.shape)
    return y


class FunctionalReLU:
    """torch.nn.functional.relu, dropout and max_pool2d following our decisions while
    installed (a context manager): a relu call inside module <path> is op "<path>:Relu", its
    k-th such call "<path>:Relu_<k-1>" (the exporter's node names; ":Dropout", ":MaxPool"
    likewise). Forward hooks keep the stack of module paths."""

    def __init__(self, model, decisions):
        self.model, self.decisions, self.stack, self.calls = model, decisions, [], {}
        self.hooks, self.original = [], None

    def __enter__(self):
        def enter(path):
            self.stack.append(path)

        def leave():
            self.stack.pop()

        for path, module in self.model.named_modules():
            self.hooks.append(module.register_forward_pre_hook(
                lambda m, args, path=path: enter(path)))
            self.hooks.append(module.register_forward_hook(lambda m, args, out: leave()))
        self.original, self.original_dropout = F.relu, F.dropout
        self.original_max_pool = F.max_pool2d
        F.relu, F.dropout, F.max_pool2d = self.relu, self.dropout, self.max_pool2d
        return self

    def __exit__(self, *exc):
        F.relu, F.dropout = self.original, self.original_dropout
        F.max_pool2d = self.original_max_pool
        for h in self.hooks:
            h.remove()

    def call_name(self, node_type):
        """The exporter's name of this functional call: "<module path>:<Type>", "_<k>" after
        the first call of that type inside the module."""
        path = self.stack[-1] if self.stack else ""
        k = self.calls.get((path, node_type), 0)
        self.calls[(path, node_type)] = k + 1
        return "%s:%s" % (path, node_type) if k == 0 else "%s:%s_%d" % (path, node_type, k)

    def dropout(self, x, p=0.5, training=True, inplace=False):
        """torch.nn.functional.dropout (GoogLeNet's auxiliary classifiers) with our mask."""
        op = self.call_name("Dropout")
        if not training or p == 0.0 or self.decisions.expected.get(op) != "dropout":
            return self.original_dropout(x, p, training, inplace)
        mask = self.decisions.take(op, "dropout").to(torch.float32)
        if mask.dim() == 4 and x.dim() == 3 and mask.shape[0] * mask.shape[1] == x.shape[0] \
                and mask.shape[2:] == x.shape[1:]:
            # nn.MultiheadAttention's probabilities [N*heads, Tq, Tk]; ours are [N, heads, ..].
            mask = mask.reshape(x.shape)
        if tuple(mask.shape) != tuple(x.shape):
            raise InputError("decision %s: shape %s, PyTorch's is %s"
                             % (op, tuple(mask.shape), tuple(x.shape)))
        scale = torch.tensor(1.0, dtype=torch.float32) / torch.tensor(1.0 - p,
                                                                      dtype=torch.float32)
        if not torch.all((mask == 0) | (mask == scale)):
            raise InputError("dropout %s: the mask holds values other than 0 and %.9g = "
                             "1 / (1 - %g)" % (op, float(scale), p))
        self.decisions.record(op, 0, 0.0, float(scale), x.shape)
        return x * mask.to(x.dtype)

    def max_pool2d(self, x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                   return_indices=False):
        """torch.nn.functional.max_pool2d (Inception-v3's Mixed_6a and Mixed_7a) taking our
        argmax; DecidedMaxPool's own call of it, which has no such decision, passes through."""
        op = self.call_name("MaxPool")
        if return_indices or self.decisions.expected.get(op) != "max_pool2d":
            return self.original_max_pool(x, kernel_size, stride, padding, dilation,
                                          ceil_mode=ceil_mode, return_indices=return_indices)
        own, own_index = self.original_max_pool(x, kernel_size, stride, padding, dilation,
                                                ceil_mode=ceil_mode, return_indices=True)
        index = self.decisions.take(op, "max_pool2d")
        if tuple(index.shape) != tuple(own.shape):
            raise InputError("decision %s: shape %s, PyTorch's is %s"
                             % (op, tuple(index.shape), tuple(own.shape)))
        return follow_max_pool(self.decisions, op, x, own, own_index, index)

    def relu(self, x, inplace=False):
        op = self.call_name("Relu")
        if self.decisions.expected.get(op) != "relu":
            return self.original(x, inplace=inplace)
        mask = self.decisions.take(op, "relu") > 0
        if tuple(mask.shape) != tuple(x.shape):
            raise InputError("decision %s: shape %s, PyTorch's is %s"
                             % (op, tuple(mask.shape), tuple(x.shape)))
        with torch.no_grad():
            differ = mask != (x > 0)
            scale = x.abs().max()
            margin = x[differ].abs().max() / scale if differ.any() else torch.tensor(0.0)
            self.decisions.record(op, differ.sum(), margin, scale, x.shape)
        return x * mask


def follow_decisions(model, decisions):
    """Replaces every nn.ReLU, nn.ReLU6, nn.MaxPool2d, nn.Dropout and StochasticDepth module
    by one that follows our decisions (FunctionalReLU covers torch.nn.functional.relu)."""
    decisions.name_by_modules(dict(model.named_modules()))
    for path, module in list(model.named_modules()):
        if isinstance(module, nn.ReLU):
            replacement = DecidedReLU(path, decisions)
        elif isinstance(module, nn.ReLU6):
            replacement = DecidedReLU6(path, decisions)
        elif isinstance(module, nn.Dropout):
            if module.p == 0.0:
                continue  # the identity (torchvision's ViT has p = 0 dropouts); we have none
            replacement = DecidedDropout(path, module.p, decisions)
        elif isinstance(module, torchvision.ops.StochasticDepth):
            replacement = DecidedStochasticDepth(path, module, decisions)
        elif isinstance(module, nn.MaxPool2d):
            replacement = DecidedMaxPool(path, module, decisions)
        else:
            continue
        parent, _, leaf = path.rpartition(".")
        setattr(model.get_submodule(parent) if parent else model, leaf, replacement)


DECIDED_MODULES = (nn.ReLU, nn.ReLU6, nn.Dropout, nn.MaxPool2d, torchvision.ops.StochasticDepth)


def build_model(name, o, aux_logits=False):
    if name in gpt_model.PRESETS or name in bert_model.PRESETS:
        if "heads" not in o:
            raise InputError("%s: the step is not of a language model" % name)
        family = gpt_model.GPT if name in gpt_model.PRESETS else bert_model.BERT
        return family(o["layers"], o["heads"], o["width"], o["vocab"], o["positions"],
                      o.get("dropout", 0.0), o.get("attention_dropout", 0.0))
    if "channels" not in o:
        raise InputError("%s: the step is of a language model (token ids), not of an image "
                         "model" % name)
    c, h, w, k = o["channels"], o["height"], o["width"], o["classes"]
    if name in VIT_PRESETS:
        if "layers" not in o:
            raise InputError("%s: the step does not say the transformer's shape" % name)
        if h != w:
            raise InputError("%s: torchvision's VisionTransformer takes square images, not %dx%d"
                             % (name, h, w))
        model = torchvision.models.VisionTransformer(
            image_size=h, patch_size=o["patch"], num_layers=o["layers"], num_heads=o["heads"],
            hidden_dim=o["hidden"], mlp_dim=4 * o["hidden"], num_classes=k,
            dropout=o.get("dropout", 0.0), attention_dropout=o.get("attention_dropout", 0.0))
        if c != 3:
            model.conv_proj = nn.Conv2d(c, o["hidden"], kernel_size=o["patch"],
                                        stride=o["patch"])
        return model
    if name == "mlp":
        return Mlp(c * h * w, k)
    if name == "lenet5":
        return LeNet5(c, h, w, k)
    if name in ("resnet18", "resnet34", "resnet50"):
        model = getattr(torchvision.models, name)(num_classes=k)
        if c != 3:
            model.conv1 = nn.Conv2d(c, 64, kernel_size=7, stride=2, padding=3, bias=False)
        return model
    if name == "vgg11":
        model = torchvision.models.vgg11(num_classes=k)
        if c != 3:
            model.features[0] = nn.Conv2d(c, 64, kernel_size=3, padding=1)
        # torchvision's AdaptiveAvgPool2d((7, 7)) stays: the zoo builds the same bins (an
        # identity, an average pool, a broadcast or a gemm with the bin matrix); its dropouts
        # follow our masks.
        return model
    if name in PROBES:
        return PROBES[name](c, k)
    if name in torchvision_classifiers():
        if c != 3:
            raise InputError("%s: the torchvision model takes 3 input channels, the step %d"
                             % (name, c))
        extra = {"aux_logits": aux_logits} if name in AUX_LOGITS else {}
        if aux_logits and name not in AUX_LOGITS:
            raise InputError("%s: the step has several loss terms, but the torchvision model "
                             "has no auxiliary classifier" % name)
        return torchvision.models.get_model(name, weights=None, num_classes=k, **extra)
    raise InputError("unknown model '%s' (this script knows mlp, lenet5, resnet18, resnet34, "
                     "resnet50, vgg11, vit, gpt, bert, torchvision's classification models and "
                     "the probes of "
                     "scripts/probe_models.py: %s)" % (name, ", ".join(sorted(PROBES))))


# The zoo's vision transformers (compiler/zoo/vit.cpp): torchvision's VisionTransformer.
VIT_PRESETS = ("vit", "vit_b_16")

# The transformers' dropouts on attention probabilities, by module path in the op name
# (GPT-2's attn_dropout, BERT's self.dropout, the functional dropout inside ViT's
# nn.MultiheadAttention), in the zoo's names ("transformer.h.0.attn.attn_dropout") or the ONNX
# exporter's ("/transformer/h.0/attn/attn_dropout/Dropout"); every other dropout of theirs is
# on hidden states.
ATTENTION_DROPOUT = re.compile(
    r"\.attn\.attn_dropout\b|\.attention\.self\.dropout\b|\.self_attention[.:]")


def transformer_dropouts(decisions):
    """A zoo transformer's dropout probabilities, {"dropout": p, "attention_dropout": q}, from
    the ratios of the manifest's dropout decisions (0 where the step has none)."""
    ratios = {"dropout": set(), "attention_dropout": set()}
    for d in decisions:
        if d["type"] == "dropout":
            path = "." + d["op"].replace("/", ".")
            kind = "attention_dropout" if ATTENTION_DROPOUT.search(path) else "dropout"
            ratios[kind].add(d.get("ratio"))
    found = {}
    for kind, values in ratios.items():
        if None in values or len(values) > 1:
            raise InputError("the step's %s ops do not share one ratio: %s"
                             % (kind, sorted(values, key=str)))
        found[kind] = values.pop() if values else 0.0
    return found


# As scripts/export_onnx.py builds them: without the auxiliary heads unless it exported them
# (--aux-logits), which the step shows by its several loss terms.
AUX_LOGITS = ("googlenet", "inception_v3")


def torchvision_classifiers():
    """Names of torchvision's image-classification builders (as scripts/export_onnx.py)."""
    return {name for name in torchvision.models.list_models(module=torchvision.models)
            if torchvision.models.get_model_builder(name).__module__.count(".") == 2}


def attention_mask_of(extended):
    """Hugging Face's attention_mask [N, T] (1 attend, 0 padding) from our additive
    extended_attention_mask [N, 1, 1, T] (0, or the lowest float at padding)."""
    lowest = np.finfo(np.float32).min
    if extended.ndim != 4 or extended.shape[1:3] != (1, 1) or \
            not np.all((extended == 0) | (extended == lowest)):
        raise InputError("extended_attention_mask: expected [N, 1, 1, T] of 0 and %g, got "
                         "shape %s" % (lowest, extended.shape))
    return torch.from_numpy((extended[:, 0, 0, :] == 0).astype(np.int64))


def file_stem(name):
    """The file name `s2c reference` writes a tensor under (isa/io/npy.h, file_name()): '/',
    '\\', ':' and '%' as %2F, %5C, %3A and %25, so that no two names share a file."""
    return "".join("%%%02X" % ord(c) if c in "/\\:%" else c for c in name)


def load(directory, *parts):
    path = os.path.join(directory, *parts)
    if not os.path.isfile(path):
        raise InputError("%s: missing" % path)
    try:
        return np.load(path, allow_pickle=False)
    except ValueError as e:
        raise InputError("%s: %s" % (path, e))


class ReferenceStep:
    """A step written by `s2c reference`: init/, grad/, updated/, decisions/ and loss.npy.

    Both step sources offer: model, options (batch, channels, height, width, classes),
    weights and state (state_dict names, in model order), sgd(name) -> (lr, momentum,
    weight_decay), initial(name), batch() -> (input, labels), decisions ({op: type}),
    decision(op) and ours(kind, name) for kind loss, grad or updated."""

    def __init__(self, directory, manifest, model=None):
        self.directory, self.manifest = directory, manifest
        self.options = manifest["options"]
        self.weights = list(manifest["weights"])
        self.state = list(manifest["state"])
        self.decisions = {d["op"]: d["type"] for d in manifest["decisions"]}
        self.files = {d["op"]: d.get("file", os.path.join("decisions", d["op"] + ".npy"))
                      for d in manifest["decisions"]}
        self.model = manifest["model"]
        self.scaling = manifest.get("loss_scaling")
        self.precision = manifest.get("precision", "fp32")
        if self.precision not in PRECISIONS:
            raise InputError("manifest.json: precision %r is not one of %s"
                             % (self.precision, ", ".join(PRECISIONS)))
        self.loss_terms = [(t["logits"], t["weight"]) for t in manifest.get("loss_terms", [])] \
            or [(None, 1.0)]
        if self.model.endswith(".onnx"):  # an ONNX export: the torchvision model it came from
            self.model = model or recognise_model(self.weights)
        elif model is not None and model != self.model:
            raise InputError("--model %s, but the reference step is of %s" % (model, self.model))

    def describe(self):
        return "reference interpreter step"

    steps = 1

    def update(self, name):
        o = dict(self.manifest["optimizer"])
        o["optimizer"] = o.pop("name")
        return o

    def state_names(self, name):
        return {}  # the reference step writes no optimizer state

    def clip_grad_norm(self):
        """The max norm of gradient clipping, or None."""
        return self.manifest["optimizer"].get("clip_grad_norm")

    total_norm = None  # the reference step does not write the clipped norm

    def initial(self, name):
        return load(self.directory, "init", file_stem(name) + ".npy")

    def attention_mask(self):
        name = self.manifest.get("attention_mask")  # s2c reference --attention-mask
        return None if name is None else attention_mask_of(self.initial(name))

    def batch(self):
        return (self.initial(self.manifest.get("input", "input")),
                self.initial(self.manifest.get("labels", "labels")))

    def decision(self, op):
        return load(self.directory, self.files[op])

    def ours(self, kind, name):
        if kind == "loss":
            return load(self.directory, "loss.npy")
        return load(self.directory, kind, file_stem(name) + ".npy")


# The zoo's models by a state_dict name only they have (the first match wins; the exact names
# and shapes are then checked against PyTorch's state_dict), and optionally names they lack.
MODEL_SIGNATURES = [
    ("convnext_tiny", ["features.1.0.layer_scale", "features.5.8.layer_scale"],
     ["features.5.9.layer_scale"]),
    ("mobilenet_v2", ["features.1.conv.0.0.weight", "features.18.0.weight"]),
    ("mobilenet_v3_small", ["features.1.block.0.0.weight", "features.12.0.weight"]),
    ("mobilenet_v3_large", ["features.1.block.0.0.weight", "features.16.0.weight"]),
    ("efficientnet_b0", ["features.1.0.block.1.fc1.weight", "features.8.0.weight"]),
    ("densenet201", ["features.denseblock3.denselayer48.conv1.weight"]),
    ("densenet161", ["features.denseblock3.denselayer36.conv1.weight"]),
    ("densenet169", ["features.denseblock3.denselayer32.conv1.weight"]),
    ("densenet121", ["features.denseblock3.denselayer24.conv1.weight",
                     "features.denseblock4.denselayer16.conv1.weight"]),
    ("googlenet", ["inception3a.branch1.conv.weight"]),
    ("inception_v3", ["Mixed_5b.branch1x1.conv.weight"]),
    ("squeezenet1_0", ["features.5.squeeze.weight"]),
    ("squeezenet1_1", ["features.6.squeeze.weight"]),
    ("shufflenet_v2_x1_0", ["stage2.0.branch1.0.weight"]),
    ("vgg11", ["features.0.weight"]),
    ("resnet50", ["layer1.0.conv3.weight"]),
    ("resnet34", ["layer1.2.conv1.weight"]),
    ("resnet18", ["layer1.0.conv1.weight"]),
    ("lenet5", ["conv1.weight", "fc1.weight"]),
    ("mlp", ["fc1.weight"]),
    ("softmax_probe", ["gate.weight", "score.weight"]),
    ("attention_probe", ["c_attn.weight", "patch.weight"]),
    ("gpt", ["transformer.wte.weight", "transformer.wpe.weight"]),
    ("bert", ["bert.embeddings.word_embeddings.weight", "cls.predictions.bias"]),
    ("vit", ["class_token", "conv_proj.weight", "encoder.pos_embedding"]),
]

# A language model's embedding tables and the tensors that show its depth and head count:
# (token table, position table, the suffix of each layer's one weight, first scores tensor).
LANGUAGE_MODELS = [
    ("transformer.wte.weight", "transformer.wpe.weight", ".ln_1.weight",
     "transformer.h.0.attn.scores"),
    ("bert.embeddings.word_embeddings.weight", "bert.embeddings.position_embeddings.weight",
     ".attention.output.LayerNorm.weight", "bert.encoder.layer.0.attention.self.scores"),
]


def recognise_model(weights):
    """The model whose state_dict names these are (MODEL_SIGNATURES), or an InputError."""
    names = set(weights)
    for model, keys, *lacks in MODEL_SIGNATURES:
        if all(k in names for k in keys) and not any(k in names for k in sum(lacks, [])):
            return model
    raise InputError("no known model has these weight names (%s, ...); give --model"
                     % ", ".join(weights[:4]))


class SimDump:
    """A functional run's dump written by `s2sim run --dump-all` (see the module docstring)."""

    def __init__(self, directory, manifest, model=None, own_decisions=False):
        self.directory, self.manifest = directory, manifest
        self.steps = manifest.get("steps")
        if not isinstance(self.steps, int) or self.steps < 1:
            raise InputError("manifest.json: steps %r is not a positive count" % self.steps)
        self.tensors = {t["name"]: t for t in manifest["tensors"]}
        by_role = {}
        for t in manifest["tensors"]:
            by_role.setdefault(t["role"], []).append(t["name"])
        self.weights = by_role.get("weight", [])
        # Dropout's step counters are state of ours with no state_dict counterpart, and so are
        # the 16-bit weight copies of a --precision bf16|fp16 step (which also tell it).
        counters = {d.get("counter") for d in manifest["decisions"] if d["type"] == "dropout"}
        copies = {n for n in by_role.get("state", []) if self.tensors[n]["dtype"] in ("bf16", "f16")}
        types = {self.tensors[n]["dtype"] for n in copies}
        self.precision = "bf16" if "bf16" in types else "fp16" if "f16" in types else "fp32"
        scaling = manifest.get("loss_scaling")
        amp = set() if not scaling else \
            {scaling[k] for k in ("loss_scale", "growth_tracker", "inv_scale") if scaling[k]}
        self.state = [n for n in by_role.get("state", []) if n not in counters | copies | amp]
        self.scaling = None
        if scaling:
            self.scaling = {"init_scale": float(self.initial(scaling["loss_scale"])[0]),
                            "growth_factor": scaling["growth_factor"],
                            "backoff_factor": scaling["backoff_factor"],
                            "growth_interval": scaling["growth_interval"],
                            "loss_scale": scaling["loss_scale"]}
            if int(self.initial(scaling["growth_tracker"])[0]) != 0:
                raise InputError("the loss scale's growth tracker does not start at zero: not a "
                                 "first step")
        self.updates = {}
        for kind in ("sgd", "adamw"):
            for u in manifest.get(kind, []):
                if u["weight"] is None or u["grad"] is None:
                    raise InputError("an %s instruction whose weight or gradient names no "
                                     "tensor: %s" % (kind, u))
                if u["weight"] in self.updates:
                    raise InputError("weight '%s' is updated by two instructions" % u["weight"])
                self.updates[u["weight"]] = dict(u, optimizer=kind)
        missing = [w for w in self.weights if w not in self.updates]
        if missing:
            raise InputError("weights no sgd or adamw instruction updates: %s" % missing)
        for u in self.updates.values():
            if u["optimizer"] == "adamw":
                for state in ("exp_avg", "exp_avg_sq", "step"):
                    if u[state] is None or np.any(self.initial(u[state]) != 0):
                        raise InputError("adamw state '%s' of '%s' does not start at zero: not "
                                         "a first step" % (state, u["weight"]))
                continue
            # PyTorch's first step starts each momentum buffer from the gradient: ours must
            # start from zero for the two to be the same step.
            if u["velocity"] is not None and np.any(self.initial(u["velocity"]) != 0):
                raise InputError("velocity '%s' does not start at zero: not a first step"
                                 % u["velocity"])
        loss = manifest.get("softmax_ce")
        if not loss or None in (loss["logits"], loss["labels"], loss["loss"]):
            raise InputError("the program has no softmax_ce loss with named tensors: %s" % loss)
        dropout = any(d["type"] == "dropout" for d in manifest["decisions"])
        if self.steps > 1 and manifest["decisions"] and (dropout or not own_decisions):
            raise InputError("a %d-step run with forward decisions (ReLU, max-pool, dropout): the "
                             "dump holds the last step's only, so PyTorch cannot follow the "
                             "earlier steps; run with --steps 1, or (without dropout) compare "
                             "with --own-decisions" % self.steps)
        self.loss = loss
        # [(logits tensor, weight)]: one term, or the main and auxiliary classifiers' terms.
        self.loss_terms = [(t["logits"], t["weight"]) for t in loss.get("terms", [])] or \
            [(loss["logits"], 1.0)]
        inputs = by_role.get("input", [])
        shapes = [(n, self.tensors[n]["shape"], self.tensors[n]["dtype"]) for n in inputs]
        if len(inputs) == 1 and shapes[0][2] == "i32" and len(shapes[0][1]) == 2:
            self.input = inputs[0]
            self.options = self.language_model_options()
        elif len(inputs) == 1 and len(shapes[0][1]) == 4:
            self.input = inputs[0]
            n, c, h, w = self.tensors[self.input]["shape"]
            # The logits' buffer may keep the shape of what was flattened ([N,K,1,1]).
            classes = int(np.prod(self.tensors[loss["logits"]]["shape"])) // n
            self.options = {"batch": n, "channels": c, "height": h, "width": w,
                            "classes": classes}
            if "class_token" in self.tensors and "conv_proj.weight" in self.tensors:
                self.options.update(self.vit_options())
        else:
            raise InputError("expected one 4-d input tensor (images) or one 2-d i32 input "
                             "(token ids), found %s" % shapes)
        self.model = model or self.recognise_model()
        self.decisions = {}
        self.decision_tensor = {}
        self.decision_view = {}
        for d in manifest["decisions"]:
            if d["op"] is None or d["tensor"] is None:
                raise InputError("instruction %d's %s decision names no tensor"
                                 % (d["instruction"], d["type"]))
            if d["op"] in self.decisions:
                raise InputError("two decisions for op '%s'" % d["op"])
            self.decisions[d["op"]] = d["type"]
            self.decision_tensor[d["op"]] = d["tensor"]
            self.decision_view[d["op"]] = d.get("view")

    def recognise_model(self):
        return recognise_model(self.weights)

    def vit_options(self):
        """A vision transformer's shape: from its weights' shapes, and the head count from the
        attention scores [N, heads, T, T] of its first layer."""
        hidden, _, patch, _ = self.tensors["conv_proj.weight"]["shape"]
        n, _, height, width = self.tensors[self.input]["shape"]
        t = (height // patch) * (width // patch) + 1
        heads = self.head_count("encoder.layers.encoder_layer_0.self_attention.scores", n, t)
        layers = len([w for w in self.weights if w.startswith("encoder.layers.") and
                      w.endswith(".ln_1.weight")])
        return dict({"layers": layers, "heads": heads, "hidden": hidden, "patch": patch},
                    **transformer_dropouts(self.manifest["decisions"]))

    def head_count(self, scores_name, n, t):
        """The head count: the second dimension of the attention scores [N, heads, T, T], the
        zoo's tensor `scores_name`, or in a step compiled from ONNX (whose names are the
        exporter's) the one such shape every [N, *, T, T] tensor has. Torch's own
        MultiheadAttention keeps [N*heads, T, T]. A step compiled with --fuse-attention has no
        scores: its fused attentions' row log-sum-exps (*.lse) are [N, heads, T] or
        [N*heads, T]."""
        scores = self.tensors.get(scores_name)
        if scores is not None and len(scores["shape"]) == 4:
            return scores["shape"][1]
        found = set()
        for name, entry in self.tensors.items():
            shape = entry["shape"]
            if len(shape) == 4 and shape[0] == n and shape[2] == t and shape[3] == t:
                found.add(shape[1])
            if len(shape) == 3 and shape[1] == t and shape[2] == t and shape[0] % n == 0:
                found.add(shape[0] // n)
            if name.endswith(".lse"):
                if len(shape) == 3 and shape[0] == n and shape[2] == t:
                    found.add(shape[1])
                if len(shape) == 2 and shape[1] == t and shape[0] % n == 0:
                    found.add(shape[0] // n)
        if len(found) != 1:
            raise InputError("no tensor %s [N, heads, T, T] tells the head count%s" % (
                scores_name, "" if not found else " (the scores-shaped tensors disagree: %s)"
                % sorted(found)))
        return found.pop()

    def language_model_options(self):
        """A GPT's or BERT's shape: from its weights' shapes, and the head count from the
        attention scores [N, heads, T, T] of its first layer."""
        n, t = self.tensors[self.input]["shape"]
        shape = {name: self.tensors[name]["shape"] for name in self.weights}
        family = next((f for f in LANGUAGE_MODELS if f[0] in shape and f[1] in shape), None)
        if family is None:
            raise InputError("a token-id input, but neither GPT's nor BERT's embedding tables "
                             "(%s)" % ", ".join("%s and %s" % f[:2] for f in LANGUAGE_MODELS))
        tokens, positions, layer_weight, scores_name = family
        heads = self.head_count(scores_name, n, t)
        layers = len([w for w in self.weights if w.endswith(layer_weight)])
        vocab, width = shape[tokens]
        return dict({"batch": n, "seq_len": t, "layers": layers, "heads": heads,
                     "width": width, "vocab": vocab, "positions": shape[positions][0]},
                    **transformer_dropouts(self.manifest["decisions"]))

    def describe(self):
        m = self.manifest
        return "simulator dump of %s (target %s, simulated on %s)" % (
            m.get("executable"), m.get("target"), m.get("config"))

    def update(self, name):
        return self.updates[name]

    def clip_grad_norm(self):
        """The max norm of gradient clipping, or None."""
        clip = self.manifest.get("clip_grad_norm")
        return None if clip is None else clip["max_norm"]

    @property
    def total_norm(self):
        """Our tensor holding the global gradient norm, when the step clips."""
        clip = self.manifest.get("clip_grad_norm")
        return None if clip is None else clip["total_norm"]

    def state_names(self, name):
        """Our optimizer-state tensors of weight `name`, by PyTorch's state key."""
        u = self.updates[name]
        if u["optimizer"] != "adamw":
            return {}
        return {"exp_avg": u["exp_avg"], "exp_avg_sq": u["exp_avg_sq"]}

    def file_of(self, name, which):
        entry = self.tensors.get(name)
        if entry is None:
            raise InputError("manifest.json: no tensor '%s'" % name)
        if entry[which] is None:
            raise InputError("tensor '%s' has no %s (%s)" % (
                name, "dump" if which == "file" else "initial data",
                "run s2sim with --dump-all" if which == "file" else "not in the executable"))
        return load(self.directory, entry[which])

    def initial(self, name):
        return self.file_of(name, "initial")

    def attention_mask(self):
        """A language model's attention_mask [N, T] (1 attend, 0 padding) as Hugging Face
        takes it, from our additive extended_attention_mask [N, 1, 1, T] (s2c
        --attention-mask: 0, or the lowest float at padding); None without one."""
        if "extended_attention_mask" not in self.tensors:
            return None
        return attention_mask_of(self.initial("extended_attention_mask"))

    def batch(self):
        return self.initial(self.input), self.initial(self.loss["labels"])

    def decision(self, op):
        array = self.file_of(self.decision_tensor[op], "file")
        view = self.decision_view[op]
        if view is None:
            return array
        # A result written into a slice of a larger buffer (a concat's): its view of the
        # dumped buffer, in elements.
        flat = np.ascontiguousarray(array).reshape(-1)
        shape, strides = tuple(view["shape"]), tuple(view["strides"])
        last = view["offset"] + sum((n - 1) * s for n, s in zip(shape, strides))
        if view["offset"] < 0 or last >= flat.size:
            raise InputError("decision %s: view %s reaches past tensor '%s' (%d elements)"
                             % (op, view, self.decision_tensor[op], flat.size))
        return np.lib.stride_tricks.as_strided(
            flat[view["offset"]:], shape, tuple(s * flat.itemsize for s in strides)).copy()

    def ours(self, kind, name):
        if kind == "loss":
            return self.file_of(self.loss["loss"], "file")
        if kind in ("updated", "norm"):
            return self.file_of(name, "file")
        grad = self.updates[name]["grad"]
        array = self.file_of(grad, "file")
        shape = tuple(self.tensors[name]["shape"])
        if array.size != int(np.prod(shape)):
            raise InputError("gradient '%s' of '%s' has %d elements, the weight %d"
                             % (grad, name, array.size, int(np.prod(shape))))
        return array.reshape(shape)


def open_step(directory, model=None, own_decisions=False):
    """The step in `directory`, by its manifest's format. A simulator dump of several steps with
    ReLU or max-pool decisions is accepted only with own_decisions (PyTorch takes its own)."""
    manifest_path = os.path.join(directory, "manifest.json")
    if not os.path.isfile(manifest_path):
        raise InputError("%s: missing" % manifest_path)
    try:
        with open(manifest_path, encoding="utf-8") as f:
            manifest = json.load(f)
    except ValueError as e:  # JSONDecodeError and UnicodeDecodeError both are
        raise InputError("%s: not a manifest (s2sim run --dump-all or s2c reference writes "
                         "one): %s" % (manifest_path, e)) from e
    if not isinstance(manifest, dict):
        raise InputError("%s: not a manifest (the top level is not an object)" % manifest_path)
    kind = manifest.get("format")
    if kind == SIM_DUMP_FORMAT:
        return SimDump(directory, manifest, model, own_decisions)
    if kind == REFERENCE_FORMAT:
        return ReferenceStep(directory, manifest, model)
    raise InputError("%s: format %r, expected %r or %r"
                     % (manifest_path, kind, SIM_DUMP_FORMAT, REFERENCE_FORMAT))


def load_state(model, step):
    """Copies every state_dict entry's initial data in; the names must match exactly."""
    ours = step.weights + step.state
    theirs = model.state_dict()
    counters = {k for k in theirs if k.endswith("num_batches_tracked")}
    missing = [k for k in theirs if k not in counters and k not in ours]
    extra = [k for k in ours if k not in theirs]
    if missing or extra:
        raise InputError("state_dict names differ from PyTorch's %s: missing %s, unexpected %s"
                         % (step.model, missing, extra))
    state = {}
    for key, value in theirs.items():
        if key in counters:
            state[key] = torch.zeros_like(value)
            continue
        array = step.initial(key)
        if tuple(array.shape) != tuple(value.shape):
            raise InputError("initial %s: shape %s, PyTorch's is %s"
                             % (key, tuple(array.shape), tuple(value.shape)))
        state[key] = torch.from_numpy(array.astype(np.float32))
    model.load_state_dict(state, strict=True)


def step_loss(model, step, x, labels):
    """Our loss in PyTorch: the cross-entropy of the logits, or with several loss terms (the
    auxiliary classifiers of GoogLeNet and Inception-v3) the sum of each term's weight times the
    cross-entropy of the module output that is its logits (captured by forward hooks, the
    module found from the logits' ONNX node name)."""
    terms = step.loss_terms
    if "vocab" in step.options:
        return gpt_model.lm_loss(model(x, step.attention_mask()), labels)
    if len(terms) <= 1:
        return F.cross_entropy(model(x), labels)
    modules = dict(model.named_modules())
    captured, hooks, paths = {}, [], []
    for logits, _ in terms:
        path = onnx_module_call(logits, set(modules))  # "/aux1/fc2/Gemm" -> "aux1.fc2"
        if path not in modules:
            raise InputError("loss term on '%s': no module '%s' in %s" % (logits, path, step.model))
        paths.append(path)
        hooks.append(modules[path].register_forward_hook(
            lambda m, args, out, path=path: captured.__setitem__(path, out)))
    try:
        model(x)
    finally:
        for h in hooks:
            h.remove()
    loss = None
    for (logits, weight), path in zip(terms, paths):
        term = F.cross_entropy(captured[path], labels)
        if weight != 1.0:
            term = term * weight
        loss = term if loss is None else loss + term
    return loss


def optimizers(params, step):
    """PyTorch's SGD and AdamW over the parameters, each parameter its own group with our
    hyper-parameters for it."""
    sgd, adamw = [], []
    for name, p in params.items():
        u = step.update(name)
        if u["optimizer"] == "adamw":
            adamw.append({"params": [p], "lr": u["lr"], "betas": (u["beta1"], u["beta2"]),
                          "eps": u["eps"], "weight_decay": u["weight_decay"]})
        else:
            sgd.append({"params": [p], "lr": u["lr"], "momentum": u["momentum"],
                        "weight_decay": u["weight_decay"]})
    out = []
    if sgd:
        out.append(torch.optim.SGD(sgd, lr=sgd[0]["lr"]))
    if adamw:
        out.append(torch.optim.AdamW(adamw, lr=adamw[0]["lr"]))
    return out


def torch_step(model, step, x, labels, precision="fp32"):
    """step.steps training steps on the same batch; returns the last loss and gradients (before
    clipping), the updated weights, state and optimizer state (by our tensor names) and, when
    the step clips its gradients, the last step's global norm (None otherwise)."""
    params = dict(model.named_parameters())
    opts = optimizers(params, step)
    max_norm = step.clip_grad_norm()
    total_norm = None
    scaler = GradScalerEmulation(step.scaling) if step.scaling and precision != "fp32" else None
    model.train()
    for _ in range(step.steps):
        for o in opts:
            o.zero_grad()
        with precision_context(precision):
            loss = step_loss(model, step, x, labels)
        (scaler.scale(loss) if scaler else loss.float()).backward()
        grads = {k: p.grad.detach().clone() if p.grad is not None else torch.zeros_like(p)
                 for k, p in params.items()}
        if max_norm is not None:
            if scaler:  # the norm of the unscaled gradients, as the GradScaler recipe says
                scaler.unscale(params.values())
            total_norm = torch.nn.utils.clip_grad_norm_(list(params.values()), max_norm)
        if scaler:
            scaler.step(params.values(), opts)
            continue
        for o in opts:
            o.step()
    state = model.state_dict()
    updated = {k: state[k].detach().clone() for k in step.weights + step.state}
    if scaler and step.scaling.get("loss_scale"):  # a simulator dump names its scale
        updated[step.scaling["loss_scale"]] = torch.tensor([scaler.scale_value],
                                                            dtype=torch.float32)
    for name, p in params.items():
        for key, ours in step.state_names(name).items():
            theirs = next(o.state[p] for o in opts if p in o.state)
            updated[ours] = theirs[key].detach().clone()
    norm = None if total_norm is None else total_norm.detach().reshape(1)
    return loss.detach().reshape(1), grads, updated, norm


def run_torch(step, dtype, follow=True, precision="fp32"):
    """The step in PyTorch at `dtype` (in `precision`, see precision_context), following our
    decisions unless told not to. Returns the compared tensors keyed by (kind, name), and the
    decisions with PyTorch's disagreements."""
    model = build_model(step.model, step.options, aux_logits=len(step.loss_terms) > 1)
    load_state(model, step)
    decisions = Decisions(step)
    if follow:
        follow_decisions(model, decisions)
    else:
        decisions.expected = {}
    model.to(dtype)
    x, labels = step.batch()
    if x.dtype.kind in "iu":  # token ids
        x = torch.from_numpy(x.astype(np.int64))
    else:
        x = torch.from_numpy(x.astype(np.float32)).to(dtype)
    labels = torch.from_numpy(labels.astype(np.int64))
    if follow:
        with FunctionalReLU(model, decisions):
            loss, grads, updated, norm = torch_step(model, step, x, labels, precision)
    else:
        loss, grads, updated, norm = torch_step(model, step, x, labels, precision)
    decisions.check_all_used()
    tensors = {("loss", "loss"): loss}
    tensors.update({("grad", k): grads[k] for k in step.weights})
    tensors.update({("updated", k): v for k, v in updated.items()})
    if norm is not None and step.total_norm is not None:
        tensors[("norm", step.total_norm)] = norm
    return tensors, decisions


def relative_error(ours, theirs):
    ours = np.asarray(ours, dtype=np.float64)
    theirs = np.asarray(theirs, dtype=np.float64)
    # An overflowed (loss-scaled) gradient: the infs and NaNs must be where PyTorch's are, the
    # same; the error is the finite elements'.
    special = ~(np.isfinite(ours) & np.isfinite(theirs))
    if special.any():
        a, b = ours[special], theirs[special]
        if not np.all((a == b) | (np.isnan(a) & np.isnan(b))):
            return float("inf"), float("nan")
        ours, theirs = ours[~special], theirs[~special]
    scale = np.max(np.abs(theirs)) if theirs.size else 0.0
    diff = np.max(np.abs(ours - theirs)) if theirs.size else 0.0
    return float(diff / scale) if scale > 0 else float(diff), float(scale)


def compare(step, tensors, decisions, exact_tensors):
    """Rows (kind, name, shape, max|torch|, error, PyTorch's own fp32-vs-fp64 error, our error
    against fp64); the last two are None without the fp64 step, and for decisions."""
    rows = [("decision", op, shape, scale, margin, None, None)
            for op, (differ, margin, scale, shape) in decisions.flips.items()]
    for (kind, name), theirs in tensors.items():
        theirs = theirs.numpy()
        ours = step.ours(kind, name)
        if tuple(ours.shape) != tuple(theirs.shape):
            raise InputError("our %s %s: shape %s, PyTorch's is %s"
                             % (kind, name, tuple(ours.shape), tuple(theirs.shape)))
        error, scale = relative_error(ours, theirs)
        floor = exact = None
        if exact_tensors is not None and (kind, name) in exact_tensors:
            exact64 = exact_tensors[(kind, name)].numpy()
            floor = relative_error(theirs, exact64)[0]
            exact = relative_error(ours, exact64)[0]
        rows.append((kind, name, tuple(theirs.shape), scale, error, floor, exact))
    return rows


def print_table(rows, top):
    shown = sorted(rows, key=lambda r: -r[4])[:top] if top > 0 else rows
    width = max(len(r[0]) + 1 + len(r[1]) for r in shown)
    floors = any(r[5] is not None for r in rows)

    def optional(value):
        return "  %12s" % ("-" if value is None else "%.4e" % value)

    print("%-*s  %-20s  %12s  %12s%s" % (width, "tensor", "shape", "max|torch|", "rel. error",
                                         "  %12s  %12s" % ("torch32 v 64", "ours v 64")
                                         if floors else ""))
    for kind, name, shape, scale, error, floor, exact in shown:
        print("%-*s  %-20s  %12.4e  %12.4e%s"
              % (width, kind + "/" + name, "x".join(str(d) for d in shape) or "scalar", scale,
                 error, "" if not floors else optional(floor) + optional(exact)))


def main():
    parser = Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", help="the --dump-all directory of `s2sim run` or the "
                                          "--out-dir of `s2c reference`")
    parser.add_argument("--model", help="the model of a simulator dump: a zoo model or any "
                                        "torchvision classification model (default: "
                                        "recognised from its weight names)")
    parser.add_argument("--tolerance", type=float, default=1e-4,
                        help="largest accepted max|ours - torch| / max|torch| (default 1e-4)")
    parser.add_argument("--top", type=int, default=0,
                        help="print only the N worst tensors (default: all, in model order)")
    parser.add_argument("--fp64-floor", action="store_true",
                        help="also run the step in float64 and show, per tensor, how far "
                             "PyTorch's own float32 result is from it (the conditioning of the "
                             "step, which no float32 implementation can beat by much) and how "
                             "far ours is")
    parser.add_argument("--exact-factor", type=float, default=0.0, metavar="F",
                        help="judge by accuracy (implies --fp64-floor): accept the step when "
                             "every tensor of ours is within max(--tolerance, F x PyTorch's "
                             "float32 step's worst distance from float64) of the float64 step; "
                             "for steps so ill-conditioned that two float32 implementations "
                             "differ by more than --tolerance")
    parser.add_argument("--own-decisions", action="store_true",
                        help="let PyTorch take its own ReLU and max-pool decisions; a near-tie "
                             "that falls the other way then shows as an O(1) error at one element")
    args = parser.parse_args()
    if args.exact_factor < 0:
        parser.error("--exact-factor %g: must be >= 0" % args.exact_factor)

    torch.use_deterministic_algorithms(True)
    torch.set_default_dtype(torch.float32)
    try:
        step = open_step(args.directory, args.model, args.own_decisions)
        follow = not args.own_decisions
        precision = getattr(step, "precision", "fp32")
        tensors, decisions = run_torch(step, torch.float32, follow, precision)
        exact_tensors = None
        if args.fp64_floor or args.exact_factor > 0:
            exact_tensors = run_torch(step, torch.float64, follow)[0]
        rows = compare(step, tensors, decisions, exact_tensors)
    except (InputError, KeyError, ValueError, RuntimeError) as e:
        print("torch_reference: %s: %s" % (args.directory, e), file=sys.stderr)
        return 1

    o = step.options
    if "vocab" in o:
        shape = "%d layers, %d heads, width %d, %d tokens, vocabulary %d" % (
            o["layers"], o["heads"], o["width"], o["seq_len"], o["vocab"])
    else:
        shape = "%dx%dx%d, %d classes" % (o["channels"], o["height"], o["width"], o["classes"])
    print("%s: batch %d, %s, %s; PyTorch %s, torchvision %s"
          % (step.model, o["batch"], shape, step.describe(), torch.__version__,
             torchvision.__version__))
    print_table(rows, args.top)
    if args.own_decisions:
        print("decisions: PyTorch's own (--own-decisions)")
    else:
        flips = [(op, f) for op, f in decisions.flips.items() if f[0] > 0]
        elements = sum(int(np.prod(f[3])) for f in decisions.flips.values())
        where = ""
        if flips:
            where = " (in %s; largest margin %.3e)" % (", ".join(op for op, _ in flips),
                                                       max(f[1] for _, f in flips))
        print("decisions: %d ReLU, ReLU6, max-pool and dropout ops, %d elements; PyTorch "
              "alone would choose otherwise at %d of them%s"
              % (len(decisions.flips), elements, sum(f[0] for _, f in flips), where))
    worst = max(rows, key=lambda r: r[4])
    over_tolerance = [r for r in rows if not r[4] <= args.tolerance]
    print("worst relative error: %.3e (%s/%s); %d of %d tensors above tolerance %.1e"
          % (worst[4], worst[0], worst[1], len(over_tolerance), len(rows), args.tolerance))
    if exact_tensors is None:
        return 1 if over_tolerance else 0

    tensors_only = [r for r in rows if r[6] is not None]
    # Tensors PyTorch's own float32 step gets to less than NOISE relative to the float64 one
    # are rounding noise: analytically (near) zero, such as the bias gradient of a batch norm
    # whose output only reaches the loss through a convolution and another batch norm, which
    # removes any per-channel shift. Each is judged against PyTorch's own noise on it.
    noise = [r for r in tensors_only if r[5] > NOISE]
    meaningful = [r for r in tensors_only if r[5] <= NOISE] or tensors_only
    floor = max(meaningful, key=lambda r: r[5])
    ours = max(meaningful, key=lambda r: r[6])
    print("against the float64 step: PyTorch's %s step is within %.3e (%s/%s), ours within "
          "%.3e (%s/%s)" % (OWN_STEP[precision], floor[5], floor[0], floor[1], ours[6], ours[0],
                            ours[1]))
    if precision != "fp32":
        # A 16-bit step is judged tensor by tensor: ours no further from the float64 step than
        # PyTorch's own step of that precision is, within --exact-factor (every tensor is
        # "noise" at the format's precision, where one step's conditioning amplifies 2^-9).
        worst = max(tensors_only, key=lambda r: r[6] / max(r[5], args.tolerance))
        print("per tensor: ours is at most %.3f x PyTorch's %s distance from the float64 step "
              "(%s/%s: %.3e against %.3e)" % (worst[6] / max(worst[5], args.tolerance),
                                              OWN_STEP[precision], worst[0], worst[1], worst[6],
                                              worst[5]))
        if args.exact_factor <= 0:
            return 1 if over_tolerance else 0
        far = [r for r in tensors_only if not r[6] <= max(args.tolerance, args.exact_factor * r[5])]
        # A decision PyTorch takes otherwise is a near-tie when its margin is within what the
        # format moves a value in this step: F x PyTorch's own worst distance from float64 on
        # any tensor (an ill-conditioned layer moves its pre-activations the most).
        tie = max(args.tolerance, args.exact_factor * max(r[5] for r in tensors_only))
        flipped = [r for r in rows if r[6] is None and not r[4] <= tie]
        print("judged by accuracy: %d of %d tensors further from the float64 step than %g x "
              "PyTorch's %s step (or %.1e); %d decisions with a margin beyond %.3e"
              % (len(far), len(tensors_only), args.exact_factor, OWN_STEP[precision],
                 args.tolerance, len(flipped), tie))
        return 1 if far or flipped else 0
    if noise:
        worst = max(noise, key=lambda r: r[6] / r[5])
        print("rounding noise: %d tensors where PyTorch's float32 step is more than %g from the "
              "float64 step (analytically zero); ours is at most %.2f x PyTorch's distance (%s/%s)"
              % (len(noise), NOISE, worst[6] / worst[5], worst[0], worst[1]))
    if args.exact_factor <= 0:
        return 1 if over_tolerance else 0
    accepted = max(args.tolerance, args.exact_factor * floor[5])
    far = [r for r in meaningful if r not in noise and not r[6] <= accepted]
    far += [r for r in noise if not r[6] <= args.exact_factor * r[5]]
    flipped = [r for r in over_tolerance if r[6] is None]
    print("judged by accuracy: %d of %d tensors further than %.3e = max(%.1e, %g x %.3e) from the "
          "float64 step (rounding noise: further than %g x PyTorch's own distance); %d decisions "
          "beyond tolerance"
          % (len(far), len(tensors_only), accepted, args.tolerance, args.exact_factor, floor[5],
             args.exact_factor, len(flipped)))
    failed = far + flipped
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
