#!/usr/bin/env bash
# labs.sh: the main command. Installs what is missing, builds, then runs every lab once on the
# default device (a GPU if there is one, else the first device, PoCL on a machine without a GPU)
# and prints one line per lab. `scripts/labs.sh LAB [ARGS...]` runs one lab with its own arguments.
# Device choice: LAB_PLATFORM, LAB_DEVICE, LAB_DEVICE_TYPE (see README.md).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" default
bin=$root/build/bin

if [[ $# -gt 0 ]]; then
  lab=$1
  shift
  if [[ ! -x "$bin/$lab" ]]; then
    echo "labs.sh: no lab named '$lab'; the labs are: $(tr '\n' ' ' <"$root/build/labs.txt")" >&2
    exit 2
  fi
  exec "$bin/$lab" "$@"
fi

# The tour: every lab the build registered (build/labs.txt, written by add_lab), in course order.
printf '%-12s %-24s %-20s %-26s %11s %-30s %s\n' lab device variant size median rate status
passed=0
failed=0
errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
while read -r lab; do
  [[ -n "$lab" ]] || continue
  if "$bin/$lab" --summary 2>"$errors"; then
    passed=$((passed + 1))
  else
    code=$?
    failed=$((failed + 1))
    printf '%-12s %s\n' "$lab" "FAILED (exit $code): $(grep -v '^  mismatch' "$errors" | tail -n 1)"
    grep '^  mismatch' "$errors" | head -n 3 || true
  fi
done <"$root/build/labs.txt"
echo "labs: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
