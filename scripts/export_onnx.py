#!/usr/bin/python3
"""Export a torchvision classification model (or a probe model of scripts/probe_models.py)
to ONNX for `s2c` (compiler/onnx/).

    /usr/bin/python3 scripts/export_onnx.py resnet18 -o resnet18.onnx \
        --batch 4 --image 32 --classes 10 --mode train --opset 17
    /usr/bin/python3 scripts/export_onnx.py --list
    /usr/bin/python3 scripts/export_onnx.py softmax_probe -o probe.onnx --image 8
    /usr/bin/python3 scripts/export_onnx.py gpt -o gpt.onnx --batch 4 --seq-len 32
    /usr/bin/python3 scripts/export_onnx.py vit -o vit.onnx --batch 2 --image 32

--list names torchvision's classifiers; the probes (PROBES in scripts/probe_models.py) are
small plain-PyTorch models for ops those do not use.

Transformers: `gpt` and `gpt2-small` are scripts/gpt_model.py's GPT-2 (the zoo's presets of the
same names; --layers, --heads, --width, --seq-len, --vocab override the preset), exported with
one input `input_ids`, int64 [batch, seq-len], and the logits [batch, seq-len, vocab] as the
output. `vit` is torchvision's VisionTransformer at the zoo's tiny shape (2 layers, 4 heads,
width 64, patch 8; --layers, --heads, --width, --patch override it), the class vit_b_16 is an
instance of.

-o is written through a temporary file renamed into place; an existing -o that is not an ONNX
model is refused unless --force (s2c's and s2sim's rule for their outputs).

The model is built with weights=None (random initialization, nothing is downloaded) and
exported with static shapes: the importer rejects symbolic dimensions, because the
accelerator's memory plan is fixed at compile time.

--mode train exports the training graph: BatchNormalization stays a node (training_mode=1,
updating its running statistics) and constant folding is off, so every weight stays a named
initializer (its state_dict key) instead of being folded into another constant.
--mode eval exports the inference graph, where PyTorch folds each BatchNormalization into
the preceding convolution's weight and bias.

Stochastic depth (EfficientNet, ConvNeXt): torchvision draws its mask with bernoulli_, which
PyTorch 1.13 cannot export in training mode; the script exports the same mask as
x * dropout(ones([N,1,1,1]), p) (ExportableStochasticDepth), which the importer draws on the
accelerator like any dropout mask.
"""

import os
import sys
import warnings

import torch
import torch.nn.functional as F
import torchvision

import gpt_model
from probe_models import PROBES
from script_args import Parser

# The zoo's tiny ViT (compiler/zoo/zoo.cpp): layers, heads, width, patch.
VIT_TINY = (2, 4, 64, 8)


def classification_models():
    """Names of torchvision's image-classification builders (not detection, video, ...)."""
    names = []
    for name in torchvision.models.list_models(module=torchvision.models):
        builder = torchvision.models.get_model_builder(name)
        # Classification builders live in torchvision.models.<family>; the other tasks in
        # sub-packages such as torchvision.models.detection.<family>.
        if builder.__module__.count(".") == 2:
            names.append(name)
    return sorted(names)


# Builders whose models also return auxiliary logits in training mode, with the names of their
# outputs in torchvision's order (GoogLeNetOutputs, InceptionOutputs). By default they are
# built without the auxiliary classifiers, so the ONNX graph has one output, the logits; with
# --aux-logits every output is exported and s2c adds a weighted loss per auxiliary output.
AUX_LOGITS = {"googlenet": ["logits", "aux_logits2", "aux_logits1"],
              "inception_v3": ["logits", "aux_logits"]}


def build(name, classes, aux_logits=False, channels=3, args=None):
    if name in PROBES:
        return PROBES[name](channels, classes)
    if name in gpt_model.PRESETS:
        layers, heads, width, seq_len, vocab, positions = gpt_model.PRESETS[name]
        return gpt_model.GPT(args.layers or layers, args.heads or heads, args.width or width,
                             args.vocab or vocab, max(positions, args.seq_len or seq_len),
                             args.dropout, args.attention_dropout)
    if name == "vit":
        layers, heads, width, patch = VIT_TINY
        width = args.width or width
        if channels != 3:
            sys.exit("export_onnx.py: torchvision's VisionTransformer takes 3 channels")
        try:
            return torchvision.models.VisionTransformer(
                image_size=args.image, patch_size=args.patch or patch,
                num_layers=args.layers or layers, num_heads=args.heads or heads,
                hidden_dim=width, mlp_dim=4 * width, num_classes=classes,
                dropout=args.dropout, attention_dropout=args.attention_dropout)
        except AssertionError as e:
            sys.exit(f"export_onnx.py: vit: {e}")
    try:
        extra = {"aux_logits": aux_logits} if name in AUX_LOGITS else {}
        return torchvision.models.get_model(name, weights=None, num_classes=classes, **extra)
    except ValueError as e:
        sys.exit(f"export_onnx.py: {e}")


