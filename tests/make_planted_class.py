#!/usr/bin/env python3
"""make_planted_class.py: writes a test class for the grader (scripts/grade.py) from the suite's own
kernels, one student per planted mistake, so that the grade.planted_class test
(tests/check_planted_class.py) can show which mistakes the grader catches and which it lets pass.

Usage: make_planted_class.py --kernels DIR --exercises build/exercises.tsv OUT

OUT/class/PLANT/my_KERNEL.cl is kernels/KERNEL with PLANT's edit, for every exercise the build
lists (build/exercises.tsv) where the plant applies; OUT/plants.json says, per student and
exercise, whether the row must pass, fail, or has no file (the plant does not apply) and why. Each
plant is made from the kernel by text edits at generation time, so the plants follow the kernels as
they change; an edit that this file says applies but that can no longer be made (the kernel
changed) stops the generator with the exercise, the plant and the text it looked for (exit 1).

Two exercises may share a kernel file (profiling.add and vector_add.add, say): a student hands in
one file per kernel, so both exercises' edits go into that one file.
"""

import argparse
import json
import os
import re
import shutil
import sys
from pathlib import Path

BOM = b"\xef\xbb\xbf"


class PlantError(Exception):
    """An edit this file says applies could not be made: the kernel changed."""


# What each student plants, and whether the grader must pass it.
PLANTS = {
    "right": ("pass", "the suite's kernel as is, with a comment line added"),
    "printf": ("pass", "a debug printf that only work-item 0 reaches, first in the kernel's body"),
    "bom_crlf": ("pass", "the suite's kernel with a UTF-8 byte-order mark and CRLF line ends"),
    "no_barrier": ("fail", "every barrier(...); removed"),
    "misplaced_barrier": ("fail", "the first EXERCISE block's barrier moved to the block's other "
                                  "end (its start, or its end when it opens the block)"),
    "non_atomic": ("fail", "every atomic_add/atomic_inc/... a plain read-modify-write"),
    "off_by_one": ("fail", "a bound or index one too far: the exercise's code reads or writes "
                           "one element past an array"),
    "hard_coded": ("fail", "the size in a bound replaced by the grading command's literal size"),
    "include_relative": ("fail", '#include "../right/my_KERNEL.cl", the whole file'),
    "include_absolute": ("fail", "#include of right's file by its absolute path, the whole file"),
    "symlink": ("fail", "my_KERNEL.cl a symbolic link to right's file"),
}

