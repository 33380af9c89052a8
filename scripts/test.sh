#!/usr/bin/env bash
# test.sh: the test command (and CI's). Installs what is missing, builds, and runs the whole CTest
# suite on PoCL: [unit] [lab] [errors] [oclgrind]; then builds the sanitize preset (ASan+UBSan) and
# runs [unit] [lab] [errors] under it. Exits non-zero on any failure.
#   scripts/test.sh                  everything
#   scripts/test.sh --fast           the default preset only
#   scripts/test.sh -L errors        extra arguments go to ctest (default preset only)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
cd "$root"

sanitize=1
ctest_args=()
for arg in "$@"; do
  case "$arg" in
    --fast) sanitize=0 ;;
    *) ctest_args+=("$arg"); sanitize=0 ;;
  esac
done

start=$SECONDS
echo "== build (default preset)"
scripts/build.sh default
echo "== ctest (default preset)"
ctest --preset default -j "$(nproc)" "${ctest_args[@]}"

if [[ $sanitize -eq 1 ]]; then
  echo "== build (sanitize preset: ASan + UBSan)"
  scripts/build.sh sanitize
  echo "== ctest (sanitize preset: [unit] [lab] [errors])"
  ctest --preset sanitize -j "$(nproc)"
fi
echo "test.sh: all tests passed in $((SECONDS - start)) s"
