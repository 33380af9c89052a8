#!/usr/bin/python3
# fuzz_cli.py: seeded random command lines against every lab, checking each ends the documented way.
"""
Usage:
  scripts/fuzz_cli.py [--bin DIR] [--seed N] [--runs N] [--labs a,b] [--jobs N] [--timeout S]
                      [--slow-limit S] [--dry-run] [--verbose] [--keep]

For each lab it reads the option table from `LAB --help` (CLI11's listing: names, value type,
choices, defaults, Excludes, Env) and each numeric option's bounds from the lab's own sentences
(`LAB --list OPTION 0` and `OPTION 2^63`: the values are checked before --list prints). It then
makes --runs command lines per lab from --seed: valid values, boundaries (0, 1, max, max+1),
invalid ones (negative, text, 99999999999999999999, empty, unknown choice names), duplicated
options, conflicting pairs (CLI11's Excludes, a tunable's option against --tunable NAME=, ...),
1 to 4 options each, in every spelling (--opt v, --opt=v, -o v), sometimes with a LAB_*
environment variable, always with tiny problem sizes added where the line sets none.

Every run must end with exit 0, 1, 2, 3 or 77 within --timeout seconds, never by a signal, with no
sanitizer report, "terminate called" or OpenCL error number without its name on stderr. A run that
exits 2, 3 or 77 must print exactly one non-empty stderr line, "LAB: error: ..." (documented
exception: the build log of a kernel that did not build, before that line, on exit 3). A value
that no parser may accept (text for a number, an unknown choice, a number past the bound the lab
states, an empty path) must be exit 2. Each run starts in an empty folder of its own, and a file
left there fails it too (a path option that took the next word as its value). Each failure prints
the seed, the lab, the exact command (shell-quoted, with its environment) and the stderr; the end
is one summary line per lab (runs, exit codes, failures) and the distinct problems. Exit 0 when
nothing failed, 1 otherwise, 2 on bad usage.

  --bin DIR      the lab binaries (default: build/bin beside this script)
  --seed N       the seed of the command lines (default 1); a run is fully given by seed, lab
                 and its index, so `--seed N --labs LAB --runs K` replays the first K of them
  --runs N       command lines per lab (default 100)
  --labs a,b     only these labs (default: every lab in DIR/../labs.txt, else every binary)
  --jobs N       runs at a time (default: the number of cores); POCL_MAX_PTHREAD_COUNT is set to
                 cores / jobs (1 or 2) unless the environment sets it
  --timeout S    seconds a run may take (default 20); LAB_TIME_LIMIT (the labs' own watch on a
                 run with --kernel-file) is set to 3/4 of it unless the environment sets it. A run
                 past it is tried once more with --slow-limit S (default max(300, 15 x timeout)):
                 ending then, it is listed as SLOW (a cold PoCL compile), not failed; else a hang
  --dry-run      print the command lines, run nothing
  --keep         keep the scratch folder (fixtures, traces, tuning caches) even when all passed

Runs use the caller's environment (CTest gives the suite's: LAB_PLATFORM=pocl, POCL_CACHE_DIR,
...), with LAB_TUNING_CACHE pointed into the scratch folder so --tune never touches the user's
cache. Examples:
  scripts/fuzz_cli.py --bin build/bin --seed 7 --runs 300 --jobs 2
  scripts/fuzz_cli.py --bin build/bin --seed 7 --labs matmul --runs 40 --dry-run
"""

import argparse
import collections
import concurrent.futures
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCUMENTED_EXITS = {0, 1, 2, 3, 77}

# The shared flags every lab takes (docs/reference.md, "Shared options"); the fuzzer picks the
# lab's own options more often, since the shared ones are the same code in every lab.
SHARED = {"-h", "--help", "--list", "-p", "--platform", "-d", "--device", "--type", "--reps",
          "--warmup", "--seed", "--json", "--csv", "--summary", "--kernel-dir", "--kernel-file",
          "--build-options", "--trace", "-v", "--verbose"}

# Options whose valid values scale the run time rather than the data: valid values stay small, and
# their maximum is only tried as max+1 (--reps 100000 over matmul's eight variants is minutes of
# correct work, not a hang). --help does not say which options these are.
TIME_OPTIONS = {"--reps": 2, "--warmup": 1, "--work": 20, "--hold": 5, "--tune-budget": 2}

# Numbers no whole-number or real option may accept, whatever its bounds.
NOT_WHOLE = ["-1", "-0", "abc", "", "1.5", "1e3", "0x10", "+5", "99999999999999999999", "2^64",
             "2^", "^2", "2^-1", "1,2", "nan", "\u0663", "5k", "-99999999999999999999"]
NOT_REAL = ["-1", "abc", "", "nan", "inf", "-inf", "1e400", "0", "1,5", "--", "1e", "0x"]

