"""plot_sweep.py: GFLOP/s against N, one line per variant, from matmul's --csv output.

Usage: plot_sweep.py SWEEP.csv OUT.png
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt


def main(source: str, target: str) -> None:
    series = defaultdict(list)
    device = ""
    with open(source, newline="") as handle:
        for row in csv.DictReader(handle):
            if not row["rate"]:
                continue
            size = row["size"]
            n = int(size.split("=")[1]) if size.startswith("N=") else None
            if n is None:
                continue  # non-square runs have no single N to plot against
            series[row["variant"]].append((n, float(row["rate"])))
            device = row["device"]
    figure, axes = plt.subplots(figsize=(8, 5))
    for variant, points in series.items():
        points.sort()
        axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=variant)
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xlabel("N (C = A·B, all N×N)")
    axes.set_ylabel("GFLOP/s (median)")
    axes.set_title(f"matmul on {device}")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(target, dpi=120)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
