#!/usr/bin/env python3
"""check_tour.py: the launcher's tour as a reader sees it.

  check_tour.py layout OPENCL_LABS WIDTH     the tour (--quick) at COLUMNS=WIDTH
  check_tour.py no-device OPENCL_LABS        -d nosuchdevice: one line, exit 2
  check_tour.py list OPENCL_LABS             --list: the devices, exit 0

layout checks that the column titles and the rows line up: every row's variant, size, rate and
status start where their titles start, and its median ends where "median" ends (it is
right-aligned); that no line is wider than WIDTH, except a line holding one word longer than the
room left after its indent (a path, which is never cut), the one allowed case; that every
percentage names what it is a percentage of ("78% of copy kernel"); and that every lab passed.
Exit 0 when all hold, else 1 with what failed.
"""
import os
import re
import subprocess
import sys

STATUS = ("PASSED", "FAILED", "SKIPPED")


def run(command, width=None):
    env = dict(os.environ)
    if width is not None:
        env["COLUMNS"] = str(width)
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)


def fields(line):
    """(start, end) of each run of non-blank text, split at two or more spaces."""
    return [(m.start(), m.end()) for m in re.finditer(r"\S+(?: \S+)*", line)]


def check_layout(launcher, width):
    done = run([launcher, "--quick"], width)
    out = done.stdout
    problems = []
    if done.returncode != 0 or not re.search(r"labs: \d+ passed, 0 failed", out):
        problems.append(f"exit code {done.returncode}, not every lab passed\n{done.stderr}")
    lines = out.splitlines()
    header = next((i for i, l in enumerate(lines) if re.search(r"\bvariant\b.*\bstatus$", l)), None)
    if header is None:
        return problems + ["no header line (variant ... status)"]
    titles = {m.group(): (m.start(), m.end()) for m in re.finditer(r"\S+", lines[header])}
    wanted = ["variant", "size", "median", "rate", "status"]
    if width >= 110:
        wanted.insert(0, "lab")
    if list(titles) != wanted:
        problems.append(f"the header's columns are {list(titles)}, expected {wanted}")
        return problems
    rows = 0
    for number, line in enumerate(lines[header + 1:], header + 2):
        if not line.endswith(STATUS):
            continue
        rows += 1
        status = line.rfind(" ") + 1
        if status != titles["status"][0]:
            problems.append(f"line {number}: status at column {status}, "
                            f"the title at {titles['status'][0]}: {line!r}")
        # The row's fields: the text at each title's column (the median ends at its title's end)
        for name in wanted:
            start, end = titles[name]
            if name == "median":
                if len(line) < end or line[end - 1] == " " or line[end:end + 1] not in ("", " "):
                    problems.append(f"line {number}: no median ending at column {end}: {line!r}")
            elif line[start:start + 1] in ("", " ") or (start > 0 and line[start - 1] != " "):
                problems.append(f"line {number}: no {name} starting at column {start}: {line!r}")
    if rows < 14:
        problems.append(f"only {rows} result rows")
    for number, line in enumerate(lines, 1):
        if len(line) > width:
            words = line.split()
            indent = len(line) - len(line.lstrip(" "))
            if not (len(words) == 1 and len(words[0]) > width - indent):
                problems.append(f"line {number} is {len(line)} characters wide, more than "
                                f"{width}: {line!r}")
        # (a note wrapped after "of" names what on the next line)
        following = lines[number].strip() if number < len(lines) else ""
        for match in re.finditer(r"[0-9.]+%", line):
            if not re.match(r" of [A-Za-z]", line[match.end():] + " " + following):
                problems.append(f"line {number}: a percentage that does not say of what: {line!r}")
    return problems


def check_no_device(launcher):
    done = run([launcher, "--quick", "-d", "nosuchdevice"])
    problems = []
    if done.returncode != 2:
        problems.append(f"exit code {done.returncode}, expected 2 (a device that is not there)")
    if done.stdout:
        problems.append(f"it printed on stdout:\n{done.stdout}")
    lines = done.stderr.splitlines()
    if len(lines) != 1 or not re.search(
            r"error: no device name contains 'nosuchdevice'.*the (one device here is|\d+ devices "
            r"here are) \S", lines[0] if lines else ""):
        problems.append(f"not one line naming the device asked for and those there are:\n"
                        f"{done.stderr}")
    return problems


def check_list(launcher):
    done = run([launcher, "--list"])
    if done.returncode != 0 or not re.search(r"^Platform 0: .*\n  -d 0 ", done.stdout, re.M):
        return [f"--list: exit code {done.returncode}\n{done.stdout}{done.stderr}"]
    return []


def main():
    mode, launcher = sys.argv[1], sys.argv[2]
    if mode == "layout":
        problems = check_layout(launcher, int(sys.argv[3]))
    elif mode == "no-device":
        problems = check_no_device(launcher)
    elif mode == "list":
        problems = check_list(launcher)
    else:
        sys.exit(f"check_tour.py: unknown mode '{mode}'")
    for problem in problems[:20]:
        print(problem)
    if problems:
        print(f"check_tour.py {mode}: {len(problems)} problem(s)")
        return 1
    print(f"check_tour.py {mode}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
