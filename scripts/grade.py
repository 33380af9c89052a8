#!/usr/bin/env python3
"""grade.py: grades a class's exercises into a gradebook (scripts/grade.sh runs it).

SUBMISSIONS holds one folder per student. A student hands in each exercise's kernel under the name
the skeletons and start-here.md give (my_vector_add.cl; the suite's own name, vector_add.cl, is
accepted too), in their folder or one folder down. Every exercise the build lists
(build/exercises.tsv, written by lab_exercise) is graded from a private copy of the student's file:

- the file must be the student's own text: a symbolic link, a file outside the student's folder
  and any #include are refused with a sentence; a byte-order mark and CRLF line ends are accepted;
- the lab runs it at three sizes the grader draws for this grading from --seed (recorded in the
  gradebook, so a grade reproduces): odd sizes, checked under Oclgrind as well (data races and
  accesses out of bounds); one above a work-group or tile; and a large one.
  The exercise passes when every run passes. The printed command in a skeleton is a way to test,
  not the grade;
- each run is a process of its own, in a folder of its own, with its own PoCL kernel cache and a
  time limit, so a kernel that does not build, hangs or crashes becomes a row and nothing more.
  The lab writes its JSON report to a file of its own (LAB_REPORT_FILE), apart from the output a
  kernel's printf may fill; every run's output is kept in OUT/logs/STUDENT/EXERCISE.log. -j N
  grades N exercises side by side (default: the machine's cores); the gradebook is the same
  whatever N.

The suite's own kernels run first at the same sizes (the odd ones under Oclgrind's check too): a
size they fail at stops the grading (exit 3).

OUT (default SUBMISSIONS/gradebook) receives gradebook.csv and gradebook.json: student, exercise,
the file graded and its SHA-256, passed, the sentence, the sizes, Oclgrind's verdict, the students
who handed in the same text (comments and white space aside), and the log. Exit 0 once every
submission is graded (whatever the students' results), 2 for a bad command line, 3 when the labs
cannot be run (or Oclgrind is missing and --no-oclgrind was not given).
"""

import argparse
import csv
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

EXIT_USAGE = 2
EXIT_RUNTIME = 3
BOM = b"\xef\xbb\xbf"


def fail(code, message):
    print(f"grade.sh: error: {message}", file=sys.stderr)
    sys.exit(code)


def read_exercises(path):
    """The exercises the build lists: lab, name, kernel, args, and the sizes VARY lets change."""
    exercises = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        lab, name, kernel, args, _match, vary = (line.split("\t") + [""] * 6)[:6]
        exercises.append({"lab": lab, "name": name, "kernel": kernel, "args": args.split(),
                          "vary": parse_vary(vary, f"{lab}.{name}")})
    return exercises


def parse_vary(text, exercise):
    """VARY's OPTION=EDGE:SMALL:LARGE[,EDGE:SMALL:LARGE] words as {option: [(edge, small, large)]}."""
    vary = {}
    for word in text.split():
        option, _, fields = word.partition("=")
        try:
            vary[option] = [tuple(int(v) for v in field.split(":")) for field in fields.split(",")]
        except ValueError:
            fail(EXIT_RUNTIME, f"the exercise list's sizes for {exercise} are malformed ({word}): "
                               "rebuild the suite")
        if not fields or any(len(spec) != 3 for spec in vary[option]):
            fail(EXIT_RUNTIME, f"the exercise list's sizes for {exercise} are malformed ({word}): "
                               "rebuild the suite")
    if not vary:
        fail(EXIT_RUNTIME, f"the exercise list names no sizes to vary for {exercise}: rebuild the "
                           "suite (build/exercises.tsv is older than this grader)")
    return vary


def odd_between(rng, low, high):
    """An odd number in [low, high] (low itself when the range holds no odd one)."""
    value = rng.randint(low, max(low, high))
    if value % 2 == 0:
        value = value + 1 if value + 1 <= high else value - 1
    return max(low, value)


