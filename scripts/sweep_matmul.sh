#!/usr/bin/env bash
# sweep_matmul.sh: every matmul variant over a range of square sizes, as CSV, plus a PNG plot of
# GFLOP/s against N (drawn by scripts/plot_sweep.py with matplotlib).
#   scripts/sweep_matmul.sh [OUT_DIR] [N...]     default: results/ and 64 128 256 512 1024
# Extra matmul options go in MATMUL_ARGS, e.g. MATMUL_ARGS="--dtype int" or "--peers".
# Device choice as for every lab: LAB_PLATFORM / LAB_DEVICE / LAB_DEVICE_TYPE.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/results}
shift || true
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(64 128 256 512 1024)
"$root/scripts/setup.sh" plots
"$root/scripts/build.sh" default
mkdir -p "$out"
csv=$out/matmul_sweep.csv

header_done=0
for n in "${sizes[@]}"; do
  # Row variants keep a row of A in fixed arrays: give them room for K = n.
  rows=$("$root/build/bin/matmul" -n "$n" --kmax "$n" --csv --reps 5 --warmup 1 ${MATMUL_ARGS:-})
  if [[ $header_done -eq 0 ]]; then
    head -n 1 <<<"$rows" >"$csv"
    header_done=1
  fi
  tail -n +2 <<<"$rows" | tee -a "$csv"
done
# Debian's matplotlib lives in the system Python, which may not be the first python3 on PATH.
python=/usr/bin/python3
[[ -x $python ]] || python=python3
"$python" "$root/scripts/plot_sweep.py" "$csv" "$out/matmul_sweep.png"
echo "sweep_matmul.sh: wrote $csv and $out/matmul_sweep.png"
