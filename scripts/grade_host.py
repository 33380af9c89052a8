"""grade_host.py: grades the host-program exercises, where a student writes the host side of
vector_add in C++ (scripts/grade.py imports it; `grade.py --host` grades them beside the kernels).

A student hands in, made from the skeletons the build writes (build/bin/exercises/):
my_vector_add_host.cpp and my_vector_add_map.cpp (lab 2: the whole program, then buffers
allocated with CL_MEM_ALLOC_HOST_PTR, filled and read through maps), my_vector_add_pinned.cpp
and my_vector_add_pipeline.cpp (lab 16: the copies through a mapped CL_MEM_ALLOC_HOST_PTR staging
buffer, then vector_add in chunks through an upload, a kernel and a download queue chained by
events). Each is a program `PROGRAM N KERNEL_FILE` that builds `vector_add` from KERNEL_FILE,
runs it over N floats and prints every element of c on stdout, one a line (the skeleton's given
steps make a, b and the printing). Graded from a private copy of the student's file:

- the file must be the student's own text (no symbolic link, nothing outside the student's
  folder, at most 1 MiB), and #include only standard C++ headers and <CL/opencl.hpp> (or
  <CL/cl.h>): a quoted #include, or one of another header, is refused with a sentence;
- it is compiled alone with g++ -std=c++17 against the OpenCL library, within a time limit; a
  compile error is a row whose sentence is the first error, at the student's file and line;
- it runs at three sizes the grader draws from --seed: an odd one (also under Oclgrind, which
  reports stray reads and writes, data races, a kernel's write into a CL_MEM_READ_ONLY buffer and
  an API call the runtime refuses), n = 1, and a large one (a whole number of 192). Each run has
  its own folder and a time limit (ten times the slowest run of the instructor's program,
  docs/instructor/host/, graded first; at least 20 s); the source is removed before it runs;
- each run gets a kernel file written for that run alone: vector_add with a term of its own
  added to every element, drawn at random for the run (an integer mix of i, 0..255). The right
  result is only what the device computes with that file, so a program that computes c on the
  host, or prints numbers it did not read back from the device, fails. Every element printed is
  checked exactly (the inputs are multiples of 1/4, so every sum is exact);
- the runs on the device (not Oclgrind's) preload scripts/grade_host_shim.c, which records the
  queues and buffers made, the kernel's arguments, every command enqueued (its queue, its wait
  list, the event it returned, its offset, size and host pointer), the flushes and the waits;
  and holds every command enqueued without blocking until the program waits (legal in OpenCL: a
  correct program sees the same results), so a program that prints c before its non-blocking
  read or map is done fails every time, not when a race allows. From that record the grader
  checks a and b CL_MEM_READ_ONLY, c CL_MEM_WRITE_ONLY, each at least n floats, the argument order
  of the signature, c read back from the buffer the kernel wrote; then what the exercise teaches
  (its "check" in EXERCISES). vector_add.map: CL_MEM_ALLOC_HOST_PTR buffers, no read or write
  copies, a and b mapped for writing before the launch, an unmap for every map.
  transfers.pinned: the kernel's buffers without a host-pointer flag, a CL_MEM_ALLOC_HOST_PTR
  staging buffer mapped, every write of a and b from inside that map and the read of c into it
  while it is mapped, and its unmap. transfers.pipeline: a launch per chunk; uploads, kernels
  and downloads on three queues of their own; no blocking copy and no wait for the device
  before every chunk is enqueued; every element of c in a launch; each kernel ordered after the
  uploads of the elements it reads, each download after the kernel that wrote its elements; a
  queue flushed before another waits for its events; every download waited for. The order is
  the record's: each command's wait list, its queue (in order unless made out of order), markers
  and barriers, and what the host had waited for when it was enqueued, so a missing event fails
  every run, however the run's timing fell.

The program's exit code is not the grade: the skeleton's own check compares c with a + b and exits
1 when they differ, which the grader's kernel makes them do. A crash, an exit of 2 or 3, or a run
past its limit fails with a sentence. What this cannot stop: a program that reads its kernel file
and evaluates the term itself would have to parse and interpret OpenCL C; the record comes from
the program's own process, so a program could write lines into it (it can add nothing to c).
"""

import hashlib
import math
import os
import random
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

from hand_in import logical_lines, read_hand_in

# The host exercises: name (LAB.NAME in the gradebook), the file a student hands in (my_FILE or
# FILE), and the checks of the shim's record it makes beyond the common ones (CHECKS: plain, none;
# map, ALLOC_HOST_PTR buffers filled and read through maps; pinned, a mapped ALLOC_HOST_PTR staging
# buffer the copies go through; pipeline, chunks through three queues chained by events).
EXERCISES = [
    {"lab": "vector_add", "name": "host", "file": "vector_add_host.cpp", "check": "plain"},
    {"lab": "vector_add", "name": "map", "file": "vector_add_map.cpp", "check": "map"},
    {"lab": "transfers", "name": "pinned", "file": "vector_add_pinned.cpp", "check": "pinned"},
    {"lab": "transfers", "name": "pipeline", "file": "vector_add_pipeline.cpp",
     "check": "pipeline"},
]
NAMES = {f"{e['lab']}.{e['name']}": e for e in EXERCISES}
COMPILE_LIMIT = 180
MIN_LIMIT = 20
WHOLE_GROUPS = 192
# The headers a hand-in may include: the C++ standard library's, C's through <cNAME> and the
# OpenCL ones. Anything else is code the grader cannot see.
STANDARD = set("""algorithm any array atomic bitset cassert cctype cerrno cfenv cfloat charconv
chrono cinttypes climits clocale cmath complex condition_variable csetjmp csignal cstdarg cstddef
cstdint cstdio cstdlib cstring ctime cwchar cwctype deque exception execution filesystem
forward_list fstream functional future initializer_list iomanip ios iosfwd iostream istream
iterator limits list locale map memory memory_resource mutex new numeric optional ostream queue
random ratio regex scoped_allocator set shared_mutex sstream stack stdexcept streambuf string
string_view system_error thread tuple type_traits typeindex typeinfo unordered_map unordered_set
utility valarray variant vector""".split()) | {"CL/opencl.hpp", "CL/cl.h"}
CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY, CL_MEM_READ_ONLY = 1, 2, 4
CL_MEM_USE_HOST_PTR, CL_MEM_ALLOC_HOST_PTR, CL_MEM_COPY_HOST_PTR = 8, 16, 32
CL_MAP_READ, CL_MAP_WRITE, CL_MAP_WRITE_INVALIDATE_REGION = 1, 2, 4
ARGUMENTS = {1: "a", 2: "b", 3: "c"}


