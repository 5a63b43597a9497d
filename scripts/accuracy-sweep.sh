#!/usr/bin/env bash
# How accurate one training step is, over several seeds (initial weights and batch): for each
# seed, `s2c reference` runs the step on the reference interpreter (bit-identical to
# `s2sim run --functional` on the same configuration), and scripts/torch_reference.py runs it
# in PyTorch in float32 and float64. Prints, per seed, the worst tensor's
#   ours v torch32   max|ours - torch32| / max|torch32|   (the issue's cross-check)
#   torch32 v 64     PyTorch float32's distance from the float64 step (the conditioning)
#   ours v 64        our distance from the float64 step (our accuracy)
# each the worst over the step's tensors, then the medians over the seeds.
#   scripts/accuracy-sweep.sh [MODEL] [BATCH] [IMAGE] [SEEDS]     (default resnet18 4 32 12)
# Needs /usr/bin/python3 with python3-torch and python3-torchvision.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
s2c=${S2C:-$root/build/compiler/s2c}
model=${1:-resnet18} batch=${2:-4} image=${3:-32} seeds=${4:-12}
. "$root/scripts/counts.sh"
count accuracy-sweep.sh BATCH "$batch"
count accuracy-sweep.sh IMAGE "$image"
count accuracy-sweep.sh SEEDS "$seeds"
[ -x "$s2c" ] || { echo "accuracy-sweep: $s2c not built (run scripts/build.sh)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf '%-5s  %-46s  %-46s  %-46s\n' seed "ours v torch32" "torch32 v 64" "ours v 64"
rows=()
for ((seed = 1; seed <= seeds; seed++)); do
  dir=$work/seed$seed
  "$s2c" reference "$model" --batch "$batch" --image "$image" --seed "$seed" --out-dir "$dir" \
    > /dev/null
  status=0
  out=$(/usr/bin/python3 "$root/scripts/torch_reference.py" "$dir" --fp64-floor --top 1) ||
    status=$?
  if [ "$status" -gt 1 ]; then
    echo "accuracy-sweep: seed $seed: torch_reference.py failed:" >&2
    echo "$out" >&2
    exit 1
  fi
  # "worst relative error: E (T); ..." and
  # "against the float64 step: PyTorch's float32 step is within E (T), ours within E (T)"
  row=$(echo "$out" | awk '
    /^worst relative error: / { vs32 = $4 " " $5; sub(/;$/, "", vs32) }
    /^against the float64 step: / { t64 = $10 " " $11; sub(/,$/, "", t64); o64 = $14 " " $15 }
    END { printf "%s|%s|%s", vs32, t64, o64 }')
  IFS='|' read -r vs32 t64 o64 <<< "$row"
  if [ -z "$vs32" ] || [ -z "$t64" ] || [ -z "$o64" ]; then
    echo "accuracy-sweep: seed $seed: torch_reference.py's summary lines were not found:" >&2
    echo "$out" >&2
    exit 1
  fi
  printf '%-5d  %-46s  %-46s  %-46s\n' "$seed" "$vs32" "$t64" "$o64"
  rows+=("$row")
done
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
column() { printf '%s\n' "${rows[@]}" | awk -F'|' -v c="$1" '{split($c, w, " "); print w[1]}'; }
printf '%s batch %s %sx%s over seeds 1..%d, medians: ours v torch32 %s, torch32 v 64 %s, ours v 64 %s\n' \
  "$model" "$batch" "$image" "$image" "$seeds" "$(column 1 | median)" "$(column 2 | median)" \
  "$(column 3 | median)"
