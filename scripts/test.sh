#!/usr/bin/env bash
# test.sh: the test command (and CI's). Installs what is missing, builds, and runs the whole CTest
# suite on PoCL: [unit] [lab] [errors] [oclgrind]; then builds the sanitize preset (ASan+UBSan) and
# runs [unit] [lab] [errors] under it. Exits non-zero on any failure.
#   scripts/test.sh                  everything
#   scripts/test.sh --fast           the default preset only
#   scripts/test.sh -L errors        extra arguments go to ctest (default preset only)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
setup_start=$SECONDS
"$root/scripts/setup.sh"
echo "== setup: $((SECONDS - setup_start)) s"
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
# phase NAME COMMAND...: runs one phase and says how long it took.
phase() {
  local name=$1
  shift
  local phase_start=$SECONDS
  echo "== $name"
  "$@"
  echo "== $name: $((SECONDS - phase_start)) s"
}

phase "build (default preset)" scripts/build.sh default
phase "ctest (default preset)" ctest --preset default -j "$(nproc)" "${ctest_args[@]}"
if [[ $sanitize -eq 1 ]]; then
  phase "build (sanitize preset: ASan + UBSan)" scripts/build.sh sanitize
  phase "ctest (sanitize preset: [unit] [lab] [errors])" ctest --preset sanitize -j "$(nproc)"
fi
echo "test.sh: all tests passed in $((SECONDS - start)) s"
