#!/usr/bin/env bash
# sweep_matmul.sh: kept so old commands work; it is scripts/sweep.sh for matmul.
#   scripts/sweep_matmul.sh [OUT_DIR] [N...]     same as: scripts/sweep.sh matmul [OUT_DIR] [N...]
# Extra matmul options go in MATMUL_ARGS (or LAB_ARGS), e.g. MATMUL_ARGS="--dtype int".
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/sweep.sh" matmul "$@"
