#!/usr/bin/env bash
# grade.sh: grades a class in one command. SUBMISSIONS holds one folder per student with their
# files as start-here.md names them (my_vector_add.cl, ...); every exercise is run through its lab
# at sizes drawn from a recorded seed, checked under Oclgrind, each run a process of its own (a
# time limit sized from the suite's kernel), into SUBMISSIONS/gradebook/ (or OUT) as
# gradebook.csv, gradebook.json and gradebook.xml (JUnit), with each run's log. Installs what is
# missing and builds first. Details: scripts/grade.py --help, docs/reference.md.
#   scripts/grade.sh SUBMISSIONS [OUT] [--only LAB.NAME,...] [--seed N] [-j N] [--time-limit S]
#                      [--no-oclgrind] [--student] [--shard I/N]
#   scripts/grade.sh SUBMISSIONS OUT --slurm [--tasks N] [--cpus C] [--partition P] [--gpus G]
#                      [--slurm-time T] [--sbatch-arg ARGS]    a job array and a merge job
#   scripts/grade.sh merge OUT PIECE...                          a class graded in pieces, joined
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" default all_labs
exec python3 "$root/scripts/grade.py" "$@"
