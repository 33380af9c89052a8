#!/usr/bin/env bash
# slurm_cluster.sh: a private one-machine Slurm cluster on loopback for a test, then COMMAND
# against it.
#   tests/slurm_cluster.sh DIR -- COMMAND [ARGS...]
# DIR (empty or new) holds everything: slurm.conf, the munge key and socket, state, spool, logs
# and pid files; nothing is written outside it. munged, slurmctld and slurmd run as root on free
# non-default ports, with one node (this machine's short hostname, at 127.0.0.1; CPUs from nproc,
# RealMemory from free -m less a margin) in one default partition, `grading`. Once sinfo shows
# the node idle, COMMAND runs with SLURM_CONF=DIR/slurm.conf, so the stock sbatch, squeue,
# scancel and sinfo use this cluster (slurm.conf's AuthInfo names the munge socket). The exit
# code is COMMAND's. On any exit (Ctrl-C included) jobs are cancelled and the daemons stopped;
# any process left with this SLURM_CONF in its environment (job steps too) is then killed.
# Exit 77 (skipped) when Slurm or munge is not installed, or when not run as root.
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"
for tool in slurmctld slurmd munged sbatch squeue sinfo scancel; do
  if ! command -v "$tool" >/dev/null; then
    echo "slurm_cluster: Slurm is not installed (scripts/setup.sh slurm installs it)"
    exit 77
  fi
done
[[ $(id -u) -eq 0 ]] || { echo "slurm_cluster: needs root (slurmd runs jobs as root): skipped"; exit 77; }
[[ $# -ge 3 && $2 == -- ]] || { echo "usage: $0 DIR -- COMMAND [ARGS...]" >&2; exit 2; }
mkdir -p "$1"
DIR=$(cd "$1" && pwd)
shift 2
node=$(hostname -s)
# Unix socket paths (munge's, slurmd's step sockets spool/NODE_JOB.STEP) must fit in 108 bytes;
# slurm.conf has no quoting for paths with blanks.
if (( ${#DIR} + ${#node} > 80 )) || [[ $DIR == *[[:space:]]* ]]; then
  echo "slurm_cluster: '$DIR' is too long for Unix sockets or has blanks: use another" >&2
  exit 2
fi
conf=$DIR/slurm.conf
for pidfile in "$DIR"/run/*.pid; do
  if [[ -s $pidfile ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    echo "slurm_cluster: a cluster is already running in $DIR ($pidfile)" >&2
    exit 2
  fi
done
rm -rf "$DIR"/{munge,state,spool,log,run} "$conf" "$DIR/plugstack.conf"
mkdir -p "$DIR"/{munge,state,spool,log,run}
# No Slurm setting from the caller's environment (a CI job inside Slurm, say) may leak in.
mapfile -t inherited < <(compgen -e | grep -E '^(SLURM|SBATCH|SALLOC|SRUN|SQUEUE|SINFO|SCANCEL)_')
[[ ${#inherited[@]} -eq 0 ]] || unset "${inherited[@]}"
export SLURM_CONF=$conf

# Two free ports below the ephemeral range, bindable on all addresses as the daemons bind.
read -r ctld_port slurmd_port < <(python3 -c 'import random, socket
ports = set()
while len(ports) < 2:
    p = random.randrange(20000, 32000)
    try: socket.socket().bind(("0.0.0.0", p)); ports.add(p)
    except OSError: pass
print(*ports)' 2>/dev/null || echo $((20000 + RANDOM % 6000)) $((26000 + RANDOM % 6000)))
cpus=$(nproc)
mem=$(free -m | awk '/^Mem:/ {print $2}')
mem=$(( mem > 1024 ? mem - mem / 20 - 256 : mem / 2 ))
: > "$DIR/plugstack.conf"   # rather than /etc/slurm/plugstack.conf's SPANK plugins
cat > "$conf" <<EOF
ClusterName=grading
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/munge.socket
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
PlugStackConfig=$DIR/plugstack.conf
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
NodeName=$node NodeHostname=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=grading Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

pids=()
# shellcheck disable=SC2317  # run by the EXIT trap
# Stop what this run started: jobs, then slurmd, slurmctld, munged; then anything left that
# carries this SLURM_CONF (job steps and their processes, which outlive slurmd).
cleanup() {
  set +e
  trap '' INT TERM
  if [[ -n ${pids[1]:-} ]] && kill -0 "${pids[1]}" 2>/dev/null; then
    scancel --quiet --partition=grading 2>/dev/null
    for _ in {1..20}; do [[ -z $(squeue -h -o %i 2>/dev/null) ]] && break; sleep 0.5; done
  fi
  local pid i
  for (( i = ${#pids[@]} - 1; i >= 0; i-- )); do
    pid=${pids[i]}
    kill "$pid" 2>/dev/null
    for _ in {1..20}; do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  for pid in /proc/[0-9]*; do
    pid=${pid#/proc/}
    [[ $pid == "$$" ]] && continue
    grep -qzxF "SLURM_CONF=$conf" "/proc/$pid/environ" 2>/dev/null && kill -9 "$pid" 2>/dev/null
  done
  rm -f "$DIR"/run/*.pid
  return 0
}
trap cleanup EXIT; trap 'exit 130' INT; trap 'exit 143' TERM
fail() {
  echo "slurm_cluster: $*" >&2
  for log in "$DIR"/log/*; do   # a daemon's .out (its stderr) repeats its .log, if it has one
    [[ $log == *.out && -s ${log%.out}.log ]] && continue
    echo "--- tail of $log" >&2; tail -n 20 "$log" >&2
  done
  exit 1
}

head -c 1024 /dev/urandom > "$DIR/munge/munge.key"
chmod 600 "$DIR/munge/munge.key"
# setsid: a Ctrl-C on the terminal reaches COMMAND and this script, which stop the daemons in order.
setsid munged --foreground --force --socket="$DIR/munge/munge.socket" \
  --key-file="$DIR/munge/munge.key" --log-file="$DIR/log/munged.log" \
  --pid-file="$DIR/run/munged.pid" --seed-file="$DIR/munge/munged.seed" \
  </dev/null >>"$DIR/log/munged.log" 2>&1 &
pids+=($!)
for _ in {1..50}; do [[ -S $DIR/munge/munge.socket ]] && break; sleep 0.1; done
[[ -S $DIR/munge/munge.socket ]] || fail "munged did not start"
setsid slurmctld -D -f "$conf" </dev/null >>"$DIR/log/slurmctld.out" 2>&1 &
pids+=($!)
setsid slurmd -D -f "$conf" -N "$node" </dev/null >>"$DIR/log/slurmd.out" 2>&1 &
pids+=($!)

# Wait (30 s at most) until the node is idle, failing early if a daemon dies.
state=
for _ in {1..60}; do
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null || fail "a daemon exited (pid $pid)"; done
  state=$(sinfo -h -p grading -n "$node" -o %T 2>/dev/null || true)
  [[ $state == idle ]] && break
  sleep 0.5
done
[[ $state == idle ]] || fail "node $node not idle after 30 s (state: '${state:-no answer}')"

set +e
"$@"
exit $?