# Per exercise (LAB.NAME, as build/exercises.tsv lists it):
#   function    the __kernel the lab launches, where the printf goes;
#   barrier     True when the kernel has barriers, so no_barrier applies; "cache" when it has them
#               but this exercise's code path needs none (the plant is handed in, and must pass);
#   misplaced   True when an EXERCISE block holds a barrier, so misplaced_barrier applies;
#   atomic      True when the kernel updates memory with atomics, so non_atomic applies;
#   off_by_one  [(old, new)] edits that make the exercise's code read or write one past an array;
#   hard_coded  [(old, new)] edits where new's {OPTION} (or {OPTION:FIELD} for 10,7) becomes that
#               option's value in the exercise's ARGS, the size printed in the grading command.
# Each `old` must occur exactly once in the kernel file (so an edit cannot land elsewhere).
EXERCISES = {
    "vector_add.add": dict(
        function="vector_add", barrier=False, misplaced=False, atomic=False,
        # the padded launch's work-item n reads a[n], b[n] and writes c[n]
        off_by_one=[("if (i < n) {  // padding", "if (i <= n) {  // padding")],
        hard_coded=[("if (i < n) {  // padding", "if (i < {-n}) {  // padding")]),
    "work_items.record": dict(
        function="work_items_record", barrier=False, misplaced=False, atomic=False,
        # in_range stored one slot past the record: the next work-item's first field, and past
        # the end of records for the last work-item
        off_by_one=[("r[RECORD_IN_RANGE] =", "r[RECORD_IN_RANGE + 1] =")],
        hard_coded=[("(g0 < requested0 && g1 < requested1",
                     "(g0 < {--global:0} && g1 < {--global:1}")]),
    "matmul.row_local": dict(
        function="matmul_row_local", barrier=True, misplaced=True, atomic=False,
        # the group copies K + 1 elements of column j: B[K * N + j] lies past B's last row
        off_by_one=[("for (int k = iloc; k < K; k += nloc) Bwrk[k]",
                     "for (int k = iloc; k <= K; k += nloc) Bwrk[k]")],
        hard_coded=[("for (int k = iloc; k < K; k += nloc) Bwrk[k]",
                     "for (int k = iloc; k < {--inner}; k += nloc) Bwrk[k]")]),
    "matmul.tiled": dict(
        function="matmul_tiled", barrier=True, misplaced=True, atomic=False,
        # column ka == K of A is the next row's first element, past A for the last row
        off_by_one=[("(i < M && ka < K) ? A[", "(i < M && ka <= K) ? A[")],
        hard_coded=[("(i < M && ka < K) ? A[", "(i < M && ka < {--inner}) ? A[")]),
    "matmul.regtiled_local": dict(
        function="matmul_regtiled", barrier=True, misplaced=False, atomic=False,
        # one 4-row step too many: reads a[WPTM / 4] and writes acc[WPTM..WPTM+3], past both
        off_by_one=[("for (int wm4 = 0; wm4 < WPTM / 4; ++wm4) {",
                     "for (int wm4 = 0; wm4 <= WPTM / 4; ++wm4) {")],
        # the slice loop stops at the grading command's K
        hard_coded=[("k0 < K; k0 += TSK, buf ^= 1)", "k0 < {--inner}; k0 += TSK, buf ^= 1)")]),
    "matmul.regtiled_cache": dict(
        # the cache shape's one barrier only keeps the slice of B in cache (matmul_regtiled.cl
        # says so): without it the results are still right, so no_barrier must pass here
        function="matmul_regtiled", barrier="cache", misplaced=False, atomic=False,
        # one row too many: acc[WPTM] past the accumulators, A read a row further
        off_by_one=[("wm < WPTM; ++wm) {\n      const REAL a",
                     "wm <= WPTM; ++wm) {\n      const REAL a")],
        hard_coded=[("(EXACT || ib + wm < M)", "(EXACT || ib + wm < {--rows})")]),
    "reduction.interleaved": dict(
        function="reduction_interleaved", barrier=True, misplaced=True, atomic=False,
        # a last step with offset == L: work-item 0 adds scratch[L], past the local array
        off_by_one=[("offset < L; offset *= 2)", "offset <= L; offset *= 2)")],
        hard_coded=[("scratch[t] = i < n ? TERM(i)", "scratch[t] = i < {-n} ? TERM(i)")]),
    "reduction.sequential": dict(
        function="reduction_sequential", barrier=True, misplaced=True, atomic=False,
        # work-item t == stride adds scratch[2 * stride]: scratch[L] in the first step
        off_by_one=[("if (t < stride) scratch[t] += scratch[t + stride];\n    // END",
                     "if (t <= stride) scratch[t] += scratch[t + stride];\n    // END")],
        hard_coded=[("scratch[t] = i < n ? TERM(i)", "scratch[t] = i < {-n} ? TERM(i)")]),
    "reduction.multi": dict(
        function="reduction_multi", barrier=True, misplaced=True, atomic=False,
        # the leftover loop adds vector `end` too: the next work-item's, or past x for the last
        off_by_one=[("for (; v < end; v += step) acc += TERMV(v);",
                     "for (; v <= end; v += step) acc += TERMV(v);")],
        # n hard-coded in both its uses: with the vector count alone, the loop over the elements
        # left after the vectors would add the rest for any larger n
        hard_coded=[("const size_t vectors = n / VW;", "const size_t vectors = {-n} / VW;"),
                    ("get_global_id(0); i < n; i += get_global_size(0)) sum += TERM(i);",
                     "get_global_id(0); i < {-n}; i += get_global_size(0)) sum += TERM(i);")]),
    "transpose.tile_in_out": dict(
        function="transpose_coalesced", barrier=True, misplaced=True, atomic=False,
        # row oi == width of B is past B's last row
        off_by_one=[("if (oi < width && oj < height) B[", "if (oi <= width && oj < height) B[")],
        hard_coded=[("if (i < height && j < width) tile", "if (i < {-H} && j < width) tile")]),
    "coalescing.fused_load": dict(
        function="coalescing_fused", barrier=True, misplaced=True, atomic=False,
        # one element too many into the block: share[CHUNK] read, block's row LOCAL + t / CHUNK
        # written, past both
        off_by_one=[("k < CHUNK; ++k) {\n      const int e = t + k * LOCAL;\n      block[",
                     "k <= CHUNK; ++k) {\n      const int e = t + k * LOCAL;\n      block[")],
        hard_coded=[("share[k] = i0 + r < height && c < width ? A[(size_t)(i0 + r) * width + c] "
                     ": 0;\n    }\n    // END",
                     "share[k] = i0 + r < height && c < {-W} ? A[(size_t)(i0 + r) * width + c] "
                     ": 0;\n    }\n    // END")]),
    "buffer_flags.scale": dict(
        function="scale", barrier=False, misplaced=False, atomic=False,
        # the padded launch's work-item n reads src[n] and writes dst[n]
        off_by_one=[("if (i < n) dst[i] = 2 * src[i] + 1;",
                     "if (i <= n) dst[i] = 2 * src[i] + 1;")],
        # -n is the matrix side; the kernel's n is the N * N elements the grading command makes
        hard_coded=[("if (i < n) dst[i] = 2 * src[i] + 1;",
                     "if (i < {-n} * {-n}) dst[i] = 2 * src[i] + 1;")]),
    "events.element": dict(
        function="events_busy", barrier=False, misplaced=False, atomic=False,
        # each result stored one element on: out[n] past the end for the last work-item (the lab
        # launches exactly n work-items, so a bound of i <= n would change nothing)
        off_by_one=[("out[i] = x;", "out[i + 1] = x;")],
        hard_coded=[("if (i >= n) return;", "if (i >= {-n}) return;")]),
    "memory_spaces.tiles": dict(
        function="fill_tiles", barrier=True, misplaced=True, atomic=False,
        # column N is the next row's first element, past the matrices for the last row
        off_by_one=[("const bool inside = row < M && col < N;",
                     "const bool inside = row < M && col <= N;")],
        hard_coded=[("const bool inside = row < M && col < N;",
                     "const bool inside = row < {-H} && col < N;")]),
    "vector_types.tail": dict(
        function="copy_vw", barrier=False, misplaced=False, atomic=False,
        # the tail copies dst[n] = src[n] too
        off_by_one=[("for (size_t i = whole * VW; i < n; ++i)",
                     "for (size_t i = whole * VW; i <= n; ++i)")],
        hard_coded=[("for (size_t i = whole * VW; i < n; ++i)",
                     "for (size_t i = whole * VW; i < {-n}; ++i)")]),
    "scan.down_sweep": dict(
        function="scan_blelloch", barrier=True, misplaced=False, atomic=False,
        # work-item t == active joins the down-sweep: its right child lies past the tile
        off_by_one=[("if (t < active) {\n      // EXERCISE(down_sweep)",
                     "if (t <= active) {\n      // EXERCISE(down_sweep)")],
        # fails at any n above 1000 (the large run); below, the helpers' own checks of n cover it
        hard_coded=[("for (ulong first = 0; first < n; first += TILE)",
                     "for (ulong first = 0; first < {-n}; first += TILE)")]),
    "histogram.merge": dict(
        function="histogram_local", barrier=True, misplaced=False, atomic=True,
        # bin BINS merged too: counts[BINS] and hist[BINS] past both
        off_by_one=[("for (uint b = t; b < BINS; b += size) {\n    if (counts[b]",
                     "for (uint b = t; b <= BINS; b += size) {\n    if (counts[b]")],
        # n hard-coded in both its uses (as in reduction.multi)
        hard_coded=[("const ulong quads = n / 4;", "const ulong quads = {-n} / 4;"),
                    ("get_global_id(0); i < n; i += stride)",
                     "get_global_id(0); i < {-n}; i += stride)")]),
    "images.reflect": dict(
        function="horizontal_reflect", barrier=False, misplaced=False, atomic=False,
        # pixel width - x: x = 0 reads one past the row's last pixel
        off_by_one=[("(int2)(width - 1 - x, y)", "(int2)(width - x, y)")],
        hard_coded=[("const int width = get_image_width(src);", "const int width = {-n};")]),
    "images.halo": dict(
        function="convolve_local", barrier=True, misplaced=False, atomic=False,
        # one column too many: tile[j][APRON], past the last row of the local tile
        off_by_one=[("for (int i = lx; i < APRON; i += TILE) {",
                     "for (int i = lx; i <= APRON; i += TILE) {")],
        hard_coded=[("clamp(x0 + i, 0, width - 1)", "clamp(x0 + i, 0, {-W} - 1)")]),
}
# Exercises graded on another's kernel file take its edits.
EXERCISES["reduction.multi_contiguous"] = EXERCISES["reduction.multi"]
EXERCISES["profiling.add"] = EXERCISES["vector_add.add"]
EXERCISES["vector_add.add_double"] = EXERCISES["vector_add.add"]

