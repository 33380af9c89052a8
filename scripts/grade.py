#!/usr/bin/env python3
"""grade.py: grades a class's exercises into a gradebook (scripts/grade.sh runs it).

SUBMISSIONS holds one folder per student, each with the student's kernel files under the suite's
names (vector_add.cl, matmul_tiled.cl, ...). Every exercise the build lists (build/exercises.tsv,
written by lab_exercise) whose kernel a student handed in is run through its lab exactly as the
exercise's grading command does, with --json; a missing file is recorded as such. Each run is a
process of its own, in a folder of its own, with the student's own PoCL kernel cache and a time
limit (LAB_TIME_LIMIT, which the lab enforces with a sentence, and a hard limit past it), so a
kernel that does not build, hangs, crashes the runtime or writes out of bounds becomes a row of
the gradebook and never stops the grading or touches another student's result. The suite's own
kernel runs once per exercise on the same arguments, for the speed column.

OUT (default SUBMISSIONS/gradebook) receives gradebook.csv and gradebook.json: student, exercise,
passed, the sentence, wrong elements, out-of-bounds writes, the median kernel time, the rate and
the speed against the suite's kernel. Exit 0 once every submission is graded (whatever the
students' results), 2 for a bad command line, 3 when the labs cannot be run at all.
"""

import argparse
import csv
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

EXIT_USAGE = 2
EXIT_RUNTIME = 3


def fail(code, message):
    print(f"grade.sh: error: {message}", file=sys.stderr)
    sys.exit(code)


def read_exercises(path):
    """The exercises the build lists: (lab, name, kernel, args)."""
    exercises = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        lab, name, kernel, args = (line.split("\t") + [""] * 4)[:4]  # then what a skeleton prints
        exercises.append({"lab": lab, "name": name, "kernel": kernel, "args": args.split()})
    return exercises


def sentence_of(stderr, code):
    """The line that says why a run failed: its last error line, else its first mismatch."""
    lines = [l.strip() for l in stderr.splitlines() if l.strip()]
    compiler = [l for l in lines if re.search(r"\.cl:\d+:\d+: ", l) and "error" in l]
    errors = [l for l in lines if (": error: " in l or "OpenCL error" in l) and l not in compiler]
    if errors:
        # A build that failed: the compiler's first error says where.
        if compiler and "failed to build" in errors[-1]:
            return f"{errors[-1]}; first compiler error: {compiler[0]}"
        return errors[-1]
    mismatches = [l for l in lines if l.startswith("mismatch")]
    others = [l for l in lines if not l.startswith("mismatch") and ": note: " not in l]
    if mismatches:
        return mismatches[0] + (f" ({others[-1]})" if others else "")
    if others:
        return others[-1]
    return f"exit {code} with no message"


def run_lab(binary, args, workdir, cache, time_limit):
    """One run with --json in `workdir`: (exit code, report or None, stderr)."""
    env = dict(os.environ)
    env.update({
        "LAB_TIME_LIMIT": str(time_limit),
        "POCL_CACHE_DIR": str(cache),
        "LAB_TUNING_CACHE": str(Path(workdir) / "tuning.json"),
    })
    env.pop("LAB_KERNEL_DIR", None)
    cache.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen([str(binary)] + args + ["--json"], cwd=workdir, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=time_limit + 30)
    except subprocess.TimeoutExpired:
        # The lab's own watch should have ended it: end the whole group, and say so.
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        return 1, None, f"the run did not end within {time_limit + 30} s and was killed"
    report = None
    try:
        report = json.loads(out)
    except (json.JSONDecodeError, ValueError):
        pass
    return process.returncode, report, err


def timing_of(report, exercise):
    """(median seconds, rate, unit) of the row that times the exercise's kernel, or Nones: the
    row of the variant or part the arguments choose, else the row naming the kernel (profiling's
    `kernel vector_add`, not its transfers), else the first timed row."""
    rows = [r for r in (report or {}).get("results", []) if "median" in (r.get("time_s") or {})]
    args = exercise["args"]
    chosen = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("--variant", "--part")]
    stem = exercise["kernel"].rsplit(".", 1)[0]
    for test in (lambda r: r.get("variant") in chosen,
                 lambda r: r.get("variant", "").startswith("kernel ") or stem in r.get("variant", ""),
                 lambda r: True):
        for row in rows:
            if test(row):
                rate = row.get("rate") or {}
                return row["time_s"]["median"], rate.get("value"), rate.get("unit", "")
    return None, None, ""


