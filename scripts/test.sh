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
# In CI (CI set), also Slurm and munge: grade.slurm runs the grader's --slurm on a real
# one-machine cluster. Elsewhere that test is skipped unless `scripts/setup.sh slurm` installed
# them (Debian's packages enable system services, which a laptop may not want).
extras=()
[[ -n "${CI:-}" ]] && extras+=(slurm)
"$root/scripts/setup.sh" "${extras[@]}"
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

# Tests labelled sanitizer_pass (fuzz seeds that the sanitizer pass runs, with its stricter
# checks) run in the default pass only when there is no sanitizer pass.
if [[ $sanitize -eq 1 ]]; then
  ctest_args+=(-LE '^sanitizer_pass$')
fi
phase "build (default preset)" scripts/build.sh default
phase "ctest (default preset)" ctest --preset default -j "$(nproc)" "${ctest_args[@]}"

# sanitize_ctest: the sanitize preset's ctest. LeakSanitizer checks for leaks at exit from a tracer
# thread that stops every other thread, and that tracer itself now and then dies of a segfault
# ("Tracer caught signal 11 ... LeakSanitizer has encountered a fatal error"; google/sanitizers
# #1353). That says nothing about the program, so a test whose output holds both of those lines
# (at the start of a line, or indented where a test script quotes the output) runs
# once more, and must pass then. Any other failure fails the phase at once.
sanitize_ctest() {
  local logs="$root/build-sanitize/Testing/Temporary"
  rm -f "$logs/LastTestsFailed.log"
  if ctest --preset sanitize -j "$(nproc)"; then
    return 0
  fi
  local failed=() name
  while IFS=: read -r _ name; do
    [[ -n "$name" ]] && failed+=("$name")
  done < <(cat "$logs/LastTestsFailed.log" 2>/dev/null)
  if [[ ${#failed[@]} -eq 0 ]]; then
    return 1
  fi
  for name in "${failed[@]}"; do
    # The test's own section of LastTest.log, from "N/M Testing: NAME" to the next test.
    if ! awk -v name="$name" '
        $0 ~ /^[0-9]+\/[0-9]+ Testing: / { inside = (substr($0, index($0, ": ") + 2) == name) }
        inside && /^[ \t]*Tracer caught signal/ { tracer = 1 }
        inside && /LeakSanitizer has encountered a fatal error/ { fatal = 1 }
        END { exit !(tracer && fatal) }' "$logs/LastTest.log"; then
      return 1
    fi
  done
  local pattern
  # shellcheck disable=SC2016  # sed's own $ and |, not the shell's
  pattern=$(printf '%s\n' "${failed[@]}" | sed 's/[.[\*^$()+?{}|]/\\&/g' | paste -sd'|')
  echo "== ${#failed[@]} test(s) failed only because LeakSanitizer's tracer crashed; running them once more"
  ctest --preset sanitize -R "^(${pattern})\$"
}

if [[ $sanitize -eq 1 ]]; then
  phase "build (sanitize preset: ASan + UBSan)" scripts/build.sh sanitize
  phase "ctest (sanitize preset: [unit] [lab] [errors])" sanitize_ctest
fi
echo "test.sh: all tests passed in $((SECONDS - start)) s"