def wanted(names, host_flag):
    """The host exercises to grade: all with --host, else those --only names."""
    if host_flag:
        return list(EXERCISES)
    return [e for e in EXERCISES if f"{e['lab']}.{e['name']}" in names]


def draw_sizes(rng):
    """The runs of an exercise: (name, n, under Oclgrind)."""
    odd = rng.randrange(65, 2001) | 1
    large = WHOLE_GROUPS * rng.randint(200000 // WHOLE_GROUPS + 1, 400000 // WHOLE_GROUPS)
    return [("odd", odd, False), ("odd", odd, True), ("edge", 1, False), ("large", large, False)]


def sizes_text(plan):
    return "; ".join(f"-n {n}" for run, n, oclgrind in plan if not oclgrind)


# --- the kernel of one run, and the result it must give ---------------------------------------

def draw_term(rng):
    """A random mix of the element's index: a list of (operation, constant)."""
    steps = []
    for _ in range(rng.randint(4, 7)):
        op = rng.choice(["xor", "mul", "add", "rot", "shift"])
        value = rng.randint(1, 31) if op in ("rot", "shift") else rng.getrandbits(32) | 1
        steps.append((op, value))
    return steps


def term_of(steps, i):
    x = i & 0xFFFFFFFF
    for op, v in steps:
        if op == "xor":
            x ^= v
        elif op == "mul":
            x = (x * v) & 0xFFFFFFFF
        elif op == "add":
            x = (x + v) & 0xFFFFFFFF
        elif op == "rot":
            x = ((x << v) | (x >> (32 - v))) & 0xFFFFFFFF
        else:
            x ^= x >> v
    return x & 255


def kernel_text(steps):
    code = {"xor": "x ^= {}u;", "mul": "x *= {}u;", "add": "x += {}u;",
            "rot": "x = rotate(x, {}u);", "shift": "x ^= x >> {}u;"}
    body = "\n    ".join(code[op].format(v) for op, v in steps)
    return ("// vector_add.cl, as the grader gives it for one run: c = a + b + a term of its own.\n"
            "__kernel void vector_add(const ulong n, __global const float* a,\n"
            "                         __global const float* b, __global float* c) {\n"
            "  const size_t i = get_global_id(0);\n"
            "  if (i < n) {\n"
            "    uint x = (uint)i;\n"
            f"    {body}\n"
            "    c[i] = a[i] + b[i] + (float)(x & 255u);\n"
            "  }\n"
            "}\n")


def inputs(i):
    """a[i] and b[i] as the skeleton makes them (multiples of 1/4: every sum is exact)."""
    return ((i * 37 + 11) % 4096) * 0.25, ((i * 101 + 5) % 2048) * 0.5


# --- the hand-in ------------------------------------------------------------------------------

def check_text(text, name):
    """Why the program's text cannot be graded, or ""."""
    for number, line in logical_lines(text):
        directive = re.match(r"\s*#\s*(include_next|import|embed)\b", line)
        if directive:
            return (f"{name}:{number}: #{directive.group(1)} is not allowed in a hand-in: include "
                    "standard headers and <CL/opencl.hpp> only")
        include = re.match(r"\s*#\s*include\s*(.*)$", line)
        if include:
            target = include.group(1).strip()
            header = re.fullmatch(r"<\s*([\w./]+)\s*>", target)
            if not header or header.group(1) not in STANDARD:
                return (f"{name}:{number}: #include {target} is not allowed in a hand-in (the "
                        "grader builds your file alone): include standard C++ headers and "
                        "<CL/opencl.hpp> only, and paste any code of your own into the file")
    if "main" not in text:
        return (f"{name} has no main: copy the skeleton into it and write the missing parts")
    return ""


# --- running ----------------------------------------------------------------------------------

def run(command, cwd, env, limit):
    """(exit code or None when killed at the limit, stdout, stderr, seconds)."""
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=limit)
        code = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        code = None
    return (code, out.decode(errors="replace"), err.decode(errors="replace"),
            time.monotonic() - started)


