#!/usr/bin/env bash
# One training step of each workload in fp32, bf16 and fp16 (s2c compile --precision) on one
# configuration, simulated in timing mode: the table of issue 16. Per row: the step's DRAM
# peak (memory.peak_bytes of --report), the DRAM bytes read and written, the simulated time,
# the PE array's busy share, and its MAC utilization against the peak of the precision's
# multiply mode (pe_array.datatypes). Deterministic: one run each.
#   scripts/bench-precision.sh [CONFIG]       (default configs/s2train_base.yaml)
# S2_BENCH_GPT=0 leaves out gpt2-small (batch 8, 512 tokens; unfused and --fuse-attention),
# the slowest rows.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
s2c=${S2C:-$root/build/compiler/s2c}
s2sim=${S2SIM:-$root/build/simulator/s2sim}
config=${1:-$root/configs/s2train_base.yaml}
for tool in "$s2c" "$s2sim"; do
  [ -x "$tool" ] || { echo "bench-precision: $tool not built (run scripts/build.sh)" >&2; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

workloads=("resnet18|resnet18 --batch 4 --image 32"
           "resnet18|resnet18 --batch 32 --image 224"
           "resnet50|resnet50 --batch 32 --image 224")
[ "${S2_BENCH_GPT:-1}" = 0 ] ||
  workloads+=("gpt2-small|gpt2-small --batch 8 --seq-len 512"
              "gpt2-small|gpt2-small --batch 8 --seq-len 512 --fuse-attention")

printf '%-56s %-5s %11s %11s %10s %8s %9s\n' workload prec "peak MiB" "DRAM MiB" "sim ms" \
  "PE busy" "MAC util"
for w in "${workloads[@]}"; do
  args=${w#*|}
  for precision in fp32 bf16 fp16; do
    # Unsplit on purpose: $args holds the model and its flags.
    # shellcheck disable=SC2086
    "$s2c" compile $args --precision "$precision" --config "$config" -o "$out/x.bin" \
      > "$out/compile.log"
    "$s2sim" run "$out/x.bin" --config "$config" --report "$out/r.json" > "$out/run.log"
    util=$(sed -nE 's/.*PE array MAC utilization ([0-9.]+)%.*/\1/p' "$out/run.log")
    /usr/bin/env python3 - "$out/r.json" "$args" "$precision" "$util" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
mib = 1024.0 * 1024.0
print("%-56s %-5s %11.1f %11.1f %10.3f %7.1f%% %8s%%"
      % (sys.argv[2], sys.argv[3], r["memory"]["peak_bytes"] / mib,
         (r["dram"]["bytes_read"] + r["dram"]["bytes_written"]) / mib, r["milliseconds"],
         100.0 * r["units"]["pe"]["utilization"], sys.argv[4]))
EOF
  done
done
