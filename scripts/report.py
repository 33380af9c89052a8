"""report.py: the course report: every lab run on one or more devices, one static HTML page.

Usage:
  report.py collect --bin DIR --out RUN_DIR [--platform P] [--device D] [--quick]
  report.py render --out OUT_DIR RUN_DIR... [--results-md docs/results.md]
  report.py render --markdown-only --results-md docs/results.md RUN_DIR...

collect runs every lab of DIR (the course's order, then any other lab DIR/../labs.txt names) with
--json on one device (LAB_PLATFORM / LAB_DEVICE), the size-sweeping labs over a range of sizes,
events and profiling with --trace, and keeps all of it in RUN_DIR: LAB.json, LAB.sweep.json,
LAB.trace.json and run.json (the device, the commit, the date, the host, each lab's exit code and
seconds). The sizes follow the device: a GPU gets larger problems than a CPU; --quick makes every
run tiny (the tests use it). Only the standard library is needed, so a GPU machine can collect and
another machine can render.

render reads one or more RUN_DIRs (made here or on other machines) and writes OUT_DIR/index.html:
per lab the goal from its README, and per device side by side its table and pictures (sweeps with
the copy kernel's bandwidth or the FP32 peak and the peer libraries drawn as references, the
profiling stages, the buffer modes' costs, timelines drawn from the traces, the NDRange grid, the
device's memories); the commit, date and driver of every run on the page. Pictures are PNG
inside the page (no server, no JavaScript); each <img> says how many data points it drew
(data-points). It also writes OUT_DIR/results.md, the results page in Markdown: how the figures are
taken, then per device a summary and every lab's table, its yardstick and what it shows, every
figure from the runs; --results-md FILE writes that page to FILE too (docs/results.md, made from the
kept runs in docs/results/runs: a test makes it again and compares), and --markdown-only writes
only that file (no matplotlib needed). The pictures need matplotlib (Debian: python3-matplotlib;
run with /usr/bin/python3).
"""
import argparse
import base64
import datetime
import html
import io
import json
import math
import os
import platform
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = "report.py"

# The course's order; a lab the build has that is not listed here comes after, with its defaults.
LAB_ORDER = ["device_info", "vector_add", "work_items", "matmul", "reduction", "transpose",
             "coalescing", "profiling", "buffer_flags", "events", "memory_spaces", "vector_types",
             "scan", "histogram", "images", "transfers", "multi_device"]
# Variants that are someone else's code or the host, drawn as references rather than as the
# lab's own ladder.
PEER = re.compile(r"^(OpenBLAS|CLBlast|cuBLAS|memcpy)|\(host\)")


