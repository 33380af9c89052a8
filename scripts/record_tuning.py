#!/usr/bin/env python3
"""record_tuning.py: copies tuned settings from a tuning cache into the suite's recorded settings,
common/tuned.json, which every lab compiles in and starts from on a device it names.

Usage: record_tuning.py [--cache PATH] [--labs LIST] [--device TEXT] [--into PATH]

Run `LAB --tune ...` on the device first (each run stores its best setting in the cache), then
this script, then rebuild. An entry keeps the lab, variant, device, element type, size class, the
tunables and the rate they gave; it drops the kernel's SHA-256, which the cache keys on, so that
the setting outlives edits to the kernel, and keeps the driver and the date as information only.
An entry for the same lab, variant, device, element type and size class is replaced.
"""
import argparse
import datetime
import json
import os
import sys

FIELDS = ("lab", "variant", "device", "dtype", "size_class")


def default_cache():
    """The path the labs use: LAB_TUNING_CACHE, else the XDG or home cache folder."""
    if os.environ.get("LAB_TUNING_CACHE"):
        return os.environ["LAB_TUNING_CACHE"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "opencl-labs", "tuning.json")


def load(path, what):
    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
    except (OSError, ValueError) as error:
        sys.exit(f"record_tuning.py: cannot read the {what} {path}: {error}")
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        sys.exit(f"record_tuning.py: {path} has no \"entries\" list: not a {what}")
    return data


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", default=default_cache(), help="the tuning cache to read")
    parser.add_argument("--labs", default="", help="only these labs (comma-separated)")
    parser.add_argument("--device", default="", help="only devices whose name contains this")
    parser.add_argument("--into", default=os.path.join(root, "common", "tuned.json"),
                        help="the recorded settings to update")
    options = parser.parse_args()

    cache = load(options.cache, "tuning cache")
    recorded = load(options.into, "recorded settings file")
    labs = {lab for lab in options.labs.split(",") if lab}
    entries = {tuple(e.get(f, "") for f in FIELDS): e for e in recorded["entries"]}
    taken = 0
    for entry in cache["entries"]:
        if not all(isinstance(entry.get(f), str) for f in FIELDS):
            continue
        if not isinstance(entry.get("tunables"), dict) or not entry["tunables"]:
            continue
        if labs and entry["lab"] not in labs:
            continue
        if options.device not in entry["device"]:
            continue
        tuned_at = entry.get("tuned_at")
        when = (datetime.datetime.fromtimestamp(tuned_at, datetime.timezone.utc).date().isoformat()
                if isinstance(tuned_at, (int, float)) else "")
        kept = {f: entry[f] for f in FIELDS}
        kept.update({"tunables": entry["tunables"], "rate": entry.get("rate", 0),
                     "unit": entry.get("unit", ""), "driver": entry.get("driver", ""),
                     "tuned_on": when})
        entries[tuple(entry[f] for f in FIELDS)] = kept
        taken += 1
        print(f"record_tuning.py: {entry['lab']} {entry['variant']} {entry['dtype']} "
              f"{entry['size_class']} on {entry['device']}: "
              + " ".join(f"{k}={v}" for k, v in entry["tunables"].items()))
    if taken == 0:
        sys.exit(f"record_tuning.py: nothing to record in {options.cache}"
                 + (f" for {options.labs}" if labs else "")
                 + (f" on a device named like '{options.device}'" if options.device else ""))
    recorded["entries"] = sorted(entries.values(), key=lambda e: tuple(e[f] for f in FIELDS))
    with open(options.into, "w", encoding="utf-8") as file:
        json.dump(recorded, file, indent=2)
        file.write("\n")
    print(f"record_tuning.py: {taken} entries into {options.into} "
          f"({len(recorded['entries'])} in all); rebuild for the labs to use them")


if __name__ == "__main__":
    main()
