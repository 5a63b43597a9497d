#!/usr/bin/python3
"""Cross-check one training step of the S2Train reference interpreter against PyTorch.

`s2c reference MODEL --out-dir DIR` writes the step's inputs and results as .npy files and a
manifest (compiler/driver/reference.h). This script rebuilds the same model in PyTorch
(torchvision's resnet18/34/50 and vgg11, and our own mlp and lenet5 modules, all with the
same state_dict names), loads the same weights, running statistics and batch, runs one
training step -- model.train(), F.cross_entropy, torch.optim.SGD(lr, momentum, weight_decay)
-- and compares, per tensor, max|ours - torch| / max|torch| (the absolute error where torch's
tensor is all zero) for the loss, every weight gradient, every updated weight and every
updated running statistic.

PyTorch follows our forward decisions (decisions/*.npy: each ReLU's mask and each max-pool's
argmax). fp32 sums in another order differ in the last bits, so a pre-activation within ~1e-6
of zero, or two nearly equal values in a pooling window, may land on the other side in
PyTorch and move one gradient element by O(1), although both are right to rounding. Every
element where PyTorch's own choice differs is counted, and its margin -- |x| / max|x| for a
ReLU, (max - chosen) / max|x| for a pool -- is a row of the table like any other error, so a
flip that is not a near-tie still fails the check.

Some steps are ill-conditioned: batch norm over few values per channel (resnet18 on 32x32
images at batch 4 normalises 4 values per channel in layer4) amplifies rounding until
PyTorch's own float32 step is ~1e-4 away from its float64 step. --fp64-floor shows that floor
per tensor, so an error above the tolerance can be told apart from a wrong result.

It prints a table and the worst tensor, and exits 0 when every error is within --tolerance,
1 when one exceeds it, and 2 when the directory is not a usable reference step.

Run with Debian's interpreter and packages: /usr/bin/python3 with python3-torch,
python3-torchvision and python3-numpy.
"""

import argparse
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

MANIFEST_FORMAT = "s2train-reference-step 1"


class InputError(Exception):
    """The reference directory is missing something or does not fit the model."""


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


class Decisions:
    """Our forward decisions, handed out by op name, and PyTorch's disagreements with them."""

    def __init__(self, directory, manifest):
        self.directory = directory
        self.expected = {d["op"]: d["type"] for d in manifest["decisions"]}
        self.used = set()
        self.flips = {}  # op name -> (elements that differ, worst margin, max|x|, shape)

    def take(self, op, op_type):
        if self.expected.get(op) != op_type:
            raise InputError("PyTorch's %s call '%s' has no %s decision in the manifest"
                             % (op_type, op, op_type))
        if op in self.used:
            raise InputError("decision '%s' used twice" % op)
        self.used.add(op)
        return torch.from_numpy(load(self.directory, "decisions", op + ".npy").astype(np.int64))

    def record(self, op, differ, margin, scale, shape):
        self.flips[op] = (int(differ), float(margin), float(scale), tuple(shape))

    def check_all_used(self):
        unused = [op for op in self.expected if op not in self.used]
        if unused:
            raise InputError("decisions the PyTorch model never reached: %s" % unused)


class DecidedReLU(nn.Module):
    """ReLU with our mask. Op names follow the zoo: a module called again is <path>_2, _3."""

    def __init__(self, path, decisions):
        super().__init__()
        self.path, self.decisions, self.calls = path, decisions, 0

    def forward(self, x):
        self.calls += 1
        op = self.path if self.calls == 1 else "%s_%d" % (self.path, self.calls)
        mask = self.decisions.take(op, "relu")
        if tuple(mask.shape) != tuple(x.shape):
            raise InputError("decisions/%s.npy: shape %s, PyTorch's is %s"
                             % (op, tuple(mask.shape), tuple(x.shape)))
        mask = mask > 0
        with torch.no_grad():
            differ = mask != (x > 0)
            scale = x.abs().max()
            margin = x[differ].abs().max() / scale if differ.any() else torch.tensor(0.0)
            self.decisions.record(op, differ.sum(), margin, scale, x.shape)
        return x * mask


class DecidedMaxPool(nn.Module):
    """max_pool2d taking the element our argmax chose in every window."""

    def __init__(self, path, pool, decisions):
        super().__init__()
        self.path, self.pool, self.decisions = path, pool, decisions

    def forward(self, x):
        p = self.pool
        own, own_index = F.max_pool2d(x, p.kernel_size, p.stride, p.padding, p.dilation,
                                      ceil_mode=p.ceil_mode, return_indices=True)
        index = self.decisions.take(self.path, "max_pool2d")
        if tuple(index.shape) != tuple(own.shape):
            raise InputError("decisions/%s.npy: shape %s, PyTorch's is %s"
                             % (self.path, tuple(index.shape), tuple(own.shape)))
        plane = x.shape[2] * x.shape[3]
        if index.numel() and (index.min() < 0 or index.max() >= plane):
            raise InputError("decisions/%s.npy: an index outside the %dx%d input plane"
                             % (self.path, x.shape[2], x.shape[3]))
        y = x.flatten(2).gather(2, index.flatten(2)).view(own.shape)
        with torch.no_grad():
            differ = index != own_index
            scale = x.abs().max()
            margin = (own - y)[differ].abs().max() / scale if differ.any() else torch.tensor(0.0)
            self.decisions.record(self.path, differ.sum(), margin, scale, own.shape)
        return y


