#!/usr/bin/env python3
"""make_large_class.py: writes a class of any size for the grader (scripts/grade.py), to measure a
grading at the scale of a real course and to check that grading it in pieces, side by side or on
a cluster, gives the grades one grading gives.

Usage: make_large_class.py --kernels DIR --exercises build/exercises.tsv [--students 300]
                           [--wrong 0.2] [--distinct 0.0] [--hangs 3] [--seed 1] OUT

Each student hands in every kernel the exercises use, made from the planted class
(tests/make_planted_class.py, generated first into OUT/planted): most hand-ins are the suite's
kernel with the student's name in a comment; a share (--wrong) is one of the planted mistakes
that applies to the kernel (the grader must fail it) or one of the planted hand-ins that must pass
(a debug printf, a byte-order mark); a share of the right ones (--distinct) carry a helper
function of their own, so that their code, not only their comments, differs from everyone
else's, as a class that writes its own kernels does; --hangs students hand in a vector_add whose
loop never ends; one student in fifty hands in nothing for one kernel. Which student gets what is
drawn from --seed.

OUT/class/student-NNN/my_KERNEL.cl are the hand-ins; OUT/expected.json says, per student and
exercise, "pass", "fail" or "absent" (no file), so a gradebook can be checked row by row
(--check GRADEBOOK.json: exit 1 on any row that is not what its hand-in deserves).
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The planted hand-ins a wrong student may get, and whether each must pass.
WRONG = ["printf", "bom_crlf", "no_barrier", "misplaced_barrier", "non_atomic", "off_by_one",
         "hard_coded", "include_relative", "include_absolute", "symlink"]
# A loop that never ends (k is odd, so it never wraps to 0), put first in vector_add's body.
ENDLESS = ("if (i < n) {  // padding",
           "for (size_t k = 1; k > 0; k += 2) c[i] = (float)k;\n  if (i < n) {  // padding")


def generate(args):
    out = Path(args.out)
    planted = out / "planted"
    subprocess.run([sys.executable, str(HERE / "make_planted_class.py"), str(planted),
                    "--kernels", args.kernels, "--exercises", args.exercises], check=True,
                   stdout=subprocess.DEVNULL)
    manifest = json.loads((planted / "plants.json").read_text())
    expect = {(r["student"], r["exercise"]): r["expect"] for r in manifest["rows"]}
    by_kernel = {}
    for row in manifest["rows"]:
        if row["student"] == "right":
            by_kernel.setdefault(row["kernel"], []).append(row["exercise"])
    rng = random.Random(args.seed)
    class_dir = out / "class"
    shutil.rmtree(class_dir, ignore_errors=True)
    names = [f"student-{i:03d}" for i in range(1, args.students + 1)]
    hangs = set(rng.sample(names, min(args.hangs, len(names))))
    rows = []
    for number, student in enumerate(names, 1):
        folder = class_dir / student
        folder.mkdir(parents=True)
        for kernel, exercises in sorted(by_kernel.items()):
            name = f"my_{kernel}"
            source = planted / "class" / "right" / name
            plant = "right"
            if student in hangs and kernel == "vector_add.cl":
                plant = "hang"
            elif number % 50 == 0 and kernel == sorted(by_kernel)[number // 50 % len(by_kernel)]:
                plant = "absent"
            elif rng.random() < args.wrong:
                choices = [p for p in WRONG if (planted / "class" / p / name).exists()
                           or (planted / "class" / p / name).is_symlink()]
                plant = rng.choice(choices)
            if plant == "absent":
                pass
            elif plant == "symlink":
                os.symlink(f"../{names[number % len(names)]}/{name}", folder / name)
            elif plant == "hang":
                text = source.read_text()
                assert text.count(ENDLESS[0]) == 1, "vector_add.cl changed: update ENDLESS"
                (folder / name).write_text(f"// {student}\n" + text.replace(*ENDLESS))
            elif plant == "right":
                text = f"// {student}, my own work\n" + source.read_text()
                if rng.random() < args.distinct:
                    text += (f"\n// a helper of my own\nint helper_{number}(int x) "
                             f"{{ return x + {number}; }}\n")
                (folder / name).write_text(text)
            else:
                data = (planted / "class" / plant / name).read_bytes()
                (folder / name).write_bytes(data)
            for e in exercises:
                if plant in ("right",):
                    verdict = "pass"
                elif plant == "hang":
                    verdict = "fail"
                elif plant == "absent":
                    verdict = "absent"
                else:
                    verdict = expect[(plant, e)]
                    if verdict == "absent":  # the plant does not touch this exercise's code
                        verdict = "pass"
                rows.append({"student": student, "exercise": e, "plant": plant,
                             "expect": verdict})
    (out / "expected.json").write_text(json.dumps({"rows": rows}, indent=1) + "\n")
    counts = {}
    for row in rows:
        counts[row["plant"]] = counts.get(row["plant"], 0) + 1
    print(f"make_large_class.py: {len(names)} students, {len(rows)} rows in {class_dir}: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])))


def check(expected_file, gradebook_file):
    """Every gradebook row against what its hand-in deserves; the number of rows that are not."""
    expected = {(r["student"], r["exercise"]): r for r in
                json.loads(Path(expected_file).read_text())["rows"]}
    rows = json.loads(Path(gradebook_file).read_text())["rows"]
    graded = {(r["student"], r["exercise"]) for r in rows}
    bad = len(graded ^ expected.keys()) + len(rows) - len(graded)
    for student, exercise in sorted(graded ^ expected.keys()):
        print(f"{student} {exercise}: {'not graded' if (student, exercise) in expected else 'graded, but not in the class'}")
    if len(rows) != len(graded):
        print(f"{len(rows) - len(graded)} rows graded twice")
    for row in rows:
        want = expected.get((row["student"], row["exercise"]))
        if want is None:
            continue
        if want["expect"] == "absent":
            ok = not row["passed"] and row["sentence"].startswith("no file")
        else:
            ok = row["passed"] == (want["expect"] == "pass")
        if not ok:
            bad += 1
            print(f"{row['student']} {row['exercise']} ({want['plant']}): expected "
                  f"{want['expect']}, graded {'PASSED' if row['passed'] else row['sentence']}")
    return bad


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the folder to write class/ and expected.json into")
    parser.add_argument("--kernels", help="the suite's kernels/ folder")
    parser.add_argument("--exercises", help="build/exercises.tsv")
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--wrong", type=float, default=0.2,
                        help="the share of hand-ins that are planted (default 0.2)")
    parser.add_argument("--distinct", type=float, default=0.0,
                        help="the share of right hand-ins whose code is their own (default 0)")
    parser.add_argument("--hangs", type=int, default=3, help="students whose loop never ends")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check", metavar="GRADEBOOK_JSON",
                        help="check a gradebook of this class against OUT/expected.json")
    args = parser.parse_args()
    if args.check:
        bad = check(Path(args.out) / "expected.json", args.check)
        print(f"make_large_class.py: {bad} rows not as expected")
        sys.exit(1 if bad else 0)
    if not args.kernels or not args.exercises:
        parser.error("--kernels and --exercises are needed to write a class")
    generate(args)


if __name__ == "__main__":
    main()
