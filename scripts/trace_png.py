"""trace_png.py: a lab's --trace timeline as a PNG picture, drawn without a browser.

Usage: trace_png.py TRACE.json OUT.png [--title TEXT] [--width INCHES]

TRACE.json is what a lab writes with --trace FILE (common/src/trace.cpp, the Chrome Trace Event
Format that ui.perfetto.dev opens). The picture has one row per lane of each track (command
queue), in the order of the trace's thread metadata (thread_sort_index, else the thread id), the
lanes of one queue grouped under its name. Each command is a bar from its start to its end on the
device's profiling clock, coloured by kernel name (by command type when there are more than ten
kernel names) or by command type for the others (WriteBuffer, ReadBuffer, MapBuffer, ...), with
its name inside when it fits. Warm-up commands (args "warm-up": true) are lighter and hatched. A
thin whisker under a bar spans its wait from queued to start (args queued_us, or the
queued_to_submit_us and submit_to_start_us stages). The title is "LAB on DEVICE" from otherData
unless --title is given; --width sets the picture's width in inches (default 14).

Needs matplotlib (Debian: python3-matplotlib, run with /usr/bin/python3). Exit status: 0 when
the PNG is written; 2, with one line on stderr, for a trace that cannot be read, holds no
command, or a PNG that cannot be written.
"""
import argparse
import json
import math
import re
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import patheffects  # noqa: E402
from matplotlib.backends.backend_agg import RendererAgg  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.font_manager import FontProperties  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

PROGRAM = "trace_png.py"
DPI = 100
FONT_SIZE = 9  # points, bar labels and lane names
SMALL_FONT_SIZE = 7.5  # points, bar labels that do not fit in FONT_SIZE
LANE_HEIGHT = 0.42  # inches per lane
MAX_PLOT_HEIGHT = 300  # inches, however many lanes
BAR_HALF = 0.3  # half a bar's height, in lanes
MAX_LABELS = 1500  # names written inside bars, at most: text is the slow part of a picture
GAP_PIXELS = 6  # commands of one name this close are labelled as one run
THIN_PIXELS = 2  # a command narrower than this does not break a run of others
WHISKER_PIXELS = 2  # waits shorter than this are not drawn
TICK_PIXELS = 6  # nor the tick at the queued end of waits shorter than this
MAX_KERNEL_COLOURS = 10  # more kernel names than this: all kernels share one colour
OVERLAP_LANE = re.compile(r"^(.*) \(overlap lane (\d+)\)$")

# Commands other than kernels, by type: warm colours, so that they stand apart from the kernels'
# cool ones.
TYPE_COLOURS = {
    "WriteBuffer": "#ff7f0e",
    "WriteBufferRect": "#ff7f0e",
    "ReadBuffer": "#d62728",
    "ReadBufferRect": "#d62728",
    "CopyBuffer": "#8c564b",
    "CopyBufferRect": "#8c564b",
    "FillBuffer": "#bcbd22",
    "MapBuffer": "#e7ba52",
    "UnmapMemObject": "#e377c2",
    "MigrateMemObjects": "#c49c94",
    "Marker": "#8c8c8c",  # synchronisation points in greys
    "Barrier": "#4d4d4d",
}
OTHER_COLOUR = "#b5b5b5"  # "User" and the rest
KERNEL_TYPES = ("NDRangeKernel", "Task")
KERNEL_COLOURS = ["#1f77b4", "#2ca02c", "#9467bd", "#17becf", "#393b79",
                  "#637939", "#aec7e8", "#98df8a", "#c5b0d5", "#9edae5"]
ALL_KERNELS = "kernel launches"


class TraceError(Exception):
    """A trace that cannot be drawn, or a picture that cannot be written: one line for stderr."""


class Command:
    """One complete ('X') event: where, what and when (microseconds from the trace's origin)."""

    __slots__ = ("lane", "name", "type", "start", "dur", "queued", "warm_up")

    def __init__(self, lane, name, kind, start, dur, queued, warm_up):
        self.lane = lane
        self.name = name
        self.type = kind
        self.start = start
        self.dur = dur
        self.queued = queued
        self.warm_up = warm_up


def number(value):
    """value as a finite float, or None (a missing, non-numeric or NaN field)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def load_trace(path):
    """The trace's JSON object: {"traceEvents": [...], "otherData": {...}} or a bare list."""
    try:
        with open(path, encoding="utf-8") as handle:
            trace = json.load(handle)
    except OSError as error:
        raise TraceError(f"cannot read {path}: {error.strerror or error}") from None
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
        raise TraceError(f"{path} is not JSON: {error}") from None
    if isinstance(trace, list):  # the format also allows a bare array of events
        trace = {"traceEvents": trace}
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        raise TraceError(f"{path} is not a Chrome trace: no traceEvents array")
    return trace