def clean_env(extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LAB_", "OCL_", "OCLGRIND")) and k != "LD_PRELOAD"}
    env.update(extra)
    return env


def compile_program(source, binary, limit):
    """(ok, compiler output) for g++ on SOURCE."""
    command = ["g++", "-std=c++17", "-O1", "-Wall", "-Wextra", source.name, "-o", binary.name,
               "-lOpenCL"]
    code, out, err, _ = run(command, source.parent, clean_env({}), limit)
    if code is None:
        return False, f"the compiler did not end within {limit} s"
    return code == 0, out + err


def build_shim(source, folder):
    """The shim library built from scripts/grade_host_shim.c, or raise RuntimeError."""
    library = folder / "grade_host_shim.so"
    result = subprocess.run(["cc", "-std=gnu11", "-O1", "-shared", "-fPIC", str(source), "-o",
                             str(library), "-ldl", "-lpthread"], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"the grader's shim does not build: {result.stderr.strip()}")
    return library


def read_trace(path):
    """The shim's record as a list of word lists."""
    try:
        return [line.split() for line in path.read_text(errors="replace").splitlines()]
    except OSError:
        return []


def flag_names(flags):
    names = [name for bit, name in ((CL_MEM_READ_ONLY, "CL_MEM_READ_ONLY"),
                                    (CL_MEM_WRITE_ONLY, "CL_MEM_WRITE_ONLY"),
                                    (CL_MEM_USE_HOST_PTR, "CL_MEM_USE_HOST_PTR"),
                                    (CL_MEM_ALLOC_HOST_PTR, "CL_MEM_ALLOC_HOST_PTR"),
                                    (CL_MEM_COPY_HOST_PTR, "CL_MEM_COPY_HOST_PTR")) if flags & bit]
    return " | ".join(names) or "CL_MEM_READ_WRITE"


# --- the shim's record ------------------------------------------------------------------------

CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE = 1
CL_COMPLETE = 0
ENQUEUED = ("launch", "write", "read", "map", "unmap", "marker", "barrier")


def address(word):
    """A pointer as the shim prints it (%p), or None."""
    try:
        return int(word, 16)
    except (TypeError, ValueError):
        return None


class Command:
    """One enqueued command of the record; `preds` is a bit mask of the commands (by index) that
    are done before it starts: the queue before it (in order), its wait list, and what the host
    had waited for when it was enqueued, each with what those came after in turn."""

    def __init__(self, index, kind, words, launches):
        def field(i):
            return words[i] if len(words) > i else None

        def number(i, default=0):
            return int(words[i]) if len(words) > i else default

        def waits(i):
            return [] if field(i) in (None, "-") else field(i).split(",")
        self.index, self.kind, self.after_launch = index, kind, launches > 0
        self.event, self.pointer, self.kernel, self.args = None, None, None, {}
        self.buffer, self.blocking, self.flags, self.ptr = None, False, 0, None
        self.offset, self.size = 0, None
        if kind == "launch":  # launch KERNEL Q WAITS OFFSET GLOBAL
            self.kernel, self.queue, self.waits = field(1), field(2), waits(3)
            self.offset, self.size = number(4), number(5, None)
        elif kind in ("write", "read"):  # KIND ID BLOCKING Q WAITS OFFSET BYTES PTR
            self.buffer, self.blocking, self.queue, self.waits = (field(1), field(2) == "1",
                                                                  field(3), waits(4))
            self.offset, self.size, self.ptr = number(5), number(6, None), field(7)
        elif kind == "map":  # map ID FLAGS BLOCKING Q WAITS OFFSET BYTES
            self.buffer, self.flags, self.blocking = field(1), number(2), field(3) == "1"
            self.queue, self.waits = field(4), waits(5)
            self.offset, self.size = number(6), number(7, None)
        elif kind == "unmap":  # unmap ID Q WAITS PTR
            self.buffer, self.queue, self.waits, self.ptr = field(1), field(2), waits(3), field(4)
        else:  # marker Q WAITS, barrier Q WAITS
            self.queue, self.waits = field(1), waits(2)
        self.preds = 0
        self.unflushed = []  # commands of other queues it waits for that were never flushed
        self.host_waits_before = 0  # how many times the host had waited when it was enqueued
        self.done_before = 0  # the commands the host had seen end by then


class Record:
    """The shim's record (grade_host_shim.c) parsed: the buffers and sub-buffers, the queues, the
    kernels' arguments, every command in order with what is done before it starts, and what the
    host has waited for by the end. Lines of an older or forged shape are read as far as they go;
    a line that does not parse is skipped."""

    def __init__(self, trace):
        self.buffers, self.parents, self.queues, self.commands = {}, {}, {}, []
        self.done = 0  # the commands the host has seen end, a bit mask
        self.host_waits = 0  # how many times the host waited for the device
        self.launches = 0
        # the buffer arguments set; the command that returned each event; each queue's last
        # command, its last barrier and the last command flushed; all that is done before a
        # queue's last command
        args, by_event, last, barrier, flushed, closure = {}, {}, {}, {}, {}, {}
        for words in trace:
            try:
                self._line(words, args, by_event, (last, barrier, flushed, closure))
            except (ValueError, IndexError, KeyError):
                continue

    def _line(self, words, args, by_event, queues):
        last, _, flushed, closure = queues
        kind = words[0]
        commands = self.commands
        if kind == "buffer" and len(words) == 4:
            self.buffers[words[1]] = (int(words[2]), int(words[3]))
        elif kind == "subbuffer" and len(words) == 6:
            self.buffers[words[1]] = (int(words[3]), int(words[5]))
            self.parents[words[1]] = (words[2], int(words[4]))
        elif kind == "queue" and len(words) == 3:
            self.queues[words[1]] = int(words[2])
        elif kind == "arg" and len(words) == 4:
            args[(words[1], int(words[2]))] = words[3]
        elif kind in ENQUEUED:
            command = Command(len(commands), kind, words, self.launches)
            if kind == "launch":
                command.args = {i: args.get((command.kernel, i)) for i in ARGUMENTS}
                self.launches += 1
            self._order(command, by_event, queues)
            commands.append(command)
        elif kind == "returned" and len(words) == 3 and commands:
            command = commands[-1]
            command.event = None if words[1] == "-" else words[1]
            command.pointer = None if words[2] == "-" else words[2]
            if command.event:
                by_event[command.event] = command.index
        elif kind == "flush" and len(words) == 2:
            flushed[words[1]] = last.get(words[1], -1)
        elif kind == "finish" and len(words) == 2:
            flushed[words[1]] = last.get(words[1], -1)
            self._host_waited(closure.get(words[1], 0))
        elif kind == "wait":
            for event in ([] if len(words) < 2 or words[1] == "-" else words[1].split(",")):
                if event in by_event:
                    waited = commands[by_event[event]]
                    flushed[waited.queue] = max(flushed.get(waited.queue, -1), waited.index)
                    self._host_waited((1 << waited.index) | waited.preds)
        elif kind == "status" and len(words) == 3 and int(words[2]) == CL_COMPLETE:
            if words[1] in by_event:
                waited = commands[by_event[words[1]]]
                self._host_waited((1 << waited.index) | waited.preds)
        elif kind == "release" and len(words) == 2:
            flushed[words[1]] = last.get(words[1], -1)

    def _host_waited(self, mask):
        self.done |= mask
        self.host_waits += 1

    def _order(self, command, by_event, queues):
        """Sets what is done before COMMAND starts, and notes waits on commands never flushed."""
        last, barrier, flushed, closure = queues
        commands, queue, i = self.commands, command.queue, command.index
        preds = self.done
        in_order = not self.queues.get(queue, 0) & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
        # In order: after the queue's command before it; out of order: after its last barrier.
        before = (last if in_order else barrier).get(queue) if queue is not None else None
        if before is not None:
            preds |= (1 << before) | commands[before].preds
        if command.kind in ("marker", "barrier") and not command.waits:
            preds |= closure.get(queue, 0)
        for event in command.waits:
            if event not in by_event:
                continue  # a user event, or one the record does not know
            waited = commands[by_event[event]]
            preds |= (1 << waited.index) | waited.preds
            if (waited.queue != queue and flushed.get(waited.queue, -1) < waited.index
                    and not self.done >> waited.index & 1):
                command.unflushed.append(waited)
        command.preds = preds
        command.host_waits_before, command.done_before = self.host_waits, self.done
        if queue is not None:
            last[queue] = i
            closure[queue] = closure.get(queue, 0) | (1 << i) | preds
            if command.kind == "barrier":
                barrier[queue] = i
        if command.blocking:
            flushed[queue] = i
            self._host_waited((1 << i) | preds)

    def root(self, buffer):
        """(the buffer a sub-buffer lies in, its origin in bytes); a buffer is its own root."""
        return self.parents.get(buffer, (buffer, 0))

    def of(self, kind, root=None, before=None, after=None):
        """The commands of KIND (on ROOT's memory; enqueued before or after an index)."""
        return [c for c in self.commands if c.kind == kind
                and (root is None or self.root(c.buffer)[0] == root)
                and (before is None or c.index < before) and (after is None or c.index > after)]

    def span(self, command, index=3):
        """The elements (floats) of its root buffer a copy or a launch (on argument INDEX)
        touches: [first, end)."""
        if command.kind == "launch":
            root, origin = self.root(command.args.get(index))
            size = self.buffers.get(root, (0, 0))[1] // 4
            first = origin // 4 + command.offset
            end = size if command.size is None else min(size, first + command.size)
            return first, max(first, end)
        origin = self.root(command.buffer)[1]
        size = self.buffers.get(self.root(command.buffer)[0], (0, 0))[1]
        first = origin + command.offset
        end = first + (size - command.offset if command.size is None else command.size)
        return first // 4, -(-end // 4)

    def maps(self):
        """Where each map put its buffer and what ended it: (map, its unmap or None, lo, hi),
        host addresses [lo, hi)."""
        found = []
        for m in self.of("map"):
            lo = address(m.pointer)
            if lo is not None and m.size is not None:
                unmap = next((u for u in self.of("unmap", after=m.index)
                              if u.buffer == m.buffer and address(u.ptr) == lo), None)
                found.append((m, unmap, lo, lo + m.size))
        return found

    def mapped_at(self, copy):
        """The maps whose host memory holds COPY's (its ptr and size), each with whether it was
        still mapped when COPY was enqueued: [(map, unmap, live)]."""
        lo = address(copy.ptr)
        if lo is None or copy.size is None:
            return []
        return [(m, u, m.index < copy.index and (u is None or copy.index < u.index))
                for m, u, start, end in self.maps() if start <= lo and lo + copy.size <= end]

    def happened_before(self, earlier, later):
        return bool(later.preds >> earlier.index & 1)


def uncovered(span, spans):
    """The first part [first, end) of SPAN that no span of SPANS covers, or None."""
    first, end = span
    for start, stop in sorted(spans):
        if start > first:
            break
        first = max(first, stop)
    else:
        start = end
    return (first, min(start, end)) if first < end else None


def elements(span):
    first, end = span
    return f"element {first}" if end - first == 1 else f"elements {first} to {end - 1}"


def check_trace(trace, n, exercise, complete=True):
    """Why the OpenCL calls recorded do not do what the exercise asks, or ""; and the id of the
    buffer c is read back from (or None). COMPLETE: the program ended as a program does (exit 0
    or 1), so its record is whole."""
    record = Record(trace)
    buffers = record.buffers
    launches = record.of("launch")
    if not launches:
        return ("the program launched no kernel (no clEnqueueNDRangeKernel): set the arguments "
                "and launch vector_add, then read c back"), None
    last = launches[-1]
    need = 4 * n
    for index, name in ARGUMENTS.items():
        buffer = last.args[index]
        if buffer not in buffers:
            return (f"argument {index} ({name}) of vector_add is not one of the program's buffers "
                    f"when the kernel is launched: setArg({index}, {name}_buffer) before "
                    "enqueueNDRangeKernel"), None
    # The kernel's buffers as the host made them: a sub-buffer stands for the buffer it lies in.
    launched = {i: record.root(last.args[i])[0] for i in ARGUMENTS}
    ids = [launched[i] for i in ARGUMENTS]
    if len(set(ids)) < 3:
        same = [f"{ARGUMENTS[i]}" for i in ARGUMENTS if ids.count(launched[i]) > 1]
        return (f"arguments {' and '.join(same)} of vector_add are the same buffer: each of a, b "
                "and c needs a buffer of its own"), None
    # c is read back (a read, or a map for reading) after the launch: from which buffer?
    after = [c for c in record.commands if c.after_launch and (
        c.kind == "read" or (c.kind == "map" and c.flags & CL_MAP_READ))]
    read_from = record.root(after[0].buffer)[0] if after else None
    if read_from and read_from != launched[3] and read_from in ids:
        wrong = ids.index(read_from) + 1
        return (f"the program reads c back from the buffer it passed as argument {wrong} "
                f"({ARGUMENTS[wrong]}) of vector_add, so the kernel writes c somewhere else: "
                f"setArg's indices follow the signature vector_add(n, a, b, c), the arguments "
                "are swapped"), read_from
    for index, name in ARGUMENTS.items():
        flags, size = buffers[launched[index]]
        if size < need:
            return (f"argument {index} ({name}) of vector_add is a buffer of {size} bytes, but "
                    f"n = {n} floats need {need}: a buffer's size is in bytes "
                    "(n * sizeof(float))"), read_from
        if index < 3 and not flags & CL_MEM_READ_ONLY:
            return (f"argument {index} ({name}) of vector_add is a buffer created "
                    f"{flag_names(flags)}: the kernel only reads {name}, so create it "
                    "CL_MEM_READ_ONLY"), read_from
        if index == 3 and not flags & CL_MEM_WRITE_ONLY:
            return ((f"argument 3 (c) of vector_add is a buffer created {flag_names(flags)}, but "
                    "the kernel writes c and only writes it: create it CL_MEM_WRITE_ONLY"),
                    read_from)
    if read_from is None:
        return ("the program never reads c back after the launch (no enqueueReadBuffer, nor an "
                "enqueueMapBuffer with CL_MAP_READ, of c's buffer)"), None
    check = CHECKS[exercise["check"]]
    return (check(record, n, launched, complete) if check else ""), read_from


def check_map(record, n, launched, complete):
    """vector_add.map: ALLOC_HOST_PTR buffers filled and read through maps, no copies."""
    for index, name in ARGUMENTS.items():
        flags, _ = record.buffers[launched[index]]
        if not flags & CL_MEM_ALLOC_HOST_PTR or flags & (CL_MEM_USE_HOST_PTR
                                                         | CL_MEM_COPY_HOST_PTR):
            return (f"argument {index} ({name}) of vector_add is a buffer created "
                    f"{flag_names(flags)}: this exercise makes each buffer with "
                    "CL_MEM_ALLOC_HOST_PTR alone (no host pointer) and fills it through a map")
    copies = [c.kind for c in record.commands if c.kind in ("read", "write")]
    if copies:
        call = "enqueueReadBuffer" if copies[0] == "read" else "enqueueWriteBuffer"
        return (f"the program copies with {call}: this exercise moves data only through maps "
                "(enqueueMapBuffer, then enqueueUnmapMemObject)")
    for index in (1, 2):
        if not any(c.flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) and not c.after_launch
                   for c in record.of("map", launched[index])):
            return (f"{ARGUMENTS[index]} is never mapped for writing before the launch: fill it "
                    "through enqueueMapBuffer with CL_MAP_WRITE_INVALIDATE_REGION")
    for index, name in ARGUMENTS.items():
        maps, unmaps = (len(record.of(kind, launched[index])) for kind in ("map", "unmap"))
        if maps != unmaps:
            return (f"{name}'s buffer is mapped {maps} time{'s' * (maps != 1)} and unmapped "
                    f"{unmaps}: every map needs its enqueueUnmapMemObject")
    return ""


