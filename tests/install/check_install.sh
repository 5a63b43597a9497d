#!/usr/bin/env bash
# `cmake --install` works and the installed tree is relocatable: install the build into a
# temporary prefix, move the prefix, and from an unrelated working directory (and with the
# source tree's configs out of reach) compile a model with the installed s2c and simulate it
# with the installed s2sim on their default configuration.
#   check_install.sh BUILD_DIR
set -euo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/first" > "$tmp/install.log"
mv "$tmp/first" "$tmp/moved"
prefix=$tmp/moved
for f in bin/s2c bin/s2sim share/s2train/configs/s2train_base.yaml \
         share/s2train/configs/dram/DDR4-3200.yaml share/s2train/scripts/torch_reference.py; do
  [ -e "$prefix/$f" ] || { echo "check_install: $f is not installed"; exit 1; }
done
mkdir "$tmp/work"
cd "$tmp/work"
unset S2TRAIN_CONFIG_DIR
"$prefix/bin/s2c" compile mlp -o mlp.bin > compile.txt
"$prefix/bin/s2sim" run mlp.bin > run.txt
grep -q "on s2train_base" run.txt || { echo "check_install: s2sim did not use the shipped base configuration:"; cat run.txt; exit 1; }
"$prefix/bin/s2sim" validate-config "$prefix/share/s2train/configs/s2train_small.yaml" > validate.txt
# A sweep from the installed tree: the shipped base and technology, s2c found beside s2sim.
printf 'axes:\n  - key: pe_array.rows\n    values: [8, 16]\nworkloads:\n  - model: mlp\n' > spec.yaml
"$prefix/bin/s2sim" sweep spec.yaml -o sweep -j 1 > sweep.txt
[ "$(grep -c ',ok,' sweep/results.csv)" -eq 2 ] || { echo "check_install: the sweep failed:"; cat sweep.txt sweep/results.csv; exit 1; }
[ -x "$prefix/share/s2train/scripts/plot_sweep.py" ] || { echo "check_install: plot_sweep.py is not installed"; exit 1; }
# Without its share/ directory the binary says where it looked instead of guessing.
mv "$prefix/share" "$tmp/share-elsewhere"
if "$prefix/bin/s2sim" run mlp.bin > missing.txt 2>&1; then
  echo "check_install: s2sim ran without any configuration"; exit 1
fi
grep -q "cannot find the shipped configurations" missing.txt || { cat missing.txt; exit 1; }
# ... and S2TRAIN_CONFIG_DIR points it at them.
S2TRAIN_CONFIG_DIR="$tmp/share-elsewhere/s2train/configs" "$prefix/bin/s2sim" run mlp.bin > env.txt
grep -q "on s2train_base" env.txt
echo "check_install: installed, moved, and ran from $prefix"