# Sentences that mean a crash or an unchecked failure, whatever the exit code.
BAD_STDERR = [
    ("sanitizer report", re.compile(
        r"ERROR: AddressSanitizer|runtime error:|ThreadSanitizer|LeakSanitizer|"
        r"ERROR: \w+Sanitizer")),
    ("C++ terminate", re.compile(r"terminate called|what\(\):")),
    ("crash message", re.compile(
        r"Segmentation fault|core dumped|Aborted|\*\*\* stack smashing|double free|"
        r"free\(\): invalid|malloc\(\): |Assertion .* failed")),
    ("OpenCL error number without its name", re.compile(
        r"unknown OpenCL error|OpenCL error(?!.*\bCL_[A-Z_]+).*-\d+|\berror(?: code)? -\d+\b")),
]
# The documented exception to "one line" (docs/reference.md, exit 3: "a suite kernel that does
# not build (the build log is printed)"): PoCL's compiler summary and the log block before the
# error line.
BUILD_LOG_START = re.compile(r"^Build log for .* \(options .*\):$")
COMPILER_SUMMARY = re.compile(r"^\d+ (warning|error)s?( and \d+ errors?)? generated\.$")


class Option:
    """One row of a lab's --help."""

    def __init__(self, names, type_name, choices, default, env, excludes, help_text):
        self.names = names
        self.type_name = type_name  # None for a flag
        self.choices = choices
        self.default = default
        self.env = env
        self.excludes = excludes
        self.help = help_text
        self.lo = None  # bounds of a number, from the lab's own sentences (probe_bounds)
        self.hi = None
        self.kind = None
        self.words = []  # text: the vocabulary its help names
        self.numbers = []  # number lists: the values its help and default name
        self.max_items = 4  # number lists: how many entries a valid value has at most
        self.words_pair = False  # words: entries may be A/B pairs (buffer_flags --modes)
        self.tunables = []  # the kernel macro names a tunable option or --tunable sets

    @property
    def long(self):
        longs = [n for n in self.names if n.startswith("--")]
        return longs[0] if longs else self.names[0]

    @property
    def short(self):
        shorts = [n for n in self.names if not n.startswith("--")]
        return shorts[0] if shorts else None


def parse_help(text):
    """CLI11's option listing: '  -n,--size SIZE=16 (Env:X) Excludes: --a  description'."""
    options = []
    in_options = False
    for line in text.splitlines():
        if line.strip() == "Options:":
            in_options = True
            continue
        if not in_options or not line.strip():
            continue
        if re.match(r"^  -", line):
            parts = re.split(r"\s{2,}", line.strip(), maxsplit=1)
            tokens = parts[0].split(" ")
            names = tokens[0].split(",")
            rest = tokens[1:]
            type_name, choices, default = None, [], None
            match = rest and re.match(r"^([A-Z][A-Z0-9_]*)(?::\{([^}]*)\})?(?:=(.*))?$", rest[0])
            if match:
                rest.pop(0)
                type_name = match.group(1)
                choices = match.group(2).split(",") if match.group(2) else []
                default = match.group(3)
            env = None
            excludes = []
            collecting = False
            for token in rest:
                env_match = re.match(r"^\(Env:(\w+)\)$", token)
                if env_match:
                    env = env_match.group(1)
                elif token.endswith(":"):
                    collecting = token == "Excludes:"
                elif collecting and token.startswith("-"):
                    excludes.append(token)
            options.append(Option(names, type_name, choices, default, env, excludes,
                                  parts[1] if len(parts) > 1 else ""))
        elif options and line.startswith("      "):
            options[-1].help = (options[-1].help + " " + line.strip()).strip()
    return options


def to_number(text):
    """'2^48' -> 2**48, '100000' -> 100000, '1e+06' -> 1000000.0; None if neither."""
    match = re.match(r"^(\d+)\^(\d+)$", text)
    if match:
        return int(match.group(1)) ** int(match.group(2))
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None


def classify(option):
    """What kind of value an option takes, from its type, name and help text."""
    help_text = option.help
    lower = help_text.lower()
    if option.type_name is None:
        option.kind = "flag"
    elif option.choices:
        option.kind = "choice"
    elif option.type_name in ("SIZE", "INT", "UINT"):
        option.kind = "whole"
    elif option.type_name == "NUMBER":
        option.kind = "real"
    elif "directory" in lower:
        option.kind = "dir"
    elif "to this file" in lower:
        option.kind = "outfile"
    elif "file" in lower:
        option.kind = "infile"
    elif "compiler options" in lower:
        option.kind = "build"
    elif lower.startswith("platform"):
        option.kind = "platform"
    elif lower.startswith("device"):
        option.kind = "device"
    elif "NAME=VALUE" in help_text:
        option.kind = "assign"
        names = re.search(r"\(([A-Z0-9_, ]+)\)\s*$", help_text)
        option.tunables = [n.strip() for n in names.group(1).split(",")] if names else []
    else:
        tunable = re.search(r"\(([A-Z0-9_, ]+), at most (\S+?)\)", help_text)
        if tunable:
            option.kind = "tunable"
            option.tunables = [n.strip() for n in tunable.group(1).split(",")]
            option.lo, option.hi = 0, to_number(tunable.group(2))
            return
        # A list of numbers or words: the vocabulary is what the help and the default name.
        default_tokens = re.split(r"[,/]", option.default) if option.default else []
        numbers = {int(t) for t in re.findall(r"(?<![\w^])(\d+)(?![\w^])", help_text)}
        numbers |= {int(t) for t in default_tokens if t.isdigit()}
        # Words: the default's, quoted ones ('auto'), a "default all", "or none", and the
        # enumerations of three or more ("literals, swizzles, halves"), not the prose around them.
        words = set(t for t in default_tokens if re.match(r"^[a-z][a-z0-9_]*$", t))
        words |= set(re.findall(r"'([a-z]\w*)'", help_text))
        words |= set(re.findall(r"\bdefault:? ([a-z]\w*)\)", help_text))
        words |= set(re.findall(r"\bor ([a-z]\w*)\b", help_text)) & {"auto", "none", "all"}
        numeric_default = bool(default_tokens) and all(t.isdigit() or t == "auto"
                                                       for t in default_tokens)
        listed = re.search(r"one per dimension|a list of \d|sizes|leading values", lower)
        is_list = numeric_default or bool(listed)
        if not is_list:
            for run in re.finditer(
                    r"[a-z][a-z0-9_]*(?:,\s*[a-z][a-z0-9_]*)+(?:,?\s+or\s+[a-z]\w*)?", help_text):
                found = set(re.findall(r"[a-z][a-z0-9_]*", run.group(0))) - {"or"}
                if len(found) >= 3:
                    words |= found
        option.numbers = sorted(n for n in numbers if n > 0)
        option.words = sorted(words)
        option.kind = "numbers" if is_list else "words"
        dims = re.search(r"1 to (\d+) sizes", help_text)
        option.max_items = int(dims.group(1)) if dims else \
            len(re.findall(r"[A-Z]{2,}", help_text.split(":")[0])) or 4
        if "AMODE/BMODE" in help_text or re.search(r"\w/\w", option.default or ""):
            option.words_pair = True  # "each MODE (both) or AMODE/BMODE"


