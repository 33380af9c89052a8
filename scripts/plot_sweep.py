"""plot_sweep.py: a lab's rate against its size, one line per variant, from a sweep's CSV.

Usage: plot_sweep.py SWEEP.csv OUT.png

The CSV is the labs' --csv output (scripts/sweep.sh writes it). The x axis is N from the size
column ("N=1024", or "M=.. N=.. K=..") or else n ("n=1048576"). The left panel is the rate in its
unit; a second panel shows G elements/s when the CSV has an elements_per_s column (elements per
second) with values.
When the reference column names the copy kernel's bandwidth, or the device's FP32 peak (matmul),
it is drawn as a dashed line: the ceiling the variants are measured against. The legend sits
beside the panel, never over the data.
"""
import csv
import re
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt

COPY_PATTERN = re.compile(r"copy kernel ([0-9.]+) GB/s")
PEAK_PATTERN = re.compile(r"peak ~([0-9.]+)")
SIZE_PATTERNS = [
    ("N", re.compile(r"\bN=([0-9]+)")),
    ("n", re.compile(r"\bn=([0-9]+)")),
    ("HxW", re.compile(r"^([0-9]+)x[0-9]+$")),  # transpose, coalescing: plotted against H
]
X_LABELS = {"N": "N (matrix size)", "n": "n (elements)", "HxW": "N (an N x N matrix)"}


def parse_size(text):
    """Returns (name, value) for the first of N=, n= and HxW found in text, or None."""
    for name, pattern in SIZE_PATTERNS:
        match = pattern.search(text)
        if match:
            return name, int(match.group(1))
    return None


def read_sweep(source):
    sweep = {
        "lab": "",
        "device": "",
        "size_names": set(),
        "units": set(),
        "rates": defaultdict(list),  # variant -> [(size, rate)]
        "elements": defaultdict(list),  # variant -> [(size, G elements/s)]
        "copy": {},  # size -> copy kernel GB/s
        "peak": {},  # size -> the device's estimated peak, in the rate's unit
    }
    with open(source, newline="") as handle:
        for row in csv.DictReader(handle):
            if not row.get("rate"):
                continue
            size = parse_size(row.get("size", ""))
            if size is None:
                continue  # no single size to plot against
            name, n = size
            variant = row["variant"]
            sweep["lab"] = row["lab"]
            sweep["device"] = row["device"]
            sweep["size_names"].add(name)
            sweep["units"].add(row["unit"])
            sweep["rates"][variant].append((n, float(row["rate"])))
            if row.get("elements_per_s"):
                # The CSV counts elements per second; the panel shows billions.
                sweep["elements"][variant].append((n, float(row["elements_per_s"]) / 1e9))
            copy = COPY_PATTERN.search(row.get("reference") or "")
            if copy:
                sweep["copy"][n] = float(copy.group(1))
            peak = PEAK_PATTERN.search(row.get("reference") or "")
            if peak:
                sweep["peak"][n] = float(peak.group(1))
    return sweep


def draw_lines(axes, series, colours):
    for variant, points in series.items():
        points.sort()
        axes.plot(
            [p[0] for p in points],
            [p[1] for p in points],
            marker="o",
            color=colours[variant],
            label=variant,
        )


def finish_axes(axes, x_label, y_label):
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xlabel(x_label)
    axes.set_ylabel(y_label)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))


def main(source, target):
    sweep = read_sweep(source)
    if not sweep["rates"]:
        sys.exit(f"plot_sweep.py: {source} has no rows with a rate and a size to plot")

    names = sweep["size_names"]
    x_label = X_LABELS[names.pop()] if len(names) == 1 else "size"
    unit = " / ".join(sorted(sweep["units"]))
    # One colour per variant, the same in both panels.
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colours = {v: cycle[i % len(cycle)] for i, v in enumerate(sweep["rates"])}

    panels = 2 if sweep["elements"] else 1
    figure, axes = plt.subplots(1, panels, figsize=(9.5 * panels, 5), squeeze=False)
    rate_axes = axes[0][0]
    draw_lines(rate_axes, sweep["rates"], colours)
    if sweep["copy"] and unit == "GB/s":
        sizes = sorted(sweep["copy"])
        rate_axes.plot(
            sizes, [sweep["copy"][n] for n in sizes], "k--", marker="x", label="copy kernel"
        )
    if sweep["peak"]:
        sizes = sorted(sweep["peak"])
        rate_axes.plot(
            sizes, [sweep["peak"][n] for n in sizes], "k:", label="FP32 peak (estimated)"
        )
    finish_axes(rate_axes, x_label, f"{unit} (median)")

    if sweep["elements"]:
        elements_axes = axes[0][1]
        draw_lines(elements_axes, sweep["elements"], colours)
        finish_axes(elements_axes, x_label, "G elements/s (median)")

    figure.suptitle(f"{sweep['lab']} on {sweep['device']}")
    figure.tight_layout()
    figure.savefig(target, dpi=120)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