# The large run's sizes are multiples of this (even, and a whole number of every work-group and
# tile the exercises use: 64, 48, 32, 16, 8...), so a kernel right only at odd sizes, or only with
# a partial last group, fails there.
WHOLE_GROUPS = 192


def multiple_between(rng, low, high, step):
    """A multiple of `step` in [low, high] (the nearest one above low when none is inside)."""
    first = -(-low // step)
    return step * rng.randint(first, max(first, high // step))


def draw_sizes(exercise, rng):
    """The three runs of one exercise: (name, {option: value}, checked under Oclgrind)."""
    odd, edge, large = {}, {}, {}
    for option, specs in exercise["vary"].items():
        odd[option] = ",".join(str(odd_between(rng, e, s)) for e, s, _ in specs)
        edge[option] = ",".join(str(e) for e, _, _ in specs)
        large[option] = ",".join(str(multiple_between(rng, (l + 1) // 2, l, WHOLE_GROUPS))
                                 for _, _, l in specs)
    return [("odd", odd, True), ("edge", edge, False), ("large", large, False)]


def with_sizes(args, sizes):
    """`args` with each varied option's value replaced."""
    out = list(args)
    for i, word in enumerate(out[:-1]):
        if word in sizes:
            out[i + 1] = sizes[word]
    return out


def sizes_text(sizes):
    return " ".join(f"{option} {value}" for option, value in sizes.items())


def code_of(text):
    """OpenCL C without comments, string literals kept, for the checks and the similarity hash."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))  # keep line numbers
            i = end
        elif text[i] in "\"'":
            quote, j = text[i], i + 1
            while j < n and text[j] != quote and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def similarity_key(text):
    """The text's code with comments and all white space removed: equal keys, equal hand-ins."""
    return hashlib.sha256(re.sub(r"\s+", "", code_of(text)).encode()).hexdigest()


def find_hand_in(student, kernel):
    """(path, name, others) for the student's file for `kernel`: my_KERNEL or KERNEL, in the folder
    or one folder down (the shallowest wins, my_ first), and the other candidates it shadows; or
    (None, None, []). A folder that cannot be listed raises OSError."""
    names = [f"my_{kernel}", kernel]
    found = []
    for folder in [student] + sorted(p for p in student.iterdir() if p.is_dir()
                                     and not p.is_symlink()):
        for name in names:
            path = folder / name
            if path.is_symlink() or (path.exists() and not path.is_dir()):
                found.append((path, name))
    if not found:
        return None, None, []
    return found[0][0], found[0][1], [str(p.relative_to(student)) for p, _ in found[1:]]


def refuse(path, student):
    """Why the hand-in at `path` cannot be graded as the student's own text, or ""."""
    shown = path.relative_to(student)
    if path.is_symlink():
        return (f"{shown} is a symbolic link: hand in the file itself (a link to another file "
                "is not your text)")
    if not path.is_file():
        return f"{shown} is not a file"
    real = path.resolve()
    if student.resolve() not in real.parents:
        return f"{shown} lies outside your folder: hand in the file itself"
    return ""


def logical_lines(text):
    """(first line number, text) of each line as the preprocessor sees it: trigraphs and digraphs
    for '#' read as '#', lines continued with a backslash joined, each comment one space."""
    text = text.replace("??=", "#").replace("??/", "\\").replace("%:", "#")
    lines, current, start, number = [], [], 1, 1
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and text.startswith("\n", i + 1):
            i, number = i + 2, number + 1  # a continued line
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                if text[i] == "\\" and text.startswith("\n", i + 1):
                    i, number = i + 1, number + 1  # a comment continued onto the next line
                i += 1
            current.append(" ")
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            number += text.count("\n", i, end)
            current.append(" ")
            i = end
        elif c == "\n":
            lines.append((start, "".join(current)))
            current, number = [], number + 1
            start = number
            i += 1
        else:
            current.append(c)
            i += 1
    lines.append((start, "".join(current)))
    return lines


# A directive on a compiler's own macro (__SPIR__, __OPENCL_VERSION__, __x86_64__, ...) lets a
# kernel tell Oclgrind's simulator from the device, and behave only while it is watched.
RESERVED_TEST = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|define)\b.*?\b(__(?!attribute__)\w+__)")
MAX_HAND_IN_BYTES = 1 << 20


def check_text(text, name):
    """Why a hand-in's text cannot be graded, or "": an #include, a conditional on the compiler,
    nothing to grade."""
    for number, line in logical_lines(text):
        if re.match(r"\s*#\s*include\b", line):
            return (f"{name}:{number}: #include is not allowed in a hand-in (the grader builds "
                    "your file alone): paste the code you need into your file")
        reserved = RESERVED_TEST.match(line)
        if reserved:
            return (f"{name}:{number}: #{reserved.group(1)} with {reserved.group(2)} asks which "
                    "compiler or device builds the kernel: a hand-in must do the same wherever "
                    "it runs, so take it out")
    code = code_of(text)
    if not code.strip():
        return (f"{name} is empty: it holds no code; copy the skeleton into it and write the "
                "missing lines")
    if not re.search(r"\b(__kernel|kernel)\b", code):
        return (f"{name} defines no kernel (no __kernel function in it): copy the skeleton into "
                "it and write the missing lines")
    return ""


def run_lab(binary, args, workdir, cache, time_limit, check):
    """One run in `workdir`: (exit code, JSON report or None, its stderr, its stdout)."""
    env = dict(os.environ)
    report_file = Path(workdir) / "report.json"
    report_file.unlink(missing_ok=True)
    env.update({
        "LAB_TIME_LIMIT": str(time_limit),
        "POCL_CACHE_DIR": str(cache),
        "LAB_TUNING_CACHE": str(Path(workdir) / "tuning.json"),
        "LAB_REPORT_FILE": str(report_file),
        "LAB_OCLGRIND_CHECK": "on" if check else "off",
    })
    for name in ("LAB_KERNEL_DIR", "OPENCL_LABS_COMMAND"):
        env.pop(name, None)
    cache.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen([str(binary)] + args, cwd=workdir, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True)
    # The lab's own watch ends a run at the limit (and the Oclgrind check takes at most half of
    # that again); past that the whole group is ended here.
    limit = time_limit * 1.5 + 30
    killed = ""
    try:
        out, err = process.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        killed = f"grade.sh: the run did not end within {limit:g} s and was killed"
    report = None
    try:
        report = json.loads(report_file.read_text())
    except (OSError, ValueError):
        pass
    # The lab's messages are on stderr; stdout holds the table and whatever a kernel's printf
    # wrote, so only stderr is read for the sentence.
    err = err.decode(errors="replace") + (killed + "\n" if killed else "")
    return (1 if killed else process.returncode), report, err, out.decode(errors="replace")


def log_text(text, limit=1 << 20):
    """`text` for the log, cut after `limit` characters (a kernel's printf can write megabytes)."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters cut]\n"


def sentence_of(output, code, report, name, private):
    """The sentence that says why a run failed, from the lab's stderr (`output`) and its report,
    standing on its own: Oclgrind's finding, the first compiler error, the lab's error, the first
    mismatch."""
    grading = (report or {}).get("grading", {})
    oclgrind = grading.get("oclgrind", {})
    if oclgrind.get("state") == "failed" and oclgrind.get("problems"):
        return oclgrind.get("sentence", "Oclgrind found a problem")
    lines = [l.strip() for l in output.splitlines() if l.strip()]
    lines = [l.replace(private, name) for l in lines]
    compiler = [l for l in lines if re.search(r"\.cl:\d+:\d+: ", l) and "error" in l]
    if compiler and any("failed to build" in l for l in lines):
        # PoCL writes "error: FILE:L:C: what", other compilers "FILE:L:C: error: what".
        first = re.sub(r"^(?:fatal )?error: (\S+\.cl:\d+:\d+): ", r"\1: error: ", compiler[0])
        return f"{name} failed to build: {first}"
    errors = [l for l in lines if (": error: " in l or "OpenCL error" in l)
              and "checking" not in l]
    if errors:
        return errors[-1]
    mismatches = [l for l in lines if l.startswith("mismatch") or "elements wrong" in l
                  or l.startswith("wrong record")]
    if mismatches:
        return mismatches[0]
    notes = [l[len("note: "):] for l in lines if l.startswith("note: ")]
    if oclgrind.get("state") in ("failed", "unchecked"):
        return oclgrind.get("sentence", "Oclgrind could not check the kernel")
    for row in (report or {}).get("results", []):
        if row.get("status") == "FAILED" and row.get("notes"):
            return row["notes"][-1]
    if notes:
        return notes[-1]
    return f"exit {code} with no message (see the log)"


def grade_exercise(student, e, plan, bin_dir, scratch, logs, out_dir, seed, time_limit, check):
    """One student's row for one exercise: the hand-in found, refused or graded at each size."""
    exercise = f"{e['lab']}.{e['name']}"
    row = {"student": student.name, "exercise": exercise, "file": "", "sha256": "",
           "passed": False, "sentence": "", "sizes": "", "oclgrind": "", "same_as": "",
           "log": "", "exit": "", "other_files": "", "similarity": ""}
    try:
        path, name, others = find_hand_in(student, e["kernel"])
    except OSError as error:
        row["sentence"] = f"the folder cannot be read ({error.strerror}): hand in readable files"
        return row
    row["other_files"] = " ".join(others)
    if path is None:
        row["sentence"] = (f"no file my_{e['kernel']} in the submission (nor {e['kernel']}, nor "
                           "either one folder down)")
        return row
    row["file"] = str(path.relative_to(student))
    why = refuse(path, student)
    if why:
        row["sentence"] = why
        return row
    try:
        if path.stat().st_size > MAX_HAND_IN_BYTES:
            row["sentence"] = (f"{row['file']} holds {path.stat().st_size} bytes: a kernel is a "
                               f"few kilobytes (at most {MAX_HAND_IN_BYTES} bytes are graded)")
            return row
        data = path.read_bytes()
    except OSError as error:
        row["sentence"] = (f"{row['file']} cannot be read ({error.strerror}): hand in a readable "
                           "file")
        return row
    row["sha256"] = hashlib.sha256(data).hexdigest()
    if data.startswith(BOM):
        data = data[len(BOM):]
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    why = check_text(text, row["file"])
    if why:
        row["sentence"] = why
        return row
    row["similarity"] = similarity_key(text)
    # The private copy, under the name the student gave it.
    work = scratch / "students" / student.name / e["name"]
    work.mkdir(parents=True, exist_ok=True)
    (work / name).write_text(text)
    log_lines = []
    row["passed"] = True
    for run, sizes, checked in plan:
        command = with_sizes(e["args"], sizes) + ["--reps", "1", "--warmup", "0", "--seed",
                                                  str(seed), "--kernel-file", name]
        code, report, output, printed = run_lab(bin_dir / e["lab"], command, work, work / "cache",
                                                time_limit, checked and check)
        log_lines.append(f"== {run} run: {e['lab']} {' '.join(command)}\n== stderr\n"
                         f"{log_text(output)}== stdout\n{log_text(printed)}")
        grading = (report or {}).get("grading", {})
        if checked:
            row["oclgrind"] = grading.get("oclgrind", {}).get("state", "")
        passed = code == 0 and bool(grading.get("passed"))
        if checked and check and row["oclgrind"] != "clean":
            passed = False
        if not passed:
            row["passed"] = False
            row["exit"] = code
            row["sizes"] = sizes_text(sizes)
            row["sentence"] = (sentence_of(output, code, report, row["file"], str(work / name))
                               + f" (at {sizes_text(sizes)})")
            break
    if row["passed"]:
        row["exit"] = 0
        row["sentence"] = "PASSED"
        row["sizes"] = "; ".join(sizes_text(s) for _, s, _ in plan)
    log = logs / student.name / f"{exercise}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("".join(log_lines))
    row["log"] = str(log.relative_to(out_dir))
    return row


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
        unknown = wanted - {f"{e['lab']}.{e['name']}" for e in exercises}
        if unknown:
            fail(EXIT_USAGE, f"--only: no exercise named {', '.join(sorted(unknown))} (the "
                             f"exercises are listed in {exercises_file})")
        exercises = [e for e in exercises if f"{e['lab']}.{e['name']}" in wanted]
    for e in exercises:
        if not (bin_dir / e["lab"]).is_file():
            fail(EXIT_RUNTIME, f"no lab {e['lab']} in {bin_dir}: build the suite first")
    if not args.no_oclgrind and shutil.which("oclgrind") is None:
        fail(EXIT_RUNTIME, "Oclgrind is not installed, so races and stray accesses would go "
                           "unseen: install it (scripts/setup.sh), or grade without it with "
                           "--no-oclgrind")
    out_dir = (Path(args.out) if args.out else submissions / "gradebook").resolve()

    if out_dir.is_dir() and (any(out_dir.glob("*.cl")) or any(out_dir.glob("*/*.cl"))):
        fail(EXIT_USAGE, f"{out_dir} holds kernel files, as a student's folder would: give the "
                         f"gradebook another place (scripts/grade.sh {submissions} OUT)")
    students, skipped = [], []
    for entry in sorted(submissions.iterdir()):
        if entry.resolve() == out_dir:
            continue  # the gradebook itself (checked above to hold no student's files)
        if entry.is_symlink():
            skipped.append((entry.name, "a symbolic link, not a student's own folder"))
        elif not entry.is_dir():
            skipped.append((entry.name, "not a folder (each student's files go in a folder of "
                                        "their own)"))
        else:
            students.append(entry)
    for name, why in skipped:
        print(f"grade.sh: skipped {name}: {why}", flush=True)
    if not students:
        fail(EXIT_USAGE, f"{submissions} holds no student folders")
    out_dir.mkdir(parents=True, exist_ok=True)
    logs = out_dir / "logs"
    shutil.rmtree(logs, ignore_errors=True)

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10**9)
    rng = random.Random(seed)
    plans = {(e["lab"], e["name"]): draw_sizes(e, rng) for e in exercises}
    check = not args.no_oclgrind
    started = time.monotonic()
    rows = []
    with tempfile.TemporaryDirectory(prefix="grade-") as scratch:
        scratch = Path(scratch)
        # The suite's own kernels at the drawn sizes, the odd ones through Oclgrind's check as a
        # student's are: proof that the sizes are fair. Done once per grading, -j at a time.
        def reference(e):
            """Why the suite's kernel fails one of the exercise's runs, or None."""
            cache = scratch / "reference" / e["name"] / "cache"
            for run, sizes, checked in plans[(e["lab"], e["name"])]:
                work = scratch / "reference" / e["name"] / run
                work.mkdir(parents=True, exist_ok=True)
                command = with_sizes(e["args"], sizes) + ["--reps", "1", "--warmup", "0",
                                                          "--seed", str(seed)]
                if checked and check:
                    command += ["--kernel-file", str(bin_dir / "kernels" / e["kernel"])]
                code, report, output, _ = run_lab(bin_dir / e["lab"], command, work, cache,
                                                  args.time_limit, checked and check)
                state = (report or {}).get("grading", {}).get("oclgrind", {}).get("state")
                if code != 0 or (checked and check and state != "clean"):
                    return (f"the suite's own kernel fails {e['lab']}.{e['name']} at "
                            f"{sizes_text(sizes)} (seed {seed}), so no student could pass "
                            f"it:\n{output}")
            return None

        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for why in pool.map(reference, exercises):
                if why:
                    fail(EXIT_RUNTIME, why)

        # Every (student, exercise) is graded apart (its own folder, kernel cache and processes),
        # -j at a time; the rows keep the roster's order, so the gradebook does not depend on -j.
        tasks = [(student, e) for student in students for e in exercises]
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(grade_exercise, student, e, plans[(e["lab"], e["name"])],
                                   bin_dir, scratch, logs, out_dir, seed, args.time_limit, check)
                       for student, e in tasks]
            for future in as_completed(futures):
                row = future.result()
                mark = "PASSED" if row["passed"] else "FAILED"
                print(f"{row['student']:16} {row['exercise']:28} {mark}  "
                      f"{row['sentence'][:100]}", flush=True)
            rows = [future.result() for future in futures]

    # Students who handed in the same text for an exercise (comments and white space aside).
    suite_keys = {}
    for e in exercises:
        suite = bin_dir / "kernels" / e["kernel"]
        if suite.is_file():
            suite_keys[similarity_key(suite.read_text())] = f"the suite's {e['kernel']}"
    groups = {}
    for row in rows:
        if row["similarity"]:
            groups.setdefault((row["exercise"], row["similarity"]), []).append(row["student"])
    for row in rows:
        key = row.pop("similarity")
        if not key:
            continue
        same = [s for s in groups[(row["exercise"], key)] if s != row["student"]]
        if key in suite_keys:
            same.insert(0, suite_keys[key])
        row["same_as"] = " ".join(same)

    fields = list(rows[0].keys())
    with open(out_dir / "gradebook.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    plan_text = {f"{lab}.{name}": {run: sizes_text(sizes) for run, sizes, _ in plan}
                 for (lab, name), plan in plans.items()}
    (out_dir / "gradebook.json").write_text(json.dumps({
        "seed": seed, "oclgrind": check, "students": len(students), "exercises": len(exercises),
        "sizes": plan_text, "skipped": [{"entry": n, "why": w} for n, w in skipped],
        "seconds": round(time.monotonic() - started, 1), "rows": rows}, indent=2) + "\n")
    passed = sum(1 for r in rows if r["passed"])
    copies = sum(1 for r in rows if r["same_as"])
    print(f"grade.sh: {len(students)} students, {len(exercises)} exercises, seed {seed}: "
          f"{passed} of {len(rows)} passed; {copies} hand-ins share their text with another; "
          f"gradebook in {out_dir}/gradebook.csv and .json")
    if not check:
        print("grade.sh: graded without Oclgrind (--no-oclgrind): races and stray accesses went "
              "unchecked", flush=True)
    return 0


def main():
    parser = argparse.ArgumentParser(
        prog="scripts/grade.sh",
        description="Grade a class: SUBMISSIONS/STUDENT/my_KERNEL.cl for every exercise.")
    parser.add_argument("submissions", help="a folder with one folder per student")
    parser.add_argument("out", nargs="?", help="where the gradebook goes "
                                               "(default SUBMISSIONS/gradebook)")
    parser.add_argument("--bin", default=str(Path(__file__).resolve().parent.parent / "build"
                                             / "bin"), help="the labs (default build/bin)")
    parser.add_argument("--exercises", help="the exercise list (default BIN/../exercises.tsv)")
    parser.add_argument("--only", help="grade these exercises only: LAB.NAME[,LAB.NAME]")
    parser.add_argument("--seed", type=int, help="the seed the sizes are drawn from (default: a "
                                                 "new one, recorded in the gradebook)")
    parser.add_argument("--time-limit", type=float, default=60,
                        help="seconds one run may take (default 60)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                        help="exercises graded side by side (default: the machine's cores)")
    parser.add_argument("--no-oclgrind", action="store_true",
                        help="grade without Oclgrind's check (races and stray accesses unseen)")
    args = parser.parse_args()
    if args.time_limit <= 0:
        fail(EXIT_USAGE, "--time-limit must be above 0")
    if args.jobs < 1:
        fail(EXIT_USAGE, "-j must be 1 or more")
    if args.seed is not None and args.seed < 0:
        fail(EXIT_USAGE, "--seed must be 0 or more")
    sys.exit(grade(args))


if __name__ == "__main__":
    main()