class Lab:
    def __init__(self, name, path, options):
        self.name = name
        self.path = path
        self.options = [o for o in options if not {"-h", "--help", "--list"} & set(o.names)]
        self.by_name = {n: o for o in options for n in o.names}
        self.all_tunables = sorted({t for o in options for t in o.tunables})


def run_quiet(argv, env, timeout):
    try:
        done = subprocess.run(argv, env=env, capture_output=True, text=True, errors="replace",
                              timeout=timeout)
        return done.returncode, done.stderr
    except subprocess.TimeoutExpired:
        return None, ""


def stated_bound(lab, env, option, probe, words):
    """The bound the lab states when `probe` is refused ("... it must be WORDS N"), the probe
    itself when the lab takes it, else None."""
    code, err = run_quiet([lab.path, "--list", option.long, probe], env, 30)
    if code == 0:
        return to_number(probe)
    stated = re.search(words + r" (\S+?)[)\s]*$", err.strip().split(" (run '")[0])
    return to_number(stated.group(1)) if stated else None


def probe_bounds(lab, env):
    """Each number's bounds from the lab's own sentences: '--reps: 0 is too small: it must be at
    least 1', '2^63 is too large: it must be at most 100000'. --help does not list them."""
    for option in lab.options:
        if option.kind not in ("whole", "real"):
            continue
        low_probe, high_probe = ("0", "2^63") if option.kind == "whole" else ("1e-300", "1e300")
        option.lo = stated_bound(lab, env, option, low_probe, "at least")
        option.hi = stated_bound(lab, env, option, high_probe, "at most")
        if option.kind == "whole":
            option.lo = 1 if option.lo is None else int(option.lo)
            option.hi = 2 ** 48 if option.hi is None else int(option.hi)


def load_lab(name, bin_dir, env):
    path = str(bin_dir / name)
    done = subprocess.run([path, "--help"], env=env, capture_output=True, text=True, timeout=30)
    code, help_text = done.returncode, done.stdout
    if code != 0 or "Options:" not in help_text:
        raise SystemExit(f"fuzz_cli: {path} --help did not list options (exit {code})")
    options = parse_help(help_text)
    for option in options:
        classify(option)
    lab = Lab(name, path, options)
    probe_bounds(lab, env)
    return lab


class Fixtures:
    """Paths the path options get: real ones, missing ones, wrong kinds. Made once per session
    in the scratch folder, under fixed names, so a printed command works while it is kept."""

    def __init__(self, scratch, bin_dir):
        self.scratch = scratch
        (scratch / "empty-dir").mkdir()
        (scratch / "traces").mkdir()
        (scratch / "tuning").mkdir()
        (scratch / "not-a-kernel.txt").write_text("this is not OpenCL C\n")
        (scratch / "empty.cl").write_text("")
        (scratch / "corrupt-tuning.json").write_text("{ not json")
        suite = sorted((bin_dir / "kernels").glob("*.cl"))
        # The planted mistakes the build writes for the tests (cmake/AddLab.cmake).
        planted_dir = bin_dir.parent / "tests" / "planted"
        planted = sorted(planted_dir.glob("*.cl"))
        self.kernel_files = [str(p) for p in suite + planted]
        self.kernel_dirs = [str(bin_dir / "kernels"), str(REPO / "tests" / "student"),
                            str(planted_dir)]

    def dir_values(self, rng):
        good = rng.choice(self.kernel_dirs)
        bad = [str(self.scratch / "empty-dir"), str(self.scratch / "no-such-dir"),
               str(self.scratch / "not-a-kernel.txt"), ""]
        return good, bad

    def file_values(self, rng):
        good = rng.choice(self.kernel_files)
        bad = [str(self.scratch / "no-such.cl"), str(self.scratch / "empty-dir"), "",
               str(self.scratch / "empty.cl"), str(self.scratch / "not-a-kernel.txt")]
        return good, bad

    def trace_values(self, rng, tag):
        good = str(self.scratch / "traces" / f"{tag}.json")
        bad = [str(self.scratch / "no-such-dir" / "t.json"), str(self.scratch / "traces"), ""]
        return good, bad


