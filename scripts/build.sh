#!/usr/bin/env bash
# build.sh: configures (first time only) and builds one CMake preset; later runs rebuild only
# what changed. Used by labs.sh and test.sh. Usage: scripts/build.sh [PRESET [TARGET...]]
# (every target by default; labs.sh builds only all_labs). The compiler's output is shown only
# when the build fails.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)  # the real path: CMake's cache names it
preset=${1:-default}
shift || true
targets=()
[[ $# -gt 0 ]] && targets=(--target "$@")
binary_dir=$root/build
[[ "$preset" == default ]] || binary_dir=$root/build-$preset

cd "$root"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [[ ! -f "$binary_dir/CMakeCache.txt" ]]; then
  echo "build.sh: first build of preset '$preset' in ${binary_dir#"$root"/} (a few minutes)"
  if ! cmake --preset "$preset" >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
  fi
fi
if ! cmake --build --preset "$preset" -j "$(nproc)" "${targets[@]}" >"$log" 2>&1; then
  # Rebuild serially so the first error is the one shown.
  cmake --build --preset "$preset" -j 1 "${targets[@]}" >&2 || exit 1
fi