class ExportableStochasticDepth(torch.nn.Module):
    """torchvision.ops.StochasticDepth as PyTorch 1.13 can export it in training mode: the same
    per-sample ("row") or per-batch ("batch") mask, 0 or 1 / (1 - p), written as
    x * dropout(ones(mask shape), p) instead of bernoulli_, which the exporter refuses. The
    importer reads a Dropout of a constant of ones as the mask itself (dropout_mask on the
    PPU); scripts/torch_reference.py makes torchvision's StochasticDepth follow our masks."""

    def __init__(self, p, mode, batch):
        super().__init__()
        self.p, self.mode, self.batch = p, mode, batch

    def forward(self, x):
        if not self.training or self.p == 0.0:
            return x
        # The batch is static (a Python int), so the ones are one Constant in the graph.
        shape = [self.batch] + [1] * (x.dim() - 1) if self.mode == "row" else [1] * x.dim()
        return x * F.dropout(torch.ones(shape, dtype=x.dtype), self.p, training=True)


def exportable(model, batch):
    """Replaces every StochasticDepth module by its exportable form, keeping its name (the
    ONNX scopes, and so the importer's op names, are the module paths)."""
    for path, module in list(model.named_modules()):
        if isinstance(module, torchvision.ops.StochasticDepth):
            parent, _, leaf = path.rpartition(".")
            setattr(model.get_submodule(parent) if parent else model, leaf,
                    ExportableStochasticDepth(module.p, module.mode, batch))
    return model


def parse_args(argv):
    p = Parser(description="Export a torchvision classification model to ONNX.")
    p.add_argument("model", nargs="?", help="torchvision model name, e.g. resnet18 (see --list)")
    p.add_argument("-o", "--output", help="the .onnx file to write")
    p.add_argument("--force", action="store_true",
                   help="replace an existing -o file that is not an ONNX model")
    p.add_argument("--batch", type=int, default=4, help="batch size N (default 4)")
    p.add_argument("--image", type=int, default=32, help="image height and width (default 32)")
    p.add_argument("--channels", type=int, default=3, help="input channels (default 3)")
    p.add_argument("--classes", type=int, default=10, help="number of classes (default 10)")
    p.add_argument("--mode", choices=["train", "eval"], default="train",
                   help="train keeps BatchNormalization; eval folds it into conv biases")
    p.add_argument("--opset", type=int, default=17, help="ONNX opset (default 17)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random initialization")
    p.add_argument("--aux-logits", action="store_true",
                   help="googlenet, inception_v3 in train mode: keep the auxiliary classifiers "
                        "as further outputs (s2c weights their losses: --aux-loss-weight)")
    p.add_argument("--list", action="store_true", help="list the model names and exit")
    shape = p.add_argument_group("transformer shape (gpt, gpt2-small, vit; default: the preset's)")
    for flag in ("layers", "heads", "width", "patch", "seq-len", "vocab"):
        shape.add_argument("--" + flag, type=int, default=0)
    shape.add_argument("--dropout", type=float, default=0.0,
                       help="dropout of the hidden states (GPT-2's embd_pdrop and resid_pdrop, "
                            "ViT's dropout; default 0)")
    shape.add_argument("--attention-dropout", type=float, default=0.0,
                       help="dropout of the attention probabilities (default 0)")
    args = p.parse_args(argv)
    for flag in ("dropout", "attention_dropout"):
        value = getattr(args, flag)
        if not 0.0 <= value < 1.0:
            p.error("--%s must be in [0, 1), not %g" % (flag.replace("_", "-"), value))
        if value and not transformer(args.model):
            p.error("--%s does not apply to %s (gpt, gpt2-small and vit only)"
                    % (flag.replace("_", "-"), args.model))
    if not args.list and (args.model is None or args.output is None):
        p.error("MODEL and -o OUTPUT are required (or --list)")
    if args.aux_logits and args.model not in AUX_LOGITS:
        p.error("--aux-logits: %s has no auxiliary classifier (only %s)"
                % (args.model, ", ".join(AUX_LOGITS)))
    if args.aux_logits and args.mode != "train":
        p.error("--aux-logits needs --mode train (in eval mode the model returns the logits only)")
    for flag in ("batch", "image", "channels", "classes"):
        if getattr(args, flag) < 1:
            p.error(f"--{flag} must be at least 1")
    for flag in ("layers", "heads", "width", "patch", "seq_len", "vocab"):
        if getattr(args, flag) < 0:
            p.error("--%s must be at least 1" % flag.replace("_", "-"))
        applies = {"patch": args.model == "vit",
                   "seq_len": args.model in gpt_model.PRESETS,
                   "vocab": args.model in gpt_model.PRESETS}.get(flag, transformer(args.model))
        if getattr(args, flag) and not applies:
            p.error("--%s does not apply to %s (%s)" % (
                flag.replace("_", "-"), args.model,
                {"patch": "vit only", "seq_len": "gpt and gpt2-small only",
                 "vocab": "gpt and gpt2-small only"}.get(flag, "gpt, gpt2-small and vit only")))
    if args.model in gpt_model.PRESETS and args.mode != "train":
        p.error("%s: only --mode train is supported" % args.model)
    return args


