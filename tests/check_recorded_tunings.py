"""check_recorded_tunings.py: every entry of common/tuned.json names a lab and variant that
exist, and tunables and values that they accept: each entry's setting is given to its lab on the
command line (`--tunable`, a small size, one run), which must pass. A renamed tunable or a value
out of bounds would otherwise leave a recorded setting that the labs silently ignore.

Usage: check_recorded_tunings.py --bin BIN_DIR --recorded common/tuned.json
"""
import argparse
import json
import os
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--recorded", required=True)
    options = parser.parse_args()
    with open(options.recorded, encoding="utf-8") as file:
        entries = json.load(file)["entries"]
    problems = []
    for entry in entries:
        lab = entry["lab"]
        where = f"{lab} {entry['variant']} on {entry['device']}"
        binary = os.path.join(options.bin, lab)
        if not os.path.exists(binary):
            problems.append(f"{where}: there is no lab {lab}")
            continue
        setting = ",".join(f"{name}={value}" for name, value in entry["tunables"].items())
        run = subprocess.run([binary, "--variant", entry["variant"], "--tunable", setting,
                              "-n", "256", "--reps", "1", "--warmup", "0", "--no-tuned"],
                             capture_output=True, text=True, check=False)
        if run.returncode != 0:
            last = (run.stderr.strip().splitlines() or ["(no message)"])[-1]
            problems.append(f"{where}: {setting} refused (exit {run.returncode}): {last}")
    for problem in problems:
        print(f"check_recorded_tunings.py: {problem}", file=sys.stderr)
    print(f"check_recorded_tunings.py: {len(entries)} entries, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
