#!/usr/bin/env python3
"""Fill the measured figures of the handouts and docs from the kept runs, or check that they match.

Every measured figure a handout (or one of DOCS below) quotes sits in a generated block:

    <!-- figures:begin lab=vector_add rows=element|per_item|vector cols=rate,share -->
    (written by this script: a table of the kept runs' figures, one row per device and variant)
    <!-- figures:end -->

The kept runs are docs/results/runs/<device>/: run.json (the device, its driver, the command of
each lab) and <lab>.json, the lab's `--json` report (<lab>.sweep.json: one report per size of
scripts/sweep.sh). A block names what it shows with attributes (values with spaces in quotes):

  lab=NAME       the lab, i.e. the file <NAME>.json (required)
  rows=A|B|...   variants, matched against a result's `variant` exactly, else by the first word
                 (`element` matches `element mode=copy`; `float4` matches `float4 streaming`);
                 a SKIPPED row shows its reason in place of its figures
  cols=C,...     columns after device and variant, from: size, median, min, rate, share
                 (percentage of the lab's reference with its range over the rounds), reference
                 (the reference's rate), speedup (the lab's speed-up column), measured (what a
                 check measured, events), error (the largest difference from the reference the
                 check found: max_abs_error), vs (this row's median over the median of row `base`)
                 Default: size,median,rate,share.
  base=VARIANT   the row the `vs` column divides by (required by cols=vs)
  devices=D,...  folders under docs/results/runs, in order (default: every folder whose run.json
                 ran the lab, sorted)
  sweep=1        read <lab>.sweep.json instead, one table row per size
  sizes=N,...    with sweep=1: only these sizes, each n of the result's size or its size label
                 (`sizes=4096x4096` for a lab whose sizes have no n), default all
  table=stages   profiling: the medians of each command's queued->submit, submit->start and
                 start->end (the report's details.stages), rows= the commands
  table=modes    buffer_flags: each mode's median create, upload, kernel, download and total
                 (the report's details.timing), rows= the modes

  scripts/handout_figures.py            rewrite every block of every file from the kept runs
  scripts/handout_figures.py --check    exit 1, naming file and line, when a block differs
                                        from what the runs give (or names a row they lack)

The files are the handouts, labs/*/README.md, and DOCS (the instructor's answer key and the
guides in docs/). The JSON is read here; scripts/report.py is not used.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = ROOT / "docs" / "results" / "runs"
BEGIN = re.compile(r"^<!-- figures:begin (?P<attrs>.*?) -->\s*$")
END = "<!-- figures:end -->"
COLUMNS = ("size", "median", "min", "rate", "share", "reference", "speedup", "measured", "error",
           "vs")


# Columns a row may lack (a run too short to compare with the reference prints a note instead):
# shown as "-".
OPTIONAL = ("reference", "speedup", "rate")


class Missing(Exception):
    """An optional value the row does not have."""


class BlockError(Exception):
    """A block that cannot be filled: says which and why."""


# The docs whose figures come from the kept runs too. Not docs/results.md, which
# scripts/report.py makes whole from the same runs (tests/check_results_md.py checks it).
DOCS = (
    "README.md",
    "docs/instructor/answers.md",
    "docs/instructor/README.md",
    "docs/start-here.md",
    "docs/reference.md",
    "docs/testing.md",
    "docs/adding-a-lab.md",
)


def handouts(root: Path = ROOT) -> list[Path]:
    return sorted(root.glob("labs/[0-9][0-9]_*/README.md"))


def documents(root: Path = ROOT) -> list[Path]:
    """Every file whose figures come from the kept runs: the handouts, then DOCS."""
    return handouts(root) + [root / doc for doc in DOCS]


def load_json(path: Path):
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise BlockError(f"{path.relative_to(ROOT)} does not exist") from None


def device_label(run: dict) -> str:
    """The device as a reader can place it: the GPU's name, or PoCL with the CPU it runs on; and
    the run's label, where it has one ("in double precision")."""
    suffix = f" ({run['label']})" if run.get("label") else ""
    return device_name(run) + suffix


