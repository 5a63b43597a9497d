#!/usr/bin/env bash
# Which of torchvision's convolutional classifiers train through s2c: each is exported in
# training mode by scripts/export_onnx.py and compiled; one line per model says how long the
# compile took and how many instructions it made, or the first line of the error.
#   scripts/torchvision-coverage.sh [BATCH [IMAGE]]      (defaults 2 and 64)
# alexnet is exported at 224 and inception_v3 at 299, the smallest sizes their adaptive pool
# and auxiliary head take; torch cannot export the vgg family's AdaptiveAvgPool2d((7,7)) unless
# the map divides 7 (e.g. at 224). The transformers (vit_*, swin_*, maxvit_t) are issue 15's.
# S2C selects the compiler (a Release build is faster: S2C=build-release/compiler/s2c).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
s2c=${S2C:-$root/build/compiler/s2c}
batch=${1:-2}
image=${2:-64}
[ -x "$s2c" ] || { echo "torchvision-coverage: $s2c not built (run scripts/build.sh)" >&2; exit 1; }
/usr/bin/python3 -c 'import torch, torchvision, onnx' 2> /dev/null ||
  { echo "torchvision-coverage: /usr/bin/python3 cannot import torch, torchvision, onnx" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

compiled=0 failed=0
for model in $(/usr/bin/python3 "$root/scripts/export_onnx.py" --list); do
  case $model in vit_* | swin_* | maxvit_t) continue ;; esac
  size=$image
  case $model in alexnet) size=224 ;; inception_v3) size=299 ;; esac
  onnx=$out/$model.onnx
  if ! message=$(/usr/bin/python3 "$root/scripts/export_onnx.py" "$model" -o "$onnx" \
                   --batch "$batch" --image "$size" --mode train 2>&1); then
    reason=$(echo "$message" | grep -m1 'export_onnx.py:' || echo "$message" | tail -1)
    echo "$model (${size}x$size): export fails: $reason"
    failed=$((failed + 1))
    continue
  fi
  start=$(date +%s.%N)
  if message=$("$s2c" compile "$onnx" -o "$out/$model.bin" 2>&1); then
    end=$(date +%s.%N)
    seconds=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", b - a}')
    echo "$model (${size}x$size): compiles in $seconds s, $(echo "$message" | grep -m1 '^instructions' | cut -d, -f1)"
    compiled=$((compiled + 1))
  else
    echo "$model (${size}x$size): $(echo "$message" | grep -m1 'error')"
    failed=$((failed + 1))
  fi
  rm -f "$onnx" "$out/$model.bin"
done
echo "$compiled compile, $failed do not (batch $batch)"
