"""plot_sweep.py: a lab's rate against its size, one line per variant, from a sweep's CSV.

Usage: plot_sweep.py SWEEP.csv OUT.png

The CSV is the labs' --csv output (scripts/sweep.sh writes it): each column is a path into the
result schema (docs/result.schema.json), so the rows are read back into that shape and drawn as
the course report draws a sweep (scripts/report.py): the x axis is n, or N of an N x N matrix;
the lab's ceiling (the copy kernel's bandwidth, the FP32 peak, or transpose's own copy of the
same matrix) and the peer libraries are drawn as references; a second panel shows G elements/s
where the rows have it. The legend sits beside the panel, never over the data. A CSV without a
passed row that has a rate and a size (a lab that measures no rate) is exit code 4, no picture.
"""
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import report  # noqa: E402  (scripts/report.py)

NOTHING_TO_PLOT = 4  # the exit code when no row has a rate (events, work_items): no picture


def number(text):
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def row_of(fields):
    """A CSV line's fields (column path -> text) as a result row: "rate.value" becomes
    row["rate"]["value"]; empty fields are left out."""
    row = {}
    for path, text in fields.items():
        if text == "" or path in ("lab", "device.name"):
            continue
        node = row
        *parents, leaf = path.split(".")
        for parent in parents:
            node = node.setdefault(parent, {})
        node[leaf] = text if leaf in ("variant", "size_label", "status", "unit", "name") \
            else number(text)
    row.setdefault("size", {})
    return row


def main(source, target):
    with open(source, newline="") as handle:
        lines = list(csv.DictReader(handle))
    if not lines:
        sys.exit(f"plot_sweep.py: {source} has no rows")
    lab = lines[0]["lab"]
    png, points = report.sweep_figure(lab, [row_of(f) for f in lines], lines[0]["device.name"])
    if points == 0:
        print(f"plot_sweep.py: {source} has no passed rows with a rate and a size to plot",
              file=sys.stderr)
        sys.exit(NOTHING_TO_PLOT)
    Path(target).write_bytes(png)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
