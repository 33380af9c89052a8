#!/usr/bin/env bash
# grade.sh: grades a class in one command. SUBMISSIONS holds one folder per student with their
# files as start-here.md names them (my_vector_add.cl, ...); every exercise is run through its lab
# at sizes drawn from a recorded seed, checked under Oclgrind, each run a process of its own (time
# limit, own kernel cache), into SUBMISSIONS/gradebook/ (or OUT) as gradebook.csv and
# gradebook.json, with each run's log. Builds first. Details: scripts/grade.py --help.
#   scripts/grade.sh SUBMISSIONS [OUT] [--only LAB.NAME,...] [--seed N] [-j N] [--time-limit S]
#                      [--no-oclgrind]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" default all_labs
exec python3 "$root/scripts/grade.py" "$@"