def check_pinned(record, n, launched, complete):
    """transfers.pinned: ordinary device buffers, a and b written from a mapped ALLOC_HOST_PTR
    staging buffer, c read back into it, the staging buffer unmapped."""
    for index, name in ARGUMENTS.items():
        flags, _ = record.buffers[launched[index]]
        if flags & (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR):
            return (f"argument {index} ({name}) of vector_add is a buffer created "
                    f"{flag_names(flags)}: in this exercise the kernel's buffers are ordinary "
                    "device buffers (no host-pointer flag); the pinned memory is the staging "
                    "buffer, which the kernel never sees")
    staging = {b for b, (flags, _) in record.buffers.items() if flags & CL_MEM_ALLOC_HOST_PTR
               and b not in launched.values() and b not in record.parents}
    if not staging:
        return ("the program makes no staging buffer: create one with CL_MEM_ALLOC_HOST_PTR "
                "(pinned memory) besides the kernel's buffers, and map it once for its pointer")
    if not any(m.buffer in staging for m, _, _, _ in record.maps()):
        return ("the CL_MEM_ALLOC_HOST_PTR staging buffer is never mapped: enqueueMapBuffer it "
                "once; the pointer it returns is the pinned memory the writes copy from and the "
                "read copies into")

    def staged(copy):
        """Whether COPY's host memory lies in a staging map: "mapped", "unmapped" or None."""
        inside = [live for m, _, live in record.mapped_at(copy) if m.buffer in staging]
        return ("mapped" if any(inside) else "unmapped") if inside else None
    first_launch = record.of("launch")[0].index
    for index in (1, 2):
        name = ARGUMENTS[index]
        writes = record.of("write", launched[index], before=first_launch)
        if not writes:
            return (f"{name} never reaches the device with enqueueWriteBuffer before the launch: "
                    f"this exercise uploads {name}_buffer from {name}_staged, its part of the "
                    "mapped staging buffer")
        for write in writes:
            where = staged(write)
            if where == "unmapped":
                return (f"the upload of {name} copies from the staging buffer after it was "
                        "unmapped: its pointer is valid only while it is mapped; unmap it when "
                        "the last copy is done")
            if where is None:
                return (f"the upload of {name} copies from host memory outside the mapped "
                        f"staging buffer (from {name}.data(), say): enqueueWriteBuffer from "
                        f"{name}_staged, the pinned pointer the staging buffer's map returned")
    reads = record.of("read", launched[3], after=first_launch)
    if not reads:
        return ("c comes back without enqueueReadBuffer: this exercise reads c_buffer into "
                "c_staged, its part of the mapped staging buffer, and copies it into c from there")
    for read in reads:
        where = staged(read)
        if where == "unmapped":
            return ("c is read into the staging buffer after it was unmapped: its pointer is "
                    "valid only while it is mapped; unmap it after the read")
        if where is None:
            return ("c is read back into host memory outside the mapped staging buffer (into "
                    "c.data(), say): enqueueReadBuffer into c_staged, then copy it into c")
    for buffer in sorted(staging):
        maps, unmaps = (len(record.of(kind, buffer)) for kind in ("map", "unmap"))
        if maps and maps != unmaps:
            return (f"the staging buffer is mapped {maps} time{'s' * (maps != 1)} and unmapped "
                    f"{unmaps}: unmap it (enqueueUnmapMemObject) once the read of c is done")
    return ""