BARRIER = re.compile(r"^[ \t]*barrier\s*\([^;]*\)\s*;[^\n]*\n", re.M)
ATOMIC = re.compile(r"\b(atomic_(?:fetch_)?(?:add|sub|inc|dec|and|or|xor|min|max)"
                    r"(?:_explicit)?|atom_(?:add|sub|inc|dec))\s*\(")
MARKER = re.compile(r"^[ \t]*// EXERCISE\(([^)]*)\)[^\n]*\n", re.M)
END = re.compile(r"^[ \t]*// END EXERCISE[^\n]*\n", re.M)


def code_of(text):
    """`text` without its // and /* */ comments (line breaks kept)."""
    return re.sub(r"//[^\n]*|/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text,
                  flags=re.S)


def read_exercises(path):
    """{LAB.NAME: (kernel file name, ARGS words)} from build/exercises.tsv, in its order."""
    exercises = {}
    for line in path.read_text().splitlines():
        if line.strip():
            lab, name, kernel, args = (line.split("\t") + [""] * 4)[:4]
            exercises[f"{lab}.{name}"] = (kernel, args.split())
    return exercises


def replace_once(text, old, new, where):
    count = text.count(old)
    if count != 1:
        raise PlantError(f"{where}: the text {old!r} occurs {count} times in the kernel (once "
                         "expected): the kernel changed; update the edit in "
                         "tests/make_planted_class.py")
    return text.replace(old, new)