def queued_time(start, args):
    """When the command was queued: args queued_us, else start less its two waiting stages."""
    queued = number(args.get("queued_us"))
    if queued is not None:
        return queued
    stages = [number(args.get(key)) for key in ("queued_to_submit_us", "submit_to_start_us")]
    if all(stage is not None for stage in stages):
        return start - sum(stages)
    return None


def read_events(trace, path):
    """(lanes, commands): lanes as [(key, thread name)] in display order, commands as Command."""
    names = {}  # (pid, tid) -> thread name
    sort_index = {}  # (pid, tid) -> thread_sort_index
    commands = []
    for event in trace["traceEvents"]:
        if not isinstance(event, dict):
            continue
        key = (str(event.get("pid", "")), event.get("tid", 0))
        if not isinstance(key[1], (int, str)) or isinstance(key[1], bool):
            key = (key[0], str(key[1]))
        args = event.get("args") if isinstance(event.get("args"), dict) else {}
        phase = event.get("ph")
        if phase == "M":
            if event.get("name") == "thread_name" and isinstance(args.get("name"), str):
                names[key] = args["name"]
            elif event.get("name") == "thread_sort_index":
                index = number(args.get("sort_index"))
                if index is not None:
                    sort_index[key] = index
        elif phase == "X":
            start, dur = number(event.get("ts")), number(event.get("dur"))
            if start is None or dur is None or dur < 0:
                continue  # not a slice this script can place
            kind = args.get("command") or event.get("cat") or "command"
            name = event.get("name")
            commands.append(Command(key, name if isinstance(name, str) else str(kind),
                                    str(kind), start, dur, queued_time(start, args),
                                    args.get("warm-up") is True))
    if not commands:
        raise TraceError(f"{path} holds no command (no complete 'X' event with ts and dur): "
                         "nothing to draw")
    if not math.isfinite(max(c.start + c.dur for c in commands) - min(c.start for c in commands)):
        raise TraceError(f"{path} has times too large to draw")
    used = {c.lane for c in commands}

    def order(key):
        tid = key[1]
        numeric_tid = tid if isinstance(tid, int) else math.inf
        return (key[0], sort_index.get(key, numeric_tid), numeric_tid, str(tid))

    lanes = [(key, names.get(key, f"thread {key[1]}")) for key in sorted(used, key=order)]
    return lanes, commands


def lane_labels(lanes):
    """Each lane's label and track, and where each track starts: [(label, track)], [index].

    trace.cpp names a queue's second lane "QUEUE (overlap lane 2)": it is labelled "overlap lane
    2" under the queue's name, the lanes of one queue being next to each other in thread order.
    """
    labels, firsts = [], []
    previous = None
    for index, (_, thread) in enumerate(lanes):
        match = OVERLAP_LANE.match(thread)
        track = match.group(1) if match else thread
        if track != previous:
            firsts.append(index)
            labels.append((track, track))
        else:
            lane = match.group(2) if match else str(index - firsts[-1] + 1)
            labels.append((f"overlap lane {lane}", track))
        previous = track
    return labels, firsts


def choose_unit(span_us):
    """The x axis unit for a span of span_us microseconds: (name, microseconds per unit)."""
    if span_us >= 2e6:
        return "s", 1e6
    if span_us >= 2e3:
        return "ms", 1e3
    return "\u00b5s", 1.0


def colour_groups(commands):
    """({id(command): legend entry}, {entry: colour}): kernels first, in order of appearance."""
    kernel_names = []
    for command in commands:
        if command.type in KERNEL_TYPES and command.name not in kernel_names:
            kernel_names.append(command.name)
    by_name = len(kernel_names) <= MAX_KERNEL_COLOURS
    colours = {}
    if by_name:
        for index, name in enumerate(kernel_names):
            colours[name] = KERNEL_COLOURS[index]
    elif kernel_names:
        colours[ALL_KERNELS] = KERNEL_COLOURS[0]
    group_of = {}
    others = {}
    for command in commands:
        if command.type in KERNEL_TYPES:
            group = command.name if by_name else ALL_KERNELS
        else:
            group = command.type
            others.setdefault(group, TYPE_COLOURS.get(group, OTHER_COLOUR))
        group_of[id(command)] = group
    colours.update(others)
    return group_of, colours