def fail(message):
    print(f"{PROGRAM}: error: {message}", file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------------------------------------
# collect


SWEEP_SIZES = ROOT / "scripts" / "sweep_sizes.tsv"


def sweep_sizes(lab, profile):
    """The sizes LAB is swept over in PROFILE: the first matching row of scripts/sweep_sizes.tsv
    (scripts/sweep.sh reads the same table)."""
    for line in SWEEP_SIZES.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        labs, row_profile, sizes = line.split("\t")
        if row_profile == profile and (labs == "*" or lab in labs.split(",")):
            return [2 ** int(s[2:]) if s.startswith("2^") else int(s) for s in sizes.split()]
    fail(f"{SWEEP_SIZES} has no sizes for {lab} in profile {profile}")


def plans(profile):
    """Per lab: the arguments of its main run, and the sizes (and extra arguments) of its sweep.

    profile is "quick" (tests), "cpu" or "gpu"."""
    quick = profile == "quick"
    gpu = profile == "gpu"
    reps = ["--reps", "2", "--warmup", "1"] if quick else []
    vector_sizes = sweep_sizes("vector_add", profile)  # the same for reduction, scan, histogram
    matrix_sizes = sweep_sizes("transpose", profile)  # and coalescing
    matmul_sizes = sweep_sizes("matmul", profile)
    matmul_n = "32" if quick else "4096" if gpu else "512"
    matrix_n = "64" if quick else "4096" if gpu else "1024"
    # The main run of scan and histogram: a GPU needs 2^26 elements to reach memory speed.
    big_vector = ["-n", "4096"] if quick else ["-n", str(2 ** 26)] if gpu else []
    # The images lab's square image: the sizes its benchmarks name (4096 on a CPU, 8192 on a GPU)
    image_n = "64" if quick else "8192" if gpu else "4096"
    return {
        "device_info": {"args": []},
        "vector_add": {"args": ["--variant", "all"] + (["-n", "4096"] if quick else []) + reps,
                       "sweep": vector_sizes, "sweep_args": ["--variant", "all"]},
        "work_items": {"args": ["--global", "12,8", "--local", "4,4"]},
        "matmul": {"args": ["--variant", "all", "-n", matmul_n, "--kmax", matmul_n, "--peers"]
                   + reps,
                   "sweep": matmul_sizes, "sweep_args": ["--variant", "all", "--peers"],
                   "sweep_kmax": True},
        "reduction": {"args": ["--variant", "all", "--peers"] + (["-n", "4096"] if quick else [])
                      + reps, "sweep": vector_sizes, "sweep_args": ["--variant", "all"]},
        "transpose": {"args": ["--variant", "all", "-n", matrix_n, "--peers"] + reps,
                      "sweep": matrix_sizes, "sweep_args": ["--variant", "all"]},
        "coalescing": {"args": ["--variant", "all", "-n", matrix_n] + reps,
                       "sweep": matrix_sizes, "sweep_args": ["--variant", "all"]},
        "profiling": {"args": (["-n", "4096"] if quick else []) + reps, "trace": True},
        "buffer_flags": {"args": (["-n", "32"] if quick else []) + reps},
        "events": {"args": (["-n", "1024", "--work", "2", "--hold", "5"] if quick else [])
                   + (["--reps", "1"] if quick else []), "trace": True},
        "memory_spaces": {"args": (["-n", "4096", "-H", "64", "-W", "64", "--columns", "64",
                                    "--row-count", "8", "--row-length", "64",
                                    "--private-sizes", "4,16"] if quick else []) + reps},
        "vector_types": {"args": (["-n", "4096", "--items", "256"] if quick else []) + reps},
        "histogram": {"args": ["--variant", "all"] + big_vector + reps,
                      "sweep": vector_sizes, "sweep_args": ["--variant", "all"]},
        # (a CPU's scan at 2^24: 128 MiB moved, past its caches)
        "scan": {"args": ["--variant", "all"] + (big_vector or ["-n", str(2 ** 24)]) + reps,
                 "sweep": vector_sizes, "sweep_args": ["--variant", "all"]},
        "images": {"args": ["--variant", "all", "-n", image_n] + reps,
                   "sweep": sweep_sizes("images", profile), "sweep_args": ["--variant", "all"]},
        "transfers": {"args": (["--max-bytes", "1048576", "-n", "256", "--chunks", "2", "--chunk",
                                "4096"] if quick else []) + reps},
        # (4096 on a GPU: the cpu-gpu part runs the whole job on the CPU too, where this kernel
        # is slow)
        "multi_device": {"args": ["-n", "256" if quick else "4096" if gpu else "1024"]
                         + reps},
    }


def git_commit():
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain",
                                "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return commit + ("+local changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def run_lab(binary, args, env, timeout):
    """(exit code, stdout, stderr, seconds) of one run; a run past `timeout` is exit 124."""
    start = time.monotonic()
    try:
        process = subprocess.run([str(binary), *args], capture_output=True, text=True, env=env,
                                 timeout=timeout)
        code, out, err = process.returncode, process.stdout, process.stderr
    except subprocess.TimeoutExpired:
        code, out, err = 124, "", f"stopped after {timeout} s"
    return code, out, err, time.monotonic() - start


def parse_report(text):
    try:
        report = json.loads(text)
    except json.JSONDecodeError:
        return None
    return report if isinstance(report, dict) and "results" in report else None


def help_has(binary, option):
    process = subprocess.run([str(binary), "--help"], capture_output=True, text=True)
    return option in process.stdout


def run_commits(manifest):
    """The run's commit, and those of labs run again later into it (collect --labs)."""
    later = [f"{lab} {entry['commit']} ({entry.get('date', '')[:10]})"
             for lab, entry in manifest.get("labs", {}).items() if entry.get("commit")]
    return manifest.get("commit", "") + ("; run again: " + ", ".join(later) if later else "")


def collect(options):
    bin_dir = Path(options.bin).resolve()
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    for name, value in (("LAB_PLATFORM", options.platform), ("LAB_DEVICE", options.device)):
        if value:
            env[name] = value
    listed = bin_dir.parent / "labs.txt"
    labs = [lab for lab in LAB_ORDER if (bin_dir / lab).is_file()]
    if listed.is_file():
        labs += [lab for lab in listed.read_text().split() if lab not in labs]
    if not labs:
        fail(f"no lab in {bin_dir}: build them first (scripts/build.sh default all_labs)")
    if options.labs:
        wanted = options.labs.split(",")
        unknown = [lab for lab in wanted if lab not in labs]
        if unknown:
            fail(f"--labs: {', '.join(unknown)} not among the built labs ({', '.join(labs)})")
        labs = [lab for lab in labs if lab in wanted]

    # The device first: its type decides the sizes.
    code, text, err, _ = run_lab(bin_dir / "vector_add", ["-n", "1024", "--reps", "1", "--json"],
                                 env, 300)
    probe = parse_report(text)
    if probe is None:
        fail(f"vector_add could not run on the chosen device (exit {code}): "
             f"{err.strip().splitlines()[-1] if err.strip() else 'no output'}")
    device = probe["device"]
    profile = "quick" if options.quick else "gpu" if "GPU" in device.get("type", "") else "cpu"
    table = plans(profile)
    commit = options.commit or git_commit()
    date = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    manifest = {"device": device, "profile": profile, "commit": commit, "date": date,
                "host": platform.node(), "labs": {}}
    earlier = out / "run.json"
    if options.labs and earlier.is_file():
        manifest = json.loads(earlier.read_text())
        if manifest.get("device", {}).get("name") != device.get("name"):
            fail(f"{earlier} is a run of {manifest.get('device', {}).get('name')}, not of "
                 f"{device.get('name')}: --labs adds to a run of the same device only")
    timeout = 120 if options.quick else 900
    for lab in labs:
        binary = bin_dir / lab
        plan = table.get(lab, {"args": []})
        # --peers where the lab has it (a lab without peers refuses the option)
        peers = help_has(binary, "--peers")
        args = [a for a in plan["args"] if a != "--peers" or peers]
        if plan.get("trace"):
            args += ["--trace", str((out / f"{lab}.trace.json").resolve())]
        code, text, err, seconds = run_lab(binary, args + ["--json"], env, timeout)
        # (the trace's path as the run folder names it, so the page reads the same anywhere)
        shown = [Path(a).name if a.endswith(".trace.json") else a for a in args]
        entry = {"args": shown, "exit": code, "seconds": round(seconds, 2)}
        if options.labs:
            entry.update({"commit": commit, "date": date})
        if parse_report(text) is not None:
            (out / f"{lab}.json").write_text(text)
        else:
            entry["error"] = err.strip().splitlines()[-1] if err.strip() else "no report"
        print(f"{PROGRAM}: {lab} {' '.join(shown)}: exit {code} in {seconds:.1f} s", flush=True)

        if plan.get("sweep"):
            reports = []
            for n in plan["sweep"]:
                sweep_args = ["-n", str(n)] + [a for a in plan.get("sweep_args", [])
                                               if a != "--peers" or peers]
                if plan.get("sweep_kmax"):
                    sweep_args += ["--kmax", str(n)]
                sweep_args += ["--reps", "2" if options.quick else "5", "--warmup", "1"]
                code_n, text_n, _, seconds_n = run_lab(binary, sweep_args + ["--json"], env,
                                                       timeout)
                report = parse_report(text_n)
                if report is not None:
                    reports.append(report)
                print(f"{PROGRAM}: {lab} sweep -n {n}: exit {code_n} in {seconds_n:.1f} s",
                      flush=True)
            entry["sweep"] = plan["sweep"]
            (out / f"{lab}.sweep.json").write_text(json.dumps({"reports": reports}))
        manifest["labs"][lab] = entry
    (out / "run.json").write_text(json.dumps(manifest, indent=2))
    failed = [lab for lab, e in manifest["labs"].items() if e["exit"] not in (0, 77)]
    print(f"{PROGRAM}: collected {len(labs)} labs on {device.get('name')} into {out}"
          + (f"; exit codes other than 0: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


# ---------------------------------------------------------------------------------------------
# render: figures


def load_runs(dirs):
    runs = []
    for directory in dirs:
        path = Path(directory)
        manifest_path = path / "run.json"
        if not manifest_path.is_file():
            fail(f"{path} holds no run.json: give a folder `report.py collect` wrote")
        manifest = json.loads(manifest_path.read_text())
        run = {"dir": path, "manifest": manifest, "reports": {}, "sweeps": {}, "traces": {}}
        for lab in manifest["labs"]:
            for kind, suffix in (("reports", ".json"), ("sweeps", ".sweep.json")):
                file = path / f"{lab}{suffix}"
                if file.is_file():
                    run[kind][lab] = json.loads(file.read_text())
            trace = path / f"{lab}.trace.json"
            if trace.is_file():
                run["traces"][lab] = trace
        runs.append(run)
    return runs


# Pictures are made for the back of a room: the page shows each one at SCREEN_DPI CSS pixels per
# inch (a figure 6.5 inches wide fills one device's column of a 1400-pixel window), so a font of
# FONT points is FONT * 100 / 72 pixels on screen; the PNG has DPI / SCREEN_DPI times as many
# pixels, for sharp lines on a projector or a high-density screen.
DPI = 150
SCREEN_DPI = 100
FONT = 12  # points: about 17 px on screen
SMALL_FONT = 11  # ticks, legends and bar labels: about 15 px
WIDTH = 6.5  # inches: one device's column
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "h", "<", ">", "p"]


class Figure:
    """A matplotlib figure that counts the data points drawn on it; the axes that want a legend
    get one shared legend below the plots (png)."""

    def __init__(self, width=WIDTH, height=3.6, rows=1, height_ratios=None):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        matplotlib.rcParams.update({
            "font.size": FONT, "axes.titlesize": FONT, "axes.labelsize": FONT,
            "xtick.labelsize": SMALL_FONT, "ytick.labelsize": SMALL_FONT,
            "legend.fontsize": SMALL_FONT, "lines.linewidth": 2.5, "lines.markersize": 7,
            "axes.linewidth": 1.2, "xtick.major.width": 1.2, "ytick.major.width": 1.2,
            "grid.linewidth": 0.8, "hatch.linewidth": 1.0})
        self.plt = plt
        self.figure, axes = plt.subplots(rows, 1, figsize=(width, height), squeeze=False,
                                         gridspec_kw={"height_ratios": height_ratios})
        self.axes = [row[0] for row in axes]
        self.points = 0
        self.title = ""
        self.legend_columns = 2

    def png(self, title):
        handles, labels = [], []
        for axes in self.axes:
            for handle, label in zip(*axes.get_legend_handles_labels()):
                if label not in labels:
                    handles.append(handle)
                    labels.append(label)
        height = self.figure.get_figheight()
        bottom = 0.0
        if handles:
            columns = self.legend_columns if max(len(s) for s in labels) <= 30 else 1
            rows = -(-len(labels) // columns)
            extra = 0.15 + 0.28 * rows
            self.figure.set_figheight(height + extra)
            bottom = extra / (height + extra)
            self.figure.legend(handles, labels, loc="lower center", ncol=columns, frameon=False,
                               bbox_to_anchor=(0.5, 0.0), handlelength=2.6)
        # (a long device name wraps rather than running off the picture)
        title = "\n".join(textwrap.wrap(title, 52, break_long_words=False)) \
            if "\n" not in title else title
        self.figure.suptitle(title, fontsize=FONT, fontweight="bold")
        self.figure.tight_layout(rect=(0, bottom, 1, 1))
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png", dpi=DPI)
        self.plt.close(self.figure)
        return buffer.getvalue()


def number_label(value, _position=None):
    """A tick's number as people write it: 0.05, 2, 300, 2,000, 50,000."""
    if value == 0:
        return "0"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def rate_axis(axes, values, axis="y"):
    """A rate axis that reads: logarithmic where the values span a decade or more (ticks at 1, 2
    and 5 of each decade while there are few decades), else linear from zero, so that rates
    within a few percent of each other look equal; several plain-number tick labels either way."""
    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter
    values = [v for v in values if v and v > 0]
    if not values:
        return
    low, high = min(values), max(values)
    which = axes.yaxis if axis == "y" else axes.xaxis
    if high / low >= 10:
        (axes.set_yscale if axis == "y" else axes.set_xscale)("log")
        decades = math.log10(high / low)
        subs = (1.0,) if decades > 3.5 else (1.0, 2.0, 5.0) if decades > 1.5 else \
            (1.0, 1.5, 2.0, 3.0, 5.0, 7.0)
        which.set_major_locator(LogLocator(base=10, subs=subs))
        which.set_minor_formatter(NullFormatter())
        margin = 1.35
        (axes.set_ylim if axis == "y" else axes.set_xlim)(low / margin, high * margin)
    else:
        which.set_major_locator(MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10]))
        (axes.set_ylim if axis == "y" else axes.set_xlim)(0, high * 1.12)
    which.set_major_formatter(FuncFormatter(number_label))


def size_axis(axes, sizes, matrix):
    """The sizes of a sweep on a base-2 axis, a tick at each size measured."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
    axes.set_xscale("log", base=2)
    axes.xaxis.set_major_locator(FixedLocator(sorted(sizes)))
    axes.xaxis.set_minor_locator(NullLocator())
    axes.xaxis.set_major_formatter(FuncFormatter(
        lambda v, _: f"{int(round(v))}" if matrix else f"$2^{{{int(round(math.log2(v)))}}}$"))


def x_of(row, lab):
    """The number a sweep row is drawn against: N of a square matrix, else n."""
    size = row.get("size", {})
    for name in ("n", "height", "items"):
        if name in size:
            return size[name]
    return None


def sweep_rows(sweep):
    return [row for report in sweep.get("reports", []) for row in report["results"]]


PEER_STYLES = [("0.35", "-.", "s"), ("0.55", ":", "^"), ("0.2", (0, (5, 2)), "D"),
               ("0.65", "-.", "v")]


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def yardsticks_by_size(rows, key):
    """{reference name: {size: [the yardstick's median in each row's rounds]}} of rows with a
    reference in their own unit; `key` gives a row's size."""
    out = {}
    for row in rows:
        ref = row.get("reference")
        if row.get("status") == "PASSED" and ref and "rate" in row and \
                ref.get("unit") == row["rate"]["unit"]:
            out.setdefault(ref["name"], {}).setdefault(key(row), []).append(ref["value"])
    return out


def variant_order(runs, labs):
    """{lab: {variant: place}}: the variants with a rate (the pictures' lines) of each lab's
    reports and sweeps, every run's order kept, a variant one run lacks placed after the one it
    follows in another. A picture colours each line by this place, so a variant keeps its colour
    and marker from one device's picture to the next where a device skipped some."""
    orders = {}
    for lab in labs:
        order = []
        for run in runs:
            sweep = run.get("sweeps", {}).get(lab) or {}
            reports = [run["reports"].get(lab)] + list(sweep.get("reports", []))
            for report in (r for r in reports if r):
                previous = None
                for row in report.get("results", []):
                    variant = row.get("variant")
                    if "rate" not in row or PEER.search(variant):
                        continue  # not a line of the pictures
                    if variant not in order:
                        order.insert(order.index(previous) + 1 if previous in order else len(order),
                                     variant)
                    previous = variant
        orders[lab] = {variant: i for i, variant in enumerate(order)}
    return orders


def sweep_figure(lab, rows, device, metric="rate", order=None):
    """Rate (or, with metric "elements", G elements/s) against size, one line per variant; the
    peers (each its own grey and marker) and, per size, the yardstick (the median of its runs
    taken in turns with that size's rows, the band their lowest to highest) as references. ORDER,
    when given ({variant: place}, variant_order), picks each line's colour and marker."""
    lines, peers = {}, {}
    unit = None
    kept = []
    for row in rows:
        if row["status"] != "PASSED" or "rate" not in row:
            continue
        x = x_of(row, lab)
        if x is None:
            continue
        unit = unit or row["rate"]["unit"]
        if row["rate"]["unit"] != unit:
            continue
        if metric == "elements":
            if not row.get("elements_per_s"):
                continue
            value = row["elements_per_s"] / 1e9
        else:
            value = row["rate"]["value"]
            kept.append(row)
        target = peers if PEER.search(row["variant"]) else lines
        target.setdefault(row["variant"], []).append((x, value))
    yardsticks = yardsticks_by_size(kept, lambda r: x_of(r, lab)) if metric == "rate" else {}
    figure = Figure(WIDTH, 4.4)
    axes = figure.axes[0]
    values, sizes = [], set()
    for i, (variant, points) in enumerate(lines.items()):
        points.sort()
        i = (order or {}).get(variant, i)  # the page's place of the variant (variant_order)
        # A lab whose ladder has a `copy` of the same matrix (transpose) draws it as its own
        # ceiling: black, dashed.
        style = {"color": "black", "linestyle": (0, (6, 3)), "marker": "x"} \
            if variant == "copy" else {"color": f"C{i % 10}", "marker": MARKERS[i % len(MARKERS)]}
        axes.plot([p[0] for p in points], [p[1] for p in points],
                  label="copy (the same matrix)" if variant == "copy" else variant, **style)
        figure.points += len(points)
    for i, (variant, points) in enumerate(peers.items()):
        points.sort()
        grey, dash, marker = PEER_STYLES[i % len(PEER_STYLES)]
        axes.plot([p[0] for p in points], [p[1] for p in points], label=variant, color=grey,
                  linestyle=dash, marker=marker)
        figure.points += len(points)
    for i, (name, by_size) in enumerate(sorted(yardsticks.items())):
        xs = sorted(by_size)
        middle = [median(by_size[x]) for x in xs]
        band = any(min(by_size[x]) < max(by_size[x]) for x in xs)
        if band:
            axes.fill_between(xs, [min(by_size[x]) for x in xs],
                              [max(by_size[x]) for x in xs], color="0.5", alpha=0.3,
                              linewidth=0)
        axes.plot(xs, middle, color="black", linestyle=[":", "-."][i % 2], linewidth=3,
                  label=f"{name}, band min-max" if band else name)
        values += [v for x in xs for v in by_size[x]]
    for points in list(lines.values()) + list(peers.values()):
        values += [p[1] for p in points]
        sizes.update(p[0] for p in points)
    matrix = lab in ("matmul", "transpose", "coalescing")
    size_axis(axes, sizes, matrix)
    rate_axis(axes, values)
    axes.set_xlabel("N (an N x N matrix)" if matrix else "n (elements)")
    axes.set_ylabel("G elements/s (median)" if metric == "elements" else
                    f"{unit or 'rate'} (median)")
    axes.grid(True, which="major", alpha=0.35)
    return figure.png(f"{lab} on {device}"), figure.points


def bars_figure(lab, report, device):
    """One bar per row with a rate, in the report's order, a panel per unit (memory_spaces has GB/s
    and GFLOP/s rows); the rows' references and the peers (the host's memcpy) as lines."""
    from matplotlib.ticker import FuncFormatter
    rows = [r for r in report["results"] if r["status"] == "PASSED" and "rate" in r]
    units = list(dict.fromkeys(r["rate"]["unit"] for r in rows))
    panels = [[r for r in rows if r["rate"]["unit"] == u and not PEER.search(r["variant"])]
              for u in units]
    figure = Figure(WIDTH, 0.9 + sum(0.9 + 0.42 * max(len(p), 2) for p in panels) if panels
                    else 2, rows=max(len(units), 1),
                    height_ratios=[max(len(p), 2) + 1.5 for p in panels] or None)
    figure.legend_columns = 1
    several_sizes = len({r["size_label"] for r in rows}) > 1
    for axes, unit, bars in zip(figure.axes, units, panels):
        labels = [f"{r['variant']} ({r['size_label']})" if several_sizes else r["variant"]
                  for r in bars]
        positions = list(range(len(bars)))[::-1]
        axes.barh(positions, [r["rate"]["value"] for r in bars], color="C0", height=0.65)
        axes.set_yticks(positions)
        axes.set_yticklabels(labels)
        figure.points += len(bars)
        references = {}
        for name, by_row in yardsticks_by_size(bars, lambda r: r["variant"]).items():
            references[name] = median([v for vs in by_row.values() for v in vs])
        for r in rows:
            if PEER.search(r["variant"]) and r["rate"]["unit"] == unit:
                references.setdefault(r["variant"], r["rate"]["value"])
        for i, (name, value) in enumerate(references.items()):
            axes.axvline(value, color=["black", "0.45"][i % 2], linestyle=["--", "-."][i % 2],
                         linewidth=2.5, label=f"{name} {number_label(value)} {unit}")
        axes.set_xlabel(f"{unit} (median)")
        axes.xaxis.set_major_formatter(FuncFormatter(number_label))
        axes.grid(True, axis="x", alpha=0.35)
    return figure.png(f"{lab} on {device}"), figure.points


def stacked_bars(title, names, labels, parts, unit_label):
    """Horizontal bars, one per name, each the sum of its parts [(label, colour, values)], the
    first name on top; returns the Figure (its axes for more lines)."""
    from matplotlib.ticker import FuncFormatter
    figure = Figure(WIDTH, 1.3 + 0.5 * max(len(names), 3))
    axes = figure.axes[0]
    positions = list(range(len(names)))[::-1]
    left = [0.0] * len(names)
    for label, colour, widths in parts:
        axes.barh(positions, widths, left=left, color=colour, height=0.6, label=label)
        left = [a + b for a, b in zip(left, widths)]
        figure.points += sum(1 for w in widths if w > 0)
    axes.set_yticks(positions)
    axes.set_yticklabels(labels)
    axes.set_xlabel(unit_label)
    axes.xaxis.set_major_formatter(FuncFormatter(number_label))
    axes.grid(True, axis="x", alpha=0.35)
    figure.title = title
    return figure


def stages_figure(report, device):
    """profiling: each command's queued->submit, submit->start and start->end, stacked."""
    stages = report.get("details", {}).get("stages", {})
    # In the pipeline's order, as the report's rows have them.
    names = [r["variant"] for r in report["results"] if r["variant"] in stages]
    stage_names = (("queued_to_submit_median_s", "queued -> submit", "#c7c7c7"),
                   ("submit_to_start_median_s", "submit -> start", "#9edae5"),
                   ("start_to_end_median_s", "start -> end (running)", "#1f77b4"))
    parts = [(label, colour, [stages[n].get(key, 0) * 1e6 for n in names])
             for key, label, colour in stage_names]
    figure = stacked_bars(f"profiling stages on {device}", names, names, parts,
                          "microseconds (median of the runs)")
    wall = report.get("details", {}).get("wall_median_s")
    if wall:
        figure.axes[0].axvline(wall * 1e6, color="black", linestyle="--", linewidth=2.5,
                               label="the whole pipeline, host clock")
    return figure.png(figure.title), figure.points


BUFFER_MODE = re.compile(r"A,B=(\w+)")


def buffer_modes_figure(report, device):
    """buffer_flags: create, upload, kernel and download per mode of A and B, stacked (the
    medians of each step), and across each bar the whole run's fastest to slowest, a dot at its
    median: modes whose ranges overlap are not told apart by these runs."""
    timing = report.get("details", {}).get("timing", {})
    modes = [m for m, v in timing.items() if isinstance(v, dict)]
    parts = [(label, colour, [timing[m].get(key, 0) * 1e3 for m in modes])
             for key, label, colour in (("create_median_s", "create", "#c7c7c7"),
                                        ("upload_median_s", "upload", "#ff7f0e"),
                                        ("kernel_median_s", "kernel", "#1f77b4"),
                                        ("download_median_s", "download", "#d62728"))]
    figure = stacked_bars(f"buffer_flags: what each mode costs on {device}", modes,
                          [f"A, B {m}" for m in modes], parts, "milliseconds per run")
    spans = {}
    for row in report["results"]:
        match = BUFFER_MODE.search(row["variant"])
        if match and "time_s" in row:
            spans[match.group(1)] = row["time_s"]
    positions = list(range(len(modes)))[::-1]
    drawn = [(p, spans[m]) for p, m in zip(positions, modes) if m in spans]
    if drawn:
        middle = [t["median"] * 1e3 for _, t in drawn]
        figure.axes[0].errorbar(
            middle, [p for p, _ in drawn],
            xerr=[[t["median"] * 1e3 - t["min"] * 1e3 for _, t in drawn],
                  [t["max"] * 1e3 - t["median"] * 1e3 for _, t in drawn]],
            fmt="o", color="black", markersize=7, capsize=7, elinewidth=2.5, capthick=2.5,
            label="whole run: median, min-max")
    return figure.png(figure.title), figure.points


def grid_figure(report, device):
    """work_items: the NDRange as cells, one colour per work-group, each cell its local id."""
    details = report.get("details", {})
    global_size = details.get("global", [])[:2]
    local = details.get("local") or []
    if not global_size or not local or len(local) < len(global_size):
        return None, 0
    width = global_size[0]
    height = global_size[1] if len(global_size) > 1 else 1
    lx = local[0]
    ly = local[1] if len(local) > 1 else 1
    if width * height > 4096:
        return None, 0
    figure = Figure(WIDTH, min(1.6 + WIDTH * 0.85 * height / width, 7))
    axes = figure.axes[0]
    from matplotlib.patches import Rectangle
    groups_x = -(-width // lx)
    for y in range(height):
        for x in range(width):
            group = (y // ly) * groups_x + x // lx
            axes.add_patch(Rectangle((x, y), 1, 1, facecolor=f"C{group % 10}", alpha=0.55,
                                     edgecolor="white", linewidth=1.5))
            if width <= 16:
                axes.text(x + 0.5, y + 0.5, f"{x % lx},{y % ly}" if len(global_size) > 1
                          else f"{x % lx}", ha="center", va="center", fontsize=SMALL_FONT - 1)
            figure.points += 1
    axes.set_xlim(0, width)
    axes.set_ylim(height, 0)
    axes.set_aspect("equal")
    axes.set_xlabel("get_global_id(0)")
    axes.set_ylabel("get_global_id(1)" if len(global_size) > 1 else "")
    axes.set_xticks(range(0, width + 1, max(1, width // 6)))
    axes.set_yticks([] if height == 1 else range(0, height + 1, max(1, height // 4)))
    return figure.png(f"{'x'.join(map(str, global_size))} work-items, groups of "
                      f"{'x'.join(map(str, local[:len(global_size)]))}\ncolour: group; "
                      f"text: local id"), figure.points


def memories_figure(report, device):
    """device_info: the device's memories, largest first, on a log scale."""
    devices = [d for p in report.get("details", {}).get("platforms", [])
               for d in p.get("devices", [])]
    if not devices:
        return None, 0
    facts = devices[0]
    names = [("global_mem_bytes", "global memory"), ("max_mem_alloc_bytes", "largest buffer"),
             ("global_mem_cache_bytes", "global memory cache"),
             ("constant_mem_bytes", "constant memory"), ("local_mem_bytes", "local memory")]
    items = [(label, facts[key]) for key, label in names if facts.get(key)]
    figure = Figure(WIDTH, 1.3 + 0.5 * len(items))
    axes = figure.axes[0]
    positions = list(range(len(items)))[::-1]
    axes.barh(positions, [v for _, v in items], color="C2", height=0.6)
    for position, (_, value) in zip(positions, items):
        axes.text(value, position, " " + human_bytes(value), va="center", fontsize=SMALL_FONT)
    axes.set_xscale("log", base=2)
    from matplotlib.ticker import FuncFormatter, LogLocator
    axes.xaxis.set_major_locator(LogLocator(base=2 ** 10))
    axes.xaxis.set_major_formatter(FuncFormatter(lambda v, _: human_bytes(v)))
    axes.set_xlim(right=max(v for _, v in items) * 64)
    axes.set_yticks(positions)
    axes.set_yticklabels([label for label, _ in items])
    axes.set_xlabel("bytes")
    figure.points += len(items)
    return figure.png(f"the memories of {facts.get('name', device)}"), figure.points


def transfers_figure(report, device):
    """transfers: each path's GB/s over the sweep's sizes, log-log, one panel per direction
    between host and device, the path's fit t = a + n/b drawn as a dashed line."""
    details = report.get("details", {})
    sweep, fits = details.get("sweep", {}), details.get("fits", {})
    directions = [d for d in ("up", "down") if sweep.get(d)]
    if not directions:
        return None, 0
    figure = Figure(WIDTH, 3.0 * len(directions), rows=len(directions))
    for axes, direction in zip(figure.axes, directions):
        for index, (path, points) in enumerate(sweep[direction].items()):
            sizes = [p["bytes"] for p in points]
            axes.plot(sizes, [p["gb_per_s"] for p in points], marker="o", color=f"C{index}",
                      label=path)
            figure.points += len(points)
            fit = fits.get(direction, {}).get(path, {})
            if fit.get("gb_per_s"):
                line = [n / (fit["latency_s"] + n / (fit["gb_per_s"] * 1e9)) / 1e9 for n in sizes]
                axes.plot(sizes, line, linestyle="--", linewidth=1.5, color=f"C{index}")
        axes.set_xscale("log", base=2)
        axes.set_yscale("log")
        from matplotlib.ticker import FuncFormatter
        axes.xaxis.set_major_formatter(FuncFormatter(lambda v, _: human_bytes(v)))
        axes.set_ylabel(f"{direction}: GB/s")
        axes.grid(True, which="major", alpha=0.4)
    figure.axes[-1].set_xlabel("bytes per transfer (dashed: t = a + n/b fitted)")
    return figure.png(f"transfers on {device}: GB/s by size"), figure.points


def overlap_figure(report, device):
    """transfers: the overlap part's last run of each variant as a timeline, one row per queue
    layout, uploads, kernels and downloads in their colours, on one time axis."""
    variants = report.get("details", {}).get("overlap", {}).get("variants", {})
    names = [v for v, data in variants.items() if data.get("last_run")]
    if not names:
        return None, 0
    colours = {"upload": "C1", "kernel": "C0", "download": "C3"}
    figure = Figure(WIDTH, 1.0 + 0.9 * len(names))
    axes = figure.axes[0]
    lanes = {"upload": 0.28, "kernel": 0.0, "download": -0.28}
    for position, name in zip(range(len(names) - 1, -1, -1), names):
        for command in variants[name]["last_run"]:
            start = command["start_s"] * 1e3
            width = max((command["end_s"] - command["start_s"]) * 1e3, 1e-6)
            axes.broken_barh([(start, width)], (position + lanes[command["stage"]] - 0.12, 0.24),
                             facecolors=colours[command["stage"]], edgecolor="white",
                             linewidth=0.5)
            figure.points += 1
    for stage, colour in colours.items():
        axes.plot([], [], color=colour, linewidth=8, label=stage)
    axes.set_yticks(range(len(names)))
    axes.set_yticklabels(names[::-1])
    axes.set_ylim(-0.6, len(names) - 0.4)
    axes.set_xlabel("milliseconds from the first command's start")
    figure.legend_columns = 3
    return figure.png(f"copies beside kernels on {device}: the last run of each"), figure.points


def shares_figure(report, device):
    """multi_device: each plan of each part as one bar per device taking part, its median
    upload, kernel and download stacked from the run's start, on one time axis per part."""
    parts = {part: data for part, data in report.get("details", {}).items()
             if isinstance(data, dict) and data.get("plans")}
    bars = [(part, plan["plan"], share) for part, data in parts.items()
            for plan in data["plans"] for share in plan["shares"]]
    if not bars:
        return None, 0
    colours = {"upload_s": "C1", "kernel_s": "C0", "download_s": "C3"}
    figure = Figure(WIDTH, 1.0 + 0.28 * len(bars))
    axes = figure.axes[0]
    labels = []
    for position, (part, plan, share) in zip(range(len(bars) - 1, -1, -1), bars):
        start = 0.0
        for stage, colour in colours.items():
            width = share[stage] * 1e3
            axes.barh(position, width, left=start, height=0.7, color=colour, edgecolor="white",
                      linewidth=0.5)
            start += width
            figure.points += 1
        labels.append(f"{part}: {plan}: {share['member']} ({share['rows']} rows)")
    for stage, colour in colours.items():
        axes.plot([], [], color=colour, linewidth=8, label=stage.removesuffix("_s"))
    axes.set_yticks(range(len(bars)))
    axes.set_yticklabels(labels[::-1], fontsize=7)
    axes.set_xlabel("milliseconds (medians, each device's own clock)")
    figure.legend_columns = 3
    return figure.png(f"each device's share of the job on {device}"), figure.points


def trace_figure(trace_path, title):
    """A --trace timeline drawn by trace_png.py, or (None, 0) when it has nothing to draw."""
    with tempfile.TemporaryDirectory() as scratch:
        png = Path(scratch) / "trace.png"
        # (drawn 6.5 inches wide at trace_png's 100 dots an inch: shown at its own size)
        process = subprocess.run([sys.executable, str(ROOT / "scripts" / "trace_png.py"),
                                  str(trace_path), str(png), "--title", title, "--width",
                                  str(WIDTH)], capture_output=True, text=True)
        if process.returncode != 0 or not png.is_file():
            return None, 0
        events = json.loads(Path(trace_path).read_text()).get("traceEvents", [])
        return png.read_bytes(), sum(1 for e in events if e.get("ph") == "X")


def human_bytes(value):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.3g} {unit}"
        value /= 1024
    return str(value)


def pictures(lab, run, order=None):
    """The pictures of one lab on one device: a list of (caption, PNG bytes or None, points,
    dots per inch of the PNG); ORDER as sweep_figure takes it."""
    device = short_name(run["manifest"]["device"])
    report = run["reports"].get(lab)
    out = []
    if lab in run["sweeps"] and run["sweeps"][lab].get("reports"):
        rows = sweep_rows(run["sweeps"][lab])
        out.append(("the rate over a range of sizes",
                    *sweep_figure(lab, rows, device, order=order), DPI))
        if any(r.get("elements_per_s") for r in rows):
            out.append(("elements per second over a range of sizes",
                        *sweep_figure(lab, rows, device, "elements", order), DPI))
    if report is None:
        return out
    if lab == "device_info":
        out.append(("memory sizes", *memories_figure(report, device), DPI))
    elif lab == "work_items":
        out.append(("which work-group each work-item is in", *grid_figure(report, device), DPI))
    elif lab == "profiling":
        out.append(("where each command's time goes", *stages_figure(report, device), DPI))
    elif lab == "buffer_flags":
        out.append(("end-to-end cost per buffer mode: each step's median stacked; the whiskers "
                    "span the whole run's fastest to slowest, and modes whose whiskers overlap "
                    "are not ranked by these runs", *buffer_modes_figure(report, device), DPI))
    elif lab == "transfers":
        out.append(("each path's rate by size, with its fitted latency and bandwidth",
                    *transfers_figure(report, device), DPI))
        out.append(("the pipeline of uploads, kernels and downloads: one queue, then two and "
                    "three queues with events between the stages",
                    *overlap_figure(report, device), DPI))
    elif lab == "multi_device":
        out.append(("each device's uploads, kernel and download in each plan",
                    *shares_figure(report, device), DPI))
    elif lab in ("memory_spaces", "vector_types"):
        out.append(("the rate of each variant", *bars_figure(lab, report, device), DPI))
    if lab in run["traces"]:
        out.append(("timeline (--trace)",
                    *trace_figure(run["traces"][lab], f"{lab} on {device}: timeline"),
                    SCREEN_DPI))
    return out


# ---------------------------------------------------------------------------------------------
# render: the page


def short_name(device):
    name = device.get("name", "?")
    return name if len(name) <= 40 else name[:38] + ".."


# What each lab is for, in one sentence, for the page and docs/results.md. The handouts' Goal
# paragraphs say more, but some quote measured figures of one machine or run on past a colon
# into a list; these sentences name no figure, which the tables give. A lab not listed here gets
# the first sentences of its handout's Goal (readme_goal).
PURPOSE = {
    "device_info": "What OpenCL sees on the machine: the platforms, their devices and the limits "
                   "that decide how a kernel can be launched.",
    "vector_add": "One OpenCL program from device to checked result, and how close an addition "
                  "comes to the bandwidth of a plain copy on the same device.",
    "work_items": "The NDRange from the inside: the ids and sizes every work-item of a launch "
                  "sees, and how the local size and the offset change them.",
    "matmul": "The optimisation ladder of C = A·B: the same arithmetic, faster at each step that "
              "reuses from fast memory what was fetched from slow memory, against the device's "
              "FP32 peak and the BLAS libraries.",
    "reduction": "Adding up a vector, from one work-item per group summing while the others wait "
                 "to a kernel that reads memory as fast as a copy does.",
    "transpose": "B = Aᵀ: why the obvious kernel is slow on a GPU, and the tiled kernels that "
                 "reach the speed of a copy of the same matrix.",
    "coalescing": "A row-scan program run three ways: one row per work-item, on the transposed "
                  "matrix, and with the transposes fused into the kernel through local memory.",
    "profiling": "The four profiling timestamps of every command in an upload-compute-download "
                 "pipeline: where the time goes between queueing, submission and running.",
    "buffer_flags": "What each way of creating a buffer (copy, use or allocate a host pointer, "
                    "or none) promises, and what each costs end to end on the same kernel.",
    "events": "Ordering commands with events, checked from their profiling timestamps: wait "
              "lists, in-order and out-of-order queues, barriers, markers, callbacks, user "
              "events, two queues and sub-devices.",
    "memory_spaces": "Each OpenCL address space used for what it is good at: constant weights, "
                     "local tiles, rows staged in local memory, and private arrays that stay "
                     "in registers or spill.",
    "vector_types": "OpenCL C's vector types as a way to move memory in larger pieces (a copy at "
                    "every width, against the best width) and as notation.",
    "scan": "The prefix sum, from one work-group walking the array to a single pass that moves "
            "the data about once (decoupled look-back).",
    "histogram": "Counting keys into bins: what many work-items updating the same counters "
                 "costs, and how local, private and replicated histograms avoid it.",
    "images": "Images and the samplers that read them, then a 2-D convolution from a naive "
              "kernel through local tiles and separable passes to an image read through a "
              "sampler, each against a copy of the image.",
    "transfers": "How bytes travel between the host and the device by each path OpenCL offers, "
                 "as a latency and a bandwidth, what rectangular copies save, and how far copies "
                 "overlap kernels in one queue and across several.",
    "multi_device": "One matrix product split by rows across the sub-devices of a device, a CPU "
                    "and a GPU, and several GPUs, evenly and by measured rate, against the "
                    "fastest device alone.",
}


def readme_goal(lab):
    """The lab's Goal from its README: its first paragraph, up to the last full sentence (not one
    that ends in a colon and a list); plain text."""
    for readme in ROOT.glob(f"labs/*_{lab}/README.md"):
        text = readme.read_text()
        match = re.search(r"^## Goal\n(.*?)(?:\n\s*\n|\n```|\n- )", text, re.S | re.M)
        if match:
            sentences = re.split(r"(?<=[.!?])\s+", " ".join(match.group(1).split()))
            return " ".join(s for s in sentences if not s.endswith(":"))
    return ""


def purpose(lab):
    return PURPOSE.get(lab) or readme_goal(lab)


def purpose_html(lab):
    paragraph = html.escape(purpose(lab))
    paragraph = re.sub(r"`([^`]+)`", r"<code>\1</code>", paragraph)
    return re.sub(r"\*([^*]+)\*", r"<em>\1</em>", paragraph)


def fmt_seconds(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds:.3f} s"


def fmt_rate(rate):
    value = rate["value"]
    return f"{value:.3g} {rate['unit']}" if value < 100 else f"{value:.0f} {rate['unit']}"


def fmt_value(value, unit):
    return fmt_rate({"value": value, "unit": unit})


def fmt_share(ref):
    """"73.7% (71.9-76.3) of copy kernel": the share, and in turns its lowest and highest round."""
    spread = f" ({100 * ref['share_min']:.1f}-{100 * ref['share_max']:.1f})" \
        if ref.get("rounds") else ""
    return f"{100 * ref['share']:.1f}%{spread} of {ref['name']}"


def yardstick_lines(report):
    """Per yardstick and size measured in turns, a sentence: its median over the rows' rounds and
    their lowest and highest median."""
    rows = [r for r in report["results"] if r.get("reference", {}).get("rounds")]
    out = []
    for name, by_size in yardsticks_by_size(rows, lambda r: r["size_label"]).items():
        unit = rows[0]["reference"]["unit"]
        for size, values in by_size.items():
            out.append(f"{name} at {size}, in turns with {len(values)} rows: median "
                       f"{fmt_value(median(values), unit)}; its median in each row's rounds "
                       f"from {fmt_value(min(values), unit)} to {fmt_value(max(values), unit)}")
    return out


def table_html(report):
    rows = report["results"]
    sizes = {r["size_label"] for r in rows}
    columns = [
        ("variant", lambda r: r["variant"]),
        ("size", lambda r: r["size_label"] if len(sizes) > 1 else None),
        ("median", lambda r: fmt_seconds(r["time_s"]["median"]) if "time_s" in r else None),
        ("rate", lambda r: fmt_rate(r["rate"]) if "rate" in r else None),
        # (the yardstick's own rate is under the table, in the pictures and the JSON)
        ("of reference", lambda r: f"{100 * r['reference']['share']:.1f}% of "
         f"{r['reference']['name']}" if "reference" in r else None),
        ("measured", lambda r: r.get("skip_reason") or r.get("measured")),
    ]
    # A column no row has a value in is left out.
    cells = [[get(r) for _, get in columns] for r in rows]
    keep = [c for c in range(len(columns)) if any(row[c] is not None for row in cells)]
    lines = ["<table>", "<tr>" + "".join(f"<th>{columns[c][0]}</th>" for c in keep)
             + "<th>status</th></tr>"]
    wrapping = {"of reference", "measured"}
    for r, row in zip(rows, cells):
        lines.append("<tr>" + "".join(
            f"<td{' class=text' if columns[c][0] in wrapping else ''}>"
            f"{html.escape(str(row[c] or '-'))}</td>" for c in keep)
                     + f"<td class='{r['status'].lower()}'>{r['status']}</td></tr>")
    lines.append("</table>")
    if len(sizes) == 1:
        lines.insert(0, f"<p class='size'>size {html.escape(sizes.pop())}</p>")
    for line in yardstick_lines(report):
        lines.append(f"<p class='size'>{html.escape(line)}</p>")
    notes = [f"{r['variant']}: {n}" for r in rows for n in r.get("notes", [])]
    if notes:
        lines.append("<details><summary>notes (" + str(len(notes)) + ")</summary><ul>"
                     + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul></details>")
    return "\n".join(lines)


# Sized for a projector as well as a desk: 18 px text, tables at 16 px; each device a column of
# at least 620 px (two side by side in a 1400 px window, one above the other in a narrower one).
STYLE = """
body { font-family: sans-serif; font-size: 18px; line-height: 1.4; margin: 1.5em auto;
       padding: 0 1.2em; max-width: 1700px; color: #1a1a1a; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 2px solid #bbb; margin-top: 2em; }
.devices { display: grid; gap: 1.5em; grid-template-columns: repeat(auto-fit, minmax(620px, 1fr)); }
.device { min-width: 0; overflow-x: auto; }
.device h3 { font-size: 1.1em; margin: 0.3em 0; }
table { border-collapse: collapse; font-size: 16px; margin: 0.5em 0; }
th, td { border-bottom: 1px solid #ccc; padding: 3px 7px; text-align: left; vertical-align: top;
         white-space: nowrap; }
td.text { white-space: normal; min-width: 12em; }
table.runs td { white-space: normal; }
td.passed { color: #176d17; } td.failed { color: #b00; font-weight: bold; }
td.skipped { color: #666; }
img { max-width: 100%; height: auto; display: block; margin: 0.5em 0; }
.missing { color: #b00; }
.size, .meta, figcaption { color: #444; font-size: 16px; }
figure { margin: 1em 0; }
details { font-size: 16px; color: #333; }
"""


def png_size(data):
    import struct
    return struct.unpack(">II", data[16:24]) if data[12:16] == b"IHDR" else (0, 0)


def render(options):
    runs = load_runs(options.runs)
    labs = [lab for lab in LAB_ORDER if any(lab in r["manifest"]["labs"] for r in runs)]
    labs += sorted({lab for r in runs for lab in r["manifest"]["labs"]} - set(labs))
    results_md = options.results_md
    if options.markdown_only:
        if not results_md:
            fail("--markdown-only writes only --results-md FILE: name the file")
        Path(results_md).write_text(results_page(runs, labs, options.runs))
        print(f"{PROGRAM}: wrote {results_md}")
        return 0
    if not options.out:
        fail("render needs --out DIR (or --markdown-only with --results-md FILE)")
    orders = variant_order(runs, labs)
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    page = ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>",
            "<meta name='viewport' content='width=device-width, initial-scale=1'>",
            "<title>OpenCL Labs: course report</title>", f"<style>{STYLE}</style></head><body>",
            "<h1>OpenCL Labs: course report</h1>",
            f"<p class='meta'>{len(labs)} labs on {len(runs)} device(s); page made "
            f"{datetime.datetime.now().astimezone().isoformat(timespec='minutes')}. Every figure "
            "comes from the labs' own --json on the device named above it.</p>",
            "<table class='runs'><tr><th></th>"
            + "".join(f"<th>{html.escape(short_name(r['manifest']['device']))}</th>"
                      for r in runs) + "</tr>"]
    for label, get in RUN_FACTS:
        page.append(f"<tr><th>{label}</th>" + "".join(
            f"<td>{html.escape(get(r['manifest']))}</td>" for r in runs) + "</tr>")
    page.append("</table>")
    page.append("<p>" + " · ".join(f"<a href='#{lab}'>{lab}</a>" for lab in labs) + "</p>")

    for lab in labs:
        page.append(f"<section id='{lab}' class='lab'><h2>{lab}</h2>")
        goal = purpose_html(lab)
        if goal:
            page.append(f"<p>{goal}</p>")
        page.append("<div class='devices'>")
        for run in runs:
            device = html.escape(short_name(run["manifest"]["device"]))
            entry = run["manifest"]["labs"].get(lab)
            page.append(f"<div class='device'><h3>{device}</h3>")
            report = run["reports"].get(lab)
            if entry is None:
                page.append("<p class='missing'>not run on this device</p></div>")
                continue
            page.append(f"<p class='meta'>{html.escape(lab + ' ' + ' '.join(entry['args']))}"
                        f" (exit {entry['exit']}, {entry['seconds']} s)</p>")
            if report is None:
                page.append(f"<p class='missing'>no report: "
                            f"{html.escape(entry.get('error', 'the run failed'))}</p></div>")
                continue
            page.append(table_html(report))
            for caption, png, points, dpi in pictures(lab, run, orders[lab]):
                if png is None or points == 0:
                    page.append(f"<p class='missing'>no picture of {html.escape(caption)}: "
                                "nothing to draw</p>")
                    continue
                data = base64.b64encode(png).decode()
                width = round(png_size(png)[0] * SCREEN_DPI / dpi)
                page.append(f"<figure><img alt='{html.escape(lab)}: {html.escape(caption)}' "
                            f"width='{width}' data-points='{points}' "
                            f"src='data:image/png;base64,{data}'>"
                            f"<figcaption>{html.escape(caption)} ({points} data points)"
                            "</figcaption></figure>")
            page.append("</div>")
        page.append("</div></section>")
    page.append("</body></html>")
    (out / "index.html").write_text("\n".join(page))
    (out / "results.md").write_text(results_page(runs, labs, options.runs))
    if results_md:
        (Path(results_md)).write_text(results_page(runs, labs, options.runs))
    print(f"{PROGRAM}: wrote {out / 'index.html'} and {out / 'results.md'}"
          + (f" and {results_md}" if results_md else ""))
    return 0


RUN_FACTS = [("type", lambda m: m["device"].get("type", "")),
             ("vendor", lambda m: m["device"].get("vendor", "")),
             ("compute units", lambda m: str(m["device"].get("compute_units", ""))),
             ("platform", lambda m: m["device"].get("platform", {}).get("name", "")),
             ("driver", lambda m: m["device"].get("driver_version", "")),
             ("OpenCL", lambda m: m["device"].get("opencl_version", "")),
             ("commit", run_commits), ("date", lambda m: m.get("date", "")),
             ("host", lambda m: m.get("host", ""))]


def best_row(report):
    """The fastest passed row of the lab's own (not a peer's), with its reference."""
    rows = [r for r in report["results"] if r["status"] == "PASSED" and "rate" in r
            and not PEER.search(r["variant"])]
    if not rows:
        return None
    unit = rows[0]["rate"]["unit"]
    return max((r for r in rows if r["rate"]["unit"] == unit), key=lambda r: r["rate"]["value"])


# ---------------------------------------------------------------------------------------------
# render: docs/results.md, the whole page made from the runs


def shown_path(directory):
    """A run folder as the regeneration command names it: from the repository's root."""
    path = Path(directory).resolve()
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


METHOD = """\
## How the figures are taken

- **Kernel times** are the span from `CL_PROFILING_COMMAND_START` to `CL_PROFILING_COMMAND_END`
  of each launch's event, on a queue made with `CL_QUEUE_PROFILING_ENABLE` (the `clock` of a
  row in the labs' JSON says `host` where the host's clock timed it instead: the whole pipeline
  of `profiling`, the host's own `memcpy` and the BLAS calls). Each row first makes `--warmup`
  untimed launches (PoCL compiles a kernel on its first), then `--reps` timed ones; the
  **runs** column gives how many each row timed. The tables give the **median**; the JSON also
  keeps the min, mean and max.
- **Rates** come from the median time: GB/s counts the bytes the kernel must read and write
  (each lab's handout says which), GFLOP/s the arithmetic (2·M·N·K for a matrix product).
- **Ratios are taken in turns.** A row held against a yardstick runs the yardstick once after
  each of its own runs (on a CPU device with a flush of the cache between them when one run
  moves more than the cache holds), so that both see the same machine: its clocks, its other
  tenants, the same buffers. **Of reference** is the row's rate over the yardstick's median in
  the row's own rounds; in brackets, the lowest and highest share of a single round. Under each
  lab's table, the yardstick's median at each size over all the rows' rounds, with the lowest
  and highest of the rows' medians. A row without brackets was held against the yardstick
  measured once, apart.
- **The yardsticks:**
  - *copy kernel*: the faster of a `float` and a `float4` copy (`kernels/vector_copy.cl`) over
    the same length, counting 8 bytes per element: the bandwidth an OpenCL kernel reaches on
    the device. The memory-bound labs are held against it.
  - *FP32 peak (estimated)*: compute units × the clock the device reports × FP32 lanes per
    compute unit × 2 (a fused multiply-add), for `matmul`. The reported clock may be the base
    clock, so a share above 100% says the estimate is low; `matmul --peak GFLOPS` sets the
    peak by hand.
  - *best width*: `vector_types`' copies at each vector width against the fastest of them in
    the same run.
  - *peers*: other people's code on the same problem, as rows of their own and never the
    fastest variant: OpenBLAS on the host CPU, CLBlast on the same OpenCL device, the host's
    `memcpy` split over as many threads as the device has compute units, the sequential host
    loop.
- **The summary** of each device takes, per lab, the fastest passed row of the lab's own (peers
  apart) in the lab's main run.
"""


def md_cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def lab_table_md(report):
    """The lab's rows as a Markdown table: the columns some row has a value in."""
    rows = report["results"]
    columns = [
        ("variant", lambda r: r["variant"]),
        ("size", lambda r: r["size_label"]),
        ("median", lambda r: fmt_seconds(r["time_s"]["median"]) if "time_s" in r else None),
        ("runs", lambda r: str(r["time_s"]["runs"]) if "time_s" in r else None),
        ("rate", lambda r: fmt_rate(r["rate"]) if "rate" in r else None),
        ("of reference", lambda r: fmt_share(r["reference"]) if "reference" in r else None),
        ("measured", lambda r: r.get("skip_reason") or r.get("measured")),
        ("status", lambda r: r["status"].lower()),
    ]
    cells = [[get(r) for _, get in columns] for r in rows]
    keep = [c for c in range(len(columns)) if any(row[c] is not None for row in cells)]
    lines = ["| " + " | ".join(columns[c][0] for c in keep) + " |",
             "|" + "---|" * len(keep)]
    for row in cells:
        lines.append("| " + " | ".join(md_cell(row[c] if row[c] is not None else "")
                                       for c in keep) + " |")
    return lines


def shows_md(lab, report):
    """What the run shows, from its figures: the fastest own row and its share, the slowest."""
    best = best_row(report)
    if best is None:
        statuses = [r["status"].lower() for r in report["results"]]
        return (f"{len(statuses)} row{'s' if len(statuses) > 1 else ''}, "
                + ", ".join(f"{statuses.count(s)} {s}" for s in ("passed", "failed", "skipped")
                            if s in statuses) + "; no rate to compare.")
    own = [r for r in report["results"] if r["status"] == "PASSED" and "rate" in r
           and not PEER.search(r["variant"]) and r["rate"]["unit"] == best["rate"]["unit"]
           and r["size_label"] == best["size_label"]]
    text = f"Fastest own variant: `{best['variant']}` at {best['size_label']}, " \
           f"{fmt_rate(best['rate'])}"
    if best.get("reference"):
        text += f", {fmt_share(best['reference'])}"
    slowest = min(own, key=lambda r: r["rate"]["value"])
    if slowest is not best and slowest["rate"]["value"] > 0:
        text += (f"; the slowest at that size, `{slowest['variant']}`, "
                 f"{fmt_rate(slowest['rate'])} "
                 f"({best['rate']['value'] / slowest['rate']['value']:.3g}x slower)")
    peers = [r for r in report["results"] if PEER.search(r["variant"]) and "rate" in r
             and r["status"] == "PASSED"]
    if peers:
        text += "; peers: " + ", ".join(f"{r['variant']} {fmt_rate(r['rate'])}" for r in peers)
    return text + "."


def anchor(text):
    return re.sub(r"[^a-z0-9 _-]", "", text.lower()).replace(" ", "-")


def results_page(runs, labs, run_dirs):
    """docs/results.md: every line made from the runs (the kept ones in docs/results/runs), so a
    test can make it again and compare."""
    command = ("/usr/bin/python3 scripts/report.py render --markdown-only --results-md "
               "docs/results.md " + " ".join(shown_path(d) for d in run_dirs))
    # A run's `label` (say "double precision") tells apart two runs of one device.
    headings = [r["manifest"]["device"].get("name", "?") +
                (f" ({r['manifest']['label']})" if r["manifest"].get("label") else "")
                for r in runs]
    lines = [
        "# Results",
        "",
        "<!-- Generated by scripts/report.py from the runs named below; do not edit by hand: the "
        "test report.results_md_current makes it again and fails on any difference. -->",
        "",
        "Every lab run on each device below, with its raw `--json` kept in "
        "[results/runs](results/runs) (one folder per device: each lab's report, its size "
        "sweep, its trace and `run.json` with the device, driver, commit and date). This page "
        "is generated from those runs by `scripts/report.py`, the same program that draws the "
        "course report page (`scripts/report.sh OUT`, `OUT/index.html`), and a test "
        "(`report.results_md_current`) fails when it is not what the runs give. To make it "
        "again after changing the runs or the generator:",
        "",
        "```",
        command,
        "```",
        "",
        "A new run of a device: `scripts/report.sh OUT --device PLATFORM[:DEVICE]` (or "
        "`report.py collect` on the machine that has it), then its `OUT/runs/NAME` copied into "
        "`docs/results/runs/` and the command above with that folder. "
        "`scripts/report.sh OUT --results-md` writes this page from the runs it just made.",
        "",
        "Devices: " + ", ".join(f"[{h}](#{anchor(h)})" for h in headings) + ".",
        "",
        METHOD,
    ]
    for run, heading in zip(runs, headings):
        m = run["manifest"]
        d = m["device"]
        lines += [f"## {heading}", "",
                  f"{d.get('type', '')} device, {d.get('compute_units', '?')} compute units; "
                  f"platform {d.get('platform', {}).get('name', '')} "
                  f"({d.get('platform', {}).get('version', '')}), driver "
                  f"{d.get('driver_version', '')}, {d.get('opencl_version', '')}. Run "
                  f"`{shown_path(run['dir'])}`: commit {run_commits(m)}, {m.get('date', '')}, "
                  f"sizes for a {m.get('profile', '?')}.", "",
                  "| lab | fastest variant | size | rate | of reference | peers |",
                  "|---|---|---|---|---|---|"]
        for lab in labs:
            report = run["reports"].get(lab)
            if report is None:
                continue
            best = best_row(report)
            if best is None:
                statuses = [r["status"] for r in report["results"]]
                counts = ", ".join(f"{statuses.count(s)} {s.lower()}"
                                   for s in ("PASSED", "FAILED", "SKIPPED") if s in statuses)
                lines.append(f"| [{lab}](#{anchor(lab + ' on ' + heading)}) | (no rate: "
                             f"{counts}) | | | | |")
                continue
            ref = best.get("reference")
            peers = [f"{r['variant']} {fmt_rate(r['rate'])}" for r in report["results"]
                     if PEER.search(r["variant"]) and "rate" in r and r["status"] == "PASSED"]
            lines.append(f"| [{lab}](#{anchor(lab + ' on ' + heading)}) | {best['variant']} | "
                         f"{best['size_label']} | {fmt_rate(best['rate'])} | "
                         + (f"{100 * ref['share']:.0f}% of {ref['name']}" if ref else "")
                         + f" | {md_cell('; '.join(peers))} |")
        lines.append("")
        absent = [lab for lab in labs if m["labs"].get(lab) is None]
        if absent:  # a run of some labs only: those it left out named once
            lines += [f"Not run on this device: {', '.join(absent)}.", ""]
        for lab in labs:
            entry = m["labs"].get(lab)
            report = run["reports"].get(lab)
            if entry is None:
                continue
            lines += [f"### {lab} on {heading}", "", purpose(lab), ""]
            lines += [f"`{' '.join([lab] + entry['args'])}`: exit {entry['exit']}"
                      + (f"; run again at commit {entry['commit']}, {entry.get('date', '')}"
                         if entry.get("commit") else "") + ".", ""]
            if report is None:
                lines += [f"No report: {entry.get('error', 'the run failed')}.", ""]
                continue
            lines += lab_table_md(report) + [""]
            yardsticks = yardstick_lines(report)
            if yardsticks:
                lines += ["Yardstick: " + "; ".join(yardsticks) + ".", ""]
            lines += [shows_md(lab, report), ""]
    return "\n".join(lines).rstrip() + "\n"


def main():
    parser = argparse.ArgumentParser(prog=PROGRAM, description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    c = commands.add_parser("collect", help="run every lab on one device")
    c.add_argument("--bin", required=True, help="the folder of the built labs")
    c.add_argument("--out", required=True, help="the run's folder")
    c.add_argument("--platform", help="LAB_PLATFORM: the platform's name or index")
    c.add_argument("--device", help="LAB_DEVICE: the device's name or index")
    c.add_argument("--quick", action="store_true", help="tiny sizes (tests)")
    c.add_argument("--commit", help="the commit to record, where the tree has no git")
    c.add_argument("--labs", help="only these labs (comma-separated), into a run folder that may "
                   "hold an earlier run of the same device: its other labs stay, and each lab "
                   "run now records its own commit and date")
    r = commands.add_parser("render", help="write the page from runs")
    r.add_argument("--out", help="where index.html and results.md go")
    r.add_argument("--results-md", "--readme", dest="results_md", metavar="FILE",
                   help="also write the whole results page (docs/results.md) to FILE")
    r.add_argument("--markdown-only", action="store_true",
                   help="write only --results-md FILE: no HTML, no pictures, no matplotlib")
    r.add_argument("runs", nargs="+", help="folders `collect` wrote")
    options = parser.parse_args()
    sys.exit(collect(options) if options.command == "collect" else render(options))


if __name__ == "__main__":
    main()