def grade(args):
    submissions = Path(args.submissions)
    if not submissions.is_dir():
        fail(EXIT_USAGE, f"{submissions} is not a folder: give the folder that holds one folder "
                         "per student")
    bin_dir = Path(args.bin).resolve()  # the labs run in folders of their own
    exercises_file = Path(args.exercises) if args.exercises else bin_dir.parent / "exercises.tsv"
    if not exercises_file.is_file():
        fail(EXIT_RUNTIME, f"no exercise list at {exercises_file}: build the suite first "
                           "(scripts/build.sh)")
    exercises = read_exercises(exercises_file)
    if args.only:
        wanted = set(args.only.split(","))
        exercises = [e for e in exercises if f"{e['lab']}.{e['name']}" in wanted]
        if not exercises:
            fail(EXIT_USAGE, f"--only {args.only}: no such exercise")
    for e in exercises:
        if not (bin_dir / e["lab"]).is_file():
            fail(EXIT_RUNTIME, f"no lab {e['lab']} in {bin_dir}: build the suite first")
    students = sorted(p for p in submissions.iterdir() if p.is_dir() and p.name != "gradebook")
    if not students:
        fail(EXIT_USAGE, f"{submissions} holds no student folders")
    out_dir = Path(args.out) if args.out else submissions / "gradebook"
    out_dir.mkdir(parents=True, exist_ok=True)

    rows = []
    with tempfile.TemporaryDirectory(prefix="grade-") as scratch:
        scratch = Path(scratch)
        reference = {}
        for e in exercises:
            work = scratch / "reference"
            work.mkdir(exist_ok=True)
            code, report, _ = run_lab(bin_dir / e["lab"], e["args"] + ["--reps", str(args.reps)],
                                      work, scratch / "cache-reference", args.time_limit)
            reference[(e["lab"], e["name"])] = timing_of(report, e) if code == 0 else (None,) * 3
        for student in students:
            for e in exercises:
                row = {"student": student.name, "exercise": f"{e['lab']}.{e['name']}",
                       "kernel": e["kernel"], "passed": False, "sentence": "",
                       "wrong_elements": "", "out_of_bounds_writes": "", "time_s": "",
                       "rate": "", "unit": "", "speed_vs_reference": "", "exit": ""}
                kernel = student / e["kernel"]
                if not kernel.is_file():
                    row["sentence"] = f"no file {e['kernel']} in the submission"
                    rows.append(row)
                    continue
                work = scratch / student.name / e["name"]
                work.mkdir(parents=True, exist_ok=True)
                command = e["args"] + ["--reps", str(args.reps), "--kernel-file",
                                       str(kernel.resolve())]
                code, report, err = run_lab(bin_dir / e["lab"], command, work,
                                            scratch / student.name / "cache", args.time_limit)
                row["exit"] = code
                grading = (report or {}).get("grading", {})
                row["passed"] = code == 0 and bool(grading.get("passed"))
                row["wrong_elements"] = grading.get("wrong_elements", "")
                row["out_of_bounds_writes"] = grading.get("out_of_bounds_writes", "")
                row["sentence"] = "PASSED" if row["passed"] else sentence_of(err, code)
                median, rate, unit = timing_of(report, e)
                if median is not None and row["passed"]:  # a wrong kernel's speed means nothing
                    row["time_s"], row["rate"], row["unit"] = median, rate, unit
                    ref_rate = reference[(e["lab"], e["name"])][1]
                    if rate and ref_rate:
                        row["speed_vs_reference"] = round(rate / ref_rate, 3)
                rows.append(row)
                mark = "PASSED" if row["passed"] else "FAILED"
                print(f"{student.name:16} {row['exercise']:28} {mark}  {row['sentence'][:90]}",
                      flush=True)

    fields = list(rows[0].keys())
    with open(out_dir / "gradebook.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    (out_dir / "gradebook.json").write_text(json.dumps({"students": len(students),
                                                        "exercises": len(exercises),
                                                        "rows": rows}, indent=2) + "\n")
    passed = sum(1 for r in rows if r["passed"])
    print(f"grade.sh: {len(students)} students, {len(exercises)} exercises: {passed} of "
          f"{len(rows)} passed; gradebook in {out_dir}/gradebook.csv and .json")
    return 0


def main():
    parser = argparse.ArgumentParser(
        prog="scripts/grade.sh",
        description="Grade a class: SUBMISSIONS/STUDENT/KERNEL.cl for every exercise.")
    parser.add_argument("submissions", help="a folder with one folder per student")
    parser.add_argument("out", nargs="?", help="where the gradebook goes "
                                               "(default SUBMISSIONS/gradebook)")
    parser.add_argument("--bin", default=str(Path(__file__).resolve().parent.parent / "build"
                                             / "bin"), help="the labs (default build/bin)")
    parser.add_argument("--exercises", help="the exercise list (default BIN/../exercises.tsv)")
    parser.add_argument("--only", help="grade these exercises only: LAB.NAME[,LAB.NAME]")
    parser.add_argument("--time-limit", type=float, default=60,
                        help="seconds one run may take (default 60)")
    parser.add_argument("--reps", type=int, default=3, help="timed runs per kernel (default 3)")
    args = parser.parse_args()
    if args.time_limit <= 0 or args.reps < 1:
        fail(EXIT_USAGE, "--time-limit must be above 0 and --reps at least 1")
    sys.exit(grade(args))


if __name__ == "__main__":
    main()
