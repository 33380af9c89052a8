#!/usr/bin/env bash
# build.sh: configures (first time only) and builds one CMake preset; later runs rebuild only
# what changed. Used by labs.sh and test.sh. Usage: scripts/build.sh [PRESET]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
preset=${1:-default}
binary_dir=$root/build
[[ "$preset" == default ]] || binary_dir=$root/build-$preset

cd "$root"
if [[ ! -f "$binary_dir/CMakeCache.txt" ]]; then
  cmake --preset "$preset" >/dev/null
fi
cmake --build --preset "$preset" -j "$(nproc)" ||
  cmake --build --preset "$preset" -j 1  # on failure, rebuild serially so the error is readable
