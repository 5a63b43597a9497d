#!/usr/bin/env bash
# Configures and builds the toolchain into build/ (or $S2_BUILD_DIR). Extra arguments go to
# the CMake configure step, e.g. scripts/build.sh -DS2_SANITIZE=ON.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${S2_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${S2_BUILD_TYPE:-RelWithDebInfo} -DS2_WERROR=ON "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
