#!/usr/bin/env bash
# Benchmarks and figures of the whole compiler (`s2c compile ... -o`), each time the median of
# RUNS runs of the whole process, plus the memory-plan table of issue 4:
#   * resnet18 (batch 4, 3x32x32, 10 classes) compile time
#   * resnet50 (batch 32, 224x224) compile time with the search planner at its default budget
#   * efficientnet_b0 (ONNX export, batch 32, 224x224) compile time (target: under 2 s)
#   * gpt2-small (batch 8, sequence 512) and vit_b_16 (batch 32, 224x224) compile time, and
#     gpt2-small at sequence 1024 with --fuse-attention (target: under 3 s); without fused
#     attention the base configuration's 8 GiB refuses it: what it needs
#   * resnet18 arena per strategy: no reuse, gradient reuse, immediate update, search
#   scripts/bench-compile.sh [RUNS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
s2c=${S2C:-$root/build/compiler/s2c}
runs=${1:-5}
. "$root/scripts/counts.sh"
count bench-compile.sh RUNS "$runs"
[ -x "$s2c" ] || { echo "bench-compile: $s2c not built (run scripts/build.sh)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

median_time() {  # median wall seconds of RUNS runs of "$@"
  local times=() start end
  for ((i = 1; i <= runs; i++)); do
    start=$(date +%s.%N)
    "$@" > /dev/null
    end=$(date +%s.%N)
    times+=("$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]}'
}

echo "resnet18 b4 32x32 -o: median $(median_time "$s2c" compile resnet18 -o "$out/r18.bin") s over $runs runs"
echo "resnet50 b32 224x224 --planner search -o: median $(median_time "$s2c" compile resnet50 --batch 32 --image 224 --planner search -o "$out/r50.bin") s over $runs runs"
# efficientnet_b0 from PyTorch's exporter (target: under 2 s); needs Debian's PyTorch.
if /usr/bin/python3 -c 'import torch, torchvision, onnx' 2> /dev/null; then
  /usr/bin/python3 "$root/scripts/export_onnx.py" efficientnet_b0 -o "$out/eb0.onnx" --batch 32 \
    --image 224 --mode train > /dev/null
  echo "efficientnet_b0 (ONNX) b32 224x224 -o: median $(median_time "$s2c" compile "$out/eb0.onnx" -o "$out/eb0.bin") s over $runs runs"
else
  echo "efficientnet_b0: skipped (/usr/bin/python3 cannot import torch, torchvision and onnx)"
fi
echo "gpt2-small b8 s512 -o: median $(median_time "$s2c" compile gpt2-small --batch 8 --seq-len 512 -o "$out/g512.bin") s over $runs runs"
echo "vit_b_16 b32 224x224 -o: median $(median_time "$s2c" compile vit_b_16 --batch 32 --image 224 -o "$out/vit.bin") s over $runs runs"
echo "gpt2-small b8 s1024 --fuse-attention -o: median $(median_time "$s2c" compile gpt2-small --batch 8 --seq-len 1024 --fuse-attention -o "$out/g1024f.bin") s over $runs runs"
rm -f "$out/g1024f.bin"
if "$s2c" compile gpt2-small --batch 8 --seq-len 1024 -o "$out/g1024.bin" > "$out/g1024.log" 2>&1; then
  echo "gpt2-small b8 s1024 -o: median $(median_time "$s2c" compile gpt2-small --batch 8 --seq-len 1024 -o "$out/g1024.bin") s over $runs runs"
else
  echo "gpt2-small b8 s1024: refused, $(grep -o 'needs [0-9]* bytes of DRAM ([0-9.]* MiB' "$out/g1024.log" | sed 's/.*(//') MiB > the configuration's DRAM"
fi
echo
echo "resnet18 b4 32x32 memory plan (arena / lower bound in MiB):"
printf '  %-34s %10s %12s %8s\n' strategy arena "lower bound" ratio
for row in "no reuse:update-last:none" "gradient reuse:update-last:grad-reuse" \
           "immediate update:update-immediate:greedy" "search:memory-aware:search" \
           "greedy, update-last:update-last:greedy"; do
  IFS=: read -r label schedule planner <<< "$row"
  line=$("$s2c" compile resnet18 --schedule "$schedule" --planner "$planner" | grep '^memory plan')
  arena=$(echo "$line" | sed -E 's/.*arena ([0-9.]+) MiB.*/\1/')
  bound=$(echo "$line" | sed -E 's/.*lower bound ([0-9.]+) MiB.*/\1/')
  ratio=$(echo "$line" | sed -E 's/.*ratio ([0-9.]+).*/\1/')
  printf '  %-34s %10s %12s %8s\n' "$label ($schedule, $planner)" "$arena" "$bound" "$ratio"
done
