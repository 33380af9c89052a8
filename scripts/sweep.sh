#!/usr/bin/env bash
# sweep.sh: one lab over a range of sizes, as one CSV, plus a PNG plot of its rate against the size
# (drawn by scripts/plot_sweep.py with matplotlib; none for a lab that measures no rate).
#   scripts/sweep.sh LAB [OUT_DIR] [N...]
# OUT_DIR defaults to results/; it receives LAB_sweep.csv and LAB_sweep.png. Sizes may be written
# as 1024 or 2^20; the defaults are the lab's row of scripts/sweep_sizes.tsv (the table the
# course report sweeps with) for SWEEP_PROFILE: cpu (the default), gpu or quick.
# Each size runs `LAB -n N --csv --reps 5 --warmup 1 $LAB_ARGS` (matmul also gets --kmax N, so its
# row variants have room for K = N). Extra lab options go in LAB_ARGS, e.g. LAB_ARGS="--variant
# all"; for matmul, MATMUL_ARGS is read when LAB_ARGS is unset. LAB_ARG_SETS runs each size once
# per set of options, the sets separated by ';' (an empty set: the defaults), and adds an `args`
# column naming each row's set (no plot then): vector_add's buffer modes and local sizes,
#   LAB_ARG_SETS=';--local 256;--mode use;--mode alloc;--no-fetch' scripts/sweep.sh vector_add
# Device choice as for every lab: LAB_PLATFORM / LAB_DEVICE / LAB_DEVICE_TYPE. LAB_BIN=DIR runs
# the labs already built in DIR (another build folder, a copy on a GPU machine) and builds nothing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${LAB_BIN:-$root/build/bin}

if [[ $# -lt 1 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,17s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
  exit 2
fi
lab=$1
out=${2:-$root/results}
shift
shift || true
sizes=("$@")
profile=${SWEEP_PROFILE:-cpu}
if [[ ${#sizes[@]} -eq 0 ]]; then
  # The first row of the table whose labs (or *) and profile match.
  read -r -a sizes <<<"$(awk -F '\t' -v lab="$lab" -v profile="$profile" '
    /^#/ || NF < 3 { next }
    $2 == profile && ($1 == "*" || index("," $1 ",", "," lab ",")) { print $3; exit }' \
    "$root/scripts/sweep_sizes.tsv")"
  if [[ ${#sizes[@]} -eq 0 ]]; then
    echo "sweep.sh: scripts/sweep_sizes.tsv has no sizes for profile '$profile' (SWEEP_PROFILE: cpu, gpu or quick)" >&2
    exit 2
  fi
fi

lab_args=${LAB_ARGS:-}
if [[ "$lab" == matmul && -z "${LAB_ARGS+set}" ]]; then
  lab_args=${MATMUL_ARGS:-}
fi
# The options are one string, split on spaces like a command line (no quoting inside).
read -r -a extra <<<"$lab_args"
arg_sets=("")
if [[ -n "${LAB_ARG_SETS+set}" ]]; then
  IFS=';' read -r -a arg_sets <<<"$LAB_ARG_SETS"
  [[ "$LAB_ARG_SETS" != *';' ]] || arg_sets+=("")  # read drops a last empty set
fi

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
  for set in "${arg_sets[@]}"; do
    command=("$bin/$lab" -n "$n" --csv --reps 5 --warmup 1)
    [[ "$lab" != matmul ]] || command+=(--kmax "$n")
    read -r -a set_args <<<"$set"
    # A failing run (a wrong element, a size the device cannot hold) still ends the sweep with a
    # CSV and a plot of what did run; its exit code is the sweep's.
    status=0
    rows=$("${command[@]}" "${set_args[@]}" "${extra[@]}") || status=$?
    if [[ $status -ne 0 ]]; then
      echo "sweep.sh: $lab -n $n $set exited with $status" >&2
      [[ $failed -ne 0 ]] || failed=$status
    fi
    [[ -n "$rows" ]] || continue
    if [[ -n "${LAB_ARG_SETS+set}" ]]; then
      rows=$(sed '1s/$/,args/; 2,$s/$/,'"-n $n${set:+ $set}"'/' <<<"$rows")
    fi
    [[ -f "$csv" ]] || head -n 1 <<<"$rows" >"$csv"
    tail -n +2 <<<"$rows" | tee -a "$csv"
  done
done
if [[ ! -f "$csv" ]]; then
  echo "sweep.sh: no run of $lab printed any rows" >&2
  [[ $failed -ne 0 ]] || failed=1
  exit "$failed"
fi

if [[ -n "${LAB_ARG_SETS+set}" ]]; then
  echo "sweep.sh: wrote $csv (rows differ by their args as well as their size: no plot)"
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
