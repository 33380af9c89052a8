#!/usr/bin/env python3
"""check_classroom.py: keeps the GitHub Classroom workflow (docs/instructor/classroom.yml) from
rotting unseen. GitHub runs it only in a course's repositories, so this test checks it here:

1. its shape, as GitHub and the Classroom's actions read it: triggers, permissions, one job on a
   hosted Ubuntu runner; every step either `uses` an action or `run`s commands; a grading step per
   exercise the build lists (build/exercises.tsv), each once, through the Classroom's command
   grader with a test name, a command, a timeout and a score; the reporter last, its runners and
   its <ID>_RESULTS variables naming exactly those steps; with check-jsonschema installed, also
   against GitHub's workflow schema;
2. its commands, in order, as the runner would run them, on a sample student repository (the
   suite's kernels as the student's files, with one exercise left as its skeleton): the `run`
   steps through bash with the workflow's env (and LAB_SKIP_SETUP=1: the test run installed the
   packages already), the grading steps' commands through sh with only
   PATH and HOME, as the command grader runs them, each within its timeout. The one step not run
   as written is the suite's fetch (id `suite`, a git clone from the network): $HOME/opencl-labs
   is this source tree instead. Every exercise must pass but the skeleton's, which must fail
   with its sentence, and the points must add up.

Usage: check_classroom.py --workflow docs/instructor/classroom.yml --source DIR --build DIR
       WORK
Exit 0 when it all holds, 1 when not, 77 (skipped) when PyYAML is missing.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

try:
    import yaml
except ImportError:
    print("check_classroom: PyYAML is not installed (scripts/setup.sh installs python3-yaml)")
    sys.exit(77)

GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"
STEP_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
problems = []


def problem(text):
    problems.append(text)
    print(f"check_classroom: {text}")


def check_shape(workflow, exercises):
    """The workflow's structure; the grading steps as (id, exercise, command, minutes, score)."""
    for key in ("name", "on", "permissions", "jobs"):
        if key not in workflow:
            problem(f"the workflow has no '{key}'")
    on = workflow.get("on", [])
    if "push" not in (on if isinstance(on, (list, dict)) else [on]):
        problem("the workflow does not run on push")
    if workflow.get("permissions", {}).get("checks") != "write":
        problem("the reporter needs permissions: checks: write")
    jobs = workflow.get("jobs", {})
    if len(jobs) != 1:
        problem(f"expected one job, found {len(jobs)}")
        return []
    job = next(iter(jobs.values()))
    if not str(job.get("runs-on", "")).startswith("ubuntu-"):
        problem(f"runs-on is {job.get('runs-on')!r}, not a hosted Ubuntu runner")
    steps = job.get("steps", [])
    ids, graders = set(), []
    for number, step in enumerate(steps, 1):
        where = f"step {number} ({step.get('name', 'unnamed')})"
        if ("uses" in step) == ("run" in step):
            problem(f"{where}: a step has either uses or run, not {'both' if 'uses' in step else 'neither'}")
        if "id" in step:
            if not STEP_ID.match(step["id"]) or step["id"] in ids:
                problem(f"{where}: id {step['id']!r} is not a valid, unique step id")
            ids.add(step["id"])
        if step.get("uses") == GRADER:
            given = step.get("with", {})
            for key in ("test-name", "command", "timeout", "max-score"):
                if key not in given:
                    problem(f"{where}: the command grader needs '{key}'")
            if "id" not in step:
                problem(f"{where}: a grading step needs an id for the reporter")
                continue
            only = re.search(r"--only (\S+)", str(given.get("command", "")))
            if not only:
                problem(f"{where}: the command grades no one exercise (--only LAB.NAME)")
                continue
            if not 0 < float(given.get("timeout", 0)) <= 360:
                problem(f"{where}: timeout is minutes, 1 to 360")
            graders.append((step["id"], only.group(1), given["command"],
                            float(given.get("timeout", 10)), int(given.get("max-score", 0))))
    graded = [g[1] for g in graders]
    if sorted(graded) != sorted(exercises) or len(set(graded)) != len(graded):
        problem(f"the grading steps grade {graded}, the build lists {exercises}: one step per "
                "exercise, each once")
    reporter = steps[-1] if steps else {}
    if reporter.get("uses") != REPORTER:
        problem(f"the last step is not the reporter ({REPORTER})")
    else:
        runners = str(reporter.get("with", {}).get("runners", "")).split(",")
        if runners != [g[0] for g in graders]:
            problem(f"the reporter's runners {runners} are not the grading steps' ids")
        env = reporter.get("env", {})
        for step_id, *_ in graders:
            want = f"${{{{steps.{step_id}.outputs.result}}}}"
            if env.get(f"{step_id.upper()}_RESULTS", "").replace(" ", "") != want:
                problem(f"the reporter's env has no {step_id.upper()}_RESULTS: \"{want}\"")
    return steps, graders


