#!/usr/bin/env bash
# Benchmark of `s2sim sweep` (issue 17's throughput target: a 64-point resnet18 sweep, batch 4
# on 32x32 images, on 2 cores in under 30 s): the median of RUNS runs, each in a fresh
# directory (so it compiles once and simulates 64 rows), with the points per second and the
# overhead per row beyond the simulation itself as the sweep reports them. The 64 points are
# 4 array shapes x 4 input/weight buffer sizes x 4 clocks on the base configuration.
# Wants an optimised build: S2_BUILD_TYPE=Release S2_BUILD_DIR=build-release scripts/build.sh,
# then S2SIM=build-release/simulator/s2sim S2C=build-release/compiler/s2c.
#   scripts/bench-sweep.sh [RUNS [JOBS]]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
s2c=${S2C:-$root/build/compiler/s2c}
s2sim=${S2SIM:-$root/build/simulator/s2sim}
runs=${1:-3}
jobs=${2:-2}
. "$root/scripts/counts.sh"
count bench-sweep.sh RUNS "$runs"
count bench-sweep.sh JOBS "$jobs"
for tool in "$s2c" "$s2sim"; do
  [ -x "$tool" ] || { echo "bench-sweep: $tool not built (run scripts/build.sh)" >&2; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat > "$out/spec.yaml" <<SPEC
base: $root/configs/s2train_base.yaml
axes:
  - key: [pe_array.rows, pe_array.cols]
    values: [8, 16, 32, 64]
  - key: [sram.input.size, sram.weight.size]
    geometric: {from: 64KiB, to: 512KiB, factor: 2}
  - key: clock_mhz
    values: [600, 800, 1000, 1200]
workloads:
  - model: resnet18
    options: --batch 4 --image 32
objectives: [ms, pe_array.macs, sram.size]
SPEC
walls=() lines=()
for ((i = 1; i <= runs; i++)); do
  start=$(date +%s.%N)
  summary=$("$s2sim" sweep "$out/spec.yaml" -o "$out/run$i" -j "$jobs" --s2c "$s2c")
  end=$(date +%s.%N)
  walls+=("$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')")
  lines+=("$(echo "$summary" | grep 'simulated')")
  rows=$(($(wc -l < "$out/run$i/results.csv") - 1))
  [ "$rows" -eq 64 ] || { echo "bench-sweep: run $i wrote $rows rows, not 64" >&2; exit 1; }
done
median=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
printf 'sweep of 64 resnet18 points, -j %s: median wall %.2f s over %s runs (%.2f points/s); all:' \
  "$jobs" "$median" "$runs" "$(awk -v m="$median" 'BEGIN { print 64 / m }')"
printf ' %.2f' "${walls[@]}"
echo
printf '%s\n' "${lines[@]}"