def lighter(colour, amount=0.55):
    """colour mixed with white: amount 0 is the colour, 1 is white."""
    red, green, blue = matplotlib.colors.to_rgb(colour)
    return tuple(c + (1.0 - c) * amount for c in (red, green, blue))


def text_colour(colour):
    """Black or white, whichever reads better on colour."""
    red, green, blue = matplotlib.colors.to_rgb(colour)
    return "black" if 0.299 * red + 0.587 * green + 0.114 * blue > 0.5 else "white"


_RENDERER = RendererAgg(1, 1, DPI)  # measures text as the picture will draw it
_FONTS = {}


def text_width(text, size=FONT_SIZE, weight="normal"):
    """How wide text is in size points, in inches."""
    if (size, weight) not in _FONTS:
        _FONTS[size, weight] = FontProperties(size=size, weight=weight)
    width, _, _ = _RENDERER.get_text_width_height_descent(text, _FONTS[size, weight],
                                                          ismath=False)
    return width / DPI


def fitted(name, suffix, room):
    """(text, size) to fit room inches: name + suffix (a run's count), else name alone, in
    FONT_SIZE or else SMALL_FONT_SIZE points; else name shortened in the middle with an ellipsis
    (its start and end tell variants apart) in the smaller size. None when not even 8 characters
    of name fit."""
    if room < text_width("x" * 5, SMALL_FONT_SIZE):
        return None  # too narrow for anything: skip the measuring
    for text in dict.fromkeys([name + suffix, name]):
        for size in (FONT_SIZE, SMALL_FONT_SIZE):
            if text_width(text, size) <= room:
                return text, size
    full = text_width(name, SMALL_FONT_SIZE)
    keep = min(len(name) - 1, int(len(name) * room / full) + 1)  # a guess, from above
    while keep >= 8:
        head = (keep * 3 + 4) // 5  # three fifths of it from the start
        text = name[:head].rstrip() + "\u2026" + name[len(name) - keep + head:].lstrip()
        if text_width(text, SMALL_FONT_SIZE) <= room:
            return text, SMALL_FONT_SIZE
        keep -= 1
    return None


def shortened(text, room, size=FONT_SIZE, weight="normal"):
    """text, or its start and an ellipsis, in at most room inches."""
    while len(text) > 1 and text_width(text, size, weight) > room:
        text = text[:-2].rstrip() + "\u2026"
    return text


def label_runs(commands, units_per_pixel, scale):
    """Runs of commands to label as one: on a lane, commands of one name back to back (a gap of
    at most GAP_PIXELS) make a run, "NAME \u00d7COUNT", since a name rarely fits one bar of a
    repeated launch. A differently named command too thin to see (under THIN_PIXELS, an unmap
    between two kernels) does not break a run. Returns [(start, end, name, members)] in units."""
    runs = []
    by_lane = defaultdict(list)
    for command in commands:
        by_lane[command.lane].append(command)
    for lane_commands in by_lane.values():
        lane_commands.sort(key=lambda c: c.start)
        run = None
        for command in lane_commands:
            start, end = command.start / scale, (command.start + command.dur) / scale
            near = run is not None and start - run[1] <= GAP_PIXELS * units_per_pixel
            if near and command.name == run[2]:
                run[1] = max(run[1], end)
                run[3].append(command)
            elif near and (end - start) < THIN_PIXELS * units_per_pixel:
                continue
            else:
                run = [start, end, command.name, [command]]
                runs.append(run)
    return runs


def legend_entries(colours, any_warm_up, any_wait):
    # Legend text is parsed for $math$: a name's dollar signs are escaped.
    handles = [Patch(facecolor=colour, label=group.replace("$", r"\$"))
               for group, colour in colours.items()]
    if any_warm_up:
        handles.append(Patch(facecolor=lighter("#808080"), edgecolor="#808080", hatch="///",
                             linewidth=0, label="warm-up (lighter, hatched)"))
    if any_wait:
        handles.append(Line2D([], [], color="#555555", linewidth=1, marker="|",
                              markersize=6, label="waiting: queued \u2192 start"))
    return handles


class Scale:
    """The x axis: its unit, and how many of them one pixel and one inch of the plot span."""

    def __init__(self, origin, end, plot_width):
        self.unit, self.us = choose_unit(end - origin)
        self.low, self.high = origin / self.us, end / self.us
        self.pad = (self.high - self.low) * 0.01 or 1.0
        self.per_inch = (self.high - self.low + 2 * self.pad) / plot_width
        self.per_pixel = self.per_inch / DPI


