#!/usr/bin/env bash
# The benchmarks refuse a bad count with the argument, its range and the usage line, and exit 1
# (they used to read "--help" or "7x" as 0 or 7 and print NaNs); --help prints the usage and
# exits 0. Only refusals are run here: a benchmark with good arguments takes minutes.
#
#   check_bench_args.sh BUILD_TESTS_DIR
set -u
dir=$1
fail=0
expect() {  # expect CODE PATTERN BENCH ARGS...
  local code=$1 pattern=$2 bench=$3
  shift 3
  local out rc
  out=$("$dir/$bench" "$@" 2>&1)
  rc=$?
  if [ "$rc" != "$code" ] || ! grep -qF -- "$pattern" <<<"$out"; then
    echo "FAIL: $bench $* exited $rc (wanted $code) and printed:"
    echo "$out" | head -5
    echo "  (wanted a line containing: $pattern)"
    fail=1
  fi
}
for bench in dram_bench memory_yardstick pe_gemm_bench planner_bench; do
  expect 0 "usage: $bench" "$bench" --help
  for bad in abc 7x -3 0 " 5" 99999999999999999999999; do
    expect 1 "$bench: '$bad' is not a whole number from 1 to" "$bench" "$bad"
  done
  expect 1 "$bench: one argument at most, got 2" "$bench" 1 2
done
expect 1 "dram_bench: '513' is not a whole number from 1 to 512" dram_bench 513
expect 1 "usage: rtl_pe_bench" rtl_pe_bench --count 12abc
expect 1 "usage: rtl_pe_bench" rtl_pe_bench --seed -1
expect 1 "rtl_ppu_bench: 'x' is not a whole number from 4 to 268435456" rtl_ppu_bench --elements x
expect 1 "rtl_ppu_bench: bad argument '--lanes'" rtl_ppu_bench --lanes 4
exit $fail
