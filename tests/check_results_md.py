"""check_results_md.py: docs/results.md is what scripts/report.py makes of the kept runs.

Usage: check_results_md.py --page docs/results.md --runs docs/results/runs

Makes the page again (report.py render --markdown-only) from every folder of --runs that holds a
run.json, in name order, into a temporary file, and fails (exit 1) when it differs from --page:
the first differing lines are printed, and the command that makes the page again. So a figure
typed into the page by hand, a run added or changed without the page, or a generator changed
without the page all fail.
"""
import argparse
import difflib
import subprocess
import sys
import tempfile
from pathlib import Path

PROGRAM = "check_results_md.py"
ROOT = Path(__file__).resolve().parent.parent


def main():
    parser = argparse.ArgumentParser(prog=PROGRAM, description=__doc__.split("\n")[0])
    parser.add_argument("--page", required=True, help="the committed page (docs/results.md)")
    parser.add_argument("--runs", required=True, help="the folder of the kept runs")
    options = parser.parse_args()
    page = Path(options.page)
    runs = sorted(p.parent for p in Path(options.runs).glob("*/run.json"))
    if not page.is_file() or not runs:
        print(f"{PROGRAM}: error: need {page} and run folders (NAME/run.json) in {options.runs}",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        made = Path(scratch) / "results.md"
        process = subprocess.run([sys.executable, str(ROOT / "scripts" / "report.py"), "render",
                                  "--markdown-only", "--results-md", str(made),
                                  *map(str, runs)], capture_output=True, text=True)
        if process.returncode != 0 or not made.is_file():
            print(f"{PROGRAM}: report.py failed (exit {process.returncode}): "
                  f"{process.stderr.strip()}", file=sys.stderr)
            return 1
        expected = made.read_text().splitlines(keepends=True)
    actual = page.read_text().splitlines(keepends=True)
    if actual == expected:
        print(f"{PROGRAM}: {page} is what report.py makes of {len(runs)} runs "
              f"({', '.join(r.name for r in runs)})")
        return 0
    diff = list(difflib.unified_diff(expected, actual, "made from the runs", str(page), n=0))
    sys.stdout.writelines(diff[:40])
    if len(diff) > 40:
        print(f"... ({len(diff) - 40} more diff lines)")
    rel = [str(r.resolve().relative_to(ROOT)) if r.resolve().is_relative_to(ROOT) else str(r)
           for r in runs]
    print(f"{PROGRAM}: {page} differs from what report.py makes of the kept runs: do not edit it "
          f"by hand; make it again with\n  /usr/bin/python3 scripts/report.py render "
          f"--markdown-only --results-md docs/results.md {' '.join(rel)}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