def whisker_segments(commands, row_of, scale):
    """The waits (queued -> start) long enough to see, as line segments just under their bars;
    the tick at the queued end only where it does not crowd the start."""
    segments = []
    for command in commands:
        if command.queued is None or command.queued >= command.start:
            continue
        queued, start = command.queued / scale.us, command.start / scale.us
        pixels = (start - queued) / scale.per_pixel
        if pixels < WHISKER_PIXELS:
            continue
        y = row_of[command.lane] + BAR_HALF + 0.09
        segments.append([(queued, y), (start, y)])
        if pixels >= TICK_PIXELS:
            segments.append([(queued, y - 0.06), (queued, y + 0.06)])
    return segments


def draw_tracks(axes, firsts, lanes):
    """Every other track shaded, a line between two tracks."""
    bounds = firsts + [lanes]
    for index, (first, last) in enumerate(zip(bounds, bounds[1:])):
        if index % 2:
            axes.axhspan(first - 0.5, last - 0.5, color="#f2f2f2", zorder=0)
        if first:
            axes.axhline(first - 0.5, color="#b0b0b0", linewidth=0.8, zorder=1)


def draw_bars(axes, commands, row_of, group_of, colours, scale):
    """One broken_barh per lane, colour and warm-up flag, however many commands there are; a
    command is at least a pixel wide, so that none vanishes (as in Perfetto)."""
    bars = defaultdict(list)
    for command in commands:
        key = (row_of[command.lane], group_of[id(command)], command.warm_up)
        bars[key].append((command.start / scale.us,
                          max(command.dur / scale.us, scale.per_pixel)))
    for (row, group, warm_up), spans in bars.items():
        colour = colours[group]
        if warm_up:
            axes.broken_barh(spans, (row - BAR_HALF, 2 * BAR_HALF), facecolors=lighter(colour),
                             edgecolor=colour, hatch="///", linewidth=0, zorder=3)
        else:
            axes.broken_barh(spans, (row - BAR_HALF, 2 * BAR_HALF), facecolors=colour,
                             linewidth=0, zorder=3)


def draw_labels(axes, commands, row_of, group_of, colours, scale):
    """Names inside the bars (runs of bars) wide enough for them, widest first."""
    runs = label_runs(commands, scale.per_pixel, scale.us)
    runs.sort(key=lambda run: run[1] - run[0], reverse=True)
    for start, stop, name, members in runs[:MAX_LABELS]:
        suffix = f" \u00d7{len(members)}" if len(members) > 1 else ""
        label = fitted(name, suffix, (stop - start) / scale.per_inch - 0.08)
        if label is None:
            continue
        middle = (start + stop) / 2
        # The background under the text: the member bar nearest the middle.
        under = min(members, key=lambda c: abs((c.start + c.dur / 2) / scale.us - middle))
        colour = colours[group_of[id(under)]]
        colour = lighter(colour) if under.warm_up else colour
        axes.text(middle, row_of[under.lane], label[0], ha="center", va="center",
                  fontsize=label[1], color=text_colour(colour), zorder=4, clip_on=True,
                  parse_math=False,
                  path_effects=[patheffects.withStroke(linewidth=2, foreground=colour)])


