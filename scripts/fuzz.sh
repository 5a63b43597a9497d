#!/usr/bin/env bash
# The fuzz targets of tests/fuzz/ (libFuzzer, clang, ASan + UBSan): builds them in build-fuzz/
# (or $S2_FUZZ_BUILD_DIR), then runs each for SECONDS (default 60) on a working copy of its
# seed corpus (tests/fuzz/corpus/<target>, never modified) with its dictionary, and prints one
# line per target: executions, executions per second, corpus size, and the finding if any
# (its input is kept in build-fuzz/findings/). Exits 1 when any target finds something.
#   scripts/fuzz.sh [SECONDS [TARGET...]]     targets: container asm roundtrip npy
#                                              target_yaml onnx execute sweep_spec program_text
#                                              (default: all)
# S2_FUZZ_RUNS=N stops each target after N inputs (SECONDS still caps it) and S2_FUZZ_SEED=S
# fixes libFuzzer's seed: together a deterministic run, as CI does (scripts/run-tests.sh).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${S2_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(container asm roundtrip npy target_yaml onnx execute sweep_spec
  program_text)
case $seconds in '' | *[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 1 ;; esac

mkdir -p "$build"
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DS2_FUZZ=ON "${launcher[@]}" > "$build/fuzz-configure.log" 2>&1 ||
  { cat "$build/fuzz-configure.log" >&2; exit 1; }
cmake --build "$build" -j "$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}") \
  > "$build/fuzz-build.log" 2>&1 ||
  { tail -40 "$build/fuzz-build.log" >&2; echo "fuzz.sh: the fuzz build failed" >&2; exit 1; }

mkdir -p "$build/findings"
# ASan keeps the stack of every allocation for its reports; over millions of inputs those stacks
# alone grow the process by about 1 KB per input, until a long run stops at -rss_limit_mb as if
# it had found a leak. Without them a report still names the faulting access and its stack (run
# the kept input again with ASAN_OPTIONS=malloc_context_size=30 for the allocation's). Given
# ASAN_OPTIONS are kept.
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0}
status=0
for t in "${targets[@]}"; do
  work=$build/corpus/$t
  mkdir -p "$work"
  dict=()
  [ -f "$root/tests/fuzz/dict/$t.dict" ] && dict=(-dict="$root/tests/fuzz/dict/$t.dict")
  log=$build/fuzz_$t.log
  # New inputs go to the working corpus; the seeds are read only.
  "$build/tests/fuzz/fuzz_$t" "$work" "$root/tests/fuzz/corpus/$t" "${dict[@]}" \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=65536 \
    ${S2_FUZZ_RUNS:+-runs=$S2_FUZZ_RUNS} ${S2_FUZZ_SEED:+-seed=$S2_FUZZ_SEED} \
    -print_final_stats=1 -artifact_prefix="$build/findings/$t-" > "$log" 2>&1
  rc=$?
  execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
  rate=$(grep -m1 'stat::average_exec_per_sec' "$log" | awk '{print $2}')
  units=$(find "$work" -type f | wc -l)
  if [ $rc -eq 0 ]; then
    printf '%-12s %12s execs %8s/s  corpus %6s  no findings\n' "$t" "${execs:-?}" "${rate:-?}" "$units"
  else
    finding=$(grep -m1 -E 'ERROR: |fuzz property violated|runtime error' "$log")
    printf '%-12s %12s execs %8s/s  corpus %6s  FINDING: %s (log %s)\n' "$t" "${execs:-?}" \
      "${rate:-?}" "$units" "${finding:-exit $rc}" "$log"
    status=1
  fi
done
exit $status
