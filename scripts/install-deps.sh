#!/usr/bin/env bash
# Installs exactly the Debian 12 packages the S2Train toolchain builds and tests with.
# Idempotent: when everything is present it prints nothing and exits 0.
set -euo pipefail

packages=(
  build-essential   # g++ 12, make
  cmake             # >= 3.25
  pkg-config        # finds SystemC
  libsystemc-dev    # SystemC 2.3.4 (built for C++17)
  verilator         # Verilator 5
  libyaml-cpp-dev   # target descriptions
  libcli11-dev      # command lines of s2c and s2sim
  zlib1g-dev        # CRC-32 of the executable's sections
  nlohmann-json3-dev # JSON reports, plans and manifests
  libfmt-dev        # text formatting
  libgtest-dev      # GoogleTest
  clang-format      # the formatting test (tests/style/check_format.sh)
  clang-14          # the fuzz targets (tests/fuzz/, scripts/fuzz.sh) ...
  libclang-rt-14-dev # ... with libFuzzer and the sanitizer runtimes
  ccache            # the fuzz build's second compile of the libraries
  llvm-14-tools     # lit and FileCheck: the text tests of s2c (tests/lit/)
  libglpk-dev       # GLPK: the exact formulation of s2c compile --memory-budget
  libonnx-dev       # ONNX import (with the two below)
  libprotobuf-dev
  protobuf-compiler
  python3-torch     # the PyTorch reference and ONNX export (run with /usr/bin/python3)
  python3-torchvision
  python3-onnx
  python3-numpy
  python3-matplotlib # scripts/plot_memory.py, scripts/plot_sweep.py
  slurm-wlm         # the sweep's Slurm test starts a single-node Slurm (tests/slurm/) ...
  munge             # ... authenticated by munge
)

missing=()
for p in "${packages[@]}"; do
  p=${p%% *}
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo=sudo; else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
else
  sudo=
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
