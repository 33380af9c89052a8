#!/usr/bin/env python3
"""check_output.py: runs one lab command that prints --json or --csv and checks what it printed,
so a smoke test of an output option fails when the output is wrong, not only when the lab crashes.

  check_output.py --lab NAME [--variants 'a|b|c'] [--each PATH=VALUE]... [--top PATH=VALUE]...
                  -- LAB ARGS... (--json or --csv among ARGS)

Always: exit 0; the output parses (JSON, or CSV with the lab,device.name,variant,... header);
the lab is NAME; "passed" is true; at least one result; each result has the fields every row
must have (docs/result.schema.json: variant, size, size_label, status, notes) and status PASSED.
A CSV holds one row per result of the same command's --json twin (run with --csv replaced by
--json), in the same order.
--variants: the results are exactly these, in this order (every result present, no other); in
  an entry, '#' stands for a whole number ('memcpy # threads'), every other character for itself.
--each PATH=VALUE: every result has VALUE at the dotted PATH (size.m=20, time_s.runs=1); numbers
  compare as numbers. In a CSV, PATH is the column; a PATH the CSV has no column for, and every
  --top, is checked on the --json twin (the CSV has no element-type column, say).
--top PATH=VALUE: the JSON document has VALUE at PATH (details.dtype=int).
Every failed check is printed; exit 1 if any failed.
"""
import argparse
import csv
import io
import json
import re
import subprocess
import sys

ROW_FIELDS = ["variant", "size", "size_label", "status", "notes"]
CSV_FIRST_COLUMNS = ["lab", "device.name", "variant"]


def run(command):
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} exited with {done.returncode}\nstdout:\n{done.stdout}\n"
                 f"stderr:\n{done.stderr}")
    return done.stdout


def get(document, path):
    """The value at a dotted path, or KeyError naming the missing part."""
    value = document
    for part in path.split("."):
        if isinstance(value, list) and part.isdigit():
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            raise KeyError(part)
    return value


def same(actual, expected):
    """Whether a printed value is the expected text, numbers compared as numbers."""
    if isinstance(actual, bool):
        actual = "true" if actual else "false"
    try:
        return float(actual) == float(expected)
    except (TypeError, ValueError):
        return str(actual) == expected


def named(expected, variant):
    """Whether a variant's name is the expected one, '#' in it standing for a whole number."""
    pattern = "[0-9]+".join(re.escape(part) for part in expected.split("#"))
    return re.fullmatch(pattern, str(variant)) is not None


def pairs(items):
    out = []
    for item in items:
        path, sep, value = item.partition("=")
        if not sep:
            sys.exit(f"check_output.py: '{item}' must read PATH=VALUE")
        out.append((path, value))
    return out


def check_json(document, lab, each, top, problems):
    for field in ["lab", "passed", "results"]:
        if field not in document:
            problems.append(f"the JSON has no '{field}'")
            return []
    if document["lab"] != lab:
        problems.append(f"lab is '{document['lab']}', expected '{lab}'")
    if document["passed"] is not True:
        problems.append(f"passed is {document['passed']!r}, expected true")
    results = document["results"]
    if not isinstance(results, list) or not results:
        problems.append("results is empty: the run reported nothing")
        return []
    for k, row in enumerate(results):
        name = row.get("variant", f"result {k}")
        missing = [f for f in ROW_FIELDS if f not in row]
        if missing:
            problems.append(f"{name}: no {', '.join(missing)}")
        if row.get("status") != "PASSED":
            problems.append(f"{name}: status {row.get('status')!r}, expected PASSED")
        for path, value in each:
            try:
                actual = get(row, path)
            except KeyError:
                problems.append(f"{name}: no {path} (expected {value})")
                continue
            if not same(actual, value):
                problems.append(f"{name}: {path} is {actual!r}, expected {value}")
    for path, value in top:
        try:
            actual = get(document, path)
        except KeyError:
            problems.append(f"the JSON has no {path} (expected {value})")
            continue
        if not same(actual, value):
            problems.append(f"{path} is {actual!r}, expected {value}")
    return [row.get("variant") for row in results]


def check_csv(text, lab, each, problems):
    """Checks the rows; returns their variants and the --each checks the CSV has no column for."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or rows[0][:3] != CSV_FIRST_COLUMNS:
        problems.append(f"the first line is not the CSV header (lab,device.name,variant,...): "
                        f"{text.splitlines()[:1]}")
        return [], each
    header, body = rows[0], rows[1:]
    if not body:
        problems.append("the CSV has a header and no row")
    for k, row in enumerate(body):
        if len(row) != len(header):
            problems.append(f"row {k + 1} has {len(row)} columns, the header {len(header)}")
    body = [dict(zip(header, row)) for row in body if len(row) == len(header)]
    for row in body:
        name = row["variant"]
        if row["lab"] != lab:
            problems.append(f"{name}: lab column is '{row['lab']}', expected '{lab}'")
        if row.get("status") != "PASSED":
            problems.append(f"{name}: status {row.get('status')!r}, expected PASSED")
        for path, value in each:
            if path in row and not same(row[path], value):
                problems.append(f"{name}: column {path} is {row[path]!r}, expected {value}")
    return [row["variant"] for row in body], [(p, v) for p, v in each if p not in header]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lab", required=True)
    parser.add_argument("--variants", help="the results, 'a|b|c', in order")
    parser.add_argument("--each", action="append", default=[])
    parser.add_argument("--top", action="append", default=[])
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    each, top = pairs(options.each), pairs(options.top)
    is_csv = "--csv" in command
    if not is_csv and "--json" not in command:
        sys.exit("check_output.py: the command has neither --json nor --csv")

    problems = []
    text = run(command)
    if is_csv:
        variants, json_each = check_csv(text, options.lab, each, problems)
        twin = [("--json" if arg == "--csv" else arg) for arg in command]
        twin_problems = []
        twin_variants = check_json(json.loads(run(twin)), options.lab, json_each, top,
                                   twin_problems)
        problems += [f"--json twin: {p}" for p in twin_problems]
        if variants != twin_variants:
            problems.append(f"the CSV's rows {variants} are not the --json twin's results "
                            f"{twin_variants}")
    else:
        try:
            document = json.loads(text)
        except json.JSONDecodeError as error:
            sys.exit(f"the output is not JSON ({error}):\n{text[:2000]}")
        variants = check_json(document, options.lab, each, top, problems)
    if options.variants is not None:
        expected = options.variants.split("|")
        if len(variants) != len(expected) or not all(map(named, expected, variants)):
            missing = [e for e in expected if not any(named(e, v) for v in variants)]
            extra = [v for v in variants if not any(named(e, v) for e in expected)]
            problems.append(f"results {variants}, expected {expected} (missing {missing}, "
                            f"unexpected {extra})")
    if problems:
        print(f"{len(problems)} problems in the {'CSV' if is_csv else 'JSON'} of "
              f"{' '.join(command)}:")
        for problem in problems:
            print(f"  {problem}")
        return 1
    checks = len(each) + len(top)
    print(f"{len(variants)} results, every one PASSED with the fields a row needs"
          f"{f', {checks} value checks held' if checks else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
