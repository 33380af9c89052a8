#!/usr/bin/env python3
"""grade.py: grades a class's exercises into a gradebook (scripts/grade.sh and `opencl-labs grade`
run it).

SUBMISSIONS holds one folder per student (with --student, it is one student's folder, such as a
GitHub Classroom repository). A student hands in each exercise's kernel under the name the
skeletons and start-here.md give (my_vector_add.cl; the suite's own name, vector_add.cl, is
accepted too), in their folder or one folder down. Every exercise the build lists
(build/exercises.tsv, written by lab_exercise) is graded from a private copy of the student's file:

- the file must be the student's own text: a symbolic link, a file outside the student's folder
  and any #include are refused with a sentence; a byte-order mark and CRLF line ends are accepted;
- the lab runs it at three sizes the grader draws for this grading from --seed (recorded in the
  gradebook, so a grade reproduces): odd sizes, checked under Oclgrind as well (data races and
  accesses out of bounds); one above a work-group or tile; and a large one.
  The exercise passes when every run passes. The printed command in a skeleton is a way to test,
  not the grade;
- each run is a process of its own, in a folder of its own, with a time limit, so a kernel that
  does not build, hangs or crashes becomes a row and nothing more. The lab writes its JSON report
  to a file of its own (LAB_REPORT_FILE), apart from the output a kernel's printf may fill; every
  run's output is kept in OUT/logs/STUDENT/EXERCISE.log. -j N grades N exercises side by side
  (default: the cores this process may use); the gradebook is the same whatever N.

The suite's own kernels run first at the same sizes (the odd ones under Oclgrind's check too): a
size they fail at stops the grading (exit 3). Their times set each exercise's time limit: ten
times the slowest of its reference runs (scaled by the runs side by side per reference run),
rounded up to whole 5 s, and at least 10 s (--time-limit sets one limit for all). A grading's
limits are a timing: pieces of a class graded on other machines may differ in them, and so in
the sentence of a run that hit one.

The runs share PoCL kernel caches, one per worker: the suite's kernels are compiled once per
worker, not once per student, and so is any text that several students hand in (a compiled kernel
is found by a hash of its preprocessed source, so nothing of one student's can stand in for
another's).

A class can be graded in pieces: --shard I/N grades every Nth student from the Ith (the roster is
the sorted folder names), and `merge OUT PIECE...` joins the pieces' gradebooks into one, the same
as a grading in one piece, refusing pieces of another build, exercise list, seed or roster.
--slurm submits the pieces as a Slurm job array and the merge as a job that runs after all of
them (docs/instructor/README.md).

OUT (default SUBMISSIONS/gradebook) receives gradebook.csv, gradebook.json and gradebook.xml
(JUnit: a test suite per student, a test case per exercise): student, exercise, the file graded
and its SHA-256, passed, the sentence, the sizes, Oclgrind's verdict, the students who handed in
the same text (comments and white space aside), and the log. Exit 0 once every submission is
graded (whatever the students' results; with --student, 1 when an exercise graded failed), 2 for a
bad command line (or pieces that do not belong together), 3 when the labs cannot be run (or
Oclgrind is missing and --no-oclgrind was not given).

--host grades the host-program exercises too (vector_add.host, vector_add.map, transfers.pinned,
transfers.pipeline: the student's C++ host program, my_vector_add_host.cpp, my_vector_add_map.cpp,
my_vector_add_pinned.cpp and my_vector_add_pipeline.cpp), and --only may name them; how they are
graded is in scripts/grade_host.py.
"""

import argparse
import csv
import hashlib
import json
import math
import os
import random
import re
import shutil
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ElementTree
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from hand_in import logical_lines, read_hand_in

EXIT_WRONG = 1
EXIT_USAGE = 2
EXIT_RUNTIME = 3
# The command as the user typed it: `opencl-labs grade` sets LAB_GRADE_COMMAND.
COMMAND = os.environ.get("LAB_GRADE_COMMAND") or "grade.sh"
# A run's time limit: this many times the suite's kernel's time at the same size, and at least
# MIN_LIMIT seconds (a loaded machine, a slower but right kernel).
LIMIT_FACTOR = 10
MIN_LIMIT = 10


def fail(code, message):
    print(f"{COMMAND}: error: {message}", file=sys.stderr)
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


def printed_sizes(args, option):
    """The values the exercise's printed command gives `option` (10,7 as [10, 7]), or []."""
    for i, word in enumerate(args[:-1]):
        if word == option:
            try:
                return [int(v) for v in args[i + 1].split(",")]
            except ValueError:
                return []
    return []


def draw_sizes(exercise, rng):
    """The three runs of one exercise: (name, {option: value}, checked under Oclgrind). The odd
    sizes are never the printed command's own, so a size copied from it into a bound fails."""
    odd, edge, large = {}, {}, {}
    for option, specs in exercise["vary"].items():
        printed = printed_sizes(exercise["args"], option)
        values = []
        for field, (e, s, _) in enumerate(specs):
            value = odd_between(rng, e, s)
            for _ in range(100):
                if field >= len(printed) or value != printed[field]:
                    break
                value = odd_between(rng, e, s)
            values.append(str(value))
        odd[option] = ",".join(values)
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


