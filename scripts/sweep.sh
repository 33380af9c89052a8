#!/usr/bin/env bash
# sweep.sh: one lab over a range of sizes, as one CSV, plus a PNG plot of its rate against the size
# (drawn by scripts/plot_sweep.py with matplotlib; none for a lab that measures no rate).
#   scripts/sweep.sh LAB [OUT_DIR] [N...]
# OUT_DIR defaults to results/; it receives LAB_sweep.csv and LAB_sweep.png. Sizes may be written
# as 1024 or 2^20; the defaults are 64 128 256 512 1024 for matmul, 256 to 4096 (N x N) for
# transpose and coalescing, and 2^16 to 2^24 for the rest.
# Each size runs `LAB -n N --csv --reps 5 --warmup 1 $LAB_ARGS` (matmul also gets --kmax N, so its
# row variants have room for K = N). Extra lab options go in LAB_ARGS, e.g. LAB_ARGS="--variant
# all"; for matmul, MATMUL_ARGS is read when LAB_ARGS is unset.
# Device choice as for every lab: LAB_PLATFORM / LAB_DEVICE / LAB_DEVICE_TYPE. LAB_BIN=DIR runs
# the labs already built in DIR (another build folder, a copy on a GPU machine) and builds nothing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${LAB_BIN:-$root/build/bin}

if [[ $# -lt 1 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,12s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
  exit 2
fi
lab=$1
out=${2:-$root/results}
shift
shift || true
sizes=("$@")
if [[ ${#sizes[@]} -eq 0 ]]; then
  if [[ "$lab" == matmul ]]; then
    sizes=(64 128 256 512 1024)
  elif [[ "$lab" == transpose || "$lab" == coalescing ]]; then
    sizes=(256 512 1024 2048 4096)
  else
    sizes=(2^16 2^18 2^20 2^22 2^24)
  fi
fi

lab_args=${LAB_ARGS:-}
if [[ "$lab" == matmul && -z "${LAB_ARGS+set}" ]]; then
  lab_args=${MATMUL_ARGS:-}
fi
# The options are one string, split on spaces like a command line (no quoting inside).
read -r -a extra <<<"$lab_args"

"$root/scripts/setup.sh"
[[ -n "${LAB_BIN:-}" ]] || "$root/scripts/build.sh" default all_labs

if [[ ! -x "$bin/$lab" ]]; then
  echo "sweep.sh: no lab named '$lab' in $bin; the labs are: $(tr '\n' ' ' <"$bin/../labs.txt" 2>/dev/null || ls "$bin")" >&2
  exit 2
fi
# (The help text is read whole: grep -q in a pipe could cut it off and fail under pipefail.)
if ! grep -q -- '--size' <<<"$("$bin/$lab" --help)"; then
  echo "sweep.sh: $lab takes no size (-n), so there is nothing to sweep" >&2
  exit 2
fi

mkdir -p "$out"
csv=$out/${lab}_sweep.csv
png=$out/${lab}_sweep.png
rm -f "$csv"

failed=0
for n in "${sizes[@]}"; do
  command=("$bin/$lab" -n "$n" --csv --reps 5 --warmup 1)
  [[ "$lab" != matmul ]] || command+=(--kmax "$n")
  # A failing run (a wrong element, a size the device cannot hold) still ends the sweep with a
  # CSV and a plot of what did run; its exit code is the sweep's.
  status=0
  rows=$("${command[@]}" "${extra[@]}") || status=$?
  if [[ $status -ne 0 ]]; then
    echo "sweep.sh: $lab -n $n exited with $status" >&2
    [[ $failed -ne 0 ]] || failed=$status
  fi
  [[ -n "$rows" ]] || continue
  [[ -f "$csv" ]] || head -n 1 <<<"$rows" >"$csv"
  tail -n +2 <<<"$rows" | tee -a "$csv"
done
if [[ ! -f "$csv" ]]; then
  echo "sweep.sh: no run of $lab printed any rows" >&2
  [[ $failed -ne 0 ]] || failed=1
  exit "$failed"
fi

# Debian's matplotlib lives in the system Python, which may not be the first python3 on PATH.
python=/usr/bin/python3
[[ -x "$python" ]] || python=python3
plotted=0
"$python" "$root/scripts/plot_sweep.py" "$csv" "$png" || plotted=$?
if [[ $plotted -eq 4 ]]; then
  echo "sweep.sh: wrote $csv; $lab measures no rate, so there is no plot"
elif [[ $plotted -ne 0 ]]; then
  exit "$plotted"
else
  echo "sweep.sh: wrote $csv and $png"
fi
exit "$failed"
