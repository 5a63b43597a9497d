#!/usr/bin/env bash
# Benchmarks of the simulator's timing mode, each the median of RUNS runs, as `s2sim run`
# reports its own wall time (the simulation, without loading) and simulated cycles per second:
#   * resnet18 (batch 4, 3x32x32) on the base configuration     (target: under 1 s)
#   * resnet50 (batch 32, 3x224x224) on the base configuration  (issue 18's target: 10 s)
#   * efficientnet_b0 (ONNX export, batch 32, 3x224x224), base   (target: under 30 s)
#   * gpt2-small (batch 8, 1024 tokens, --fuse-attention), base    (issue 15's target: 60 s);
#     S2_BENCH_GPT=0 skips it (each run takes about two minutes)
#   * resnet18 as above with --rtl pe_array,ppu: the RTL clocks the timing run (its wall time
#     and cycles/s), then the functional replay streams the data through it; the whole process
#     is timed too (issue 18's target: 60 s). S2_BENCH_RTL=0 skips it (minutes per run)
# s2sim serves DRAM channels on one thread per core; S2_THREADS=N passes --threads N (the
# figures are the same, only the wall time changes). Benchmarks want an optimised build: S2_BUILD_TYPE=Release S2_BUILD_DIR=build-release
# scripts/build.sh, then S2SIM=build-release/simulator/s2sim S2C=build-release/compiler/s2c.
#   scripts/bench-sim.sh [RUNS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
s2c=${S2C:-$root/build/compiler/s2c}
s2sim=${S2SIM:-$root/build/simulator/s2sim}
runs=${1:-3}
. "$root/scripts/counts.sh"
count bench-sim.sh RUNS "$runs"
for tool in "$s2c" "$s2sim"; do
  [ -x "$tool" ] || { echo "bench-sim: $tool not built (run scripts/build.sh)" >&2; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

bench() {  # name, executable, extra s2sim arguments: medians of the wall times and cycles/s
  local name=$1 bin=$2 walls=() rates=() procs=() line t0 t1
  shift 2
  for ((i = 1; i <= runs; i++)); do
    t0=$(date +%s.%N)
    line=$("$s2sim" run "$bin" ${S2_THREADS:+--threads "$S2_THREADS"} "$@" | grep 'wall time')
    t1=$(date +%s.%N)
    walls+=("$(echo "$line" | sed -E 's/.*wall time +([0-9.]+) s.*/\1/')")
    rates+=("$(echo "$line" | sed -E 's/.*\(([0-9.e+]+) simulated.*/\1/')")
    procs+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')")
  done
  local wall rate proc
  wall=$(printf '%s\n' "${walls[@]}" | median)
  rate=$(printf '%s\n' "${rates[@]}" | median)
  proc=$(printf '%s\n' "${procs[@]}" | median)
  echo "$name: median wall $wall s over $runs runs ($rate simulated cycles/s; whole process" \
    "$proc s); all: ${walls[*]}"
}

"$s2c" compile resnet18 -o "$out/r18.bin" > /dev/null
bench "resnet18 b4 32x32, base" "$out/r18.bin"
"$s2c" compile resnet50 --batch 32 --image 224 -o "$out/r50.bin" > /dev/null
bench "resnet50 b32 224x224, base" "$out/r50.bin"
if /usr/bin/python3 -c 'import torch, torchvision, onnx' 2> /dev/null; then
  /usr/bin/python3 "$root/scripts/export_onnx.py" efficientnet_b0 -o "$out/eb0.onnx" --batch 32 \
    --image 224 --mode train > /dev/null
  "$s2c" compile "$out/eb0.onnx" -o "$out/eb0.bin" > /dev/null
  bench "efficientnet_b0 (ONNX) b32 224x224, base" "$out/eb0.bin"
else
  echo "efficientnet_b0: skipped (/usr/bin/python3 cannot import torch, torchvision and onnx)"
fi
if [ "${S2_BENCH_GPT:-1}" != 0 ]; then
  "$s2c" compile gpt2-small --batch 8 --seq-len 1024 --fuse-attention -o "$out/gpt.bin" > /dev/null
  bench "gpt2-small b8 s1024 fused attention, base" "$out/gpt.bin"
fi
if [ "${S2_BENCH_RTL:-1}" != 0 ]; then
  bench "resnet18 b4 32x32 --rtl pe_array,ppu, base" "$out/r18.bin" --rtl pe_array,ppu
fi