# A directive on a compiler's own macro (__SPIR__, __OPENCL_VERSION__, __x86_64__, ...) lets a
# kernel tell Oclgrind's simulator from the device, and behave only while it is watched.
RESERVED_TEST = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|define)\b.*?\b(__(?!attribute__)\w+__)")


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
    """One run in `workdir`: (exit code, JSON report or None, its stderr, its stdout, seconds)."""
    env = dict(os.environ)
    report_file = Path(workdir) / "report.json"
    report_file.unlink(missing_ok=True)
    env.update({
        "LAB_TIME_LIMIT": f"{time_limit:g}",
        "POCL_CACHE_DIR": str(cache),
        "LAB_TUNING_CACHE": str(Path(workdir) / "tuning.json"),
        "LAB_REPORT_FILE": str(report_file),
        "LAB_OCLGRIND_CHECK": "on" if check else "off",
    })
    for name in ("LAB_KERNEL_DIR", "OPENCL_LABS_COMMAND", "LAB_OCLGRIND_TIME_LIMIT"):
        env.pop(name, None)
    Path(cache).mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
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
        killed = f"{COMMAND}: the run did not end within {limit:g} s and was killed"
    seconds = time.monotonic() - started
    report = None
    try:
        report = json.loads(report_file.read_text())
    except (OSError, ValueError):
        pass
    # The lab's messages are on stderr; stdout holds the table and whatever a kernel's printf
    # wrote, so only stderr is read for the sentence.
    err = err.decode(errors="replace") + (killed + "\n" if killed else "")
    return (1 if killed else process.returncode), report, err, out.decode(errors="replace"), seconds


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


def worker_cache(caches):
    """The PoCL kernel cache of the worker thread that calls it: shared by every run that worker
    makes, never by two runs at once (PoCL before 6.0 can fail a build when two processes write
    one program into one cache together)."""
    return caches / f"worker-{threading.get_ident()}"


def grade_exercise(student, e, plan, bin_dir, scratch, caches, logs, out_dir, seed, time_limit,
                   check):
    """One student's row for one exercise: the hand-in found, refused or graded at each size."""
    exercise = f"{e['lab']}.{e['name']}"
    row = {"student": student.name, "exercise": exercise, "file": "", "sha256": "",
           "passed": False, "sentence": "", "sizes": "", "oclgrind": "", "same_as": "",
           "log": "", "exit": "", "other_files": "", "similarity": "", "seconds": 0.0}
    text = read_hand_in(student, e["kernel"], row, "a kernel")
    if text is None:
        return row
    name = Path(row["file"]).name
    why = check_text(text, row["file"])
    if why:
        row["sentence"] = why
        return row
    row["similarity"] = similarity_key(text)
    # The private copy, under the name the student gave it.
    work = scratch / "students" / student.name / exercise
    work.mkdir(parents=True, exist_ok=True)
    (work / name).write_text(text)
    log_lines = []
    row["passed"] = True
    for run, sizes, checked in plan:
        command = with_sizes(e["args"], sizes) + ["--reps", "1", "--warmup", "0", "--seed",
                                                  str(seed), "--kernel-file", name]
        code, report, output, printed, seconds = run_lab(bin_dir / e["lab"], command, work,
                                                         worker_cache(caches), time_limit,
                                                         checked and check)
        row["seconds"] += seconds
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
    row["seconds"] = round(row["seconds"], 2)
    log = logs / student.name / f"{exercise}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("".join(log_lines))
    row["log"] = str(log.relative_to(out_dir))
    return row


def host_futures(args, pool, students, scratch, caches, logs, out_dir, rng, check, limits):
    """The host exercises' rows as futures of `pool` (--host, or --only naming them): the shim
    built, the suite's solutions graded first (a failure stops the grading, exit 3)."""
    if not args.host_exercises:
        return []
    import grade_host
    try:
        shim = grade_host.build_shim(Path(__file__).resolve().parent / "grade_host_shim.c",
                                     scratch)
    except RuntimeError as error:
        fail(EXIT_RUNTIME, str(error))
    # Each exercise's runs; without Oclgrind's check (--no-oclgrind), those on the device only.
    host_plans = {f"{e['lab']}.{e['name']}": [run for run in grade_host.draw_sizes(rng)
                                              if check or not run[2]]
                  for e in args.host_exercises}
    args.host_sizes.update({name: {"runs": grade_host.sizes_text(plan)}
                            for name, plan in host_plans.items()})
    why, host_limits = grade_host.reference(args.host_exercises, host_plans, scratch, shim,
                                            worker_cache(caches), args.time_limit)
    if why:
        pool.shutdown(cancel_futures=True)
        fail(EXIT_RUNTIME, why)
    for name, limit in host_limits.items():
        limits[tuple(name.split(".", 1))] = limit
    return [pool.submit(lambda s, e: grade_host.grade_exercise(
        s, e, host_plans[f"{e['lab']}.{e['name']}"], scratch, shim, worker_cache(caches), logs,
        out_dir, host_limits[f"{e['lab']}.{e['name']}"]), student, e)
            for student in students for e in args.host_exercises]