def render(lanes, commands, out, title, width):
    """Draws the timeline into out (a PNG file)."""
    labels, firsts = lane_labels(lanes)
    row_of = {key: index for index, (key, _) in enumerate(lanes)}
    origin = min([0.0] + [c.start for c in commands]
                 + [c.queued for c in commands if c.queued is not None])
    end = max(c.start + c.dur for c in commands)

    # Layout in inches: lane names on the left, the plot, the legend under the x axis in as
    # many columns as fit.
    most = 0.35 * width - 0.35
    names = [shortened(label, most) for label, _ in labels]
    left = max(text_width(name) for name in names) + 0.35
    plot_width = width - left - 0.3
    scale = Scale(origin, end, plot_width)
    group_of, colours = colour_groups(commands)
    segments = whisker_segments(commands, row_of, scale)
    handles = legend_entries(colours, any(c.warm_up for c in commands), bool(segments))
    entry_width = max(text_width(h.get_label(), 8) for h in handles) + 0.75
    columns = max(1, min(len(handles), int((width - 0.4) // entry_width)))
    top, axis_space = 0.75, 0.6
    legend_space = 0.22 * math.ceil(len(handles) / columns) + 0.1
    # Lanes narrow past MAX_PLOT_HEIGHT: a picture is at most 2^16 pixels high.
    plot_height = max(min(LANE_HEIGHT * len(lanes), MAX_PLOT_HEIGHT), 0.9)
    height = top + plot_height + axis_space + legend_space

    figure = plt.figure(figsize=(width, height), dpi=DPI)
    axes = figure.add_axes([left / width, (axis_space + legend_space) / height,
                            plot_width / width, plot_height / height])
    axes.set_xlim(scale.low - scale.pad, scale.high + scale.pad)
    axes.set_ylim(len(lanes) - 0.5, -0.5)
    draw_tracks(axes, firsts, len(lanes))
    draw_bars(axes, commands, row_of, group_of, colours, scale)
    if segments:
        axes.add_collection(LineCollection(segments, colors="#555555", linewidths=0.7,
                                           zorder=2))
    draw_labels(axes, commands, row_of, group_of, colours, scale)

    axes.set_yticks(range(len(lanes)))
    axes.set_yticklabels(names, fontsize=FONT_SIZE, parse_math=False)
    for index, tick in enumerate(axes.get_yticklabels()):
        if index not in firsts:  # a second lane of a queue
            tick.set_color("#666666")
            tick.set_fontstyle("italic")
    axes.tick_params(axis="y", length=0)
    axes.tick_params(axis="x", labelsize=FONT_SIZE)
    x_label = f"time ({scale.unit}) from the first command queued, device profiling clock"
    if text_width(x_label) > plot_width:
        x_label = f"time ({scale.unit}), device clock"
    axes.set_xlabel(x_label, fontsize=FONT_SIZE)
    axes.grid(True, axis="x", color="#dddddd", linewidth=0.6, zorder=0)
    axes.set_axisbelow(True)
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)

    def plural(count, word):
        return f"{count} {word}{'' if count == 1 else 's'}"

    span = scale.high - scale.low
    digits = 0 if span >= 100 else 1 if span >= 10 else 2  # 1360 ms, 44.2 ms, 8.00 us

    figure.text(0.5, 1 - 0.3 / height, shortened(title, width - 0.4, 13, "bold"), ha="center",
                va="center", fontsize=13, fontweight="bold", parse_math=False)
    figure.text(0.5, 1 - 0.58 / height,
                f"{plural(len(commands), 'command')} on {plural(len(firsts), 'track')} "
                f"({plural(len(lanes), 'lane')}) over {span:.{digits}f} {scale.unit}",
                ha="center", va="center", fontsize=FONT_SIZE, color="#444444")
    figure.legend(handles=handles, loc="upper center", ncol=columns, fontsize=8, frameon=False,
                  bbox_to_anchor=(0.5, legend_space / height), handlelength=2.2)
    try:
        figure.savefig(out, dpi=DPI, format="png")
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or error
        raise TraceError(f"cannot write {out}: {reason}") from None
    finally:
        plt.close(figure)


def default_title(trace, path):
    """ "LAB on DEVICE" from otherData, else the process's name, else the file's name."""
    other = trace.get("otherData") if isinstance(trace.get("otherData"), dict) else {}
    lab, device = other.get("lab"), other.get("device")
    if isinstance(lab, str) and lab:
        return f"{lab} on {device}" if isinstance(device, str) and device else lab
    for event in trace["traceEvents"]:
        if isinstance(event, dict) and event.get("ph") == "M" \
                and event.get("name") == "process_name" and isinstance(event.get("args"), dict):
            name = event["args"].get("name")
            if isinstance(name, str) and name:
                return name
    return path


def positive_width(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not 4 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text} is outside 4 to 100 inches")
    return value


def main(argv):
    parser = argparse.ArgumentParser(
        prog=PROGRAM, description="Renders a lab's --trace JSON as a PNG timeline.")
    parser.add_argument("trace", metavar="TRACE.json", help="the file a lab wrote with --trace")
    parser.add_argument("out", metavar="OUT.png", help="the picture to write")
    parser.add_argument("--title", help='the title (default: "LAB on DEVICE" from the trace)')
    parser.add_argument("--width", type=positive_width, default=14.0, metavar="INCHES",
                        help="the picture's width in inches, 4 to 100 (default 14)")
    options = parser.parse_args(argv)
    try:
        trace = load_trace(options.trace)
        lanes, commands = read_events(trace, options.trace)
        title = options.title if options.title is not None else default_title(trace,
                                                                               options.trace)
        render(lanes, commands, options.out, title, options.width)
    except TraceError as error:
        print(f"{PROGRAM}: error: {error}", file=sys.stderr)
        return 2
    except (ValueError, TypeError, OverflowError, MemoryError) as error:
        # A trace that got past the checks above with values matplotlib cannot draw.
        print(f"{PROGRAM}: error: cannot draw {options.trace}: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