class Value:
    """A generated value: its text, and whether no parser may accept it (exit 2 expected)."""

    def __init__(self, text, must_refuse=False):
        self.text = text
        self.must_refuse = must_refuse


def power_text(rng, number):
    """Sizes are also written as powers ('2^20'), as docs/reference.md allows."""
    if number >= 2 and number & (number - 1) == 0 and rng.random() < 0.3:
        return f"2^{number.bit_length() - 1}"
    return str(number)


def tiny_number(rng, option):
    pool = [1, 2, 3, 4, 5, 7, 8, 13, 16, 17, 31, 32, 33, 64]
    cap = TIME_OPTIONS.get(option.long)
    lo = option.lo if option.lo is not None else 1
    hi = option.hi if option.hi is not None else 2 ** 48
    pool = [n for n in pool + [lo] if lo <= n <= hi and (cap is None or n <= cap)]
    return rng.choice(pool or [lo])


def whole_value(rng, option, mode):
    lo, hi = option.lo, option.hi
    if mode == "valid":
        return Value(power_text(rng, tiny_number(rng, option)))
    if mode == "boundary":
        picks = [(lo, False), (lo + 1, lo + 1 > hi), (hi + 1, True)]
        if lo > 0:
            picks.append((lo - 1, True))
        if option.long not in TIME_OPTIONS:
            picks.append((hi, False))
            # Sizes whose products wrap 64 bits (2^32 x 2^32) or pass any device (2^40).
            picks += [(2 ** 32, 2 ** 32 > hi), (2 ** 40, 2 ** 40 > hi)]
        number, refuse = rng.choice(picks)
        return Value(power_text(rng, number), refuse)
    return Value(rng.choice(NOT_WHOLE), True)


def real_value(rng, option, mode):
    lo = option.lo if option.lo is not None else 1e-300
    hi = option.hi if option.hi is not None else 1e300
    if mode == "valid":
        return Value(rng.choice(["1", "0.5", "1e3", "60000", "333.3", "6e4"]))
    if mode == "boundary":
        number, refuse = rng.choice([(lo, False), (hi, False), (lo / 10, True), (hi * 10, True)])
        return Value(repr(number), refuse)
    return Value(rng.choice(NOT_REAL), True)


def choice_value(rng, option, mode):
    good = rng.choice(option.choices)
    if mode == "valid" or mode == "boundary":
        return Value(good)
    pick = rng.randrange(6)
    if pick == 0:
        return Value(good.upper())  # --type ignores case, the other choices do not
    if pick == 1:
        return Value(" " + good)
    bad = ["bogus", "", good + "x", good[:-1] or "x", good + "," + good][pick - 2]
    return Value(bad, bad not in option.choices)


def tunable_value(rng, option, mode):
    hi = option.hi or 2 ** 16
    if mode == "valid":
        return Value(power_text(rng, rng.choice([n for n in [1, 2, 3, 4, 5, 8, 16, 32, 64]
                                                 if n <= hi] or [1])))
    if mode == "boundary":
        number, refuse = rng.choice([(0, False), (1, False), (hi, False), (hi + 1, True)])
        return Value(power_text(rng, number), refuse)
    return Value(rng.choice(NOT_WHOLE), True)


def assign_value(rng, option, lab, mode):
    names = option.tunables or ["X"]
    if mode == "invalid":
        name = rng.choice(names)
        return Value(rng.choice([f"BOGUS=1", name, f"{name}=", "=8", f"{name}=abc", "", ",",
                                 f"{name.lower()}=8", f"{name}=8,", f"{name}=-1",
                                 f"{name}=99999999999999999999"]), True)
    pairs = []
    for name in rng.sample(names, min(len(names), rng.randint(1, 2))):
        owner = next((o for o in lab.options if o.kind == "tunable" and name in o.tunables), None)
        if mode == "boundary":
            hi = owner.hi if owner else 2 ** 16
            pairs.append(f"{name}={rng.choice([0, 1, hi, hi + 1])}")
        elif owner is not None:
            pairs.append(f"{name}={tunable_value(rng, owner, 'valid').text}")
        else:
            pairs.append(f"{name}={rng.choice([1, 2, 4, 8, 16])}")
    if rng.random() < 0.1:
        pairs.append(pairs[0])  # a tunable given twice: refused, not silently overridden
        return Value(",".join(pairs), True)
    return Value(",".join(pairs))


def numbers_value(rng, option, mode):
    """'16,16', '8x8', '1,2,4', 'auto'."""
    pool = [n for n in option.numbers + [1, 2, 3, 4, 5, 8, 16] if n <= 256]
    if mode == "invalid":
        return Value(rng.choice(["", ",", "1,,2", "1,", ",1", "a,b", "-1,2", "1;2", "1 2",
                                 "99999999999999999999", "1,2,3,4,5,6,7", "0x4", "auto,4",
                                 "bogus"]), False)
    count = rng.randint(1, max(1, option.max_items))
    if mode == "boundary":
        edges = [0, 1, 2 ** 32, 2 ** 48, 2 ** 63, max(pool)]
        items = [str(rng.choice(edges)) for _ in range(count)]
        if rng.random() < 0.3:
            items = items + ["1"] * (option.max_items + 1 - count)  # one dimension too many
    else:
        items = [str(rng.choice(pool)) for _ in range(count)]
    words = [w for w in option.words if w.isalpha()]
    if words and rng.random() < 0.3:
        return Value(rng.choice(words))
    return Value(rng.choice([",", ",", "x"]).join(items))


