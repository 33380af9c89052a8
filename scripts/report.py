"""report.py: the course report: every lab run on one or more devices, one static HTML page.

Usage:
  report.py collect --bin DIR --out RUN_DIR [--platform P] [--device D] [--quick]
  report.py render --out OUT_DIR RUN_DIR... [--readme docs/results.md]

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
(data-points). It also writes OUT_DIR/results.md, a summary per device, and with --readme FILE puts
that summary into FILE (docs/results.md) between its "report:begin" and "report:end" markers.
Rendering needs matplotlib (Debian: python3-matplotlib; run with /usr/bin/python3).
"""
import argparse
import base64
import datetime
import html
import io
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = "report.py"

# The course's order; a lab the build has that is not listed here comes after, with its defaults.
LAB_ORDER = ["device_info", "vector_add", "work_items", "matmul", "reduction", "transpose",
             "coalescing", "profiling", "buffer_flags", "events", "memory_spaces", "vector_types",
             "scan", "histogram"]
# Variants that are someone else's code or the host, drawn as references rather than as the
# lab's own ladder.
PEER = re.compile(r"^(OpenBLAS|CLBlast|cuBLAS|memcpy)|\(host\)")


def fail(message):
    print(f"{PROGRAM}: error: {message}", file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------------------------------------
# collect


def powers(first, last, step=2):
    """2^first, 2^(first+step), ... 2^last."""
    return [2 ** e for e in range(first, last + 1, step)]


def plans(profile):
    """Per lab: the arguments of its main run, and the sizes (and extra arguments) of its sweep.

    profile is "quick" (tests), "cpu" or "gpu"."""
    quick = profile == "quick"
    gpu = profile == "gpu"
    reps = ["--reps", "2", "--warmup", "1"] if quick else []
    vector_sizes = powers(10, 14, 4) if quick else powers(18, 26) if gpu else powers(16, 24)
    matrix_sizes = [32, 64] if quick else [512, 1024, 2048, 4096, 8192] if gpu else \
        [128, 256, 512, 1024, 2048]
    matmul_sizes = [16, 32] if quick else [256, 512, 1024, 2048, 4096] if gpu else \
        [64, 128, 256, 512]
    matmul_n = "32" if quick else "4096" if gpu else "512"
    matrix_n = "64" if quick else "4096" if gpu else "1024"
    # The main run of scan and histogram: a GPU needs 2^26 elements to reach memory speed.
    big_vector = ["-n", "4096"] if quick else ["-n", str(2 ** 26)] if gpu else []
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


class Figure:
    """A matplotlib figure that counts the data points drawn on it."""

    def __init__(self, width=6.4, height=3.6, rows=1, height_ratios=None):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        self.plt = plt
        self.figure, axes = plt.subplots(rows, 1, figsize=(width, height), squeeze=False,
                                         gridspec_kw={"height_ratios": height_ratios})
        self.axes = [row[0] for row in axes]
        self.points = 0
        self.title = ""

    def png(self, title):
        self.figure.suptitle(title, fontsize=10)
        self.figure.tight_layout()
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png", dpi=110)
        self.plt.close(self.figure)
        return buffer.getvalue()


def legend_beside(axes):
    handles, labels = axes.get_legend_handles_labels()
    if handles:
        axes.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0),
                    frameon=False)


def x_of(row, lab):
    """The number a sweep row is drawn against: N of a square matrix, else n."""
    size = row.get("size", {})
    for name in ("n", "height", "items"):
        if name in size:
            return size[name]
    return None


def sweep_rows(sweep):
    return [row for report in sweep.get("reports", []) for row in report["results"]]


def draw_series(axes, series, style):
    points_drawn = 0
    for variant, points in series.items():
        points.sort()
        axes.plot([p[0] for p in points], [p[1] for p in points], label=variant, **style)
        points_drawn += len(points)
    return points_drawn


def finish_log_axes(axes, x_label, y_label):
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xlabel(x_label)
    axes.set_ylabel(y_label)
    axes.grid(True, which="both", alpha=0.3)
    legend_beside(axes)


PEER_STYLES = [("0.35", "-.", "s"), ("0.55", ":", "^"), ("0.2", (0, (5, 2)), "D"),
               ("0.65", "-.", "v")]


