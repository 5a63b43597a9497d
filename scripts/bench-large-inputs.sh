#!/usr/bin/env bash
# Benchmark of issue 19 point 4: the tools take time proportional to an input's size. Each case
# generates one kind of large input at N, 2N and 4N items and times the tool on it; the last
# column is the time at 4N over the time at 2N (about 2 when linear, 4 when quadratic). A
# case whose tool exits with anything but 0 or 1 (an internal error or a crash) is marked. The
# last row, a yardstick, is this machine's own ratio on linear work over tables of the same
# sizes (caches hold N items but not 4N): a tool's ratio is to be read against it.
# Configuration files stop at 1 MiB: N up to 20000 keeps every YAML case under it.
# Wants an optimised build: S2_BUILD_TYPE=Release S2_BUILD_DIR=build-release scripts/build.sh,
# then S2SIM=build-release/simulator/s2sim S2C=build-release/compiler/s2c.
#   scripts/bench-large-inputs.sh [N]      (default 10000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
s2c=${S2C:-$root/build/compiler/s2c}
s2sim=${S2SIM:-$root/build/simulator/s2sim}
n=${1:-10000}
. "$root/scripts/counts.sh"
count bench-large-inputs.sh N "$n"
[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "bench-large-inputs: N must be a positive integer, got '$n'" >&2; exit 1; }
for tool in "$s2c" "$s2sim"; do
  [ -x "$tool" ] || { echo "bench-large-inputs: $tool not built (run scripts/build.sh)" >&2; exit 1; }
done
export S2TRAIN_CONFIG_DIR=$root/configs SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
base=$root/configs/s2train_base.yaml

# ---- generators: gen_KIND SIZE FILE ----------------------------------------------------------
gen_config_keys() {  # SIZE unknown top-level keys
  awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "k%dz: 1\n", i }' > "$2"
}
gen_sweep_range() {  # a range of SIZE values, one point drawn (no workloads: refused after)
  printf 'base: %s\ncombine: random\nsamples: 1\naxes:\n  - key: clock_mhz\n    linear: {from: 100, to: %d, step: 1}\n' \
    "$base" $((99 + $1)) > "$2"
}
gen_sweep_workloads() {  # SIZE/2 workloads (an unknown objective: refused after reading them)
  { printf 'base: %s\nworkloads:\n' "$base"
    awk -v n="$(($1 / 2))" 'BEGIN { for (i = 0; i < n; i++) printf "  - {model: mlp, name: w%d}\n", i }'
    printf 'objectives: [nosuch]\n'; } > "$2"
}
gen_asm_chain() {  # SIZE copies through SIZE + 1 tensors, each live throughout
  awk -v n="$1" 'BEGIN {
    print ".target s2train_base"; printf ".dram 0x%x\n", 64 * (n + 1)
    for (i = 0; i <= n; i++) printf ".tensor t%d activation f32[16] @0x%x\n", i, 64 * i
    for (i = 0; i < n; i++) printf "%d: copy src=t%d dst=t%d%s\n", i, i, i + 1, i ? " deps=" (i - 1) : ""
    printf "%d: end deps=%d\n", n, n - 1 }' > "$2"
}
gen_asm_braid() {  # instruction 0 writes t0; even ones read it through the even chain, their
  # latest dependency on an odd chain that never reaches 0 (ordered off the spanning tree)
  awk -v n="$1" 'BEGIN {
    print ".target s2train_base"; printf ".dram 0x%x\n", 64 * (n + 2)
    for (i = 0; i <= n; i++) printf ".tensor t%d activation f32[16] @0x%x\n", i, 64 * i
    print "0: fill dst=t0 value=1"; print "1: fill dst=t1 value=2"
    for (i = 2; i < n; i++)
      if (i % 2 == 1) printf "%d: fill dst=t%d value=3 deps=%d\n", i, i, i - 2
      else printf "%d: copy src=t0 dst=t%d deps=%d,%d\n", i, i, i - 2, i - 1
    printf "%d: end\n", n }' > "$2"
}
gen_asm_aliased() {  # SIZE/10 tensors on the same 64 bytes, each read after one write
  awk -v n="$(( $1 / 10 ))" 'BEGIN {
    print ".target s2train_base"; print ".dram 0x80"
    for (i = 0; i < n; i++) printf ".tensor t%d activation f32[16] @0x0\n", i
    print "0: fill dst=t0 value=1"
    for (i = 0; i < n; i++) printf "%d: copy src=t%d dst=f32[16]@0x40 deps=%d\n", i + 1, i, i
    printf "%d: end deps=%d\n", n + 1, n }' > "$2"
}
gen_ir_adds() {  # SIZE adds in the text form, each of the previous sum and the input: simplify
  # keeps them, so the planner places SIZE tensors and lowering emits SIZE instructions
  awk -v n="$1" 'BEGIN {
    print "graph g"; print "  %x0: f32[2,4] input init"
    for (i = 0; i < n; i++) printf "  %%x%d: f32[2,4] = add(%%x%d, %%x0)\n", i + 1, i
    printf "outputs %%x%d\n", n }' > "$2"
}
gen_ir_chain() {  # SIZE relu ops in the text form (simplify folds the chain to one)
  awk -v n="$1" 'BEGIN {
    print "graph g"; print "  %x0: f32[2,4] input init"
    for (i = 0; i < n; i++) printf "  %%x%d: f32[2,4] = relu(%%x%d)\n", i + 1, i
    printf "outputs %%x%d\n", n }' > "$2"
}

