#!/usr/bin/env bash
# Fails when a C++ source of the tree is not formatted with the checked-in .clang-format
# (STYLE.md: formatting is never a review topic), listing every offending file and the
# command that fixes it. The sources are the ones git tracks plus untracked, not ignored ones;
# every *.cpp/*.h under the project folders when the tree is not a git checkout.
#   check_format.sh SOURCE_DIR [CLANG_FORMAT]
set -euo pipefail
src=$1
clang_format=${2:-clang-format}
cd "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard -- \
    '*.cpp' '*.h' '*.cc' '*.hpp' | while read -r f; do [ -f "$f" ] && echo "$f"; done)
else
  mapfile -t files < <(find isa compiler simulator rtl_models tests cmake -type f \
    \( -name '*.cpp' -o -name '*.h' -o -name '*.cc' -o -name '*.hpp' \) | sort)
fi
[ ${#files[@]} -gt 0 ] || { echo "check_format: no C++ sources under $src" >&2; exit 1; }
# One clang-format process for all files; it reports each unformatted one as
# "FILE:LINE:COL: error: code should be clang-formatted".
report=$(printf '%s\0' "${files[@]}" |
  xargs -0 "$clang_format" --style=file --dry-run -Werror 2>&1 || true)
mapfile -t bad < <(printf '%s\n' "$report" |
  sed -nE 's/^(.+):[0-9]+:[0-9]+: error: code should be clang-formatted.*/\1/p' | sort -u)
if [ ${#bad[@]} -gt 0 ]; then
  echo "check_format: ${#bad[@]} of ${#files[@]} files are not formatted with .clang-format:"
  printf '  %s\n' "${bad[@]}"
  echo "fix with: (cd $src && $clang_format -i ${bad[*]})"
  exit 1
fi
if printf '%s\n' "$report" | grep -q 'error'; then
  echo "check_format: $clang_format failed:"; printf '%s\n' "$report" | head -20; exit 1
fi
echo "check_format: ${#files[@]} files formatted"