def check_pipeline(record, n, launched, complete):
    """transfers.pipeline: chunks through an upload, a kernel and a download queue, each stage
    waiting for the one before it by events (seen in the record's wait lists, not in timing),
    every queue flushed before another waits on it, the downloads waited for."""
    launches = record.of("launch")
    ids = [launched[i] for i in ARGUMENTS]
    uploads = record.of("write", launched[1]) + record.of("write", launched[2])
    uploads.sort(key=lambda c: c.index)
    downloads = record.of("read", launched[3])
    if complete and n >= 2 and len(launches) < 2:
        return (f"the program launches vector_add once for all {n} elements: this exercise runs "
                "it in chunks, one launch per chunk (a global offset at the chunk's first "
                "element, a global size of its count)")
    if not uploads:
        return ("a and b never reach the device with enqueueWriteBuffer: this exercise uploads "
                "each chunk of a and of b on the upload queue")
    if not downloads:
        return ("c comes back without enqueueReadBuffer: this exercise downloads each chunk of c "
                "on the download queue")
    stages = {"uploads": {c.queue for c in uploads}, "kernels": {c.queue for c in launches},
              "downloads": {c.queue for c in downloads}}
    if len(set().union(*stages.values())) == 1:
        return ("the program enqueues the uploads, the kernels and the downloads on one queue: "
                "this exercise gives each stage a queue of its own (upload_queue, kernel_queue, "
                "download_queue) and orders a chunk's stages with events")
    for one, other in (("kernels", "uploads"), ("downloads", "kernels"), ("downloads", "uploads")):
        if stages[one] & stages[other]:
            return (f"the {one} share a queue with the {other}: this exercise gives each stage a "
                    "queue of its own (upload_queue, kernel_queue, download_queue), so one "
                    "chunk's stage can run beside another chunk's")
    for copy in uploads + downloads:
        if copy.blocking:
            stage = "upload" if copy.kind == "write" else "download"
            name = ARGUMENTS[ids.index(record.root(copy.buffer)[0]) + 1]
            return (f"the {stage} of {name}'s {elements(record.span(copy))} blocks (CL_TRUE): the "
                    "host "
                    "waits for each copy, so no stage overlaps another; enqueue it with CL_FALSE "
                    "and let the next stage wait for its event")
    last = max(c.index for c in uploads + downloads + launches)
    if record.commands[last].host_waits_before:
        return ("the program waits for the device (a finish, or a wait for an event) before it "
                "has enqueued every chunk, so one chunk's stages cannot overlap the next one's: "
                "enqueue every chunk, and finish the queues after the loop")
    gap = uncovered((0, n), [record.span(c) for c in launches])
    if complete:
        if gap:
            return (f"no launch of vector_add covers c's {elements(gap)}: each chunk's launch "
                    "starts at its first element (the global offset) and spans its count")
    for launch in launches:
        for index in (1, 2):
            name, span = ARGUMENTS[index], record.span(launch, index)
            writes = [w for w in record.of("write", launched[index], before=launch.index)
                      if max(span[0], record.span(w)[0]) < min(span[1], record.span(w)[1])]
            for write in writes:
                if not record.happened_before(write, launch):
                    return (f"the kernel over {elements(record.span(launch))} does not wait for "
                            f"the upload of {name}'s {elements(record.span(write))}, on another "
                            f"queue: a race (the kernel may read {name} before it arrives); pass "
                            "that upload's event in the kernel's wait list")
            gap = uncovered(span, [record.span(w) for w in writes])
            if gap:
                return (f"the kernel over {elements(record.span(launch))} reads {name}'s "
                        f"{elements(gap)}, which no upload before it wrote: check each upload's "
                        "offset and size (in bytes: first * sizeof(float), count * sizeof(float))")
    for download in downloads:
        span = record.span(download)
        for launch in (c for c in launches if c.index < download.index):
            cspan = record.span(launch)
            if max(span[0], cspan[0]) < min(span[1], cspan[1]) and \
                    not record.happened_before(launch, download):
                return (f"the download of c's {elements(span)} does not wait for the kernel that "
                        f"computes {elements(cspan)}, on another queue: a race (it may copy c "
                        "before the kernel wrote it); pass the kernel's event in the download's "
                        "wait list")
    for command in record.commands:
        if command.unflushed:
            what = {"launch": "kernel", "write": "upload", "read": "download"}.get(command.kind,
                                                                                command.kind)
            waited = command.unflushed[0]
            other = {"launch": "kernel", "write": "upload", "read": "download"}.get(waited.kind,
                                                                                 waited.kind)
            return (f"a {what} waits for the event of a{'n' * (other[0] in 'aeiou')} {other} on "
                    "another queue, which was not flushed after that command was enqueued: "
                    "flush each queue (queue.flush()) after enqueueing, as OpenCL requires of a "
                    "queue whose events another queue waits for")
    if complete or not gap:  # every chunk was enqueued, whatever stopped the program later
        for download in downloads:
            if not record.done >> download.index & 1:
                return (f"the download of c's {elements(record.span(download))} is never waited "
                        "for before the program uses c: finish every queue (download_queue."
                        "finish()) or wait for the downloads' events")
    return ""