def words_value(rng, option, mode):
    words = option.words or ["x"]
    if mode == "invalid":
        word = rng.choice(words)
        return Value(rng.choice(["bogus", "", ",", f"{word},,{word}", f"{word}/", f"/{word}",
                                 f"{word}/{word}/{word}", word.upper(), f"{word},bogus"]), False)
    chosen = [rng.choice(words) for _ in range(rng.randint(1, 3))]
    if option.words_pair and rng.random() < 0.5:
        chosen = [f"{w}/{rng.choice(words)}" for w in chosen]
    return Value(",".join(chosen))


def build_value(rng, lab, mode):
    names = lab.all_tunables or ["N"]
    good = ["-cl-fast-relaxed-math", "-cl-mad-enable", "-DFUZZ=1", "-w", "-cl-std=CL1.2",
            "-cl-opt-disable"]
    bad = ["-fno-such-option", f"-D{rng.choice(names)}=8", "-cl-std=CL9.9", "-DX=(", "-D",
           "-I /no/such/dir", f"-D {rng.choice(names)}=1", "-Werror -DFUZZ", "", "'"]
    return Value(rng.choice(good if mode == "valid" else bad))


def option_value(rng, option, lab, mode, fixtures, tag):
    """The text for one option in one mode: valid, boundary or invalid."""
    kind = option.kind
    by_kind = {"whole": whole_value, "real": real_value, "choice": choice_value,
               "tunable": tunable_value, "numbers": numbers_value, "words": words_value}
    if kind in by_kind:
        return by_kind[kind](rng, option, mode)
    if kind == "assign":
        return assign_value(rng, option, lab, mode)
    if kind == "build":
        return build_value(rng, lab, mode)
    if kind in ("dir", "infile", "outfile"):
        good, bad = {"dir": fixtures.dir_values, "infile": fixtures.file_values}.get(
            kind, lambda r: fixtures.trace_values(r, tag))(rng)
        if mode == "valid":
            return Value(good)
        # docs/reference.md: an empty path is a usage error, never "not given".
        text = rng.choice(bad)
        return Value(text, text == "")
    if kind == "platform":
        return Value(rng.choice(["0", "pocl", "PoCL", "Portable"] if mode == "valid" else
                                ["1", "99", "nosuch", "", "-1", "99999999999999999999"]))
    if kind == "device":
        return Value(rng.choice(["0", "pthread", "cpu"] if mode == "valid" else
                                ["1", "99", "nosuch", "", "-1", "99999999999999999999"]))
    return Value(rng.choice(["x", "", "1"]))


def spell(rng, option, value):
    """One option as argv words, in the spellings CLI11 accepts: --opt v, --opt=v, -o v, -ov."""
    if option.kind == "flag":
        if value is not None:
            return [f"{option.long}={value.text}"]
        return [rng.choice(option.names)]
    form = rng.random()
    if option.short and form < 0.2:
        if form < 0.05 and value.text and not value.text.startswith("-"):
            return [option.short + value.text]
        return [option.short, value.text]
    if form < 0.4:
        return [f"{option.long}={value.text}"]
    return [option.long, value.text]


class Run:
    def __init__(self, lab, index, argv, env, refusals, seed):
        self.lab = lab
        self.index = index
        self.argv = argv
        self.env = env  # variables set or changed for this run
        self.refusals = refusals  # why exit 2 is the only right answer, if it is
        self.seed = seed


def generate(lab, seed, index, fixtures):
    """Command line `index` of `lab` for `seed`: the same on every machine and with any --jobs."""
    rng = random.Random(f"{seed}:{lab.name}:{index}")
    tag = f"{lab.name}-{seed}-{index}"
    mode = rng.choices(["valid", "boundary", "invalid", "duplicate", "conflict", "extra"],
                       weights=[30, 20, 20, 10, 12, 8])[0]
    weights = [1 if SHARED & set(o.names) else 3 for o in lab.options]
    count = rng.randint(1, min(4, len(lab.options)))
    chosen = []
    while len(chosen) < count:
        option = rng.choices(lab.options, weights=weights)[0]
        if option not in chosen:
            chosen.append(option)
    # The one option that gets the boundary or invalid value; the others get valid ones.
    odd = rng.choice(chosen) if mode in ("boundary", "invalid") else None
    argv, refusals, env = [], [], {}
    for option in chosen:
        option_mode = mode if option is odd else "valid"
        if option.kind == "flag":
            if option_mode == "invalid":
                text = rng.choice(["bogus", "2", ""])
                argv += spell(rng, option, Value(text))
                if text == "bogus":
                    refusals.append((f"{option.long}=bogus is not true or false", False))
            else:
                argv += spell(rng, option, None)
            continue
        value = option_value(rng, option, lab, option_mode, fixtures, tag)
        argv += spell(rng, option, value)
        if value.must_refuse:
            refusals.append((f"{option.long} {value.text!r} is outside what it takes",
                             option.kind in ("tunable", "assign", "dir", "infile", "outfile")))
    if mode == "duplicate":
        option = rng.choice(chosen)
        again = None if option.kind == "flag" else option_value(
            rng, option, lab, rng.choice(["valid", "valid", "boundary"]), fixtures, tag + "-2")
        argv += spell(rng, option, again)
    elif mode == "conflict":
        words, refusal = conflict(rng, lab, fixtures)
        argv += words
        if refusal:
            refusals.append(refusal)
    elif mode == "extra":
        argv += rng.choice([["--no-such-option"], ["extra"], ["-"], ["--"], ["--", "-n", "1"],
                            ["-x"], ["--list"], ["--help"], ["-h"], [""], ["--=1"], ["---n", "1"]])
    if rng.random() < 0.08:
        env.update(fuzzed_environment(rng, lab, fixtures))
    # Tunables and empty paths are checked after parsing, so --list and --help (exit 0) come
    # first; CLI11 checks numbers and choices before either.
    if any(word in ("--list", "--help", "-h") or word.startswith(("--list=", "--help="))
           for word in argv):
        refusals = [r for r in refusals if not r[1]]
    refusals = [r[0] for r in refusals]
    # The small sizes go first: after a generated "--" they would be positionals.
    argv = tiny_baseline(rng, lab, argv) + argv
    return Run(lab, index, [lab.path] + argv, env, refusals, seed)


