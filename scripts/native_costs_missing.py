#!/usr/bin/env python3
"""native_costs_missing.py: the records of NEW that time a program in native layouts (result.native_costs)
which no record of HAVE does, one JSON line each, for `tensorperf db import`.

Usage: scripts/native_costs_missing.py HAVE NEW > missing.jsonl
  HAVE  a device's records (`tensorperf db export --all --device KEY`; - for standard input)
  NEW   records measured since on the same device (e.g. `tensorperf profile --out NEW`)

A program is its (device, workload, provider, config). Records measured before a kernel kind carried
native costs (oneDNN's pools, which adopt their producer's layout, until 2026-11-26) leave the
dataset without the chained timings a graph runs; scripts/make_dataset.sh --native-top-up measures
such programs again and imports only what this prints.
"""
import json
import sys


def program(r):
    i = r["input"]
    return (i["device"], i["workload"], i["provider"], json.dumps(r.get("config", {}), sort_keys=True))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    have = sys.stdin if sys.argv[1] == "-" else open(sys.argv[1])
    timed = {program(r) for r in map(json.loads, filter(str.strip, have))
             if r["result"].get("error_no", 0) == 0 and r["result"].get("native_costs")}
    printed = set()
    for line in open(sys.argv[2]):
        if not line.strip():
            continue
        r = json.loads(line)
        p = program(r)
        if r["result"].get("error_no", 0) == 0 and r["result"].get("native_costs") and p not in timed and p not in printed:
            printed.add(p)
            print(line.rstrip("\n"))


if __name__ == "__main__":
    main()
