#!/usr/bin/env bash
# The main job on a fresh machine: install what is needed, build, build resnet18's training
# graph, then assemble the hand-written training step of a small MLP into an S2Train
# executable, describe it and disassemble it. (s2c compile resnet18 -o resnet18.bin and
# s2sim run take this place as they land.)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${S2_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
echo
echo "== s2c compile resnet18 (the training graph; emission to resnet18.bin is not built yet)"
"$build/compiler/s2c" compile resnet18
out="$build/mlp_step.bin"
echo
echo "== s2c asm docs/examples/mlp_step.s2asm -o $out"
"$build/compiler/s2c" asm "$root/docs/examples/mlp_step.s2asm" -o "$out"
echo
echo "== s2sim info $out"
"$build/simulator/s2sim" info "$out"
echo
echo "== s2sim disasm $out"
"$build/simulator/s2sim" disasm "$out"
echo
echo "== s2sim validate-config configs/s2train_base.yaml"
"$build/simulator/s2sim" validate-config "$root/configs/s2train_base.yaml"