def conflict(rng, lab, fixtures):
    """Options that contradict or override each other, taken from the help, and the reason when
    docs/reference.md makes the pair a usage error."""
    pairs = []
    for option in lab.options:
        for other in option.excludes:  # CLI11's Excludes: --json --csv --summary
            pairs.append(([option.long, other], (f"{option.long} excludes {other}", False)))
        if option.kind == "tunable":  # --ts 8 against --tunable TS=16 and -DTS=8
            for name in option.tunables:
                pairs.append(([option.long, str(rng.choice([4, 8])), "--tunable",
                               f"{name}={rng.choice([4, 8, 16])}"],
                              (f"{name} given by {option.long} and by --tunable", True)))
                # Refused only for the macros the kernel reads (TS, VW), not host-only ones
                # (LOCAL_2D, PER_ITEM); --help does not say which is which.
                pairs.append(([option.long, "8", "--build-options", f"-D{name}=8"], None))
        if "(overrides -n)" in option.help:
            pairs.append(([option.long, "3", "-n", "5"], None))
    names = lab.by_name
    if "--tune" in names and "--no-tuned" in names:
        pairs.append((["--tune", "--no-tuned"], None))
    if "--kernel-file" in names:
        pairs.append((["--kernel-file", fixtures.file_values(rng)[0], "--kernel-dir",
                       fixtures.dir_values(rng)[0]], None))
    pairs += [(["-p", "0", "-d", "99"], None), (["--type", "gpu", "-d", "0"], None),
              (["--list", "--json"], None), (["--help", "--list"], None),
              (["-p", "1", "--list"], None)]
    return rng.choice(pairs)


def fuzzed_environment(rng, lab, fixtures):
    """The LAB_* variables the labs read (their Env: in --help, and LAB_TIME_LIMIT and
    LAB_TUNING_CACHE from docs/reference.md), each with a value that is good or not."""
    names = sorted({o.env for o in lab.options if o.env} | {"LAB_TIME_LIMIT", "LAB_TUNING_CACHE"})
    name = rng.choice(names)
    values = {
        "LAB_PLATFORM": ["0", "pocl", "99", "nosuch", ""],
        "LAB_DEVICE": ["0", "99", "nosuch", ""],
        "LAB_DEVICE_TYPE": ["cpu", "gpu", "all", "bogus", ""],
        "LAB_KERNEL_DIR": fixtures.kernel_dirs[:1] + fixtures.dir_values(rng)[1],
        "LAB_TIME_LIMIT": ["5", "0", "-1", "abc", "1e400", "0.0001", ""],
        "LAB_TUNING_CACHE": [str(fixtures.scratch / "corrupt-tuning.json"),
                             str(fixtures.scratch / "empty-dir"),
                             str(fixtures.scratch / "no-such-dir" / "t.json")],
    }.get(name, ["", "x"])
    return {name: rng.choice(values)}


def tiny_baseline(rng, lab, argv):
    """Small sizes and few repetitions, for each option the line leaves out: a default such as
    -n 2^24 would make every run slow."""
    given = set()
    for word in argv:
        for option in lab.options:
            for name in option.names:
                if word == name or word.startswith(name + "=") or (
                        len(name) == 2 and word.startswith(name) and not word.startswith("--")):
                    given.add(option.long)
    # The --part the line asks for: an option whose help starts "bandwidth: ..." or "constant,
    # private: ..." is read only by those parts, and giving it to another earns a note on stderr.
    part_option = lab.by_name.get("--part")
    part = None
    for at, word in enumerate(argv):
        if word == "--part" and at + 1 < len(argv):
            part = argv[at + 1]
        elif word.startswith("--part="):
            part = word[len("--part="):]
    extra = []
    for option in lab.options:
        if option.long in given or option.kind != "whole":
            continue
        if part_option and part not in (None, "all"):
            readers = re.match(r"^([a-z_]+(?:, [a-z_]+)*):", option.help)
            names = readers.group(1).split(", ") if readers else []
            if names and set(names) <= set(part_option.choices) and part not in names:
                continue
        default = to_number(option.default or "0") or 0
        if option.long in TIME_OPTIONS:
            if option.long == "--tune-budget" and "--tune" not in given:
                continue
            extra += [option.long, str(rng.randint(option.lo, TIME_OPTIONS[option.long]))]
        elif option.long == "--size" or default > 256:
            extra += [option.long, str(rng.choice([1, 2, 3, 5, 8, 13, 17, 31, 33, 64]))]
    return extra