def follow_decisions(model, decisions):
    """Replaces every nn.ReLU and nn.MaxPool2d module by one that follows our decisions."""
    for path, module in list(model.named_modules()):
        if isinstance(module, nn.ReLU):
            replacement = DecidedReLU(path, decisions)
        elif isinstance(module, nn.MaxPool2d):
            replacement = DecidedMaxPool(path, module, decisions)
        else:
            continue
        parent, _, leaf = path.rpartition(".")
        setattr(model.get_submodule(parent) if parent else model, leaf, replacement)


def build_model(name, o):
    c, h, w, k = o["channels"], o["height"], o["width"], o["classes"]
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
        # The zoo does not model dropout (the step is deterministic). torchvision's
        # AdaptiveAvgPool2d((7, 7)) stays: on the sizes the zoo accepts it is exactly the
        # identity or the average pool the zoo builds.
        model.classifier[2] = nn.Identity()
        model.classifier[5] = nn.Identity()
        return model
    raise InputError("unknown model '%s' (this script knows mlp, lenet5, resnet18, resnet34, "
                     "resnet50, vgg11)" % name)


def load(directory, *parts):
    path = os.path.join(directory, *parts)
    if not os.path.isfile(path):
        raise InputError("%s: missing" % path)
    try:
        return np.load(path, allow_pickle=False)
    except ValueError as e:
        raise InputError("%s: %s" % (path, e))


def load_state(model, directory, manifest):
    """Copies init/<key>.npy into every state_dict entry; the names must match exactly."""
    ours = list(manifest["weights"]) + list(manifest["state"])
    theirs = model.state_dict()
    counters = {k for k in theirs if k.endswith("num_batches_tracked")}
    missing = [k for k in theirs if k not in counters and k not in ours]
    extra = [k for k in ours if k not in theirs]
    if missing or extra:
        raise InputError("state_dict names differ from PyTorch's: missing %s, unexpected %s"
                         % (missing, extra))
    state = {}
    for key, value in theirs.items():
        if key in counters:
            state[key] = torch.zeros_like(value)
            continue
        array = load(directory, "init", key + ".npy")
        if tuple(array.shape) != tuple(value.shape):
            raise InputError("init/%s.npy: shape %s, PyTorch's %s is %s"
                             % (key, tuple(array.shape), key, tuple(value.shape)))
        state[key] = torch.from_numpy(array.astype(np.float32))
    model.load_state_dict(state, strict=True)


def torch_step(model, manifest, x, labels):
    """One training step; returns the loss, the gradients and the updated state."""
    sgd = manifest["sgd"]
    optimizer = torch.optim.SGD(model.parameters(), lr=sgd["lr"], momentum=sgd["momentum"],
                                weight_decay=sgd["weight_decay"])
    model.train()
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), labels)
    loss.backward()
    params = dict(model.named_parameters())
    grads = {k: p.grad.detach().clone() if p.grad is not None else torch.zeros_like(p)
             for k, p in params.items()}
    optimizer.step()
    state = model.state_dict()
    updated = {k: state[k].detach().clone() for k in manifest["weights"] + manifest["state"]}
    return loss.detach().reshape(1), grads, updated


def run_torch(directory, manifest, dtype, follow=True):
    """The step in PyTorch at `dtype`, following our decisions unless told not to. Returns the
    compared tensors keyed by (kind, name), and the decisions with PyTorch's disagreements."""
    model = build_model(manifest["model"], manifest["options"])
    load_state(model, directory, manifest)
    decisions = Decisions(directory, manifest)
    if follow:
        follow_decisions(model, decisions)
    else:
        decisions.expected = {}
    model.to(dtype)
    x = torch.from_numpy(load(directory, "init", "input.npy").astype(np.float32)).to(dtype)
    labels = torch.from_numpy(load(directory, "init", "labels.npy").astype(np.int64))
    loss, grads, updated = torch_step(model, manifest, x, labels)
    decisions.check_all_used()
    tensors = {("loss", "loss"): loss}
    tensors.update({("grad", k): grads[k] for k in manifest["weights"]})
    tensors.update({("updated", k): updated[k] for k in manifest["weights"] + manifest["state"]})
    return tensors, decisions


def ours_file(directory, kind, name):
    return load(directory, "loss.npy") if kind == "loss" else load(directory, kind, name + ".npy")


def relative_error(ours, theirs):
    ours = np.asarray(ours, dtype=np.float64)
    theirs = np.asarray(theirs, dtype=np.float64)
    scale = np.max(np.abs(theirs)) if theirs.size else 0.0
    diff = np.max(np.abs(ours - theirs)) if theirs.size else 0.0
    return float(diff / scale) if scale > 0 else float(diff), float(scale)