# The checks an exercise makes beyond the common ones (its "check" in EXERCISES).
CHECKS = {"plain": None, "map": check_map, "pinned": check_pinned, "pipeline": check_pipeline}


def waited_for(trace, buffer):
    """Whether the host waited for every read or map of BUFFER after the launch before it used
    the bytes: the copy blocked, or a finish or an event's wait covered it before its unmap (a
    map, or a read into mapped memory: the host uses the bytes in between), else by the end of
    the record. None: never read."""
    record = Record(trace)
    copies = [c for c in record.commands if c.after_launch and c.kind in ("read", "map")
              and record.root(c.buffer)[0] == buffer]

    def waited(copy):
        if copy.kind == "map":
            ends = [u for m, u, _, _ in record.maps() if m is copy]
        else:  # into mapped memory, used before its unmap; else used when the program prints
            ends = [u for _, u, live in record.mapped_at(copy) if live]
        done = ends[0].done_before if ends and ends[0] else record.done
        return bool(done >> copy.index & 1)
    return all(waited(c) for c in copies) if copies else None


UNWAITED = ("c was printed before the device finished: the read (or map) of c does not block "
            "(CL_FALSE) and the program does not wait for it before using c; pass CL_TRUE, or "
            "wait for its event (event.wait(), queue.finish())")