def build_identity(exercises_file, bin_dir, kernels_dir, exercises):
    """A hash of what decides a grade besides the hand-in: the exercise list, the grader, the
    labs graded and the suite's kernels. Pieces of one class graded with different builds never
    merge."""
    digest = hashlib.sha256(exercises_file.read_bytes())
    digest.update(Path(__file__).read_bytes())  # the grader: how sizes are drawn, rows made
    # how hand-ins are read, and how host programs are graded
    for part in ("hand_in.py", "grade_host.py", "grade_host_shim.c"):
        if (Path(__file__).parent / part).is_file():
            digest.update((Path(__file__).parent / part).read_bytes())
    for lab in sorted({e["lab"] for e in exercises}):
        digest.update(lab.encode() + b"\0" + (bin_dir / lab).read_bytes())
    for kernel in sorted(kernels_dir.glob("*.cl")):
        digest.update(kernel.name.encode() + b"\0" + kernel.read_bytes())
    return digest.hexdigest()


def roster_of(submissions, out_dir, single):
    """(students, skipped): the student folders in SUBMISSIONS, sorted by name, and the entries
    that are not one, with why."""
    if single:
        return [submissions], []
    students, skipped = [], []
    for entry in sorted(submissions.iterdir()):
        if entry.resolve() in (out_dir, *out_dir.parents) or (entry / "gradebook.json").is_file():
            continue  # a gradebook, or a folder that holds one (checked to hold no kernels)
        if entry.is_symlink():
            skipped.append((entry.name, "a symbolic link, not a student's own folder"))
        elif not entry.is_dir():
            skipped.append((entry.name, "not a folder (each student's files go in a folder of "
                                        "their own)"))
        else:
            students.append(entry)
    return students, skipped


def parse_shard(text):
    """--shard I/N as (I, N), 1 <= I <= N."""
    match = re.fullmatch(r"(\d+)/(\d+)", text or "")
    if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
        fail(EXIT_USAGE, f"--shard takes I/N with 1 <= I <= N (3/8: the third of eight pieces), "
                         f"not {text!r}")
    return int(match.group(1)), int(match.group(2))


def same_as_column(rows, suite_keys):
    """Fills each row's same_as: the others who handed in the same text for the exercise
    (comments and white space aside), the suite's own kernel first."""
    groups = {}
    for row in rows:
        if row["similarity"]:
            groups.setdefault((row["exercise"], row["similarity"]), []).append(row["student"])
    for row in rows:
        key = row["similarity"]
        if not key:
            row["same_as"] = ""
            continue
        same = [s for s in groups[(row["exercise"], key)] if s != row["student"]]
        if key in suite_keys:
            same.insert(0, suite_keys[key])
        row["same_as"] = " ".join(same)


def write_junit(path, rows):
    """JUnit XML: one test suite per student, one test case per exercise; a failed exercise is a
    <failure> with the sentence, its log named in <system-out>."""
    suites = ElementTree.Element("testsuites", name="gradebook", tests=str(len(rows)),
                                 failures=str(sum(1 for r in rows if not r["passed"])))
    by_student = {}
    for row in rows:
        by_student.setdefault(row["student"], []).append(row)
    for student, student_rows in by_student.items():
        suite = ElementTree.SubElement(
            suites, "testsuite", name=student, tests=str(len(student_rows)),
            failures=str(sum(1 for r in student_rows if not r["passed"])),
            time=f"{sum(r['seconds'] for r in student_rows):.2f}")
        for row in student_rows:
            case = ElementTree.SubElement(suite, "testcase", classname=student,
                                          name=row["exercise"], time=f"{row['seconds']:.2f}")
            if not row["passed"]:
                failure = ElementTree.SubElement(case, "failure", message=row["sentence"])
                failure.text = row["sentence"]
            if row["log"]:
                ElementTree.SubElement(case, "system-out").text = f"log: {row['log']}"
    ElementTree.indent(suites)
    ElementTree.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


# The CSV's columns: the JSON's, without what varies from one grading to the next (seconds) or
# serves only to merge pieces (similarity).
CSV_FIELDS = ["student", "exercise", "file", "sha256", "passed", "sentence", "sizes", "oclgrind",
              "same_as", "log", "exit", "other_files"]


def write_gradebook(out_dir, meta, rows, suite_keys):
    """gradebook.csv, gradebook.json and gradebook.xml in `out_dir`."""
    same_as_column(rows, suite_keys)
    with open(out_dir / "gradebook.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    (out_dir / "gradebook.json").write_text(
        json.dumps(dict(meta, suite_keys=suite_keys, rows=rows), indent=2) + "\n")
    write_junit(out_dir / "gradebook.xml", rows)


