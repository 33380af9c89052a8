"""grade_host.py: grades the host-program exercises, where a student writes the host side of
vector_add in C++ (scripts/grade.py imports it; `grade.py --host` grades them beside the kernels).

A student hands in my_vector_add_host.cpp (the first exercise) and my_vector_add_map.cpp (the
second: buffers allocated with CL_MEM_ALLOC_HOST_PTR, filled and read through maps), made from the
skeletons the build writes (build/bin/exercises/). Each is a program `PROGRAM N KERNEL_FILE` that
builds `vector_add` from KERNEL_FILE, runs it over N floats and prints every element of c on
stdout, one a line (the skeleton's given steps make a, b and the printing). Graded from a private
copy of the student's file:

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
  buffers made, the kernel's arguments, the reads, maps and waits; and holds every command
  enqueued without blocking until the program waits (legal in OpenCL: a correct program sees the
  same results), so a program that prints c before its non-blocking read or map is done fails
  every time, not when a race allows. From that record the grader checks what the exercise
  teaches: a and b CL_MEM_READ_ONLY, c CL_MEM_WRITE_ONLY, each at least n floats, the argument
  order of the signature, c read back from the buffer the kernel wrote; for vector_add.map also
  CL_MEM_ALLOC_HOST_PTR buffers, no read or write copies, a map of c for reading after the launch,
  and an unmap for every map.

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
# FILE), and whether the buffers must be ALLOC_HOST_PTR ones read and filled through maps.
EXERCISES = [
    {"lab": "vector_add", "name": "host", "file": "vector_add_host.cpp", "map": False},
    {"lab": "vector_add", "name": "map", "file": "vector_add_map.cpp", "map": True},
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


def check_trace(trace, n, exercise):
    """Why the OpenCL calls recorded do not do what the exercise asks, or ""; and the id of the
    buffer c is read back from (or None)."""
    buffers, args, launched, readback = {}, {}, None, []
    for words in trace:
        try:
            if words[0] == "buffer" and len(words) == 4:
                buffers[words[1]] = (int(words[2]), int(words[3]))
            elif words[0] == "arg" and len(words) == 4:
                args[(words[1], int(words[2]))] = words[3]
            elif words[0] == "launch" and len(words) == 2:
                launched = {i: args.get((words[1], i)) for i in ARGUMENTS}
            elif words[0] in ("read", "map", "write", "unmap", "sync", "release"):
                readback.append((words, launched is not None))
        except (ValueError, IndexError):
            continue
    if launched is None:
        return ("the program launched no kernel (no clEnqueueNDRangeKernel): set the arguments "
                "and launch vector_add, then read c back"), None
    need = 4 * n
    for index, name in ARGUMENTS.items():
        buffer = launched[index]
        if buffer not in buffers:
            return (f"argument {index} ({name}) of vector_add is not one of the program's buffers "
                    f"when the kernel is launched: setArg({index}, {name}_buffer) before "
                    "enqueueNDRangeKernel"), None
    ids = [launched[i] for i in ARGUMENTS]
    if len(set(ids)) < 3:
        same = [f"{ARGUMENTS[i]}" for i in ARGUMENTS if ids.count(launched[i]) > 1]
        return (f"arguments {' and '.join(same)} of vector_add are the same buffer: each of a, b "
                "and c needs a buffer of its own"), None
    # c is read back (a read, or a map for reading) after the launch: from which buffer?
    after = [w for w, late in readback if late and (w[0] == "read" or (
        w[0] == "map" and len(w) == 4 and int(w[2]) & CL_MAP_READ))]
    read_from = after[0][1] if after else None
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
    if exercise["map"]:
        for index, name in ARGUMENTS.items():
            flags, _ = buffers[launched[index]]
            if not flags & CL_MEM_ALLOC_HOST_PTR or flags & (CL_MEM_USE_HOST_PTR
                                                             | CL_MEM_COPY_HOST_PTR):
                return (f"argument {index} ({name}) of vector_add is a buffer created "
                        f"{flag_names(flags)}: this exercise makes each buffer with "
                        "CL_MEM_ALLOC_HOST_PTR alone (no host pointer) and fills it through a "
                        "map"), read_from
        copies = [w[0] for w, _ in readback if w[0] in ("read", "write")]
        if copies:
            call = "enqueueReadBuffer" if copies[0] == "read" else "enqueueWriteBuffer"
            return (f"the program copies with {call}: this exercise moves data only through "
                    "maps (enqueueMapBuffer, then enqueueUnmapMemObject)"), read_from
        for index in (1, 2):
            buffer = launched[index]
            if not any(w[0] == "map" and w[1] == buffer and int(w[2]) & (
                    CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) and not late
                       for w, late in readback):
                return (f"{ARGUMENTS[index]} is never mapped for writing before the launch: fill "
                        "it through enqueueMapBuffer with CL_MAP_WRITE_INVALIDATE_REGION",
                        read_from)
        for index, name in ARGUMENTS.items():
            buffer = launched[index]
            maps = sum(1 for w, _ in readback if w[0] == "map" and w[1] == buffer)
            unmaps = sum(1 for w, _ in readback if w[0] == "unmap" and w[1] == buffer)
            if maps != unmaps:
                return (f"{name}'s buffer is mapped {maps} time{'s' * (maps != 1)} and unmapped "
                        f"{unmaps}: every map needs its enqueueUnmapMemObject"), read_from
    return "", read_from


def blocking_of(trace, buffer):
    """Whether every read or map of BUFFER after the launch blocked (None: never read)."""
    seen = None
    launched = False
    for words in trace:
        if words and words[0] == "launch":
            launched = True
        elif launched and len(words) >= 3 and words[0] in ("read", "map") and words[1] == buffer:
            blocked = words[-1] == "1"
            seen = blocked if seen is None else (seen and blocked)
    return seen


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
        why, read_from = check_trace(records, n, NAMES_BY_PLAN[work.name])
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
        blocked = blocking_of(records, read_from) if read_from else None
        if blocked is False:
            why = (f"c was printed before the device finished: the read (or map) of c does not "
                   f"block (CL_FALSE) and the program does not wait for it before using c; pass "
                   f"CL_TRUE, or wait for its event (event.wait(), queue.finish()) [{why}]")
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
