#!/usr/bin/env python3
"""Every measured figure a handout or a guide quotes comes from the kept runs.

The files are those scripts/handout_figures.py fills: the handouts (labs/NN_NAME/README.md) and
its DOCS, the instructor's answer key (docs/instructor/answers.md) and the guides in docs/
(docs/instructor/README.md, start-here.md, reference.md, testing.md, adding-a-lab.md). Not
docs/results.md, which scripts/report.py makes whole from the same runs (tests/check_results_md.py
checks it). README.md is scanned too.

A console sample (what a command prints, shown so a reader knows what to expect) is one run's
output, not a claim: it sits between `<!-- sample:begin device="NAME" -->` and
`<!-- sample:end -->`, is exempt from (b), and must name its device: the sample's own `Device:`
line has to contain NAME, so a sample cannot pass off one machine's figures as another's.

README.md is also held to README_LINES lines: a front door read in two minutes, with the figures
in docs/results.md.

(a) scripts/handout_figures.py --check: each generated block matches docs/results/runs/.
(b) Outside the generated blocks, no file holds a measured-looking figure: a number followed by
    GB/s, GFLOP/s, TFLOP/s, GOP/s or MB/s, a percentage, an "N.Nx" speed-up, a time in us, µs or
    ms, or a duration in s, seconds, minutes or hours (how long a run, a grading or the test
    suite took on one machine is a measurement too). Each one found is named as file:line.

A figure that is not a measurement (a target, a limit or rule the code sets, a number a driver
reports, arithmetic from the lab's model) is allowed only through ALLOWED below: the file, the
exact text around the figure, and why it is not a measurement. Keep the list short; a measured
figure belongs in a generated block, and arithmetic reads as well in words ("half the copy").

    check_handout_figures.py --root REPO
"""
import argparse
import importlib.util
import pathlib
import re
import subprocess
import sys

# (file, text containing the figure, why it is not a measurement)
ALLOWED = [
    ("labs/02_vector_add/README.md", "Below 10 us", "the lab's rule for a launch too short to measure"),
    ("labs/02_vector_add/README.md", "20 us on NVIDIA", "the same rule: 20 ticks of NVIDIA's timer"),
    ("labs/12_vector_types/README.md", "Copies under 10 us", "the lab's rule for a copy too short to compare"),
    ("labs/10_events/README.md", "at least 30 ms", "the lab's rule: the shortest hold of a user event"),
    ("labs/08_profiling/README.md", "NVIDIA's in 1 us", "a timer resolution the driver reports, not a timing"),
    ("labs/08_profiling/README.md", "to within 5%", "a target the question sets"),
    ("labs/05_reduction/README.md", "default 300 s", "a setting: LAB_TIME_LIMIT's default"),
    ("docs/instructor/answers.md", "one tick is a 5% step in a kernel 20 ticks long",
     "arithmetic: one tick over twenty"),
    ("docs/instructor/answers.md",
     "at least 10 us or 20 ticks, whichever is longer: 10 us on PoCL, 20 us on the H100 (1 us ticks)",
     "the lab's rule (lab::too_short_to_compare) with each device's reported timer resolution"),
    ("docs/instructor/answers.md",
     "within 5% a kernel must last 20 ticks at least: 20 ns on PoCL, 20 us on NVIDIA",
     "the question's target and the same arithmetic on the reported resolutions"),
    ("docs/start-here.md", "did not finish within 300 s", "the message LAB_TIME_LIMIT's default gives"),
    ("docs/reference.md", "The check gets 30 s", "a setting: LAB_OCLGRIND_TIME_LIMIT's default"),
    ("docs/reference.md", "rounded up to whole 5 s, at least 10 s", "the grader's rule for its limits"),
    ("docs/adding-a-lab.md", "y = 2x + 1", "a formula, the template lab's operation"),
]

README_LINES = 150

UNITS = r"(?:GB/s|GFLOP/s|TFLOP/s|GOP/s|MB/s)"
NUMBER = r"(?<![\w.])[0-9][0-9,]*(?:\.[0-9]+)?"
FIGURE = re.compile(
    rf"{NUMBER}\s*{UNITS}"  # a rate
    rf"|{NUMBER}\s*%"  # a percentage
    rf"|{NUMBER}(?:\s*-\s*[0-9.]+)?x\b"  # a speed-up, 3.4x or 1.0-1.8x
    rf"|{NUMBER}\s*(?:us|µs|ms)\b"  # a time
    rf"|{NUMBER}\s+(?:s|seconds?|min|minutes?|hours?)\b"  # a duration
)
BEGIN = re.compile(r"^<!-- figures:begin .* -->\s*$")
END = "<!-- figures:end -->"
SAMPLE_BEGIN = re.compile(r'^<!-- sample:begin device="([^"]+)" -->\s*$')
SAMPLE_END = "<!-- sample:end -->"


def documents(root):
    """The files to scan: scripts/handout_figures.py's own list, so that both cover the same."""
    spec = importlib.util.spec_from_file_location("handout_figures",
                                                  root / "scripts" / "handout_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.documents(root)


def stray_figures(root):
    found = []
    for handout in documents(root):
        rel = handout.relative_to(root).as_posix()
        if not handout.exists():
            found.append(f"{rel}: listed in DOCS (scripts/handout_figures.py) but missing")
            continue
        allowed = [text for path, text, _ in ALLOWED if path == rel]
        inside = False
        sample = None  # (line number, device named, whether its Device: line names it)
        for number, line in enumerate(handout.read_text().splitlines(), 1):
            if BEGIN.match(line):
                inside = True
                continue
            if line.strip() == END:
                inside = False
                continue
            if inside:
                continue
            begin = SAMPLE_BEGIN.match(line)
            if begin:
                sample = [number, begin.group(1), False]
                continue
            if line.strip() == SAMPLE_END and sample is not None:
                if not sample[2]:
                    found.append(f"{rel}:{sample[0]}: the sample names device {sample[1]!r} but "
                                 "its output has no `Device:` line containing it")
                sample = None
                continue
            if sample is not None:
                if line.startswith("Device:") and sample[1] in line:
                    sample[2] = True
                continue
            for match in FIGURE.finditer(line):
                if any(text in line and match.group(0) in text for text in allowed):
                    continue
                found.append(f"{rel}:{number}: '{match.group(0).strip()}' looks measured; "
                             "put it in a generated block (scripts/handout_figures.py) or "
                             "take it out")
        if sample is not None:
            found.append(f"{rel}:{sample[0]}: a sample block without `{SAMPLE_END}`")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parent.parent)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    root = args.root.resolve()

    check = subprocess.run([args.python, str(root / "scripts" / "handout_figures.py"), "--check"],
                           cwd=root, capture_output=True, text=True)
    sys.stderr.write(check.stderr)
    stray = stray_figures(root)
    for line in stray:
        print(line, file=sys.stderr)
    readme_lines = len((root / "README.md").read_text().splitlines())
    if readme_lines > README_LINES:
        stray.append(f"README.md: {readme_lines} lines, more than {README_LINES}: move detail "
                     "into docs/ and link it")
    unused = [(p, t) for p, t, _ in ALLOWED
              if not (root / p).exists() or t not in (root / p).read_text()]
    for path, text in unused:
        print(f"{path}: the allow-list entry {text!r} matches nothing: remove it", file=sys.stderr)
    if check.returncode != 0 or stray or unused:
        print(f"check_handout_figures: {'blocks differ from the kept runs; ' if check.returncode else ''}"
              f"{len(stray)} figure(s) outside generated blocks", file=sys.stderr)
        return 1
    print("check_handout_figures: every block matches the kept runs, no figure outside them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