def device_name(run: dict) -> str:
    device = run["device"]
    platform = device.get("platform", {}).get("name", "")
    if "Portable Computing Language" in platform or "PoCL" in device.get("opencl_version", ""):
        version = re.match(r"[0-9]+(\.[0-9]+)?", device.get("driver_version", ""))
        cpu = re.sub(r"^pthread-[^-]+(-avx512)?-", "", device["name"]).replace("(R)", "")
        return (
            f"PoCL {version.group(0) if version else ''} on a "
            f"{device.get('compute_units', '?')}-core {cpu.strip()}".replace("PoCL  ", "PoCL ")
        )
    return device["name"]


def device_caption(name: str, run: dict) -> str:
    device = run["device"]
    label = device_label(run)
    named = "" if device_name(run) == device["name"] else f"{device['name']}, "
    return f"{label} (`runs/{name}`: {named}driver {device.get('driver_version', '?')})"


def fmt_number(value: float) -> str:
    """Three significant figures, no exponent."""
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def fmt_time(seconds: float) -> str:
    if seconds >= 1:
        return f"{fmt_number(seconds)} s"
    if seconds >= 1e-3:
        return f"{fmt_number(seconds * 1e3)} ms"
    return f"{fmt_number(seconds * 1e6)} us"


def fmt_ratio(value: float) -> str:
    if value < 0.01:  # two significant digits, not 0.00x
        return f"{value:.2g}x"
    return f"{value:.2f}x" if value < 10 else f"{value:.0f}x"


def fmt_share(ref: dict) -> str:
    share = 100 * ref["share"]
    text = f"{share:.0f}%" if share >= 1 else f"{share:.1f}%"
    lo, hi = ref.get("share_min"), ref.get("share_max")
    if lo and hi and 100 * lo >= 1:
        text += f" ({100 * lo:.0f}-{100 * hi:.0f})"
    return f"{text} of {ref.get('name', 'reference')}"


def parse_attrs(text: str) -> dict[str, str]:
    attrs = {}
    for word in shlex.split(text):
        key, sep, value = word.partition("=")
        if not sep:
            raise BlockError(f"attribute {word!r} is not NAME=VALUE")
        attrs[key] = value
    if "lab" not in attrs:
        raise BlockError("the block names no lab= (the lab whose kept runs it shows)")
    unknown = set(attrs) - {"lab", "rows", "cols", "base", "devices", "sweep", "sizes", "table"}
    if unknown:
        raise BlockError(f"unknown attribute(s) {', '.join(sorted(unknown))}")
    return attrs


def find_row(results: list[dict], wanted: str, where: str) -> dict:
    exact = [r for r in results if r.get("variant") == wanted]
    if not exact:
        exact = [r for r in results if r.get("variant", "").split(" ")[0] == wanted]
    if len(exact) != 1:
        have = ", ".join(repr(r.get("variant")) for r in results)
        why = "no row" if not exact else f"{len(exact)} rows"
        raise BlockError(f"{why} {wanted!r} in {where} (rows there: {have})")
    return exact[0]


def cell(column: str, row: dict, base: dict | None, where: str) -> str:
    def need(key):
        if row.get(key) is None and key in OPTIONAL:
            raise Missing
        if row.get(key) is None:
            raise BlockError(f"row {row.get('variant')!r} of {where} has no {key!r}")
        return row[key]

    if column == "size":
        return row.get("size_label", "")
    if column == "median":
        return fmt_time(need("time_s")["median"])
    if column == "min":
        return fmt_time(need("time_s")["min"])
    if column == "rate":
        rate = need("rate")
        return f"{fmt_number(rate['value'])} {rate['unit']}"
    if column == "share":
        return fmt_share(need("reference"))
    if column == "reference":
        ref = need("reference")
        return f"{ref.get('name')} {fmt_number(ref['value'])} {ref.get('unit', '')}".strip()
    if column == "speedup":
        return fmt_ratio(need("speedup"))
    if column == "measured":
        if row.get("measured") is None and row.get("status") == "SKIPPED":
            return f"SKIPPED: {row.get('skip_reason', '')}".strip()
        return need("measured")
    if column == "error":
        return f"{need('max_abs_error'):.3g}"
    if column == "vs":
        assert base is not None
        return fmt_ratio(base["time_s"]["median"] / need("time_s")["median"])
    raise BlockError(f"unknown column {column!r} (known: {', '.join(COLUMNS)})")