def sweep_figure(lab, rows, device, metric="rate"):
    """Rate (or, with metric "elements", G elements/s) against size, one line per variant; the
    lab's ceiling and the peers (each its own grey and marker) drawn as references."""
    lines, peers, ceilings = {}, {}, {}
    unit = None
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
            ref = row.get("reference")
            if ref and ref["unit"] == unit:
                ceilings.setdefault(ref["name"], {})[x] = ref["value"]
        target = peers if PEER.search(row["variant"]) else lines
        target.setdefault(row["variant"], []).append((x, value))
    # A lab whose ladder has a `copy` variant (transpose, coalescing) measures against that copy
    # of the same matrix: it is the ceiling drawn, not a second copy figure.
    if "copy" in lines:
        copy = dict(lines.pop("copy"))
        ceilings = {"copy (the same matrix)": copy} if metric == "rate" else {}
    figure = Figure(7.2, 3.8)
    axes = figure.axes[0]
    for i, (variant, points) in enumerate(lines.items()):
        figure.points += draw_series(axes, {variant: points},
                                     {"marker": "o", "markersize": 3, "color": f"C{i % 10}"})
    for i, (variant, points) in enumerate(peers.items()):
        grey, dash, marker = PEER_STYLES[i % len(PEER_STYLES)]
        figure.points += draw_series(axes, {variant: points},
                                     {"color": grey, "linestyle": dash, "marker": marker,
                                      "markersize": 4})
    styles = ["--", ":"]
    for i, (name, points) in enumerate(sorted(ceilings.items())):
        xs = sorted(points)
        axes.plot(xs, [points[x] for x in xs], color="black", linestyle=styles[i % 2],
                  linewidth=1.2, marker="x", markersize=4, label=name)
    x_label = "N (an N x N matrix)" if lab in ("matmul", "transpose", "coalescing") \
        else "n (elements)"
    y_label = "G elements/s (median)" if metric == "elements" else f"{unit or 'rate'} (median)"
    finish_log_axes(axes, x_label, y_label)
    return figure.png(f"{lab} on {device}"), figure.points


def bars_figure(lab, report, device):
    """One bar per row with a rate, in the report's order, a panel per unit (memory_spaces has GB/s
    and GFLOP/s rows); the rows' references and the peers (the host's memcpy) as lines."""
    rows = [r for r in report["results"] if r["status"] == "PASSED" and "rate" in r]
    units = list(dict.fromkeys(r["rate"]["unit"] for r in rows))
    panels = [[r for r in rows if r["rate"]["unit"] == u and not PEER.search(r["variant"])]
              for u in units]
    figure = Figure(7.2, 0.6 + sum(0.6 + 0.26 * max(len(p), 2) for p in panels) if panels else 2,
                    rows=max(len(units), 1),
                    height_ratios=[max(len(p), 2) for p in panels] or None)
    several_sizes = len({r["size_label"] for r in rows}) > 1
    for axes, unit, bars in zip(figure.axes, units, panels):
        labels = [f"{r['variant']} ({r['size_label']})" if several_sizes else r["variant"]
                  for r in bars]
        positions = list(range(len(bars)))[::-1]
        axes.barh(positions, [r["rate"]["value"] for r in bars], color="C0", height=0.6)
        axes.set_yticks(positions)
        axes.set_yticklabels(labels, fontsize="x-small")
        figure.points += len(bars)
        references = {}
        for r in bars:
            ref = r.get("reference")
            if ref and ref["unit"] == unit:
                references.setdefault(ref["name"], ref["value"])
        for r in rows:
            if PEER.search(r["variant"]) and r["rate"]["unit"] == unit:
                references.setdefault(r["variant"], r["rate"]["value"])
        for i, (name, value) in enumerate(references.items()):
            axes.axvline(value, color=["black", "0.45"][i % 2], linestyle=["--", "-."][i % 2],
                         linewidth=1.2, label=f"{name} {value:.3g} {unit}")
        axes.set_xlabel(f"{unit} (median)")
        axes.grid(True, axis="x", alpha=0.3)
        legend_beside(axes)
    return figure.png(f"{lab} on {device}"), figure.points


def stacked_bars(title, names, labels, parts, unit_label):
    """Horizontal bars, one per name, each the sum of its parts [(label, colour, values)], the
    first name on top; returns the Figure (its axes for more lines)."""
    figure = Figure(7.2, 0.9 + 0.35 * max(len(names), 3))
    axes = figure.axes[0]
    positions = list(range(len(names)))[::-1]
    left = [0.0] * len(names)
    for label, colour, widths in parts:
        axes.barh(positions, widths, left=left, color=colour, height=0.6, label=label)
        left = [a + b for a, b in zip(left, widths)]
        figure.points += sum(1 for w in widths if w > 0)
    axes.set_yticks(positions)
    axes.set_yticklabels(labels, fontsize="x-small")
    axes.set_xlabel(unit_label)
    axes.grid(True, axis="x", alpha=0.3)
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
        figure.axes[0].axvline(wall * 1e6, color="black", linestyle="--", linewidth=1.2,
                               label="the whole pipeline, host clock")
    legend_beside(figure.axes[0])
    return figure.png(figure.title), figure.points