def summary(students, exercises, seed, rows, out_dir):
    passed = sum(1 for r in rows if r["passed"])
    copies = sum(1 for r in rows if r["same_as"])
    print(f"{COMMAND}: {students} students, {exercises} exercises, seed {seed}: {passed} of "
          f"{len(rows)} passed; {copies} hand-ins share their text with another; gradebook in "
          f"{out_dir}/gradebook.csv, .json and .xml", flush=True)


def prepare(args):
    """What a grading needs before the first student: the paths, the exercise list, the roster."""
    submissions = Path(args.submissions)
    if not submissions.is_dir():
        what = "the student's folder" if args.student else ("the folder that holds one folder "
                                                            "per student")
        fail(EXIT_USAGE, f"{submissions} is not a folder: give {what}")
    submissions = submissions.resolve()
    bin_dir = Path(args.bin).resolve()  # the labs run in folders of their own
    exercises_file = (Path(args.exercises) if args.exercises
                      else bin_dir.parent / "exercises.tsv").resolve()
    kernels_dir = (Path(args.kernels) if args.kernels else bin_dir / "kernels").resolve()
    if not exercises_file.is_file():
        fail(EXIT_RUNTIME, f"no exercise list at {exercises_file}: build the suite first "
                           "(scripts/build.sh)")
    exercises = read_exercises(exercises_file)
    args.host_exercises, args.host_sizes = [], {}
    if getattr(args, "host", False) or args.only:
        import grade_host  # the host-program exercises (scripts/grade_host.py)
        names = set(args.only.split(",")) if args.only else set()
        args.host_exercises = grade_host.wanted(names, getattr(args, "host", False))
    if args.only:
        wanted = set(args.only.split(",")) - {f"{e['lab']}.{e['name']}"
                                              for e in args.host_exercises}
        unknown = wanted - {f"{e['lab']}.{e['name']}" for e in exercises}
        if unknown:
            fail(EXIT_USAGE, f"--only: no exercise named {', '.join(sorted(unknown))} (the "
                             f"exercises are listed in {exercises_file})")
        exercises = [e for e in exercises if f"{e['lab']}.{e['name']}" in wanted]
    if not exercises and not args.host_exercises:
        fail(EXIT_USAGE, "nothing to grade: --only names no exercise")
    for e in exercises:
        if not (bin_dir / e["lab"]).is_file():
            fail(EXIT_RUNTIME, f"no lab {e['lab']} in {bin_dir}: build the suite first")
        if not (kernels_dir / e["kernel"]).is_file():
            fail(EXIT_RUNTIME, f"no kernel {e['kernel']} in {kernels_dir}: build the suite "
                               "first, or give --kernels")
    # With --slurm the nodes grade, and it is theirs to have Oclgrind (the tasks check).
    if not args.no_oclgrind and not args.slurm and shutil.which("oclgrind") is None:
        fail(EXIT_RUNTIME, "Oclgrind is not installed, so races and stray accesses would go "
                           "unseen: install it (scripts/setup.sh), or grade without it with "
                           "--no-oclgrind")
    out_dir = (Path(args.out) if args.out else submissions / "gradebook").resolve()
    if out_dir.is_dir() and (any(out_dir.glob("*.cl")) or any(out_dir.glob("*/*.cl"))):
        fail(EXIT_USAGE, f"{out_dir} holds kernel files, as a student's folder would: give the "
                         f"gradebook another place ({COMMAND} {args.submissions} OUT)")
    return submissions, bin_dir, exercises_file, kernels_dir, exercises, out_dir