def option_value(args, option, field, where):
    """The value ARGS give `option` (its FIELD'th comma-separated part when FIELD is given)."""
    if option not in args[:-1]:
        raise PlantError(f"{where}: the grading command has no {option} (ARGS: {' '.join(args)})")
    value = args[args.index(option) + 1]
    if field is not None:
        parts = value.split(",")
        if int(field) >= len(parts):
            raise PlantError(f"{where}: {option} {value} has no field {field}")
        value = parts[int(field)]
    if not value.isdigit():
        raise PlantError(f"{where}: {option} {value} is not a size")
    return value


def with_sizes(new, args, where):
    """`new` with each {OPTION} or {OPTION:FIELD} replaced by the grading command's value."""
    return re.sub(r"\{(-[-\w]+)(?::(\d+))?\}",
                  lambda m: option_value(args, m.group(1), m.group(2), where), new)


def exercise_blocks(text):
    """(start, end) offsets of each EXERCISE block's lines between its markers."""
    blocks = []
    for marker in MARKER.finditer(text):
        end = END.search(text, marker.end())
        if end is None:
            raise PlantError(f"EXERCISE({marker.group(1)}) is never closed")
        blocks.append((marker.end(), end.start()))
    return blocks


def misplace_barrier(text, where):
    """The first EXERCISE block that holds a barrier with that barrier moved to the block's other
    end: its start, or its end when the barrier is the block's first statement."""
    for start, end in exercise_blocks(text):
        block = text[start:end]
        found = BARRIER.search(block)
        if not found:
            continue
        line = found.group(0)
        before, after = block[:found.start()], block[found.end():]
        code_before = [l for l in before.splitlines() if l.strip() and not l.strip().startswith(
            ("//", "#"))]
        if code_before:
            moved = line + before + after  # to the block's start, before the work it waited for
        else:
            moved = before + after + line  # to the block's end, after the work it ordered
        return text[:start] + moved + text[end:]
    raise PlantError(f"{where}: no EXERCISE block holds a barrier(...); line: the kernel "
                     "changed; update `misplaced` in tests/make_planted_class.py")


def split_arguments(text):
    """A call's argument text split at its top-level commas."""
    parts, depth, current = [], 0, ""
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += c
    parts.append(current.strip())
    return parts