def check(run, code, stderr, timed_out, timeout):
    """The reasons a run broke the rules, empty when it did not."""
    problems = []
    name = run.lab.name
    if timed_out:
        return [f"no exit within {timeout:g} s (a hang, or a run far slower than its size)"]
    if code < 0:
        problems.append(f"killed by signal {-code} ({signal.Signals(-code).name})")
    elif code not in DOCUMENTED_EXITS:
        extra = f" (128 + signal {code - 128})" if code > 128 else ""
        problems.append(f"exit code {code}{extra} is not one of 0, 1, 2, 3, 77")
    for what, pattern in BAD_STDERR:
        if pattern.search(stderr):
            problems.append(f"{what} on stderr")
    lines = [line for line in stderr.splitlines() if line.strip()]
    if code in (2, 3, 77):
        error_lines = lines
        if code == 3 and any(BUILD_LOG_START.match(line) for line in lines):
            # The documented build log (PoCL's compiler may add its "N errors generated."
            # first), then the one error line.
            start = next(i for i, line in enumerate(lines) if BUILD_LOG_START.match(line))
            if all(COMPILER_SUMMARY.match(line) for line in lines[:start]):
                error_lines = lines[-1:]
        if len(error_lines) != 1:
            problems.append(f"exit {code} printed {len(error_lines)} stderr lines, "
                            "not one sentence")
        elif not (error_lines[0].startswith(name + ":") and "error" in error_lines[0]):
            problems.append(f"exit {code}'s stderr line is not '{name}: error: ...'")
    if run.refusals and code != 2 and code >= 0:
        problems.append(f"exit {code}, but only a usage error (2) is right: "
                        + "; ".join(run.refusals))
    return problems


def command_text(run, base_env=None):
    """The command with the environment it ran under (the session's LAB_*, POCL_* and OCL_*
    variables and the run's own), ready to paste into a shell."""
    merged = dict(base_env or {})
    merged.update(run.env)
    env = "".join(f"{k}={shlex.quote(v)} " for k, v in sorted(merged.items()))
    return ("env " + env if env else "") + shlex.join(run.argv)


def signature(run, problems, stderr):
    """Failures that differ only in the error sentence, numbers, paths and quoted values count as
    one problem: the shape of stderr's lines, with each "LAB: error: ..." line as one token."""
    shape = []
    for line in stderr.splitlines():
        if not line.strip():
            continue
        if line.startswith(run.lab.name + ": error:"):
            line = "LAB: error: …"
        elif line.startswith("tune:"):
            line = "tune: …"
        line = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", line)
        line = re.sub(r"(?<![\w])(/|--?)\S+", "WORD", line)
        line = re.sub(r"\d+(\.\d+)?", "N", line)
        if not shape or shape[-1] != line:
            shape.append(line[:120])
    rules = tuple(re.sub(r"'[^']*'|\d+", "…", p) for p in problems)
    return (run.lab.name, rules, tuple(shape[:3]))