def grade(args):
    submissions, bin_dir, exercises_file, kernels_dir, exercises, out_dir = prepare(args)
    shard, shards = parse_shard(args.shard) if args.shard else (1, 1)
    if args.student and args.shard:
        fail(EXIT_USAGE, "--shard splits a class: it does not go with --student")
    if args.shard and not args.out:
        fail(EXIT_USAGE, "--shard needs its own OUT (each piece in a folder of its own, "
                         f"joined by `{COMMAND} merge`): {COMMAND} SUBMISSIONS OUT --shard I/N")
    everyone, skipped = roster_of(submissions, out_dir, args.student)
    for name, why in skipped:
        print(f"{COMMAND}: skipped {name}: {why}", flush=True)
    if not everyone:
        fail(EXIT_USAGE, f"{submissions} holds no student folders")
    students = everyone[shard - 1::shards]
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
        # The PoCL kernel caches, one per worker (see the top of this file).
        caches = scratch / "pocl-caches"
        pool = ThreadPoolExecutor(max_workers=args.jobs)

        # The suite's own kernels at the drawn sizes, the odd ones through Oclgrind's check as a
        # student's are: proof that the sizes are fair, and the times the limits are sized from.
        # Done once per grading, -j at a time, by the workers that grade the students (so each
        # worker's cache holds the suite's kernels before its first student).
        def reference(e):
            """(why the suite's kernel fails one of the exercise's runs or None, the slowest
            run's seconds)."""
            slowest = 0.0
            for run, sizes, checked in plans[(e["lab"], e["name"])]:
                work = scratch / "reference" / f"{e['lab']}.{e['name']}" / run
                work.mkdir(parents=True, exist_ok=True)
                command = with_sizes(e["args"], sizes) + ["--reps", "1", "--warmup", "0",
                                                          "--seed", str(seed)]
                if checked and check:
                    command += ["--kernel-file", str(kernels_dir / e["kernel"])]
                code, report, output, _, seconds = run_lab(
                    bin_dir / e["lab"], command, work, worker_cache(caches),
                    args.time_limit or 300, checked and check)
                slowest = max(slowest, seconds)
                state = (report or {}).get("grading", {}).get("oclgrind", {}).get("state")
                if code != 0 or (checked and check and state != "clean"):
                    return (f"the suite's own kernel fails {e['lab']}.{e['name']} at "
                            f"{sizes_text(sizes)} (seed {seed}), so no student could pass "
                            f"it:\n{output}"), slowest
            return None, slowest

        # A student's run shares the machine with jobs - 1 others; the references shared it with
        # fewer when there are fewer exercises than jobs, and their times are scaled by that.
        load = args.jobs / max(1, min(args.jobs, len(exercises)))
        limits, reference_seconds = {}, {}
        for e, (why, slowest) in zip(exercises, pool.map(reference, exercises)):
            if why:
                pool.shutdown(cancel_futures=True)
                fail(EXIT_RUNTIME, why)
            # In whole 5 s, so that gradings of one class (pieces of it on other nodes) mostly
            # agree on it; a hang's sentence names it.
            name = f"{e['lab']}.{e['name']}"
            reference_seconds[name] = round(slowest, 2)
            limits[(e["lab"], e["name"])] = args.time_limit or max(
                MIN_LIMIT, 5 * math.ceil(LIMIT_FACTOR * slowest * load / 5))

        # Every (student, exercise) is graded apart (its own folder and processes), -j at a time;
        # the rows keep the roster's order, so the gradebook does not depend on -j.
        tasks = [(student, e) for student in students for e in exercises]
        futures = [pool.submit(grade_exercise, student, e, plans[(e["lab"], e["name"])],
                               bin_dir, scratch, caches, logs, out_dir, seed,
                               limits[(e["lab"], e["name"])], check)
                   for student, e in tasks]
        futures += host_futures(args, pool, students, scratch, caches, logs, out_dir, rng, check,
                                limits)
        for future in as_completed(futures):
            row = future.result()
            mark = "PASSED" if row["passed"] else "FAILED"
            # One student (a Classroom run) reads the whole sentence; a class, a line each.
            sentence = row["sentence"] if args.student else row["sentence"][:100]
            print(f"{row['student']:16} {row['exercise']:28} {mark}  {sentence}", flush=True)
        rows = [future.result() for future in futures]
        pool.shutdown()

    suite_keys = {}
    for e in exercises:
        suite_keys[similarity_key((kernels_dir / e["kernel"]).read_text())] = (
            f"the suite's {e['kernel']}")
    # The rows in the roster's order, each student's kernel exercises, then host exercises.
    order = {f"{e['lab']}.{e['name']}": i for i, e in enumerate(exercises + args.host_exercises)}
    place = {s.name: i for i, s in enumerate(students)}
    rows.sort(key=lambda r: (place[r["student"]], order[r["exercise"]]))
    meta = {
        "seed": seed, "oclgrind": check, "students": len(students),
        "exercises": [f"{e['lab']}.{e['name']}" for e in exercises + args.host_exercises],
        "sizes": {**{f"{lab}.{name}": {run: sizes_text(sizes) for run, sizes, _ in plan}
                     for (lab, name), plan in plans.items()}, **args.host_sizes},
        "time_limits": {f"{lab}.{name}": limit for (lab, name), limit in limits.items()},
        "reference_seconds": reference_seconds, "load": load,
        "skipped": [{"entry": n, "why": w} for n, w in skipped],
        "build": build_identity(exercises_file, bin_dir, kernels_dir, exercises),
        "roster": hashlib.sha256("\n".join(s.name for s in everyone).encode()).hexdigest(),
        "roster_size": len(everyone), "shard": f"{shard}/{shards}",
        "seconds": round(time.monotonic() - started, 1), "jobs": args.jobs,
        "host": os.uname().nodename,
    }
    write_gradebook(out_dir, meta, rows, suite_keys)
    summary(len(students), len(exercises) + len(args.host_exercises), seed, rows, out_dir)
    if not check:
        print(f"{COMMAND}: graded without Oclgrind (--no-oclgrind): races and stray accesses "
              "went unchecked", flush=True)
    if args.student and not all(r["passed"] for r in rows):
        return EXIT_WRONG
    return 0


# What every piece of one class must share, and what it is called in a refusal.
MERGE_KEYS = {"build": "build of the suite", "exercises": "exercise list", "seed": "seed",
              "sizes": "set of sizes", "oclgrind": "Oclgrind setting", "roster": "roster"}
# What a piece's gradebook.json must hold to be merged, and of what type.
PIECE_SHAPE = {"build": str, "exercises": list, "seed": int, "sizes": dict, "oclgrind": bool,
               "roster": str, "roster_size": int, "shard": str, "students": int, "rows": list,
               "skipped": list, "seconds": (int, float), "time_limits": dict}
