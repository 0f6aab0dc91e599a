#!/usr/bin/env python3
"""native_costs_missing.py: the records of NEW that time a program which no record of HAVE times in
native layouts (result.native_costs), or that no record of HAVE measures at all, one JSON line each,
for `tensorperf db import`.

Usage: scripts/native_costs_missing.py [--chosen RUN.json] HAVE NEW [NEW ...] > missing.jsonl
  --chosen RUN.json  only the programs that a run chose (`tensorperf run --json`: its ops' workload,
        provider and config; may be given more than once). Records under a device's own key make its
        configs "tuned" for `tensorperf run` there (db::best_configs takes the exact device first), so a
        top-up that imports only what the executor already runs leaves the configs a graph runs as they
        were, and gives exactly those programs their chained timings
  HAVE  a device's records (`tensorperf db export --all --device KEY`; - for standard input)
  NEW   records measured since on the same device (e.g. `tensorperf profile --out NEW`); several files are
        passes that timed the same programs at different times, and of a program timed in more than one
        the fastest record is printed: the lowest median native cost, or for a program HAVE lacks and
        no pass timed natively, the lowest median cost (on shared cores a pass can run in a slow phase of
        the host; the faster time is the program's)

A program is its (device, workload, provider, config). Records measured before a kernel kind carried
native costs (oneDNN's pools, which adopt their producer's layout, until 2026-11-26), and devices whose
rounds measured only synthetic workloads, leave the dataset without the chained timings a graph runs;
the zoo's models at batch 8 beyond the three CNNs the rounds tune leave it without the programs a graph
runs at all. scripts/make_dataset.sh --native-top-up measures such programs and imports only what this
prints.
"""
import argparse
import json
import statistics
import sys


def program(r):
    i = r["input"]
    return (i["device"], i["workload"], i["provider"], json.dumps(r.get("config", {}), sort_keys=True))


def timed_natively(r):
    return r["result"].get("error_no", 0) == 0 and bool(r["result"].get("native_costs"))


def chosen_programs(run):
    """The (workload, provider, config) of every kernel of a `tensorperf run --json` output."""
    return {(op["workload"], op["provider"], json.dumps(op.get("config", {}), sort_keys=True))
            for op in run["ops"] if op.get("workload")}


def missing(have_lines, passes, chosen=None):
    """The lines of the passes (each an iterable of JSON lines) to import, in the order the programs
    first appear: per program that no line of have_lines times natively (and, when `chosen` is a set of
    chosen_programs, that a run chose), the natively timed line with the lowest median native cost; and
    per program that no line of have_lines measures at all and no pass times natively, the error-free
    line with the lowest median cost."""
    timed, measured = set(), set()
    for r in map(json.loads, filter(str.strip, have_lines)):
        measured.add(program(r))
        if timed_natively(r):
            timed.add(program(r))
    best = {}  # program -> (natively timed, median cost of that kind, line)
    for lines in passes:
        for line in filter(str.strip, lines):
            r = json.loads(line)
            p = program(r)
            if p in timed or (chosen is not None and p[1:] not in chosen) or r["result"].get("error_no", 0) != 0:
                continue
            if timed_natively(r):
                entry = (True, statistics.median(r["result"]["native_costs"]), line.rstrip("\n"))
            elif p not in measured and r["result"].get("costs"):
                entry = (False, statistics.median(r["result"]["costs"]), line.rstrip("\n"))
            else:
                continue
            old = best.get(p)
            # A native timing wins over a plain one; of two of one kind, the faster.
            if old is None or (entry[0], -entry[1]) > (old[0], -old[1]):
                best[p] = entry
    return [line for _, _, line in best.values()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0],
                                 usage=next(l for l in __doc__.splitlines() if l.startswith("Usage: "))[7:])
    ap.add_argument("--chosen", action="append", default=[])
    ap.add_argument("have")
    ap.add_argument("new", nargs="+")
    a = ap.parse_args()
    chosen = None
    if a.chosen:
        chosen = set()
        for f in a.chosen:
            chosen |= chosen_programs(json.load(open(f)))
    have = sys.stdin if a.have == "-" else open(a.have)
    for line in missing(have, [open(f) for f in a.new], chosen):
        print(line)


if __name__ == "__main__":
    main()
