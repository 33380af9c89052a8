#!/usr/bin/env bash
# lintian.sh: lintian on every .deb in a folder (the packages install.debian_package made); fails
# on any error or warning, printing lintian's report. Exit 77 (skipped) when lintian is not
# installed (scripts/setup.sh installs it).
#   tests/lintian.sh DIR
set -euo pipefail
if ! command -v lintian >/dev/null; then
  echo "lintian is not installed: the packages are not checked by it"
  exit 77
fi
shopt -s nullglob
debs=("$1"/*.deb)
if [[ ${#debs[@]} -eq 0 ]]; then
  echo "no .deb in $1: run install.debian_package first" >&2
  exit 1
fi
status=0
for deb in "${debs[@]}"; do
  # Root is told running lintian is not recommended: a line on stderr, not a finding.
  if report=$(lintian --fail-on error,warning "$deb" 2>&1); then
    echo "lintian ${deb##*/}: no errors or warnings"
  else
    echo "lintian ${deb##*/}:"
    echo "$report"
    status=1
  fi
done
exit $status