def is_onnx_model(path):
    """Whether `path` holds an ONNX model (a ModelProto with a graph)."""
    try:
        import onnx
        return len(onnx.load(path, load_external_data=False).graph.node) > 0
    except Exception:  # any file onnx cannot read is not one
        return False


def check_output(args):
    """Refuses, before any work, an output that would destroy a file of another kind or that
    cannot be written (s2c's and s2sim's rule for their outputs)."""
    out = args.output
    parent = os.path.dirname(out) or "."
    if not os.path.isdir(parent):
        sys.exit(f"export_onnx.py: {out}: cannot write: '{parent}' "
                 + ("is not a directory" if os.path.exists(parent) else "does not exist"))
    if os.path.isdir(out):
        sys.exit(f"export_onnx.py: {out}: is a directory; the output is an ONNX model")
    if (os.path.exists(out) and os.path.getsize(out) > 0 and not args.force
            and not is_onnx_model(out)):
        sys.exit(f"export_onnx.py: {out}: exists and is not an ONNX model; refusing to overwrite "
                 "it (pass --force to replace it)")


def transformer(name):
    return name in gpt_model.PRESETS or name == "vit"


def example_input(name, args):
    """The traced input: token ids for a language model, an image batch otherwise."""
    if name in gpt_model.PRESETS:
        _, _, _, seq_len, vocab, _ = gpt_model.PRESETS[name]
        return torch.randint(0, args.vocab or vocab, (args.batch, args.seq_len or seq_len))
    return torch.randn(args.batch, args.channels, args.image, args.image)


def main(argv):
    args = parse_args(argv)
    if args.list:
        print("\n".join(classification_models()))
        return 0
    if (args.model not in classification_models() and args.model not in PROBES and
            not transformer(args.model)):
        sys.exit(f"export_onnx.py: unknown model '{args.model}'; see --list")
    check_output(args)

    # The exporter warns, once per batch norm, that it drops the num_batches_tracked
    # increment; the importer does not model that counter, so the warning is only noise.
    warnings.filterwarnings("ignore", message="ONNX Preprocess - Removing mutation")
    torch.manual_seed(args.seed)
    model = exportable(build(args.model, args.classes, args.aux_logits, args.channels, args),
                       args.batch)
    training = args.mode == "train"
    model.train(training)
    x = example_input(args.model, args)
    language = args.model in gpt_model.PRESETS
    # Written beside the output and renamed into place once complete, so an interrupted export
    # leaves the previous file as it was.
    partial = f"{args.output}.tmp.{os.getpid()}"
    try:
        torch.onnx.export(
            model, x, partial,
            opset_version=args.opset,
            input_names=["input_ids" if language else "input"],
            output_names=AUX_LOGITS[args.model] if args.aux_logits else ["logits"],
            training=torch.onnx.TrainingMode.TRAINING if training else torch.onnx.TrainingMode.EVAL,
            do_constant_folding=not training,
            # No dynamic_axes: every dimension stays static.
        )
        os.replace(partial, args.output)
    except (RuntimeError, ValueError) as e:
        # The model cannot run on this input size, or PyTorch cannot export it (an operator,
        # an opset): one line, not a traceback.
        first_line = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        if os.path.exists(partial):
            os.remove(partial)
        sys.exit(f"export_onnx.py: cannot export {args.model} for {args.channels}x{args.image}x"
                 f"{args.image} images in {args.mode} mode: {first_line}")
    if language:
        print(f"wrote {args.output}: {args.model}, batch {args.batch}, ids {list(x.shape)}, "
              f"vocabulary {model.transformer.wte.weight.shape[0]}, opset {args.opset}")
        return 0
    print(f"wrote {args.output}: {args.model}, batch {args.batch}, "
          f"{args.channels}x{args.image}x{args.image}, {args.classes} classes, "
          f"{args.mode} mode, opset {args.opset}"
          + (", with auxiliary outputs" if args.aux_logits else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