ROW_KEYS = {"student", "exercise", "passed", "sentence", "similarity", "seconds", "log"}


def merge(args):
    """`merge OUT PIECE...`: the pieces' gradebooks joined into one in OUT."""
    out_dir = Path(args.out).resolve()
    pieces = []
    for piece in args.pieces:
        path = Path(piece)
        book = path / "gradebook.json" if path.is_dir() else path
        try:
            data = json.loads(book.read_text())
        except (OSError, ValueError) as error:
            fail(EXIT_USAGE, f"{piece}: no gradebook to merge ({error}): give the folders the "
                             "pieces were graded into")
        wrong = [key for key, kind in PIECE_SHAPE.items()
                 if not isinstance(data, dict) or not isinstance(data.get(key), kind)]
        if not wrong and not re.fullmatch(r"\d+/\d+", data["shard"]):
            wrong = ["shard"]
        if not wrong and any(not isinstance(r, dict) or not ROW_KEYS <= r.keys()
                             or r["exercise"] not in data["exercises"] for r in data["rows"]):
            wrong = ["rows"]
        if wrong:
            fail(EXIT_USAGE, f"{piece}: not a piece of a class ({', '.join(wrong)} missing or "
                             "malformed in its gradebook.json; a whole grading, or one from an "
                             "older grader?): grade the piece again with --shard I/N")
        if book.parent.resolve() == out_dir:
            fail(EXIT_USAGE, f"{piece} is OUT itself: merge into another folder")
        pieces.append((piece, book.parent, data))
    if out_dir.exists() and not out_dir.is_dir():
        fail(EXIT_USAGE, f"{args.out} is a file: give a folder for the merged gradebook")
    first_name, _, first = pieces[0]
    for name, _, data in pieces[1:]:
        for key, what in MERGE_KEYS.items():
            if data[key] != first[key]:
                fail(EXIT_USAGE, f"{name} was graded with another {what} than {first_name}: "
                                 "pieces of one class must come from one grading command "
                                 "(--slurm, or the same --seed and build for every --shard)")
    shards = {int(data["shard"].split("/")[1]) for _, _, data in pieces}
    if len(shards) != 1:
        fail(EXIT_USAGE, "the pieces split the class in different numbers of shards: grade them "
                         "with one --shard I/N count")
    count = shards.pop()
    seen = {}
    for name, _, data in pieces:
        index = int(data["shard"].split("/")[0])
        if index in seen:
            fail(EXIT_USAGE, f"{name} and {seen[index]} are both shard {index}/{count}")
        seen[index] = name
    missing = [str(i) for i in range(1, count + 1) if i not in seen]
    if missing:
        fail(EXIT_USAGE, f"shard {', '.join(missing)} of {count} is missing: grade it "
                         f"(--shard I/{count}) and merge again")
    # The rows in the order one grading would give: the roster's, then the exercise list's.
    order = {name: i for i, name in enumerate(first["exercises"])}
    rows = sorted((row for _, _, data in pieces for row in data["rows"]),
                  key=lambda r: (r["student"], order[r["exercise"]]))
    out_dir.mkdir(parents=True, exist_ok=True)
    logs = out_dir / "logs"
    shutil.rmtree(logs, ignore_errors=True)
    for _, folder, _ in pieces:
        if (folder / "logs").is_dir():
            shutil.copytree(folder / "logs", logs, dirs_exist_ok=True)
    skipped = {(s["entry"], s["why"]) for _, _, data in pieces for s in data["skipped"]}
    meta = {key: first[key] for key in ("seed", "oclgrind")}
    meta.update({
        "students": sum(data["students"] for _, _, data in pieces),
        "exercises": first["exercises"], "sizes": first["sizes"],
        "time_limits": first["time_limits"],
        "skipped": [{"entry": n, "why": w} for n, w in sorted(skipped)],
        "build": first["build"], "roster": first["roster"], "roster_size": first["roster_size"],
        "shard": "1/1", "seconds": max(data["seconds"] for _, _, data in pieces),
        "pieces": [{"shard": data["shard"], "students": data["students"],
                    "seconds": data["seconds"], "host": data.get("host", ""),
                    "time_limits": data["time_limits"]}
                   for _, _, data in sorted(pieces,
                                            key=lambda p: int(p[2]["shard"].split("/")[0]))],
    })
    write_gradebook(out_dir, meta, rows, first.get("suite_keys", {}))
    summary(meta["students"], len(first["exercises"]), first["seed"], rows, out_dir)
    return 0


def quoted(words):
    return shlex.join(str(w) for w in words)


