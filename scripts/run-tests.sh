#!/usr/bin/env bash
# Every test on a fresh machine: install what is needed, build (warnings are errors), run
# the whole CTest suite, then the fuzz targets briefly (scripts/fuzz.sh). Exits non-zero when
# anything fails.
#   S2_SANITIZE=1 scripts/run-tests.sh   does the same in build-asan/ under ASan + UBSan.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
extra=()
if [ "${S2_SANITIZE:-0}" = 1 ]; then
  export S2_BUILD_DIR=${S2_BUILD_DIR:-$root/build-asan}
  extra+=(-DS2_SANITIZE=ON)
fi
build=${S2_BUILD_DIR:-$root/build}
"$root/scripts/build.sh" "${extra[@]}"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
# The fuzz targets (tests/fuzz/), each a bounded deterministic run on its seed corpus:
# every seed and a few thousand mutations of them must pass.
S2_FUZZ_RUNS=${S2_FUZZ_RUNS:-3000} S2_FUZZ_SEED=${S2_FUZZ_SEED:-1} \
  "$root/scripts/fuzz.sh" "${S2_FUZZ_SECONDS:-60}"
