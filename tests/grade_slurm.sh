#!/usr/bin/env bash
# grade_slurm.sh: the grader's --slurm against a real Slurm. Grades the sample class here, then
# starts a one-machine Slurm cluster (tests/slurm_cluster.sh: slurmctld, slurmd and munge from
# Debian's packages, on loopback), submits the same class with `grade.py --slurm` as a job array
# of 4 tasks and a merge job after them (afterok), waits for both, and checks that the merged
# gradebook equals the local one row for row (apart from the time limit a hang's sentence names,
# which each task sizes itself), that each task graded its own shard and that the job ids were
# printed. Exit 77 (skipped) when Slurm is not installed or the test does not run as root.
#   tests/grade_slurm.sh GRADER BIN CLASS WORK
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
grader=$1 bin=$2 class=$3 work=$4
if ! command -v oclgrind >/dev/null; then
  echo "grade_slurm: skipped: Oclgrind is not installed (the grader needs it)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
options=(--bin "$bin" --only vector_add.add --seed 11)

# The cluster's folder stays short: its Unix sockets' paths must fit in 108 bytes.
cluster=$(mktemp -d /tmp/slurm.XXXXXX)
trap 'rm -rf "$cluster"' EXIT
status=0
"$here/slurm_cluster.sh" "$cluster" -- bash -c '
  set -euo pipefail
  grader=$1 class=$2 work=$3
  shift 3
  python3 "$grader" "$class" "$work/slurm" --slurm --tasks 4 --cpus 1 --partition grading \
    --slurm-time 0:20:00 "$@" | tee "$work/submit.log"
  array=$(sed -n "s/^job array: //p" "$work/submit.log")
  merge=$(sed -n "s/^merge job: //p" "$work/submit.log")
  [[ $array =~ ^[0-9]+$ && $merge =~ ^[0-9]+$ ]] || { echo "no job ids printed"; exit 1; }
  for _ in $(seq 600); do
    [[ -z $(squeue -h -j "$array,$merge" -o %i 2>/dev/null) ]] && break
    sleep 1
  done
  if [[ -n $(squeue -h -j "$array,$merge" -o %i 2>/dev/null) ]]; then
    echo "the jobs did not end within 10 minutes"; squeue; exit 1
  fi
' grade "$grader" "$class" "$work" "${options[@]}" || status=$?
if [[ $status -eq 77 ]]; then
  exit 77
fi
if [[ $status -ne 0 || ! -f $work/slurm/gradebook.csv ]]; then
  echo "grade_slurm: the Slurm grading did not produce a gradebook (exit $status)"
  tail -n 20 "$work"/slurm/slurm/*.log 2>/dev/null || true
  exit 1
fi

python3 "$grader" "$class" "$work/local" "${options[@]}" -j 2 >"$work/local.log"
python3 - "$work" <<'EOF'
import json, re, sys
from pathlib import Path
work = Path(sys.argv[1])
def grades(path):
    return re.sub(r"within \d+(\.\d+)? s", "within (the limit) s", path.read_text())
local, slurm = grades(work / "local" / "gradebook.csv"), grades(work / "slurm" / "gradebook.csv")
book = json.loads((work / "slurm" / "gradebook.json").read_text())
pieces = book.get("pieces", [])
problems = []
if local != slurm:
    problems.append(f"the Slurm gradebook differs from the local one:\n{local}\n---\n{slurm}")
if sorted(p["shard"] for p in pieces) != [f"{i}/4" for i in range(1, 5)]:
    problems.append(f"the merged gradebook's pieces are {pieces}, not shards 1/4 to 4/4")
for p in pieces:
    print(f"grade_slurm: shard {p['shard']}: {p['students']} students in {p['seconds']} s "
          f"on {p['host']}")
print("\n".join(problems) or "grade_slurm: the merged Slurm gradebook equals the local one")
sys.exit(1 if problems else 0)
EOF