def submit_slurm(args):
    """--slurm: the class as a job array of --tasks shards and a merge job after all of them."""
    submissions, bin_dir, exercises_file, kernels_dir, exercises, out_dir = prepare(args)
    if args.student or args.shard:
        fail(EXIT_USAGE, "--slurm grades a whole class: it does not go with --student or --shard")
    sbatch = shutil.which("sbatch")
    if sbatch is None:
        fail(EXIT_RUNTIME, "sbatch is not on the PATH: run this on a machine that submits to "
                           "your Slurm cluster (a login node), or grade here without --slurm")
    everyone, _ = roster_of(submissions, out_dir, False)
    if not everyone:
        fail(EXIT_USAGE, f"{submissions} holds no student folders")
    tasks = min(args.tasks, len(everyone))
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10**9)

    # The paths as given, made absolute but not resolved: a login node's real mount points may
    # not be the compute nodes'.
    def place(path):
        return Path(os.path.abspath(path))
    out = place(args.out) if args.out else place(args.submissions) / "gradebook"
    slurm = out / "slurm"
    # A new submission starts clean: no earlier gradebook or piece may pass for this one's.
    shutil.rmtree(out / "pieces", ignore_errors=True)
    for old in ("gradebook.csv", "gradebook.json", "gradebook.xml"):
        (out / old).unlink(missing_ok=True)
    shutil.rmtree(slurm, ignore_errors=True)
    slurm.mkdir(parents=True)
    pieces = out / "pieces"
    common = ["--bin", place(args.bin), "--exercises", place(exercises_file),
              "--kernels", place(kernels_dir), "--seed", seed]
    if args.only:
        common += ["--only", args.only]
    if args.no_oclgrind:
        common.append("--no-oclgrind")
    if args.host:
        common.append("--host")
    if args.time_limit:
        common += ["--time-limit", args.time_limit]
    python, grader = sys.executable, place(__file__)
    where = [f"--partition={args.partition}"] if args.partition else []
    extra = [word for arg in args.sbatch_arg for word in shlex.split(arg)]
    gpus = ([f"--gpus={args.gpus}"] if args.gpus else []) + (
        [f"--gres={args.gres}"] if args.gres else [])

    def directives(options):
        return "".join(f"#SBATCH {shlex.quote(o)}\n" for o in options)

    # Each task grades the shard its array index names, with as many runs side by side as the
    # CPUs Slurm gave it. The options are in the scripts, so a shard resubmits alone with
    # `sbatch --array=I grade-shard.sh`.
    (slurm / "grade-shard.sh").write_text(
        "#!/usr/bin/env bash\n"
        + directives(["--job-name=grade", f"--cpus-per-task={args.cpus}",
                      f"--time={args.slurm_time}", f"--chdir={slurm}",
                      f"--output={slurm}/shard-%a.log"] + where + gpus + extra)
        + f"# One task of the array: shard SLURM_ARRAY_TASK_ID of {tasks} (grade.py --slurm).\n"
        "set -euo pipefail\n"
        "shard=$SLURM_ARRAY_TASK_ID\n"
        f"exec {quoted([python, grader, place(args.submissions)])} "
        f"{shlex.quote(str(pieces))}/shard-$shard "
        f"--shard \"$shard/{tasks}\" -j \"${{SLURM_CPUS_PER_TASK:-1}}\" {quoted(common)}\n")
    (slurm / "merge.sh").write_text(
        "#!/usr/bin/env bash\n"
        + directives(["--job-name=grade-merge", "--cpus-per-task=1", "--time=0:30:00",
                      f"--chdir={slurm}", f"--output={slurm}/merge.log"] + where + extra)
        + "# After every task: the shards joined into one gradebook (grade.py --slurm).\n"
        "set -euo pipefail\n"
        f"exec {quoted([python, grader, 'merge', out])} "
        f"{' '.join(shlex.quote(str(pieces)) + f'/shard-{i}' for i in range(1, tasks + 1))}\n")
    job = run_sbatch([sbatch, "--parsable", f"--array=1-{tasks}", str(slurm / "grade-shard.sh")])
    try:
        merge_job = run_sbatch([sbatch, "--parsable", f"--dependency=afterok:{job}",
                                "--kill-on-invalid-dep=yes", str(slurm / "merge.sh")])
    except SystemExit:
        subprocess.run([shutil.which("scancel") or "scancel", job], capture_output=True)
        print(f"{COMMAND}: cancelled the job array {job}, which no merge would follow",
              file=sys.stderr)
        raise
    print(f"{COMMAND}: submitted {len(everyone)} students in {tasks} shards as job array {job} "
          f"(tasks 1-{tasks}, seed {seed}) and the merge as job {merge_job}, which runs once all "
          f"of them end well (afterok); the gradebook will be {out}/gradebook.csv, task I's "
          f"output {slurm}/shard-I.log. Follow them with: squeue -j {job},{merge_job}",
          flush=True)
    print(f"job array: {job}\nmerge job: {merge_job}", flush=True)
    return 0


def run_sbatch(command):
    """The job id sbatch --parsable prints (ID or ID;CLUSTER)."""
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        fail(EXIT_RUNTIME, f"sbatch refused the job ({result.stderr.strip() or result.returncode})"
                           f": {quoted(command)}")
    return result.stdout.strip().split(";")[0]


