#!/usr/bin/env bash
# labs.sh: the main command. Installs what is missing, builds, then runs every lab once on the
# default device (a GPU if there is one, else the first device, PoCL on a machine without a GPU)
# and prints one line per lab. `scripts/labs.sh LAB [ARGS...]` runs one lab with its own arguments.
# Both go through the launcher the build makes, build/bin/opencl-labs, the command an installed
# suite puts on the PATH. Device choice: LAB_PLATFORM, LAB_DEVICE, LAB_DEVICE_TYPE (README.md).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" default all_labs
# PoCL compiles each kernel once into its cache. The tour shares the test suite's cache
# (build/pocl-cache), so scripts/test.sh after a first tour finds those kernels built; a
# POCL_CACHE_DIR of your own is kept.
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-$root/build/pocl-cache}
OPENCL_LABS_COMMAND=scripts/labs.sh exec "$root/build/bin/opencl-labs" "$@"
