#!/usr/bin/env bash
# Which of torchvision's convolutional classifiers train through s2c: each is exported in
# training mode by scripts/export_onnx.py, compiled, and simulated on the base config with the
# shadow-memory checker (timing only: the plan and dependencies are proven, not the numbers).
# One line per model says how long the compile took, how many instructions it made, the
# simulated cycles, PE and PPU busy shares, the live memory peak against the allocation and
# the simulation's wall time, or the first line of the error.
#   scripts/torchvision-coverage.sh [BATCH [IMAGE]]      (defaults 2 and 64)
# alexnet and the vgg family are exported at 224 (or IMAGE if larger) and inception_v3 at 299:
# alexnet's adaptive pool and inception's auxiliary head need those sizes, and torch cannot
# export vgg's AdaptiveAvgPool2d((7,7)) unless the map divides 7. The transformers (vit_*,
# swin_*, maxvit_t) are issue 15's.
# S2C and S2SIM select the tools (a Release build is faster: S2C=build-release/compiler/s2c
# S2SIM=build-release/simulator/s2sim); MODELS="a b" limits the run to those models.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
s2c=${S2C:-$root/build/compiler/s2c}
s2sim=${S2SIM:-$root/build/simulator/s2sim}
batch=${1:-2}
image=${2:-64}
. "$root/scripts/counts.sh"
count torchvision-coverage.sh BATCH "$batch"
count torchvision-coverage.sh IMAGE "$image"
for tool in "$s2c" "$s2sim"; do
  [ -x "$tool" ] || { echo "torchvision-coverage: $tool not built (run scripts/build.sh)" >&2; exit 1; }
done
/usr/bin/python3 -c 'import torch, torchvision, onnx' 2> /dev/null ||
  { echo "torchvision-coverage: /usr/bin/python3 cannot import torch, torchvision, onnx" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}'; }

trained=0 failed=0
for model in ${MODELS:-$(/usr/bin/python3 "$root/scripts/export_onnx.py" --list)}; do
  case $model in vit_* | swin_* | maxvit_t) continue ;; esac
  size=$image
  case $model in alexnet | vgg*) size=$((image > 224 ? image : 224)) ;; inception_v3) size=299 ;; esac
  onnx=$out/$model.onnx
  if ! message=$(/usr/bin/python3 "$root/scripts/export_onnx.py" "$model" -o "$onnx" \
                   --batch "$batch" --image "$size" --mode train 2>&1); then
    reason=$(echo "$message" | grep -m1 'export_onnx.py:' || echo "$message" | tail -1)
    echo "$model (${size}x$size): export fails: $reason"
    failed=$((failed + 1))
    continue
  fi
  start=$(date +%s.%N)
  if ! message=$("$s2c" compile "$onnx" -o "$out/$model.bin" 2>&1); then
    echo "$model (${size}x$size): $(echo "$message" | grep -m1 'error')"
    failed=$((failed + 1))
    rm -f "$onnx"
    continue
  fi
  compiled="compiles in $(seconds_since "$start") s, $(echo "$message" | grep -m1 '^instructions' | cut -d, -f1)"
  start=$(date +%s.%N)
  if report=$("$s2sim" run "$out/$model.bin" --check 2>&1); then
    cycles=$(echo "$report" | awk '/total cycles/ {print $3}')
    pe=$(echo "$report" | sed -n 's/^ *pe_array *busy [^(]*( *\([0-9.]*%\).*/\1/p')
    ppu=$(echo "$report" | sed -n 's/^ *ppu *busy [^(]*( *\([0-9.]*%\).*/\1/p')
    peak=$(echo "$report" | awk '/memory peak/ {print $3 " MiB live"}')
    allocated=$(echo "$report" | sed -n 's/.*; allocated \([0-9]*\) B.*/\1/p')
    echo "$model (${size}x$size): $compiled; simulates $cycles cycles, PE $pe PPU $ppu busy," \
         "peak $peak of $(awk -v b="$allocated" 'BEGIN {printf "%.2f", b / 1048576}') MiB allocated," \
         "checked, in $(seconds_since "$start") s"
    trained=$((trained + 1))
  else
    echo "$model (${size}x$size): $compiled; simulation fails: $(echo "$report" | grep -m1 -E 'error|finding' || echo "$report" | tail -1)"
    failed=$((failed + 1))
  fi
  rm -f "$onnx" "$out/$model.bin"
done
echo "$trained compile and simulate clean, $failed do not (batch $batch)"