def check_output(out, n, steps):
    """Why the printed c is wrong, or ""."""
    lines = out.split()
    if len(lines) != n:
        return (f"the program printed {len(lines)} numbers for n = {n}: it must print every "
                "element of c, one a line, and nothing else on stdout (the skeleton's step 12)")
    wrong, first, plain, zeros = 0, None, 0, 0
    for i, word in enumerate(lines):
        try:
            got = float(word)
        except ValueError:
            return f"line {i + 1} of the program's output is '{word[:40]}', not a number"
        a, b = inputs(i)
        expected = a + b + term_of(steps, i)
        if got != expected:
            wrong += 1
            if first is None:
                first = f"mismatch c[{i}]: got {word}, expected {expected:.9g}"
            if got == a + b:
                plain += 1
            if got == 0:
                zeros += 1
    if not wrong:
        return ""
    if plain == wrong:
        return (f"c = a + b at every element, but the kernel this run gave the program adds a "
                f"term of its own ({first}): c was computed on the host, not read back from the "
                "device")
    if zeros == n:
        return (f"every element of c is 0 ({wrong} of {n} wrong): nothing the kernel wrote "
                "reached c: launch the kernel and read c back from the buffer it wrote")
    return f"{first} ({wrong} of {n} elements wrong)"


def oclgrind_problem(log):
    """Oclgrind's first finding as a sentence, or ""."""
    text = log.strip()
    if not text:
        return ""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    heading = lines[0]
    where = next((l for l in lines if l.startswith("At line")), "")
    code_line = ""
    if where:
        index = lines.index(where)
        code_line = lines[index + 1] if index + 1 < len(lines) else ""
    if "runtime error" in heading:
        detail = "; ".join(l for l in lines[1:5] if ":" in l)
        return f"Oclgrind: an OpenCL call failed ({detail})"
    hint = ""
    if "read-only buffer" in heading:
        hint = (": the kernel writes into a buffer created CL_MEM_READ_ONLY (c must be "
                "CL_MEM_WRITE_ONLY)")
    elif "Invalid write" in heading or "Invalid read" in heading:
        hint = (": the kernel touched memory outside a buffer: check each buffer's size in bytes, "
                "and the n and the NDRange the program passes")
    line = re.search(r"At line (\d+)", where)
    place = f" (at line {line.group(1)} of the kernel: {code_line})" if line else ""
    return f"Oclgrind: {heading}{place}{hint}"


def grade_run(program, n, oclgrind, work, shim, cache, limit):
    """One run: (sentence or "", log text, seconds)."""
    steps = draw_term(random.SystemRandom())
    run_dir = work / f"run-{n}-{'oclgrind' if oclgrind else 'device'}"
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)
    (run_dir / "vector_add.cl").write_text(kernel_text(steps))
    trace = run_dir.parent / f"trace-{run_dir.name}"
    trace.unlink(missing_ok=True)
    oclgrind_log = run_dir.parent / f"oclgrind-{run_dir.name}.log"
    oclgrind_log.unlink(missing_ok=True)
    env = clean_env({"POCL_CACHE_DIR": str(cache)})
    if oclgrind:
        command = ["oclgrind", "--data-races", "--check-api", "--max-errors", "20", "--log",
                   str(oclgrind_log), str(program), str(n), "vector_add.cl"]
    else:
        command = [str(program), str(n), "vector_add.cl"]
        env.update({"LD_PRELOAD": str(shim), "LAB_HOST_TRACE": str(trace)})
    code, out, err, seconds = run(command, run_dir, env, limit)
    log = (f"== {'Oclgrind' if oclgrind else 'device'} run: {' '.join(command[-3:])}\n"
           "== stderr (the program's own check compares c with a + b; this run's kernel adds a "
           f"term, so its mismatch lines are expected)\n{err[-20000:]}")
    shutil.rmtree(run_dir, ignore_errors=True)
    if not oclgrind:
        # The record first: a wrong flag, size or argument is the cause of whatever followed it
        # (a crash, a hang); a call missing from a run that hung is the hang's doing.
        records = read_trace(trace)
        log += "== OpenCL calls recorded\n" + "\n".join(" ".join(w) for w in records[:200]) + "\n"
        why, read_from = check_trace(records, n, NAMES_BY_PLAN[work.name], code in (0, 1))
        missing = why.startswith(("the program launched no", "the program never reads"))
        if why and not (code is None and missing):
            return why + f" (at n = {n})", log, seconds
    if code is None:
        return (f"the program did not end within {limit:g} s at n = {n} (a wait that never "
                "ends, or a loop)"), log, seconds
    if oclgrind:
        found = ""
        try:
            found = oclgrind_problem(oclgrind_log.read_text(errors="replace"))
            log += f"== Oclgrind\n{oclgrind_log.read_text(errors='replace')[-20000:]}"
        except OSError:
            pass
        if found:
            return found + f" (at n = {n})", log, seconds
    if code < 0:
        name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else -code
        # A program that ends with commands in flight can crash the runtime as it exits (PoCL
        # compiling the kernel while the process's globals are destroyed): the cause is the wait.
        if not oclgrind and read_from and waited_for(records, read_from) is False:
            return (f"{UNWAITED} [it then crashed ({name}), the device still at work as it "
                    f"exited] (at n = {n})"), log, seconds
        return f"the program crashed ({name}) at n = {n}", log, seconds
    if code not in (0, 1):
        last = [l for l in err.splitlines() if l.strip()]
        said = f": {last[-1].strip()[:200]}" if last else ""
        if code == 2:
            return (f"the program exited 2 (refused its arguments{said}): it must run as "
                    f"PROGRAM N KERNEL_FILE, as the skeleton does"), log, seconds
        return f"the program exited {code} at n = {n}{said}", log, seconds
    why = check_output(out, n, steps)
    if why and not oclgrind:
        if read_from and waited_for(records, read_from) is False:
            why = f"{UNWAITED} [{why}]"
    if why:
        return why + f" (at n = {n})", log, seconds
    return "", log, seconds


