#!/usr/bin/env bash
# report.sh: the course report. Runs every lab (and the sweeps) on one or more devices and writes
# one static HTML page that shows them side by side.
#   scripts/report.sh OUT [--device PLATFORM[:DEVICE]]... [--merge RUN_DIR]... [--quick]
#                         [--screenshot] [--results-md]
# OUT receives index.html (open it in any browser; no server needed), results.md (the results
# page: per device a summary and every lab's table), and runs/NAME/ per device: the labs' raw
# --json, the sweeps, the traces and run.json (device, driver, commit, date). --device picks a device as LAB_PLATFORM and LAB_DEVICE do
# ("pocl", "nvidia", "0:1"); without it the labs' default device runs. --merge adds a run made
# elsewhere (a GPU machine's OUT/runs/NAME, made with `report.py collect`) to the page.
# --quick runs tiny sizes (minutes become seconds); --screenshot also writes OUT/screenshot.png
# through Chromium's headless shell and checks the page as the browser shows it; --results-md
# (or --readme) also writes docs/results.md from these runs (keep them in docs/results/runs/ too:
# the test report.results_md_current makes that page from the kept runs and compares).
# LAB_BIN=DIR runs labs already built in DIR and builds nothing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() {
  sed -n '2,16s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
  exit 2
}
[[ $# -ge 1 && "$1" != -h && "$1" != --help ]] || usage
out=$1
shift
devices=() merges=() quick=() screenshot=0 results_md=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --device) [[ $# -ge 2 ]] || usage; devices+=("$2"); shift 2 ;;
    --merge) [[ $# -ge 2 ]] || usage; merges+=("$2"); shift 2 ;;
    --quick) quick=(--quick); shift ;;
    --screenshot) screenshot=1; shift ;;
    --results-md | --readme) results_md=(--results-md "$root/docs/results.md"); shift ;;
    *) echo "report.sh: unknown option '$1'" >&2; usage ;;
  esac
done
for run in "${merges[@]}"; do
  [[ -f "$run/run.json" ]] || { echo "report.sh: error: $run holds no run.json" >&2; exit 2; }
done

if [[ $screenshot -eq 1 ]]; then "$root/scripts/setup.sh" report; else "$root/scripts/setup.sh"; fi
bin=${LAB_BIN:-$root/build/bin}
[[ -n "${LAB_BIN:-}" ]] || "$root/scripts/build.sh" default all_labs
# Debian's matplotlib lives in the system Python, which may not be the first python3 on PATH.
python=/usr/bin/python3
[[ -x "$python" ]] || python=python3

mkdir -p "$out/runs"
status=0
if [[ ${#devices[@]} -eq 0 && ${#merges[@]} -eq 0 ]]; then devices=(""); fi
for spec in "${devices[@]}"; do
  platform=${spec%%:*}
  device=""
  [[ "$spec" != *:* ]] || device=${spec#*:}
  name=${spec:-default}
  name=${name//[^A-Za-z0-9_.-]/_}
  rm -rf "${out:?}/runs/$name"
  "$python" "$root/scripts/report.py" collect --bin "$bin" --out "$out/runs/$name" \
    ${platform:+--platform "$platform"} ${device:+--device "$device"} "${quick[@]}" || status=$?
done
for run in "${merges[@]}"; do
  source=$(cd "$run" && pwd)
  target="$(cd "$out/runs" && pwd)/$(basename "$source")"
  [[ "$source" == "$target" ]] || { rm -rf "$target"; cp -r "$source" "$target"; }
done

"$python" "$root/scripts/report.py" render --out "$out" "${results_md[@]}" "$out"/runs/*/
if [[ $screenshot -eq 1 ]]; then
  "$python" "$root/tests/check_report.py" "$out" --browser --screenshot "$out/screenshot.png"
fi
echo "report.sh: open $out/index.html"
exit "$status"
