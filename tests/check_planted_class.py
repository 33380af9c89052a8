#!/usr/bin/env python3
"""check_planted_class.py: the grader against a class of planted mistakes (CTest
grade.planted_class). Every exercise's right answer must pass, and a missing or misplaced barrier, a
non-atomic update, an off-by-one read or write, a hard-coded grading size, an #include (relative
and absolute) and a symbolic link must each fail with a sentence that names the mistake; a debug
printf, a byte-order mark and CRLF line ends must pass.

Usage: check_planted_class.py --bin build/bin --kernels kernels --grader scripts/grade.py
                              WORK [--seed N] [--only LAB.NAME,...] [--check-only]

Writes the class with tests/make_planted_class.py into WORK/class (its expectations in
WORK/plants.json), grades it into WORK/gradebook with a fixed --seed, and prints one line per
exercise and plant: PASSED or FAILED, the sentence, and whether that is what the plant deserves.
--check-only checks the gradebook already in WORK again (after changing this file, say).
Exit 0 when every row is as expected, 1 when one is not, 3 when the class could not be made or
graded, 77 (skipped) when Oclgrind is not installed: without it races go unseen, and the barrier
and atomic plants would pass.
"""

import argparse
import json
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import make_planted_class  # noqa: E402 (beside this file)

EXIT_SKIP = 77

# What each failing plant's sentence must say: the mistake itself, as Oclgrind or the lab's check
# names it, never just any failure (a build error or a time-out would be a broken plant).
# A missing barrier or update: a race, wrong results, or (Oclgrind) a value a work-item read before
# the work-item that writes it had, named an uninitialised value when nothing had written it yet.
RACE = (r"data race|results were wrong|^mismatch |elements wrong|wrong record|counts were lost|"
        r"bins add up to|uninitiali[sz]ed value")
# One past an array: an access out of bounds, a value read from past the data, wrong results, or
# a race when the stray write lands on the element another work-item writes.
OUT_OF_BOUNDS = (r"invalid (read|write)|an index outside the buffer|past the end|before the start|"
                 r"uninitiali[sz]ed value|^mismatch |elements wrong|wrong record|data race")
SENTENCES = {
    "no_barrier": RACE,
    "misplaced_barrier": RACE,
    "non_atomic": RACE,
    "off_by_one": OUT_OF_BOUNDS,
    # a size below the literal reads or writes past the arrays; one above leaves elements unset
    "hard_coded": OUT_OF_BOUNDS,
    "include_relative": r"#include is not allowed",
    "include_absolute": r"#include is not allowed",
    "symlink": r"is a symbolic link",
}
NO_FILE = r"^no file my_"


def same_failure(a, b):
    """Whether two sentences say the same thing, line numbers, sizes and work-items aside."""
    return re.sub(r"\d+", "#", a) == re.sub(r"\d+", "#", b)


def check(manifest, book, only):
    """(lines of the table, number of rows not as expected)."""
    rows = {(r["student"], r["exercise"]): r for r in book["rows"]}
    # A plant that fails the way the right answer fails shows nothing about the plant.
    right_failures = {r["exercise"]: r["sentence"] for r in book["rows"]
                      if r["student"] == "right" and not r["passed"]}
    lines, wrong = [], 0
    for expected in manifest["rows"]:
        key = (expected["student"], expected["exercise"])
        if only and expected["exercise"] not in only:
            continue
        row = rows.get(key)
        if row is None:
            lines.append((key, "MISSING", "no row in the gradebook", False))
            wrong += 1
            continue
        verdict = "PASSED" if row["passed"] else "FAILED"
        sentence, why = row["sentence"], ""
        if expected["expect"] == "absent":
            if row["passed"] or not re.search(NO_FILE, sentence):
                why = "the plant does not apply, yet a file was graded"
            verdict, sentence = "-", f"not handed in: {expected['why']}"
        elif expected["expect"] == "pass":
            if not row["passed"]:
                why = "should pass"
        elif row["passed"]:
            why = "should fail: the grader missed the mistake"
        elif not re.search(SENTENCES[expected["student"]], sentence, re.I | re.M):
            why = "fails, but the sentence does not name the mistake"
        elif same_failure(sentence, right_failures.get(expected["exercise"], "")):
            why = "fails as the right answer does, not for its mistake"
        lines.append((key, verdict, sentence if not why else f"[{why}] {sentence}", not why))
        wrong += bool(why)
    return lines, wrong