def compare(directory, tensors, decisions, floor_tensors):
    """Rows (kind, name, shape, max|torch|, error, PyTorch's own fp32-vs-fp64 error or None)."""
    rows = [("decision", op, shape, scale, margin, None)
            for op, (differ, margin, scale, shape) in decisions.flips.items()]
    for (kind, name), theirs in tensors.items():
        theirs = theirs.numpy()
        ours = ours_file(directory, kind, name)
        if tuple(ours.shape) != tuple(theirs.shape):
            raise InputError("%s/%s.npy: shape %s, PyTorch's is %s"
                             % (kind, name, tuple(ours.shape), tuple(theirs.shape)))
        error, scale = relative_error(ours, theirs)
        floor = None
        if floor_tensors is not None:
            floor = relative_error(theirs, floor_tensors[(kind, name)].numpy())[0]
        rows.append((kind, name, tuple(theirs.shape), scale, error, floor))
    return rows


def print_table(rows, top):
    shown = sorted(rows, key=lambda r: -r[4])[:top] if top > 0 else rows
    width = max(len(r[0]) + 1 + len(r[1]) for r in shown)
    floors = any(r[5] is not None for r in rows)
    print("%-*s  %-20s  %12s  %12s%s" % (width, "tensor", "shape", "max|torch|", "rel. error",
                                         "  %12s" % "torch32 v 64" if floors else ""))
    for kind, name, shape, scale, error, floor in shown:
        print("%-*s  %-20s  %12.4e  %12.4e%s"
              % (width, kind + "/" + name, "x".join(str(d) for d in shape) or "scalar", scale,
                 error, "" if not floors else "  %12s" % ("-" if floor is None else
                                                          "%.4e" % floor)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", help="the --out-dir of `s2c reference`")
    parser.add_argument("--tolerance", type=float, default=1e-4,
                        help="largest accepted max|ours - torch| / max|torch| (default 1e-4)")
    parser.add_argument("--top", type=int, default=0,
                        help="print only the N worst tensors (default: all, in model order)")
    parser.add_argument("--fp64-floor", action="store_true",
                        help="also run the step in float64 and show, per tensor, how far "
                             "PyTorch's own float32 result is from it: the conditioning of the "
                             "step, which no float32 implementation can beat by much")
    parser.add_argument("--floor-factor", type=float, default=0.0,
                        help="also accept a tensor whose error is within this factor of "
                             "PyTorch's own fp32-vs-fp64 error for it (implies --fp64-floor); "
                             "for steps so ill-conditioned that fp32 itself misses --tolerance")
    parser.add_argument("--own-decisions", action="store_true",
                        help="let PyTorch take its own ReLU and max-pool decisions; a near-tie "
                             "that falls the other way then shows as an O(1) error at one element")
    args = parser.parse_args()

    torch.use_deterministic_algorithms(True)
    torch.set_default_dtype(torch.float32)
    try:
        manifest_path = os.path.join(args.directory, "manifest.json")
        if not os.path.isfile(manifest_path):
            raise InputError("%s: missing" % manifest_path)
        with open(manifest_path) as f:
            manifest = json.load(f)
        if manifest.get("format") != MANIFEST_FORMAT:
            raise InputError("%s: format %r, expected %r"
                             % (manifest_path, manifest.get("format"), MANIFEST_FORMAT))
        follow = not args.own_decisions
        tensors, decisions = run_torch(args.directory, manifest, torch.float32, follow)
        floor_tensors = None
        if args.fp64_floor or args.floor_factor > 0:
            floor_tensors = run_torch(args.directory, manifest, torch.float64, follow)[0]
        rows = compare(args.directory, tensors, decisions, floor_tensors)
    except (InputError, KeyError, ValueError, RuntimeError) as e:
        print("torch_reference: %s: %s" % (args.directory, e), file=sys.stderr)
        return 2

    o = manifest["options"]
    print("%s: batch %d, %dx%dx%d, %d classes; PyTorch %s, torchvision %s"
          % (manifest["model"], o["batch"], o["channels"], o["height"], o["width"],
             o["classes"], torch.__version__, torchvision.__version__))
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
        print("decisions: %d ReLU and max-pool ops, %d elements; PyTorch alone would choose "
              "otherwise at %d of them%s"
              % (len(decisions.flips), elements, sum(f[0] for _, f in flips), where))
    if floor_tensors is not None:
        print("PyTorch's own float32 step is within %.3e of its float64 step"
              % max(r[5] for r in rows if r[5] is not None))
    worst = max(rows, key=lambda r: r[4])
    def allowed(row):
        floor = row[5] if row[5] is not None else 0.0
        return max(args.tolerance, args.floor_factor * floor)

    failed = [r for r in rows if not r[4] <= allowed(r)]
    beyond = "" if args.floor_factor <= 0 else " or %g x PyTorch's own fp32 error" % args.floor_factor
    print("worst relative error: %.3e (%s/%s); %d of %d tensors above tolerance %.1e%s"
          % (worst[4], worst[0], worst[1], len(failed), len(rows), args.tolerance, beyond))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