def without_atomics(text, where):
    """Each atomic update statement `atomic_OP(&X[, V]);` as the plain `X OP= V;` (or += 1)."""
    operators = {"add": "+=", "sub": "-=", "and": "&=", "or": "|=", "xor": "^="}
    out, at = [], 0
    for call in ATOMIC.finditer(text):
        if call.start() < at:
            continue
        depth, i = 1, call.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        args = split_arguments(text[call.end():i - 1])
        # A statement of its own: after a statement or brace, an else, or an if/for/while head.
        before = code_of(text[:call.start()]).rstrip()
        statement = before == "" or before[-1] in ";{}" or re.search(r"\belse$", before)
        if before.endswith(")"):  # the head's parentheses, not a cast's
            depth, j = 0, len(before) - 1
            while j >= 0:
                depth += {")": 1, "(": -1}.get(before[j], 0)
                if depth == 0:
                    break
                j -= 1
            statement = re.search(r"\b(if|for|while)\s*$", before[:j]) is not None
        if not re.match(r"\s*;", text[i:]) or not statement:
            raise PlantError(f"{where}: {call.group(1)} at offset {call.start()} is not a "
                             "statement of its own (its value is used): no plain update "
                             "replaces it here")
        target = args[0][1:].strip() if args[0].startswith("&") else f"*({args[0]})"
        op = re.sub(r"^atom(?:ic)?_(?:fetch_)?|_explicit$", "", call.group(1))
        if op in ("inc", "dec"):
            plain = f"{target} {'+' if op == 'inc' else '-'}= 1"
        elif op in operators:
            plain = f"{target} {operators[op]} {args[1]}"
        else:  # min, max
            plain = f"{target} = {op}({target}, {args[1]})"
        out.append(text[at:call.start()] + plain)
        at = i
    out.append(text[at:])
    return "".join(out)


def with_printf(text, function, where):
    """A printf that only work-item 0 reaches, as the first statement of `function`'s body."""
    found = re.search(r"\bvoid\s+" + re.escape(function) + r"\s*\(", text)
    # the declaration's words since the previous statement or body: __kernel must be among them
    head = re.split(r"[;}]", code_of(text[:found.start()]))[-1] if found else ""
    if found is None or not re.search(r"\b(__kernel|kernel)\b", head):
        raise PlantError(f"{where}: no __kernel void {function}( in the kernel: update `function` "
                         "in tests/make_planted_class.py")
    depth, i = 1, found.end()
    while depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    body = text.index("{", i) + 1
    debug = ("\n  if (get_global_id(0) == 0 && get_global_id(1) == 0 && get_global_id(2) == 0)"
             f' printf("debug: {function} starts, work-item %d\\n", (int)get_global_id(0));')
    return text[:body] + debug + text[body:]


def plant_kernel(plant, kernel, text, exercises, where):
    """kernels/KERNEL's text with PLANT's edit for `exercises` (those sharing the file), or None
    when the plant does not apply to the file."""
    rules = [EXERCISES[e] for e in exercises]
    if plant == "right":
        return "// my answer: the suite's kernel (planted class, student right)\n" + text
    if plant == "printf":
        return with_printf(text, rules[0]["function"], where)
    if plant == "bom_crlf":
        return text  # the BOM and CRLF are added when the file is written
    if plant == "no_barrier":
        if not any(r["barrier"] for r in rules):
            return None
        planted, count = BARRIER.subn("", text)
        if count == 0 or re.search(r"\bbarrier\s*\(", code_of(planted)):
            raise PlantError(f"{where}: a barrier is not on a line of its own, or none is left to "
                             "remove: the kernel changed; update `barrier` or the removal in "
                             "tests/make_planted_class.py")
        return planted
    if plant == "misplaced_barrier":
        return misplace_barrier(text, where) if any(r["misplaced"] for r in rules) else None
    if plant == "non_atomic":
        if not any(r["atomic"] for r in rules):
            return None
        planted = without_atomics(text, where)
        if planted == text:
            raise PlantError(f"{where}: no atomic update to replace: the kernel changed; update "
                             "`atomic` in tests/make_planted_class.py")
        return planted
    if plant in ("off_by_one", "hard_coded"):
        edits = []
        for e in exercises:
            for old, new in EXERCISES[e][plant]:
                new = with_sizes(new, exercises[e], f"{where} ({e})")
                if (old, new) not in edits:
                    edits.append((old, new))
        for old, new in edits:
            text = replace_once(text, old, new, where)
        return text
    raise PlantError(f"no plant named {plant}")


