#!/usr/bin/env bash
# Benchmark of the compiler's front half: build, differentiate and shape-check a model
# (default resnet50, batch 32, 224x224) with `s2c compile`, RUNS times; prints each run's
# wall time and per-pass times, then the median wall time.
#   scripts/bench-frontend.sh [MODEL] [BATCH] [IMAGE] [RUNS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
s2c=${S2C:-$root/build/compiler/s2c}
model=${1:-resnet50} batch=${2:-32} image=${3:-224} runs=${4:-5}
. "$root/scripts/counts.sh"
count bench-frontend.sh BATCH "$batch"
count bench-frontend.sh IMAGE "$image"
count bench-frontend.sh RUNS "$runs"
[ -x "$s2c" ] || { echo "bench-frontend: $s2c not built (run scripts/build.sh)" >&2; exit 1; }
times=()
for ((i = 1; i <= runs; i++)); do
  start=$(date +%s.%N)
  out=$("$s2c" compile "$model" --batch "$batch" --image "$image")
  end=$(date +%s.%N)
  t=$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')
  times+=("$t")
  printf 'run %d: %.3f s  (%s)\n' "$i" "$t" \
    "$(echo "$out" | awk '/^  (import|autodiff|shape-inference) /{printf "%s %s ms  ", $1, $2}')"
done
median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
printf '%s batch %s %sx%s: median %.3f s over %d runs (build + autodiff + shape inference + simplification, whole process)\n' \
  "$model" "$batch" "$image" "$image" "$median" "$runs"
