"""check_schema.py: every lab's --json against the result schema, and its --csv header against it.

Usage: check_schema.py --bin DIR --schema docs/result.schema.json [LAB...]

Runs each lab of DIR/../labs.txt (or the labs named) at a small size with --json and with --csv
(the arguments below; a lab not listed runs with its defaults) and fails when
- a lab exits with anything but 0 or 1 (1 is a failed check: its report must still be valid),
- its JSON does not validate against the schema (every error is printed with its path),
- its CSV header is not the one header every lab prints, or names a column that is not a path in
  the schema ("lab" and "device.name" at the top, the rest in a result row),
- its CSV has not one line per row of the JSON.
Needs python3-jsonschema (scripts/setup.sh installs it).
"""
import argparse
import csv
import io
import json
import subprocess
import sys
from pathlib import Path

try:
    import jsonschema
except ImportError:
    sys.exit("check_schema.py: python3-jsonschema is missing: run scripts/setup.sh")

# Small runs that still reach every variant and part.
ARGS = {
    "device_info": [],
    "vector_add": ["-n", "1009", "--variant", "all", "--reps", "2"],
    "work_items": ["--global", "16,8", "--local", "4,4"],
    "matmul": ["-n", "33", "--variant", "all", "--reps", "2", "--kmax", "64"],
    "reduction": ["-n", "1009", "--variant", "all", "--reps", "2"],
    "transpose": ["-n", "65", "--variant", "all", "--reps", "2"],
    "coalescing": ["-n", "65", "--variant", "all", "--reps", "2"],
    "profiling": ["-n", "1009", "--reps", "2", "--warmup", "1"],
    "buffer_flags": ["-n", "33", "--reps", "2", "--warmup", "1"],
    "events": ["-n", "1024", "--work", "2", "--reps", "1", "--hold", "5"],
    "memory_spaces": ["-n", "4096", "-H", "64", "-W", "64", "--columns", "64", "--row-count", "8",
                      "--row-length", "64", "--private-sizes", "4,16", "--reps", "2"],
    # (2^20: its copies run long enough on a CPU for the memcpy row to appear in every run; at a
    # few microseconds a run, the row came and went with the machine's load)
    "vector_types": ["-n", "1048576", "--items", "256", "--reps", "2", "--warmup", "1"],
    "scan": ["-n", "1009", "--variant", "all", "--reps", "2"],
    "histogram": ["-n", "1009", "--bins", "32", "--variant", "all", "--reps", "2"],
    "images": ["-W", "41", "-H", "23", "--variant", "all", "--reps", "2"],
    "transfers": ["--max-bytes", "65536", "-n", "64", "--chunks", "2", "--chunk", "1000", "--reps",
                  "2"],
    "multi_device": ["-n", "40", "--reps", "1"],
}
# A second run where one lab reports a different shape of result.
EXTRA = [
    ("work_items", ["--global", "10", "--local", "auto"]),
    ("matmul", ["--rows", "17", "--inner", "9", "--cols", "31", "--dtype", "int", "--reps", "1"]),
]


def schema_paths(schema):
    """Every dotted path the schema allows in a row, and at the top."""
    defs = schema["$defs"]

    def resolve(node):
        while "$ref" in node:
            node = defs[node["$ref"].rsplit("/", 1)[1]]
        return node

    def walk(node, prefix, out):
        node = resolve(node)
        props = dict(node.get("properties", {}))
        for part in node.get("allOf", []):
            props.update({k: v for k, v in resolve(part).get("properties", {}).items()
                          if k not in props or props[k] is True})
        if "propertyNames" in node:
            for name in node["propertyNames"]["enum"]:
                props.setdefault(name, {})
        for name, sub in props.items():
            path = f"{prefix}{name}"
            out.add(path)
            if isinstance(sub, dict):
                walk(sub, path + ".", out)
        return out

    top = {"lab"} | {f"device.{p}" for p in walk(schema["properties"]["device"], "", set())}
    return top, walk(defs["row"], "", set())


def mutations(report):
    """Copies of a valid report, each broken the way a lab could drift from the schema."""
    def broken(change):
        copy = json.loads(json.dumps(report))
        change(copy["results"][0])
        return copy
    yield "a size field the schema lacks", broken(lambda r: r["size"].update(rows=3))
    yield "a size in words", broken(lambda r: r.update(size="n=3"))
    yield "a rate as a bare number", broken(lambda r: r.update(rate=1.5))
    yield "a status of its own", broken(lambda r: r.update(status="OK"))
    yield "a field the schema lacks", broken(lambda r: r.update(note="x"))
    yield "no notes", broken(lambda r: r.pop("notes"))


def run(lab_path, args, fmt):
    process = subprocess.run([str(lab_path), *args, fmt], capture_output=True, text=True,
                             timeout=600)
    return process.returncode, process.stdout, process.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--schema", required=True)
    parser.add_argument("labs", nargs="*")
    options = parser.parse_args()
    bin_dir = Path(options.bin)
    schema = json.loads(Path(options.schema).read_text())
    validator = jsonschema.Draft202012Validator(schema)
    top_paths, row_paths = schema_paths(schema)

    labs = options.labs or (bin_dir.parent / "labs.txt").read_text().split()
    problems = []
    header_seen = None
    runs = [(lab, ARGS.get(lab, [])) for lab in labs]
    runs += [(lab, args) for lab, args in EXTRA if lab in labs]
    for lab, args in runs:
        command = " ".join([lab, *args])
        code, out, err = run(bin_dir / lab, args, "--json")
        if code not in (0, 1):
            problems.append(f"{command} --json: exit {code}: {err.strip()[:300]}")
            continue
        try:
            report = json.loads(out)
        except json.JSONDecodeError as error:
            problems.append(f"{command} --json: not JSON ({error})")
            continue
        errors = sorted(validator.iter_errors(report), key=lambda e: list(e.absolute_path))
        for error in errors:
            where = "/".join(str(p) for p in error.absolute_path) or "(top)"
            problems.append(f"{command} --json: {where}: {error.message[:300]}")
        if not header_seen and not errors:
            # The check can fail: each drift from the schema must be caught.
            for what, document in mutations(report):
                if validator.is_valid(document):
                    problems.append(f"the schema accepts {what}")
        if report.get("lab") != lab:
            problems.append(f"{command} --json: lab is {report.get('lab')!r}, not {lab!r}")

        code, out, err = run(bin_dir / lab, args, "--csv")
        if code not in (0, 1):
            problems.append(f"{command} --csv: exit {code}: {err.strip()[:300]}")
            continue
        rows = list(csv.reader(io.StringIO(out)))
        if not rows:
            problems.append(f"{command} --csv: printed nothing")
            continue
        header = rows[0]
        header_seen = header_seen or header
        if header != header_seen:
            problems.append(f"{command} --csv: its header differs from {labs[0]}'s: {header}")
        for column in header:
            if column not in top_paths and column not in row_paths:
                problems.append(f"{command} --csv: column {column!r} is no path in the schema")
        if len(rows) - 1 != len(report.get("results", [])):
            problems.append(f"{command} --csv: {len(rows) - 1} lines, but --json has "
                            f"{len(report.get('results', []))} rows")
        print(f"check_schema.py: {command}: {len(report.get('results', []))} row(s), "
              f"{len(errors)} schema error(s)")

    for problem in problems:
        print(f"check_schema.py: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"check_schema.py: {len(runs)} runs of {len(labs)} labs match the schema; "
          f"{len(header_seen or [])} CSV columns, each a path in it")


if __name__ == "__main__":
    main()
