#!/usr/bin/env bash
# bench_vector_types.sh: vector_types' copy bandwidth per vector width, and in the same command the
# yardstick for its device: PyTorch's device-to-device copy of the same bytes where PyTorch with
# CUDA is installed (a GPU), the host memcpy the lab itself pairs with the kernel on a CPU device.
#   scripts/bench_vector_types.sh                     PoCL or the first device, n = 2^26 floats
#   N=2^28 scripts/bench_vector_types.sh --type gpu   extra arguments go to the lab
# Prints the lab's table, then one line per yardstick with the best width's share of it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${LAB_BIN:-$root/build/bin}
[[ -x "$bin/vector_types" ]] || "$root/scripts/build.sh" default
n=${N:-2^26}
reps=${REPS:-20}
json=$(mktemp)
trap 'rm -f "$json"' EXIT

"$bin/vector_types" --part bandwidth -n "$n" --reps "$reps" --warmup 3 "$@" --json >"$json"
python3 - "$json" "$n" "$reps" <<'PY'
import json, statistics, sys
report = json.load(open(sys.argv[1]))
n = eval(sys.argv[2].replace("^", "**"))
reps = int(sys.argv[3])
print(f"vector_types on {report['device']['name']}, n = {n} floats, median of {reps} runs:")
for row in report["results"]:
    print(f"  {row['variant']:<18} {row['rate']:9.1f} GB/s  {row['status']}")
bandwidth = report["details"]["bandwidth"]
best = bandwidth.get("best")
if best is None:
    sys.exit("no width copied correctly: see the lab's mismatches (run it without --json)")
print(f"best width: {best['type']} {best['rate_gb_s']:.1f} GB/s")
host = bandwidth.get("host_memcpy")
if host:
    print(f"host memcpy over {host['threads']} threads: {host['rate_gb_s']:.1f} GB/s; the best "
          f"width against it, {host['best_width']}, reaches {100 * host['best_width_share']:.1f}% "
          f"of it (paired runs)")
try:
    import torch
except ImportError:
    torch = None
# A CPU device has its yardstick, memcpy, in the lab's own report; PyTorch's copy is a GPU's.
if host is None and torch is not None and torch.cuda.is_available():
    src = torch.rand(n, device="cuda")
    dst = torch.empty_like(src)
    times = []
    for i in range(3 + reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        dst.copy_(src)
        end.record()
        torch.cuda.synchronize()
        if i >= 3:
            times.append(start.elapsed_time(end) / 1e3)
    assert torch.equal(dst, src)
    rate = 8 * n / statistics.median(times) / 1e9
    print(f"PyTorch {torch.__version__} device-to-device copy on {torch.cuda.get_device_name()}: "
          f"{rate:.1f} GB/s; the best width reaches {100 * best['rate_gb_s'] / rate:.1f}% of it")
PY
