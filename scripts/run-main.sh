#!/usr/bin/env bash
# The main job on a fresh machine: install what is needed, build, compile resnet18's training
# step into resnet18.bin, simulate it with `s2sim run` and print the report; then assemble
# the hand-written training step of a small MLP, describe and disassemble it; then run the
# quick-start design-space sweep and draw its plots.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${S2_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
echo
echo "== s2c compile resnet18 -o $build/resnet18.bin --memory-report $build/resnet18.plan.json"
"$build/compiler/s2c" compile resnet18 -o "$build/resnet18.bin" --memory-report "$build/resnet18.plan.json"
echo
echo "== s2sim run $build/resnet18.bin --config configs/s2train_base.yaml --report $build/resnet18.report.json"
"$build/simulator/s2sim" run "$build/resnet18.bin" --config "$root/configs/s2train_base.yaml" \
  --report "$build/resnet18.report.json"
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
sweep="$build/sweep-quickstart"
rm -rf "$sweep"
echo
echo "== s2sim sweep configs/sweeps/quickstart.yaml -o $sweep"
"$build/simulator/s2sim" sweep "$root/configs/sweeps/quickstart.yaml" -o "$sweep"
echo
echo "== scripts/plot_sweep.py $sweep"
/usr/bin/python3 "$root/scripts/plot_sweep.py" "$sweep"
