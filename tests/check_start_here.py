#!/usr/bin/env python3
"""start-here.md's table of the labs, in order, names every lab and every exercise by the name the
grader uses (LAB.NAME): the kernel exercises of build/exercises.tsv, which lab_exercise() writes,
and the host-program exercises of scripts/grade_host.py. A lab or exercise the table lacks, or a
LAB.NAME in it that no exercise has, fails with one line naming it and the file to fix.

    check_start_here.py --page docs/start-here.md --exercises build/exercises.tsv --labs labs
"""
import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import grade_host  # noqa: E402  (the host exercises' names)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--page", required=True)
    parser.add_argument("--exercises", required=True)
    parser.add_argument("--labs", required=True)
    options = parser.parse_args()
    page = pathlib.Path(options.page)
    text = page.read_text()
    rows = [line for line in text.splitlines() if re.match(r"\| \d+ \| ", line)]
    labs = {re.sub(r"^\d+_", "", p.parent.name) for p in pathlib.Path(options.labs).glob(
        "[0-9]*/README.md")}
    in_table = {line.split("|")[2].strip() for line in rows}
    names = set()
    for line in pathlib.Path(options.exercises).read_text().splitlines():
        fields = line.split("\t")
        if len(fields) >= 2 and fields[0] and not line.startswith("#"):
            names.add(f"{fields[0]}.{fields[1]}")
    names |= set(grade_host.NAMES)
    named = set(re.findall(r"`([a-z_]+\.[a-z_]+)`", "\n".join(rows)))
    problems = [f"lab {lab} has no row in the table" for lab in sorted(labs - in_table)]
    problems += [f"exercise {name} is not named in the table" for name in sorted(names - named)]
    problems += [f"{name} is named in the table but is no exercise" for name in
                 sorted(named - names)]
    for problem in problems:
        print(f"check_start_here.py: {page}: {problem}")
    if problems:
        return 1
    print(f"check_start_here.py: {page} names {len(in_table)} labs and {len(names)} exercises")
    return 0


if __name__ == "__main__":
    sys.exit(main())