def block_devices(attrs: dict[str, str], runs: Path) -> list[str]:
    """The block's devices=, else every kept run that ran the block's lab, sorted; a run with a
    label (a double-precision run of a device) only where a block names it."""
    named = [d for d in attrs.get("devices", "").split(",") if d]
    return named or sorted(
        p.name for p in runs.iterdir()
        if (p / "run.json").exists() and attrs["lab"] in load_json(p / "run.json").get("labs", {})
        and not load_json(p / "run.json").get("label")
    )


def render_stages(attrs: dict[str, str], runs: Path) -> str:
    devices = block_devices(attrs, runs)
    keys = ("queued_to_submit", "submit_to_start", "start_to_end")
    lines = ["| device | command | queued->submit | submit->start | start->end |", "|---|---|---|---|---|"]
    captions = []
    for device in devices:
        run = load_json(runs / device / "run.json")
        captions.append(device_caption(device, run))
        file = runs / device / f"{attrs['lab']}.json"
        stages = (load_json(file).get("details") or {}).get("stages")
        if not stages:
            raise BlockError(f"{file} has no details.stages")
        for name in [r for r in attrs.get("rows", "").split("|") if r] or list(stages):
            if name not in stages:
                raise BlockError(f"no stage {name!r} in {file} (stages there: {', '.join(stages)})")
            values = [fmt_time(stages[name][f"{k}_median_s"]) for k in keys]
            lines.append(f"| {device_label(run)} | `{name}` | " + " | ".join(values) + " |")
    lines += ["", "Kept runs: " + "; ".join(captions) + "."]
    return "\n".join(lines) + "\n"


def render_modes(attrs: dict[str, str], runs: Path) -> str:
    devices = block_devices(attrs, runs)
    keys = ("create", "upload", "kernel", "download", "total")
    lines = ["| device | A and B | C | " + " | ".join(keys) + " |", "|" + "---|" * (len(keys) + 3)]
    captions = []
    for device in devices:
        run = load_json(runs / device / "run.json")
        captions.append(device_caption(device, run))
        file = runs / device / f"{attrs['lab']}.json"
        data = load_json(file)
        timing = (data.get("details") or {}).get("timing")
        if not timing:
            raise BlockError(f"{file} has no details.timing")
        modes = [m for m in attrs.get("rows", "").split("|") if m] or [
            m for m in timing if isinstance(timing[m], dict)
        ]
        for mode in modes:
            if not isinstance(timing.get(mode), dict):
                raise BlockError(f"no mode {mode!r} in {file}")
            values = [fmt_time(timing[mode][f"{k}_median_s"]) for k in keys]
            size = (data["details"].get("n"))
            lines.append(
                f"| {device_label(run)} (N={size}) | `{mode}` | `{timing[mode].get('c_mode', '')}` | "
                + " | ".join(values) + " |"
            )
    lines += ["", "Kept runs: " + "; ".join(captions) + "."]
    return "\n".join(lines) + "\n"