def schema_check(path):
    tool = shutil.which("check-jsonschema")
    if tool is None:
        print("check_classroom: check-jsonschema is not installed: GitHub's workflow schema "
              "not checked (pip install check-jsonschema to add it)")
        return
    result = subprocess.run([tool, "--builtin-schema", "vendor.github-workflows", str(path)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        problem(f"GitHub's workflow schema rejects it:\n{result.stdout}{result.stderr}")
    else:
        print("check_classroom: GitHub's workflow schema (check-jsonschema): ok")


def sample_repository(repo, kernels, skeletons, exercises_rows, wrong_kernel):
    """The student's repository: each exercised kernel as my_KERNEL.cl, one as its skeleton."""
    repo.mkdir(parents=True)
    (repo / ".github" / "workflows").mkdir(parents=True)
    for kernel in sorted({row[2] for row in exercises_rows}):
        source = (skeletons if kernel == wrong_kernel else kernels) / kernel
        shutil.copyfile(source, repo / f"my_{kernel}")


def run_steps(steps, graders, workflow_env, source, home, repo):
    """The steps in order, as the runner runs them; (points, possible, failed exercises)."""
    # The runner installs packages through sudo; here the test run already did (scripts/test.sh),
    # and setup.sh must not stop to ask for a password.
    env = dict(os.environ, HOME=str(home), LAB_SKIP_SETUP="1",
               **{k: str(v) for k, v in workflow_env.items()})
    grading = {g[0]: g for g in graders}
    points = possible = 0
    failed = {}
    for step in steps:
        name = step.get("name", step.get("id", "?"))
        if step.get("id") == "suite":
            (home / "opencl-labs").symlink_to(source, target_is_directory=True)
            print(f"check_classroom: step '{name}': $HOME/opencl-labs is {source}")
        elif "run" in step:
            print(f"check_classroom: step '{name}'", flush=True)
            result = subprocess.run(["bash", "-eo", "pipefail", "-c", step["run"]], cwd=repo,
                                    env=env)
            if result.returncode != 0:
                problem(f"step '{name}' exited {result.returncode}")
                return points, possible, failed
        elif step.get("id") in grading:
            step_id, exercise, command, minutes, score = grading[step["id"]]
            # As the command grader runs it: sh, with PATH and HOME only.
            try:
                result = subprocess.run(command, shell=True, cwd=repo, capture_output=True,
                                        text=True, timeout=minutes * 60,
                                        env={"PATH": os.environ["PATH"], "HOME": str(home)})
                code, output = result.returncode, result.stdout + result.stderr
            except subprocess.TimeoutExpired:
                code, output = "timeout", ""
            possible += score
            if code == 0:
                points += score
            else:
                failed[exercise] = output
            print(f"check_classroom: {exercise}: exit {code}, {score if code == 0 else 0} of "
                  f"{score} points", flush=True)
    return points, possible, failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("work")
    parser.add_argument("--workflow", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--build", required=True)
    args = parser.parse_args()
    source, build, work = Path(args.source).resolve(), Path(args.build), Path(args.work)
    if build.resolve() != source / "build":
        # The workflow builds the default preset, source/build: another build's labs would not
        # be the ones graded.
        print(f"check_classroom: skipped: {build} is not {source / 'build'}, the build the "
              "workflow's steps make")
        sys.exit(77)
    rows = [line.split("\t") for line in (build / "exercises.tsv").read_text().splitlines()
            if line.strip()]
    exercises = [f"{r[0]}.{r[1]}" for r in rows]
    workflow = yaml.safe_load(Path(args.workflow).read_text())
    # YAML 1.1 reads an unquoted `on:` as True.
    if True in workflow:
        problem("the key 'on' must be quoted (\"on\":), or YAML reads it as true")
    steps, graders = check_shape(workflow, exercises)
    schema_check(Path(args.workflow))
    if problems:
        sys.exit(1)

    shutil.rmtree(work, ignore_errors=True)
    home, repo = work / "home", work / "student"
    home.mkdir(parents=True)
    wrong = "vector_add.cl"  # vector_add.add and profiling.add both grade it
    sample_repository(repo, build / "bin" / "kernels", build / "bin" / "exercises", rows, wrong)
    points, possible, failed = run_steps(steps, graders, workflow.get("env", {}), source, home,
                                         repo)
    must_fail = {f"{r[0]}.{r[1]}" for r in rows if r[2] == wrong}
    if set(failed) != must_fail:
        for exercise, output in failed.items():
            print(f"--- {exercise}:\n{output[-3000:]}")
        problem(f"failed: {sorted(failed)}; expected exactly {sorted(must_fail)} (the skeleton)")
    for exercise in must_fail & set(failed):
        # The skeleton writes nothing: its sentence is a mismatch on the first element.
        if "mismatch c[0]" not in failed[exercise]:
            problem(f"{exercise} failed without saying why:\n{failed[exercise][-2000:]}")
    lost = sum(g[4] for g in graders if g[1] in must_fail)
    if points != possible - lost:
        problem(f"{points} of {possible} points; expected {possible - lost}")
    print(f"check_classroom: {points} of {possible} points for the sample repository "
          f"({len(must_fail)} exercises left as the skeleton)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