# The exercise a private folder grades (its name is the exercise's), for check_trace.
NAMES_BY_PLAN = {f"{e['lab']}.{e['name']}": e for e in EXERCISES}


def grade_exercise(student, e, plan, scratch, shim, cache, logs, out_dir, limit, timing=None):
    """One student's row for one host exercise; TIMING (a dict), when given, gets the slowest
    run's seconds under "slowest"."""
    exercise = f"{e['lab']}.{e['name']}"
    row = {"student": student.name, "exercise": exercise, "file": "", "sha256": "",
           "passed": False, "sentence": "", "sizes": "", "oclgrind": "", "same_as": "",
           "log": "", "exit": "", "other_files": "", "similarity": "", "seconds": 0.0}
    text = read_hand_in(student, e["file"], row, "a host program")
    if text is None:
        return row
    why = check_text(text, row["file"])
    if why:
        row["sentence"] = why
        return row
    row["similarity"] = hashlib.sha256(re.sub(r"\s+", "", text).encode()).hexdigest()
    work = scratch / "students" / student.name / exercise
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    source = work / e["file"]
    source.write_text(text)
    program = work / "program"
    started = time.monotonic()
    ok, compiler = compile_program(source, program, COMPILE_LIMIT)
    source.unlink()  # the program runs beside no source: nothing of it for another's to read
    log_lines = [f"== g++ {e['file']}\n{compiler[-20000:]}"]
    row["passed"] = ok
    if not ok:
        lines = [l.strip() for l in compiler.splitlines() if l.strip()] or ["(no message)"]
        errors = [l for l in lines if "error:" in l or "did not end" in l] or lines[-1:]
        # The compiler names the private copy, e['file']; the row names the student's file.
        first = errors[0].replace(e["file"], row["file"], 1)
        row["sentence"] = f"{row['file']} failed to compile: {first}"
        row["exit"] = 2
    else:
        for run_name, n, oclgrind in plan:
            if oclgrind and not shutil.which("oclgrind"):
                continue
            why, log, seconds = grade_run(program, n, oclgrind, work, shim, cache, limit)
            if timing is not None:
                timing["slowest"] = max(timing.get("slowest", 0.0), seconds)
            log_lines.append(log)
            if oclgrind:
                row["oclgrind"] = "failed" if why.startswith("Oclgrind") else "clean"
            if why:
                row["passed"] = False
                row["sentence"] = why
                row["sizes"] = f"-n {n}"
                row["exit"] = 1
                break
    if row["passed"]:
        row["sentence"], row["exit"] = "PASSED", 0
        row["sizes"] = sizes_text(plan)
    row["seconds"] = round(time.monotonic() - started, 2)
    log = logs / student.name / f"{exercise}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("".join(log_lines))
    row["log"] = str(log.relative_to(out_dir))
    shutil.rmtree(work, ignore_errors=True)
    return row


def solutions_folder():
    """The instructor's solutions: beside an installed grader, or in the source tree."""
    here = Path(__file__).resolve().parent
    for folder in (here / "instructor" / "host", here.parent / "docs" / "instructor" / "host"):
        if folder.is_dir():
            return folder
    return None


def reference(exercises, plans, scratch, shim, cache, time_limit):
    """Grades the instructor's solutions: (why one fails or None, {exercise: time limit}).
    Without the solutions (not in this edition) the limits are MIN_LIMIT * 3."""
    folder = solutions_folder()
    limits = {}
    for e in exercises:
        name = f"{e['lab']}.{e['name']}"
        if folder is None or not (folder / e["file"]).is_file():
            limits[name] = time_limit or MIN_LIMIT * 3
            continue
        student = scratch / "host-reference" / "suite"
        student.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(folder / e["file"], student / e["file"])
        logs = scratch / "host-reference" / "logs"
        timing = {}
        row = grade_exercise(student, e, plans[name], scratch / "host-reference", shim, cache,
                             logs, scratch, time_limit or 600, timing)
        if not row["passed"]:
            return (f"the suite's own {e['file']} fails {name}: {row['sentence']}, so no student "
                    "could pass it"), limits
        # Ten times its slowest run, in whole 5 s, at least MIN_LIMIT.
        limits[name] = time_limit or max(MIN_LIMIT, 5 * math.ceil(10 * timing["slowest"] / 5))
    return None, limits