def render(attrs: dict[str, str], runs: Path = RUNS) -> str:
    if attrs.get("table") == "stages":
        return render_stages(attrs, runs)
    if attrs.get("table") == "modes":
        return render_modes(attrs, runs)
    if attrs.get("table"):
        raise BlockError(f"unknown table={attrs['table']} (known: stages, modes)")
    lab = attrs["lab"]
    rows = [r for r in attrs.get("rows", "").split("|") if r]
    cols = [c for c in attrs.get("cols", "size,median,rate,share").split(",") if c]
    for c in cols:
        if c not in COLUMNS:
            raise BlockError(f"unknown column {c!r} (known: {', '.join(COLUMNS)})")
    if "vs" in cols and "base" not in attrs:
        raise BlockError("cols=vs needs base=VARIANT")
    devices = block_devices(attrs, runs)
    sweep = attrs.get("sweep") == "1"
    if sweep and "size" not in cols:
        cols.insert(0, "size")  # a sweep's rows differ by size: always show it
    sizes = {int(s) if s.isdigit() else s for s in attrs.get("sizes", "").split(",") if s}
    vs_label = f"vs {attrs['base']}" if "vs" in cols else ""
    header = ["device", "variant"] + [
        {"share": "of reference", "vs": vs_label, "median": "median time",
         "error": "largest error"}.get(c, c) for c in cols
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    captions = []
    for device in devices:
        run = load_json(runs / device / "run.json")
        label = device_label(run)
        captions.append(device_caption(device, run))
        file = runs / device / f"{lab}{'.sweep' if sweep else ''}.json"
        where = str(file.relative_to(ROOT)) if file.is_relative_to(ROOT) else str(file)
        data = load_json(file)
        reports = data["reports"] if sweep else [data]
        groups = []
        for report in reports:
            results = report.get("results", [])
            n = (results[0].get("size") or {}).get("n") if results else None
            size_label = results[0].get("size_label") if results else None
            if sweep and sizes and n not in sizes and size_label not in sizes:
                continue
            groups.append(results)
        if sweep and sizes and len(groups) != len(sizes):
            raise BlockError(f"{where} lacks size(s) of {sorted(map(str, sizes))}")
        for results in groups:
            base = find_row(results, attrs["base"], where) if "base" in attrs else None
            wanted = rows or [r.get("variant") for r in results]
            for name in wanted:
                row = find_row(results, name, where)
                values = [label, f"`{row.get('variant')}`"]
                if row.get("status") == "SKIPPED" and "measured" not in cols:
                    reason = f"SKIPPED: {row.get('skip_reason', '')}".strip()
                    lines.append("| " + " | ".join(values + [reason] + ["-"] * (len(cols) - 1))
                                 + " |")
                    continue
                for c in cols:
                    try:
                        values.append(cell(c, row, base, where))
                    except Missing:
                        values.append("-")
                lines.append("| " + " | ".join(values) + " |")
    lines.append("")
    lines.append("Kept runs: " + "; ".join(captions) + ".")
    return "\n".join(lines) + "\n"


def blocks(text: str):
    """(begin line index, end line index, attrs text) of each block; raises on a broken one."""
    lines = text.split("\n")
    found, open_at = [], None
    for i, line in enumerate(lines):
        m = BEGIN.match(line)
        if m:
            if open_at is not None:
                raise BlockError(f"line {i + 1}: a block begins inside the block of line {open_at + 1}")
            open_at, attrs = i, m.group("attrs")
        elif line.strip() == END:
            if open_at is None:
                raise BlockError(f"line {i + 1}: {END} without a begin")
            found.append((open_at, i, attrs))
            open_at = None
        elif line.startswith("<!-- figures:"):
            raise BlockError(f"line {i + 1}: unknown marker {line.strip()}")
    if open_at is not None:
        raise BlockError(f"line {open_at + 1}: the block has no {END}")
    return found


def process(path: Path, check: bool, runs: Path = RUNS) -> list[str]:
    """Problems found (check) or made good (rewrite); each 'path:line: sentence'."""
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    if not path.exists():
        return [f"{rel}: no such file (a handout, or listed in DOCS)"]
    text = path.read_text()
    try:
        found = blocks(text)
    except BlockError as error:
        return [f"{rel}: {error}"]
    lines = text.split("\n")
    problems, out, last = [], [], 0
    for begin, end, attrs in found:
        out += lines[last : begin + 1]
        current = "\n".join(lines[begin + 1 : end]) + "\n" if end > begin + 1 else ""
        try:
            wanted = render(parse_attrs(attrs), runs)
        except BlockError as error:
            problems.append(f"{rel}:{begin + 1}: {error}")
            wanted = current
        if current != wanted and check:
            problems.append(
                f"{rel}:{begin + 1}: the block ({attrs}) differs from the kept runs; "
                "run scripts/handout_figures.py to regenerate it"
            )
        out += wanted.rstrip("\n").split("\n") if wanted else []
        last = end
    out += lines[last:]
    new = "\n".join(out)
    if not check and new != text:
        path.write_text(new)
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, rewrite nothing")
    parser.add_argument("--runs", type=Path, default=RUNS, help="the kept runs (default: %(default)s)")
    parser.add_argument("files", nargs="*", type=Path,
                        help="files (default: labs/*/README.md and %s)" % ", ".join(DOCS))
    args = parser.parse_args(argv)
    files = [f.resolve() for f in args.files] or documents()
    problems = []
    for path in files:
        problems += process(path, args.check, args.runs.resolve())
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