def print_table(lines, manifest):
    plants = list(manifest["plants"])
    exercises = [e for e in manifest["exercises"] if any(k[1] == e for k, *_ in lines)]
    cells = {key: (verdict, ok) for key, verdict, _, ok in lines}
    # The matrix: P passed, F failed, - not handed in; ! where the row is not what the plant
    # deserves.
    width = max(len(e) for e in exercises)
    print(f"\n{'exercise':{width}}  " + " ".join(f"{p[:9]:>9}" for p in plants))
    for e in exercises:
        marks = []
        for p in plants:
            verdict, ok = cells.get((p, e), ("?", False))
            marks.append(f"{verdict[0] + ('' if ok else '!'):>9}")
        print(f"{e:{width}}  " + " ".join(marks))
    print("\n(P passed, F failed, - not handed in: the plant does not apply; ! not what the "
          "plant deserves)\n")
    for (student, exercise), verdict, sentence, ok in lines:
        mark = "ok  " if ok else "WRONG"
        text = textwrap.shorten(sentence, 400, placeholder="...")
        print(f"{mark} {exercise:27} {student:18} {verdict:6} {text}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("work", help="the folder for the class, its expectations and gradebook")
    parser.add_argument("--bin", required=True, help="the labs (build/bin)")
    parser.add_argument("--kernels", required=True, help="the suite's kernels/ folder")
    parser.add_argument("--grader", required=True, help="scripts/grade.py")
    parser.add_argument("--exercises", help="the exercise list (default BIN/../exercises.tsv)")
    parser.add_argument("--seed", type=int, default=2024, help="the grader's seed (default 2024)")
    parser.add_argument("--only", help="grade and check these exercises only: LAB.NAME[,...]")
    parser.add_argument("--time-limit", type=float, default=60,
                        help="seconds one run may take (default 60, as grade.sh)")
    parser.add_argument("--check-only", action="store_true",
                        help="check WORK's gradebook again, without making or grading the class")
    args = parser.parse_args()
    if shutil.which("oclgrind") is None:
        print("check_planted_class.py: skipped: Oclgrind is not installed, so the grader cannot "
              "see races and the barrier and atomic plants would pass")
        sys.exit(EXIT_SKIP)
    work = Path(args.work).resolve()
    exercises = Path(args.exercises) if args.exercises else Path(args.bin) / ".." / "exercises.tsv"
    gradebook = work / "gradebook"
    only = set(args.only.split(",")) if args.only else set()

    if not args.check_only:
        work.mkdir(parents=True, exist_ok=True)
        try:
            make_planted_class.generate(Path(args.kernels), exercises, work)
        except make_planted_class.PlantError as error:
            print(f"check_planted_class.py: error: the class could not be made: {error}",
                  file=sys.stderr)
            sys.exit(3)
        shutil.rmtree(gradebook, ignore_errors=True)
        command = [sys.executable, args.grader, str(work / "class"), str(gradebook), "--bin",
                   args.bin, "--exercises", str(exercises), "--seed", str(args.seed),
                   "--time-limit", str(args.time_limit)]
        if args.only:
            command += ["--only", args.only]
        print("check_planted_class.py: " + " ".join(command), flush=True)
        started = time.monotonic()
        code = subprocess.call(command)
        print(f"check_planted_class.py: the grader took {time.monotonic() - started:.0f} s",
              flush=True)
        if code != 0:
            print(f"check_planted_class.py: error: the grader exited with {code}",
                  file=sys.stderr)
            sys.exit(3)
    manifest = json.loads((work / "plants.json").read_text())
    book = json.loads((gradebook / "gradebook.json").read_text())
    lines, wrong = check(manifest, book, only)
    print_table(lines, manifest)
    graded = sum(1 for _, verdict, _, _ in lines if verdict != "-")
    print(f"\ncheck_planted_class.py: seed {book['seed']}: {graded} rows graded, "
          f"{len(lines) - graded} not handed in; {wrong} not as expected"
          + ("" if not wrong else " (the lines marked WRONG; logs in "
             f"{gradebook}/logs/STUDENT/EXERCISE.log)"))
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