def main():
    if sys.version_info < (3, 9):
        fail(EXIT_RUNTIME, f"the grader needs Python 3.9 or later, not {sys.version.split()[0]}")
    try:
        command_line()
    except (OSError, ValueError, KeyError, TypeError) as error:
        # Exit 1 is a wrong kernel (--student): anything unforeseen is the grader's own failure.
        fail(EXIT_RUNTIME, f"the grading stopped: {type(error).__name__}: {error}")


def command_line():
    if len(sys.argv) > 1 and sys.argv[1] == "merge":
        parser = argparse.ArgumentParser(
            prog=f"{COMMAND} merge",
            description="Join the gradebooks of a class graded in pieces (--shard I/N) into one.")
        parser.add_argument("out", help="where the merged gradebook goes")
        parser.add_argument("pieces", nargs="+", help="the folders the pieces were graded into")
        sys.exit(merge(parser.parse_args(sys.argv[2:])))
    parser = argparse.ArgumentParser(
        prog=COMMAND,
        description="Grade a class: SUBMISSIONS/STUDENT/my_KERNEL.cl for every exercise. "
                    f"`{COMMAND} merge OUT PIECE...` joins a class graded in pieces.")
    parser.add_argument("submissions", help="a folder with one folder per student (with "
                                            "--student, one student's folder)")
    parser.add_argument("out", nargs="?", help="where the gradebook goes "
                                               "(default SUBMISSIONS/gradebook)")
    parser.add_argument("--bin", default=str(Path(__file__).resolve().parent.parent / "build"
                                             / "bin"), help="the labs (default build/bin)")
    parser.add_argument("--exercises", help="the exercise list (default BIN/../exercises.tsv)")
    parser.add_argument("--kernels", help="the suite's kernels (default BIN/kernels)")
    parser.add_argument("--only", help="grade these exercises only: LAB.NAME[,LAB.NAME]")
    parser.add_argument("--seed", type=int, help="the seed the sizes are drawn from (default: a "
                                                 "new one, recorded in the gradebook)")
    parser.add_argument("--time-limit", type=float,
                        help="seconds one run may take (default: ten times the suite's kernel's "
                             "time at the same sizes, at least 10)")
    parser.add_argument("-j", "--jobs", type=int, default=len(os.sched_getaffinity(0)) or 1,
                        help="exercises graded side by side (default: the cores this process "
                             "may use)")
    parser.add_argument("--no-oclgrind", action="store_true",
                        help="grade without Oclgrind's check (races and stray accesses unseen)")
    parser.add_argument("--host", action="store_true",
                        help="grade the host-program exercises too (my_vector_add_host.cpp, "
                             "my_vector_add_map.cpp, my_vector_add_pinned.cpp, "
                             "my_vector_add_pipeline.cpp; scripts/grade_host.py)")
    parser.add_argument("--student", action="store_true",
                        help="SUBMISSIONS is one student's folder (a GitHub Classroom "
                             "repository); exit 1 when an exercise fails")
    parser.add_argument("--shard", metavar="I/N",
                        help="grade the Ith of N pieces of the roster (every Nth student from "
                             "the Ith); join them with merge")
    slurm = parser.add_argument_group("Slurm (--slurm submits instead of grading here)")
    slurm.add_argument("--slurm", action="store_true",
                       help="submit the class as a job array of --tasks shards and a merge job "
                            "that runs after all of them")
    slurm.add_argument("--tasks", type=int, default=4, help="shards, one per array task "
                                                            "(default 4)")
    slurm.add_argument("--partition", help="the partition the jobs go to (default: the "
                                           "cluster's default)")
    slurm.add_argument("--slurm-time", default="2:00:00",
                       help="each task's time limit, as sbatch --time takes it (default 2:00:00)")
    slurm.add_argument("--cpus", type=int, default=4,
                       help="CPUs per task, and runs side by side in it (default 4)")
    slurm.add_argument("--gpus", help="GPUs per task (sbatch --gpus), for grading on the GPU "
                                      "nodes' device; the merge job asks for none")
    slurm.add_argument("--gres", help="generic resources per task (sbatch --gres, gpu:1 on "
                                      "clusters that name GPUs so); the merge job asks for none")
    slurm.add_argument("--sbatch-arg", action="append", default=[],
                       help="more sbatch options for every job, the merge's too, as one string "
                            "(--sbatch-arg '--account=gpu101 --qos=short'); repeatable")
    args = parser.parse_intermixed_args()  # options before, between or after the folders
    if args.time_limit is not None and args.time_limit <= 0:
        fail(EXIT_USAGE, "--time-limit must be above 0")
    if args.jobs < 1:
        fail(EXIT_USAGE, "-j must be 1 or more")
    if args.seed is not None and args.seed < 0:
        fail(EXIT_USAGE, "--seed must be 0 or more")
    if args.tasks < 1 or args.cpus < 1:
        fail(EXIT_USAGE, "--tasks and --cpus must be 1 or more")
    if args.slurm:
        sys.exit(submit_slurm(args))
    sys.exit(grade(args))


if __name__ == "__main__":
    main()
