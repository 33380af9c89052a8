#!/usr/bin/env bash
# bench_vector_add.sh: vector_add against the copy kernel over sizes, buffer modes and local sizes,
# as CSV (one row per run, vector_add's --csv columns). docs/results.md's figures come from it.
#   scripts/bench_vector_add.sh [OUT.csv]     (default: results/vector_add.csv)
# Device choice as for every lab: LAB_PLATFORM / LAB_DEVICE / LAB_DEVICE_TYPE or none.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/results/vector_add.csv}
bin=$root/build/bin
if [[ ! -x $bin/vector_add ]]; then
  "$root/scripts/setup.sh"
  "$root/scripts/build.sh" default
fi
mkdir -p "$(dirname "$out")"

run() { "$bin/vector_add" --csv --reps 20 --warmup 3 "$@" | tail -n +2; }
{
  # vector_add's own CSV header, plus the arguments of each run.
  echo "$("$bin/vector_add" -n 1 --reps 1 --warmup 0 --csv | head -n 1),args"
  for exponent in 20 22 24 26; do
    for args in "" "--local 256"; do
      echo "$(run -n "2^$exponent" $args),-n 2^$exponent $args"
    done
  done
  for args in "--mode use" "--mode alloc" "--mode write" "--no-fetch" "--per-item 4 --local 256" \
              "--local 64" "--local 1024"; do
    echo "$(run -n 2^26 $args),-n 2^26 $args"
  done
} | tee "$out"