# ---- cases: NAME GENERATOR SUFFIX COMMAND... (@IN@ is the input, @BIN@ its executable) -------
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
run_case() {
  local name=$1 gen=$2 suffix=$3; shift 3
  local times=() marks=""
  for size in "$n" $((2 * n)) $((4 * n)); do
    local in=$out/$name.$size$suffix bin=$out/$name.$size.bin
    "$gen" "$size" "$in"
    if [ "$suffix" = .s2asm ]; then "$s2c" asm "$in" -o "$bin" > /dev/null; fi
    rm -rf "$out/dump" "$out/sweep"
    local cmd=()
    for word in "$@"; do
      case $word in @IN@) cmd+=("$in") ;; @BIN@) cmd+=("$bin") ;; *) cmd+=("$word") ;; esac
    done
    local start end rc=0
    start=$(date +%s.%N)
    "${cmd[@]}" > /dev/null 2>&1 || rc=$?
    end=$(date +%s.%N)
    times+=("$(seconds "$start" "$end")")
    [ "$rc" -le 1 ] || marks+=" exit $rc at $size!"
  done
  printf '%-26s %9s %9s %9s %7s%s\n' "$name" "${times[@]}" \
    "$(awk -v a="${times[1]}" -v b="${times[2]}" 'BEGIN { printf "%.2f", (a > 0) ? (b / a) : 0 }')" "$marks"
}

printf '%-26s %9s %9s %9s %7s\n' "case (seconds)" "N=$n" "2N" "4N" "4N/2N"
run_case config-unknown-keys gen_config_keys .yaml "$s2c" compile mlp --config @IN@ -o "$out/x.bin"
run_case sweep-range-sampled gen_sweep_range .yaml "$s2sim" sweep @IN@ -o "$out/sweep"
run_case sweep-workloads-half gen_sweep_workloads .yaml "$s2sim" sweep @IN@ -o "$out/sweep"
run_case asm-chain gen_asm_chain .s2asm "$s2c" asm @IN@ -o "$out/y.bin"
run_case disasm-chain gen_asm_chain .s2asm "$s2sim" disasm @BIN@
run_case check-chain gen_asm_chain .s2asm "$s2sim" run --functional --check @BIN@
run_case check-braid gen_asm_braid .s2asm "$s2sim" run --functional --check @BIN@
run_case dump-all-chain gen_asm_chain .s2asm "$s2sim" run @BIN@ --dump-all "$out/dump"
run_case check-aliased-tenth gen_asm_aliased .s2asm "$s2sim" run --functional --check @BIN@
run_case text-form-passes gen_ir_chain .s2ir "$s2c" opt @IN@ \
  --passes shape-inference,dce,cse,fold,simplify,fuse,schedule,plan,lower -o "$out/o.s2ir"
run_case text-form-add-passes gen_ir_adds .s2ir "$s2c" opt @IN@ \
  --passes shape-inference,dce,cse,fold,simplify,fuse,schedule,plan,lower -o "$out/o.s2ir"
# The machine's own growth on linear work shaped like the IR's tables (tests/bench/
# memory_yardstick.cpp, built beside the tools by the `bench` target): read the ratios above
# against it.
yardstick=${S2_YARDSTICK:-$(dirname "$(dirname "$s2c")")/tests/memory_yardstick}
if [ -x "$yardstick" ]; then
  "$yardstick" "$n"
else
  echo "yardstick: $yardstick not built (cmake --build BUILD --target memory_yardstick)"
fi
