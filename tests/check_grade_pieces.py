#!/usr/bin/env python3
"""check_grade_pieces.py: a class graded in pieces is the class graded whole. Grades the sample
class (tests/CMakeLists.txt) once whole and once as three shards (--shard 1/3, 2/3, 3/3) merged
with `grade.py merge`: the merged gradebook.csv must equal the whole one, row for row (apart from
the time limit a hang's sentence names, which each piece sizes itself), and its logs be the same
files. Then the merge must refuse what does not belong together, each with a
sentence (exit 2): a missing shard, a shard given twice, a piece graded with another seed, a piece
of another build (the recorded build identity changed). The JUnit file must hold one test case per
row, a <failure> for each failed one, and parse as XML. Without --time-limit, each exercise's limit
is sized from the suite's kernel's time: the endless loop's row must name that limit.

Usage: check_grade_pieces.py --grader scripts/grade.py --bin build/bin --class DIR WORK
"""

import argparse
import json
import math
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

problems = []


def problem(text):
    problems.append(text)
    print(f"check_grade_pieces: {text}")


def run(command, expect=0):
    result = subprocess.run([sys.executable] + [str(c) for c in command], capture_output=True,
                            text=True)
    if result.returncode != expect:
        problem(f"{' '.join(str(c) for c in command)} exited {result.returncode}, expected "
                f"{expect}:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("work")
    parser.add_argument("--grader", required=True)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--class", dest="class_dir", required=True)
    args = parser.parse_args()
    if shutil.which("oclgrind") is None:
        print("check_grade_pieces: skipped: Oclgrind is not installed (the grader needs it)")
        sys.exit(77)
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    grade = [args.grader, args.class_dir]
    common = ["--bin", args.bin, "--only", "vector_add.add", "--seed", "11", "-j", "2"]

    run(grade + [work / "whole"] + common)
    for i in (1, 2, 3):
        run(grade + [work / f"piece-{i}", "--shard", f"{i}/3"] + common)
    run([args.grader, "merge", work / "merged"] + [work / f"piece-{i}" for i in (3, 1, 2)])
    # Equal apart from timings: each piece sizes its own time limits, which a hang's sentence
    # names.
    def grades(path):
        return re.sub(r"within \d+(\.\d+)? s", "within (the limit) s", path.read_text())
    whole = grades(work / "whole" / "gradebook.csv")
    merged = grades(work / "merged" / "gradebook.csv")
    if whole != merged:
        problem(f"the merged gradebook differs from the whole one:\n{whole}\n---\n{merged}")
    for log in sorted((work / "whole" / "logs").rglob("*.log")):
        twin = work / "merged" / log.relative_to(work / "whole")
        if not twin.is_file():
            problem(f"the merged gradebook has no {twin.relative_to(work / 'merged')}")
    book = json.loads((work / "whole" / "gradebook.json").read_text())
    pieces = [json.loads((work / f"piece-{i}" / "gradebook.json").read_text()) for i in (1, 2, 3)]
    if sorted(r["student"] for p in pieces for r in p["rows"]) != sorted(
            r["student"] for r in book["rows"]):
        problem("the shards do not cover the roster exactly once")

    # The time limit, sized from the suite's kernel.
    limit = book["time_limits"]["vector_add.add"]
    endless = [r for r in book["rows"] if r["student"] == "5_endless_loop"]
    if not endless or f"within {limit:g} s" not in endless[0]["sentence"]:
        problem(f"the endless loop's row does not name the sized limit ({limit} s): {endless}")
    slowest, load = book["reference_seconds"]["vector_add.add"], book["load"]
    if limit != max(10, 5 * math.ceil(10 * slowest * load / 5)):
        problem(f"vector_add.add's limit is {limit} s: expected ten times its slowest reference "
                f"run ({slowest} s) times the load ({load}), in whole 5 s, at least 10 s")

    # The JUnit file.
    try:
        root = ElementTree.parse(work / "whole" / "gradebook.xml").getroot()
        cases = root.findall("./testsuite/testcase")
        failures = [c for c in cases if c.find("failure") is not None]
        failed_rows = [r for r in book["rows"] if not r["passed"]]
        if len(cases) != len(book["rows"]) or len(failures) != len(failed_rows):
            problem(f"gradebook.xml has {len(cases)} test cases ({len(failures)} failed) for "
                    f"{len(book['rows'])} rows ({len(failed_rows)} failed)")
        if root.get("tests") != str(len(book["rows"])):
            problem("gradebook.xml's testsuites does not count the rows")
    except (OSError, ElementTree.ParseError) as error:
        problem(f"gradebook.xml does not parse: {error}")

    # What the merge refuses.
    refusals = [
        ([work / "piece-1", work / "piece-2"], "shard 3 of 3 is missing"),
        ([work / "piece-1", work / "piece-2", work / "piece-2"], "are both shard 2/3"),
    ]
    run(grade + [work / "other-seed", "--shard", "3/3"] + common[:-4] + ["--seed", "12", "-j", "2"])
    refusals.append(([work / "piece-1", work / "piece-2", work / "other-seed"], "another seed"))
    other_build = work / "other-build"
    shutil.copytree(work / "piece-3", other_build)
    data = json.loads((other_build / "gradebook.json").read_text())
    data["build"] = "0" * 64
    (other_build / "gradebook.json").write_text(json.dumps(data))
    refusals.append(([work / "piece-1", work / "piece-2", other_build], "another build"))
    refusals.append(([work / "piece-1", work / "nothing-here"], "no gradebook to merge"))
    for pieces_given, sentence in refusals:
        result = run([args.grader, "merge", work / "refused"] + pieces_given, expect=2)
        if sentence not in result.stderr:
            problem(f"merge of {[p.name for p in pieces_given]}: expected '{sentence}' in "
                    f"{result.stderr!r}")
    print(f"check_grade_pieces: {len(problems)} problems; whole and merged gradebooks "
          f"{'equal' if whole == merged else 'differ'}; vector_add.add's limit {limit:g} s")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