def check_table(kernel, text, exercises, where):
    """The table's barrier/misplaced/atomic flags against the kernel's text: a kernel that gained
    or lost a barrier or an atomic must be looked at again (fail loudly, not skip quietly)."""
    has_barrier = bool(BARRIER.search(text))
    has_misplaceable = any(BARRIER.search(text[s:e]) for s, e in exercise_blocks(text))
    has_atomic = bool(ATOMIC.search(text))
    for e in exercises:
        rule = EXERCISES[e]
        for flag, found in (("barrier", has_barrier), ("misplaced", has_misplaceable),
                            ("atomic", has_atomic)):
            if bool(rule[flag]) != found:
                raise PlantError(
                    f"{e}: kernels/{kernel} {'has' if found else 'has no'} "
                    f"{'barrier' if flag != 'atomic' else 'atomic update'}"
                    f"{' inside an EXERCISE block' if flag == 'misplaced' else ''}, but "
                    f"tests/make_planted_class.py says {flag}={rule[flag]!r}: update the table")


def expectation(plant, exercise):
    """("pass" | "fail" | "absent", why) for PLANT's row of EXERCISE."""
    rule = EXERCISES[exercise]
    verdict, what = PLANTS[plant]
    if plant == "no_barrier":
        if not rule["barrier"]:
            return "absent", "the kernel has no barrier"
        if rule["barrier"] == "cache":
            return "pass", ("the barrier in this shape only keeps a slice in cache; the "
                            "results stay right without it")
    if plant == "misplaced_barrier" and not rule["misplaced"]:
        return "absent", "no EXERCISE block holds a barrier"
    if plant == "non_atomic" and not rule["atomic"]:
        return "absent", "the kernel has no atomic update"
    return verdict, what


def generate(kernels, exercises_file, out):
    exercises = read_exercises(exercises_file)
    unknown = sorted(set(exercises) - set(EXERCISES))
    gone = sorted(set(EXERCISES) - set(exercises))
    if unknown or gone:
        raise PlantError(
            (f"{exercises_file} lists {', '.join(unknown)}, which tests/make_planted_class.py "
             "has no row for; " if unknown else "") +
            (f"tests/make_planted_class.py has rows for {', '.join(gone)}, which "
             f"{exercises_file} no longer lists; " if gone else "") + "update its table")
    by_kernel = {}
    for e, (kernel, args) in exercises.items():
        by_kernel.setdefault(kernel, {})[e] = args
    class_dir = out / "class"
    shutil.rmtree(class_dir, ignore_errors=True)
    for plant in PLANTS:
        (class_dir / plant).mkdir(parents=True)
    right = (class_dir / "right").resolve()

    for kernel, sharing in by_kernel.items():
        text = (kernels / kernel).read_text()
        check_table(kernel, text, sharing, f"kernels/{kernel}")
        name = f"my_{kernel}"
        for plant in PLANTS:
            where = f"{plant}, kernels/{kernel}"
            path = class_dir / plant / name
            if plant == "include_relative":
                path.write_text(f'#include "../right/{name}"\n')
            elif plant == "include_absolute":
                path.write_text(f'#include "{right / name}"\n')
            elif plant == "symlink":
                os.symlink(f"../right/{name}", path)
            else:
                planted = plant_kernel(plant, kernel, text, sharing, where)
                if planted is None:
                    continue
                if planted == text and plant != "bom_crlf":
                    raise PlantError(f"{where}: the plant changed nothing")
                if plant == "bom_crlf":
                    path.write_bytes(BOM + planted.replace("\n", "\r\n").encode())
                else:
                    path.write_text(planted)

    rows = []
    for plant in PLANTS:
        for e, (kernel, _) in exercises.items():
            expect, why = expectation(plant, e)
            rows.append({"student": plant, "exercise": e, "kernel": kernel, "expect": expect,
                         "why": why})
    manifest = {"plants": {p: {"expect": v, "what": w} for p, (v, w) in PLANTS.items()},
                "exercises": list(exercises), "rows": rows}
    (out / "plants.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the folder to write class/ and plants.json into")
    parser.add_argument("--kernels", required=True, help="the suite's kernels/ folder")
    parser.add_argument("--exercises", required=True, help="build/exercises.tsv")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        manifest = generate(Path(args.kernels), Path(args.exercises), out)
    except PlantError as error:
        print(f"make_planted_class.py: error: {error}", file=sys.stderr)
        sys.exit(1)
    handed = sum(1 for r in manifest["rows"] if r["expect"] != "absent")
    print(f"make_planted_class.py: {len(PLANTS)} students, {len(manifest['exercises'])} "
          f"exercises, {handed} rows with a file, in {out / 'class'}")


if __name__ == "__main__":
    main()
