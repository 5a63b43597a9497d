#!/usr/bin/env bash
# Every test on a fresh machine: install what is needed, build (warnings are errors), run
# the whole CTest suite. Exits non-zero when anything fails.
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