def buffer_modes_figure(report, device):
    """buffer_flags: create, upload, kernel and download per mode of A and B, stacked."""
    timing = report.get("details", {}).get("timing", {})
    modes = [m for m, v in timing.items() if isinstance(v, dict)]
    parts = [(label, colour, [timing[m].get(key, 0) * 1e3 for m in modes])
             for key, label, colour in (("create_median_s", "create", "#c7c7c7"),
                                        ("upload_median_s", "upload", "#ff7f0e"),
                                        ("kernel_median_s", "kernel", "#1f77b4"),
                                        ("download_median_s", "download", "#d62728"))]
    figure = stacked_bars(f"buffer_flags: what each mode costs on {device}", modes,
                          [f"A, B {m}" for m in modes], parts, "milliseconds per run (medians)")
    legend_beside(figure.axes[0])
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
    figure = Figure(min(1.0 + 0.45 * width, 9), min(1.0 + 0.45 * height, 7))
    axes = figure.axes[0]
    from matplotlib.patches import Rectangle
    groups_x = -(-width // lx)
    for y in range(height):
        for x in range(width):
            group = (y // ly) * groups_x + x // lx
            axes.add_patch(Rectangle((x, y), 1, 1, facecolor=f"C{group % 10}", alpha=0.55,
                                     edgecolor="white"))
            if width <= 24:
                axes.text(x + 0.5, y + 0.5, f"{x % lx},{y % ly}" if len(global_size) > 1
                          else f"{x % lx}", ha="center", va="center", fontsize=6)
            figure.points += 1
    axes.set_xlim(0, width)
    axes.set_ylim(height, 0)
    axes.set_aspect("equal")
    axes.set_xlabel("get_global_id(0)")
    axes.set_ylabel("get_global_id(1)" if len(global_size) > 1 else "")
    axes.set_yticks([] if height == 1 else range(0, height + 1, max(1, height // 8)))
    return figure.png(f"{'x'.join(map(str, global_size))} work-items in groups of "
                      f"{'x'.join(map(str, local[:len(global_size)]))}: colour = group, "
                      f"text = local id"), figure.points


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
    figure = Figure(7.2, 0.9 + 0.35 * len(items))
    axes = figure.axes[0]
    positions = list(range(len(items)))[::-1]
    axes.barh(positions, [v for _, v in items], color="C2", height=0.6)
    for position, (_, value) in zip(positions, items):
        axes.text(value, position, " " + human_bytes(value), va="center", fontsize="x-small")
    axes.set_xscale("log", base=2)
    axes.set_yticks(positions)
    axes.set_yticklabels([label for label, _ in items], fontsize="x-small")
    axes.set_xlabel("bytes")
    figure.points += len(items)
    return figure.png(f"the memories of {facts.get('name', device)}"), figure.points


def trace_figure(trace_path, title):
    """A --trace timeline drawn by trace_png.py, or (None, 0) when it has nothing to draw."""
    with tempfile.TemporaryDirectory() as scratch:
        png = Path(scratch) / "trace.png"
        process = subprocess.run([sys.executable, str(ROOT / "scripts" / "trace_png.py"),
                                  str(trace_path), str(png), "--title", title, "--width", "9"],
                                 capture_output=True, text=True)
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


def pictures(lab, run):
    """The pictures of one lab on one device: a list of (caption, PNG bytes or None, points)."""
    device = short_name(run["manifest"]["device"])
    report = run["reports"].get(lab)
    out = []
    if lab in run["sweeps"] and run["sweeps"][lab].get("reports"):
        rows = sweep_rows(run["sweeps"][lab])
        out.append(("the rate over a range of sizes", *sweep_figure(lab, rows, device)))
        if any(r.get("elements_per_s") for r in rows):
            out.append(("elements per second over a range of sizes",
                        *sweep_figure(lab, rows, device, "elements")))
    if report is None:
        return out
    if lab == "device_info":
        out.append(("memory sizes", *memories_figure(report, device)))
    elif lab == "work_items":
        out.append(("which work-group each work-item is in", *grid_figure(report, device)))
    elif lab == "profiling":
        out.append(("where each command's time goes", *stages_figure(report, device)))
    elif lab == "buffer_flags":
        out.append(("end-to-end cost per buffer mode", *buffer_modes_figure(report, device)))
    elif lab in ("memory_spaces", "vector_types"):
        out.append(("the rate of each variant", *bars_figure(lab, report, device)))
    if lab in run["traces"]:
        out.append(("timeline (--trace)",
                    *trace_figure(run["traces"][lab], f"{lab} on {device}: timeline")))
    return out


# ---------------------------------------------------------------------------------------------
# render: the page


def short_name(device):
    name = device.get("name", "?")
    return name if len(name) <= 40 else name[:38] + ".."


def readme_goal(lab):
    """The first paragraph of the lab's Goal in its README, as HTML."""
    for readme in ROOT.glob(f"labs/*_{lab}/README.md"):
        text = readme.read_text()
        match = re.search(r"^## Goal\n(.*?)(?:\n\s*\n|\n```|\n- )", text, re.S | re.M)
        if match:
            paragraph = html.escape(" ".join(match.group(1).split()))
            paragraph = re.sub(r"`([^`]+)`", r"<code>\1</code>", paragraph)
            return re.sub(r"\*([^*]+)\*", r"<em>\1</em>", paragraph)
    return ""


def fmt_seconds(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds:.3f} s"


def fmt_rate(rate):
    value = rate["value"]
    return f"{value:.3g} {rate['unit']}" if value < 100 else f"{value:.0f} {rate['unit']}"


def table_html(report):
    rows = report["results"]
    sizes = {r["size_label"] for r in rows}
    columns = [
        ("variant", lambda r: r["variant"]),
        ("size", lambda r: r["size_label"] if len(sizes) > 1 else None),
        ("median", lambda r: fmt_seconds(r["time_s"]["median"]) if "time_s" in r else None),
        ("rate", lambda r: fmt_rate(r["rate"]) if "rate" in r else None),
        # (the ceiling's own rate is in the pictures and the JSON: the cell stays short)
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
    notes = [f"{r['variant']}: {n}" for r in rows for n in r.get("notes", [])]
    if notes:
        lines.append("<details><summary>notes (" + str(len(notes)) + ")</summary><ul>"
                     + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul></details>")
    return "\n".join(lines)


STYLE = """
body { font-family: sans-serif; margin: 1.5em auto; padding: 0 1.5em; max-width: 1600px;
       color: #222; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
.devices { display: grid; gap: 1.5em; }
.device { min-width: 0; }
.device h3 { font-size: 1em; margin: 0.3em 0; }
table { border-collapse: collapse; font-size: 0.8em; margin: 0.5em 0; }
th, td { border-bottom: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top;
         white-space: nowrap; }
td.text { white-space: normal; min-width: 14em; }
.device { overflow-x: auto; }
td.passed { color: #176d17; } td.failed { color: #b00; font-weight: bold; }
td.skipped { color: #888; }
img { max-width: 100%; display: block; margin: 0.5em 0; }
.missing { color: #b00; }
.size, .meta, figcaption { color: #555; font-size: 0.85em; }
details { font-size: 0.8em; color: #444; }
"""


def render(options):
    runs = load_runs(options.runs)
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    labs = [lab for lab in LAB_ORDER if any(lab in r["manifest"]["labs"] for r in runs)]
    labs += sorted({lab for r in runs for lab in r["manifest"]["labs"]} - set(labs))
    columns = f"grid-template-columns: repeat({len(runs)}, minmax(0, 1fr));"
    page = ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>",
            "<title>OpenCL Labs: course report</title>", f"<style>{STYLE}</style></head><body>",
            "<h1>OpenCL Labs: course report</h1>",
            f"<p class='meta'>{len(labs)} labs on {len(runs)} device(s); page made "
            f"{datetime.datetime.now().astimezone().isoformat(timespec='minutes')}. Every figure "
            "comes from the labs' own --json on the device named above it.</p>",
            "<table class='runs'><tr><th></th>"
            + "".join(f"<th>{html.escape(short_name(r['manifest']['device']))}</th>"
                      for r in runs) + "</tr>"]
    facts = [("type", lambda m: m["device"].get("type", "")),
             ("vendor", lambda m: m["device"].get("vendor", "")),
             ("compute units", lambda m: str(m["device"].get("compute_units", ""))),
             ("platform", lambda m: m["device"].get("platform", {}).get("name", "")),
             ("driver", lambda m: m["device"].get("driver_version", "")),
             ("OpenCL", lambda m: m["device"].get("opencl_version", "")),
             ("commit", run_commits), ("date", lambda m: m.get("date", "")),
             ("host", lambda m: m.get("host", ""))]
    for label, get in facts:
        page.append(f"<tr><th>{label}</th>" + "".join(
            f"<td>{html.escape(get(r['manifest']))}</td>" for r in runs) + "</tr>")
    page.append("</table>")
    page.append("<p>" + " · ".join(f"<a href='#{lab}'>{lab}</a>" for lab in labs) + "</p>")

    for lab in labs:
        page.append(f"<section id='{lab}' class='lab'><h2>{lab}</h2>")
        goal = readme_goal(lab)
        if goal:
            page.append(f"<p>{goal}</p>")
        page.append(f"<div class='devices' style='{columns}'>")
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
            for caption, png, points in pictures(lab, run):
                if png is None or points == 0:
                    page.append(f"<p class='missing'>no picture of {html.escape(caption)}: "
                                "nothing to draw</p>")
                    continue
                data = base64.b64encode(png).decode()
                page.append(f"<figure><img alt='{html.escape(lab)}: {html.escape(caption)}' "
                            f"data-points='{points}' src='data:image/png;base64,{data}'>"
                            f"<figcaption>{html.escape(caption)} ({points} data points)"
                            "</figcaption></figure>")
            page.append("</div>")
        page.append("</div></section>")
    page.append("</body></html>")
    (out / "index.html").write_text("\n".join(page))
    summary = results_markdown(runs, labs)
    (out / "results.md").write_text(summary)
    if options.readme:
        splice_readme(Path(options.readme), summary)
    print(f"{PROGRAM}: wrote {out / 'index.html'} and {out / 'results.md'}")
    return 0


def best_row(report):
    """The fastest passed row of the lab's own (not a peer's), with its reference."""
    rows = [r for r in report["results"] if r["status"] == "PASSED" and "rate" in r
            and not PEER.search(r["variant"])]
    if not rows:
        return None
    unit = rows[0]["rate"]["unit"]
    return max((r for r in rows if r["rate"]["unit"] == unit), key=lambda r: r["rate"]["value"])


def results_markdown(runs, labs):
    lines = []
    for run in runs:
        m = run["manifest"]
        d = m["device"]
        lines.append(f"**{d.get('name', '?')}** ({d.get('type', '')}; "
                     f"{d.get('platform', {}).get('name', '')}, driver {d.get('driver_version')};"
                     f" commit {run_commits(m)}, {m.get('date', '')[:10]}):")
        lines.append("")
        lines.append("| lab | fastest variant | size | rate | of reference | peers |")
        lines.append("|---|---|---|---|---|---|")
        for lab in labs:
            report = run["reports"].get(lab)
            if report is None:
                continue
            best = best_row(report)
            if best is None:
                statuses = [r["status"] for r in report["results"]]
                counts = ", ".join(f"{statuses.count(s)} {s.lower()}"
                                   for s in ("PASSED", "FAILED", "SKIPPED") if s in statuses)
                lines.append(f"| {lab} | (no rate: {counts}) | | | | |")
                continue
            ref = best.get("reference")
            peers = [f"{r['variant']} {fmt_rate(r['rate'])}" for r in report["results"]
                     if PEER.search(r["variant"]) and "rate" in r and r["status"] == "PASSED"]
            lines.append(f"| {lab} | {best['variant']} | {best['size_label']} | "
                         f"{fmt_rate(best['rate'])} | "
                         + (f"{100 * ref['share']:.0f}% of {ref['name']}" if ref else "")
                         + f" | {'; '.join(peers)} |")
        lines.append("")
    return "\n".join(lines)


def splice_readme(readme, summary):
    text = readme.read_text()
    begin, end = "<!-- report:begin -->", "<!-- report:end -->"
    if begin not in text or end not in text:
        fail(f"{readme} has no '{begin}' ... '{end}' markers to put the results between")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    readme.write_text(f"{head}{begin}\n{summary}\n{end}{tail}")


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
    r.add_argument("--out", required=True, help="where index.html and results.md go")
    r.add_argument("--readme", help="a README.md to put the summary into")
    r.add_argument("runs", nargs="+", help="folders `collect` wrote")
    options = parser.parse_args()
    sys.exit(collect(options) if options.command == "collect" else render(options))


if __name__ == "__main__":
    main()