def main():
    parser = argparse.ArgumentParser(
        description="Seeded random command lines against every lab (see the file's header).")
    parser.add_argument("--bin", type=Path, default=REPO / "build" / "bin")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--labs", default="")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=20)
    parser.add_argument("--slow-limit", type=float, default=None)
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    if args.runs < 1 or args.jobs < 1 or args.timeout <= 0:
        parser.error("--runs and --jobs must be at least 1, --timeout positive")
    if args.slow_limit is None:
        args.slow_limit = max(300.0, 15 * args.timeout)
    bin_dir = args.bin.resolve()
    if args.labs:
        names = [n for n in args.labs.split(",") if n]
    elif (bin_dir.parent / "labs.txt").is_file():
        names = (bin_dir.parent / "labs.txt").read_text().split()
    else:
        names = sorted(p.name for p in bin_dir.iterdir() if p.is_file() and os.access(p, os.X_OK))
    missing = [n for n in names if not (bin_dir / n).is_file()]
    if missing or not names:
        parser.error(f"no lab binaries {', '.join(missing) or ''} in {bin_dir}")

    cores = os.cpu_count() or 1
    env = dict(os.environ)
    env.setdefault("POCL_MAX_PTHREAD_COUNT", str(max(1, min(2, cores // args.jobs))))
    env.setdefault("LAB_TIME_LIMIT", f"{args.timeout * 0.75:g}")
    scratch = Path(tempfile.mkdtemp(prefix="fuzz_cli-"))
    env["LAB_TUNING_CACHE"] = str(scratch / "tuning" / "tuning.json")
    fixtures = Fixtures(scratch, bin_dir)
    labs = [load_lab(name, bin_dir, env) for name in names]
    runs = [generate(lab, args.seed, i, fixtures) for lab in labs for i in range(args.runs)]
    if args.dry_run:
        for run in runs:
            print(command_text(run))
        shutil.rmtree(scratch)
        return 0

    shown = {k: env[k] for k in sorted(env) if k.startswith(("LAB_", "POCL_", "OCL_"))}
    print(f"fuzz_cli: seed {args.seed}, {args.runs} runs per lab, {len(labs)} labs, "
          f"{args.jobs} jobs, timeout {args.timeout:g} s, scratch {scratch}")
    print("environment: " + " ".join(f"{k}={shlex.quote(v)}" for k, v in shown.items()))
    sys.stdout.flush()

    print_lock = threading.Lock()
    running = set()

    def execute(run):
        run_env = dict(env)
        run_env["LAB_TUNING_CACHE"] = str(scratch / "tuning" / f"{run.lab.name}-{run.index}.json")
        run_env.update(run.env)
        run.env = {k: v for k, v in run_env.items() if env.get(k) != v or k in run.env}
        # An empty folder of its own to run in: a file left there is a path option gone astray
        # (`--trace= --json` wrote a trace named "--json").
        cwd = scratch / "cwd" / f"{run.lab.name}-{run.seed}-{run.index}"
        cwd.mkdir(parents=True, exist_ok=True)

        def attempt(limit):
            # A session of its own, so a time-out ends the lab and the child it watches, no more.
            process = subprocess.Popen(run.argv, env=run_env, cwd=cwd, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                       start_new_session=True)
            running.add(process)
            try:
                _, err = process.communicate(timeout=limit)
                timed_out = False
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                _, err = process.communicate()
                timed_out = True
            running.discard(process)
            return process, timed_out, err.decode("utf-8", "replace")

        start = time.monotonic()
        process, timed_out, stderr = attempt(args.timeout)
        slow = None
        if timed_out:
            # PoCL compiles a kernel it has not cached at one thread, and some take minutes
            # (matmul's regtiled with --staging local: 90 s): a second, longer try tells such a
            # run from a hang. It is listed as slow; only a run that does not end then fails.
            again = time.monotonic()
            process, timed_out, stderr = attempt(args.slow_limit)
            slow = None if timed_out else time.monotonic() - again
        limit = args.slow_limit if slow is not None or timed_out else args.timeout
        problems = check(run, process.returncode, stderr, timed_out, limit)
        left = sorted(os.listdir(cwd))
        if left:
            problems.append(f"left {', '.join(map(repr, left))} in its working directory {cwd}")
        else:
            cwd.rmdir()
        seconds = time.monotonic() - start
        with print_lock:
            if args.verbose:
                code = "timeout" if timed_out else process.returncode
                print(f"[{run.lab.name} #{run.index}] exit {code} {seconds:.2f} s: "
                      f"{command_text(run, shown)}")
            if problems:
                print(f"FAIL seed {run.seed} lab {run.lab.name} run {run.index}: "
                      + "; ".join(problems))
                print(f"  command: {command_text(run, shown)}")
                print(f"  exit: {'timeout' if timed_out else process.returncode}")
                for line in stderr.rstrip("\n").splitlines()[:20] or ["(stderr empty)"]:
                    print(f"  stderr| {line}")
                sys.stdout.flush()
        if slow is not None and not problems:
            with print_lock:
                print(f"SLOW seed {run.seed} lab {run.lab.name} run {run.index}: no exit within "
                      f"{args.timeout:g} s, then exit {process.returncode} after {slow:.0f} s on "
                      f"a second try\n  command: {command_text(run, shown)}")
                sys.stdout.flush()
        return run, None if timed_out else process.returncode, problems, stderr, seconds, slow

    start = time.monotonic()
    results = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(execute, runs))
    except KeyboardInterrupt:
        for process in list(running):
            os.killpg(process.pid, signal.SIGKILL)
        raise
    elapsed = time.monotonic() - start

    failures = 0
    distinct = collections.OrderedDict()
    for lab in labs:
        mine = [r for r in results if r[0].lab is lab]
        histogram = collections.Counter("timeout" if r[1] is None else r[1] for r in mine)
        failed = [r for r in mine if r[2]]
        failures += len(failed)
        slow = [r for r in mine if r[5] is not None and not r[2]]
        codes = " ".join(f"{code}:{histogram[code]}" for code in
                         sorted(histogram, key=lambda c: (isinstance(c, str), c)))
        print(f"{lab.name:14} runs {len(mine):4}  exit {codes:32}  failures {len(failed)}  "
              f"slow {len(slow)}  {sum(r[4] for r in mine):.0f} s")
        for run, code, problems, stderr, *_ in failed:
            key = signature(run, problems, stderr)
            distinct.setdefault(key, [run, code, problems, stderr, 0])[4] += 1
    print(f"fuzz_cli: {len(results)} runs in {elapsed:.0f} s, {failures} failed, "
          f"{len(distinct)} distinct problem(s)")
    slow_runs = sum(1 for r in results if r[5] is not None and not r[2])
    if slow_runs:
        print(f"fuzz_cli: {slow_runs} slow run(s) (SLOW above) passed the {args.timeout:g} s limit "
              f"but ended within {args.slow_limit:g} s: not failures")
    for run, code, problems, stderr, times in distinct.values():
        print(f"- {run.lab.name}: {'; '.join(problems)} ({times} run(s); first: seed {run.seed} "
              f"run {run.index}, exit {'timeout' if code is None else code})")
        print(f"    {command_text(run, shown)}")
        first = next((line for line in stderr.splitlines() if line.strip()), "(stderr empty)")
        print(f"    stderr: {first[:300]}")
    if failures == 0 and not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    else:
        print(f"fuzz_cli: scratch folder kept for the commands above: {scratch}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
