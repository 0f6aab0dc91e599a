#!/usr/bin/env python3
"""drop_faulty_records.py: remove records of data/measurements/ that a known measurement fault made wrong.

Usage: scripts/drop_faulty_records.py [--dir DIR] [--dry-run]

Each fault below names what went wrong, until when, and how its records are recognised from the
records alone. The script rewrites the affected <device>.jsonl.zst files without those records (every
other line is kept byte for byte) and prints what it dropped per device. Running it again drops nothing.
It does not touch a database: import the files again into a new one (scripts/make_dataset.sh does
that for a new database), and re-export with make_dataset.sh --export-only only from such a database.

Known faults:
  onednn-t1-also-threads  until 2026-11-25 08:41 UTC, a oneDNN kernel compiled for 1 thread by a caller
                          running 2 OpenMP threads made its primitives for 2 threads, which then took
                          turns on the one pinned CPU (8-32 ms where 1.4 ms was right). `tune
                          --also-threads 1` compiled that way: its 1-thread records are stored seconds
                          after the 2-thread record of the same config. Recognised as: a 1-thread
                          device's oneDNN record, measured before the fix, with a 2-thread record of the
                          same workload and config on the same CPU and ISA within 30 s of it.
  stalled-repeat          any date, cause not established: one repeat of a record ran over 10x its
                          fastest repeat (e.g. 10.3 ms, 0.36 ms, 0.27 ms), and the record's mean cost,
                          which cost models learn, is the stall's. In 2026-11 255 of 74,348 records (0.3%),
                          the first repeat the slow one in 252; oneDNN 197, Halide 58. A learned model
                          predicted a 0.015 ms depthwise convolution at 1.45 ms from one such record
                          (14.7 ms mean of 23.9, 20.2 and 0.13 ms). Recognised as: an error-free record
                          of at least two repeats whose slowest is over STALL_RATIO times its fastest.
"""
import argparse
import functools
import json
import os
import subprocess
import sys
from collections import defaultdict

FIX_ONEDNN_THREADS = 1795596109  # 2026-11-25 08:41:49 UTC, the provider fix
ALSO_THREADS_WINDOW_S = 30
STALL_RATIO = 10


def read_lines(path):
    out = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout.decode()
    return [line for line in out.splitlines() if line.strip()]


def write_lines(path, lines):
    tmp = path + ".tmp"
    subprocess.run(["zstd", "-q", "-19", "-f", "-o", tmp], input=("\n".join(lines) + "\n").encode(), check=True)
    os.replace(tmp, path)


def key_of(r):
    return (r["input"]["workload"], json.dumps(r["config"], sort_keys=True))


def onednn_t1_also_threads(device, records, lines_of):
    """Indices of `records` (device ending in -t1) hit by the fault; lines_of(device) reads another device."""
    if not device.endswith("-t1"):
        return []
    partner = device[:-1] + "2"
    try:
        partner_records = [json.loads(line) for line in lines_of(partner)]
    except FileNotFoundError:
        return []
    stamps = defaultdict(list)
    for r in partner_records:
        if r["input"]["provider"] == "onednn":
            stamps[key_of(r)].append(r["result"]["timestamp"])
    hit = []
    for i, r in enumerate(records):
        ts = r["result"]["timestamp"]
        if r["input"]["provider"] != "onednn" or ts >= FIX_ONEDNN_THREADS:
            continue
        if any(abs(ts - t) <= ALSO_THREADS_WINDOW_S for t in stamps.get(key_of(r), [])):
            hit.append(i)
    return hit


def stalled_repeat(device, records, lines_of):
    """Indices of `records` whose repeats spread over STALL_RATIO (a stall, not the program)."""
    hit = []
    for i, r in enumerate(records):
        costs = r["result"].get("costs") or []
        if r["result"].get("error_no", 0) != 0 or len(costs) < 2 or min(costs) <= 0:
            continue
        if max(costs) > STALL_RATIO * min(costs):
            hit.append(i)
    return hit


FAULTS = [("onednn-t1-also-threads", onednn_t1_also_threads), ("stalled-repeat", stalled_repeat)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=os.path.join(os.path.dirname(__file__), "..", "data", "measurements"))
    ap.add_argument("--dry-run", action="store_true", help="only print what would be dropped")
    args = ap.parse_args()
    files = sorted(f for f in os.listdir(args.dir) if f.endswith(".jsonl.zst"))
    if not files:
        sys.exit(f"drop_faulty_records: no <device>.jsonl.zst files in {args.dir}")

    @functools.cache  # a fault's test reads a partner device's file that is also read as its own
    def lines_of(device):
        path = os.path.join(args.dir, device + ".jsonl.zst")
        if not os.path.exists(path):
            raise FileNotFoundError(path)
        return read_lines(path)

    # Decide on the files as they are, then write: a fault's test may read another device's file.
    plans = []
    for f in files:
        device = f[: -len(".jsonl.zst")]
        lines = lines_of(device)
        records = [json.loads(line) for line in lines]
        drop = {}
        for name, test in FAULTS:
            for i in test(device, records, lines_of):
                drop.setdefault(i, name)
        plans.append((f, device, lines, drop))
    total = 0
    print("| device | records | dropped | fault |")
    print("|---|---|---|---|")
    for f, device, lines, drop in plans:
        names = sorted(set(drop.values()))
        print(f"| `{device}` | {len(lines)} | {len(drop)} | {', '.join(names) or '-'} |")
        total += len(drop)
        if drop and not args.dry_run:
            write_lines(os.path.join(args.dir, f), [line for i, line in enumerate(lines) if i not in drop])
    print(f"{'would drop' if args.dry_run else 'dropped'} {total} records")


if __name__ == "__main__":
    main()
