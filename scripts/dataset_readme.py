#!/usr/bin/env python3
"""Writes the README of data/measurements/ to stdout: devices, dates and counts, records per model and
device, and the noise floor (median relative difference of configs measured twice at different
times), from the record files <device key>.jsonl.zst and descriptions device-<key>.json there.

Usage: scripts/dataset_readme.py --tensorperf build/tensorperf --dir data/measurements
       scripts/dataset_readme.py --pairs-of FILE|-   (prints "<records> <pairs>" of uncompressed JSONL records)
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict

MODELS = ["resnet18", "resnet50", "vgg16", "inception_v3", "squeezenet1_1", "mobilenet_v2", "nasnet_a_mobile",
          "randwire", "bert_base"]
BATCH8 = ["resnet18", "squeezenet1_1", "mobilenet_v2"]


def model_workloads(tp):
    out = {}
    for batch, models in ((1, MODELS), (8, BATCH8)):
        for m in models:
            tasks = json.loads(subprocess.check_output([tp, "tasks", "--model", m, "--batch", str(batch), "--json"]))
            out[f"{m} b{batch}"] = {t["key"] for t in tasks["tasks"]}
    return out


def read_records(path):
    text = subprocess.check_output(["zstd", "-dc", path]).decode()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def median_cost(r):
    costs = sorted(r["result"]["costs"])
    return costs[len(costs) // 2] if costs else None


def noise_pairs(records):
    """Relative differences |a - b| / min(a, b) of the median costs of configs measured (error-free) at least
    twice, the first and last time at least a minute apart."""
    groups = defaultdict(list)
    for r in records:
        c = median_cost(r)
        if r["result"]["error_no"] == 0 and c:
            groups[(r["input"]["workload"], r["input"]["provider"], json.dumps(r["config"], sort_keys=True))].append(
                (r["result"]["timestamp"], c))
    diffs = []
    for runs in groups.values():
        runs.sort()
        if len(runs) >= 2 and runs[-1][0] - runs[0][0] >= 60:
            a, b = runs[0][1], runs[-1][1]
            diffs.append(abs(a - b) / min(a, b))
    return diffs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tensorperf")
    ap.add_argument("--dir")
    ap.add_argument("--pairs-of", metavar="FILE", help="print '<records> <pairs>' of a JSONL file ('-': stdin)")
    args = ap.parse_args()
    if args.pairs_of:
        src = sys.stdin if args.pairs_of == "-" else open(args.pairs_of)
        records = [json.loads(line) for line in src if line.strip()]
        print(len(records), len(noise_pairs(records)))
        return
    if not args.tensorperf or not args.dir:
        ap.error("--tensorperf and --dir are required (or --pairs-of)")
    files = sorted(glob.glob(os.path.join(args.dir, "*.jsonl.zst")))
    if not files:
        sys.exit(f"dataset_readme: no *.jsonl.zst in {args.dir}")
    workloads_of = model_workloads(args.tensorperf)
    devices = {}
    for f in files:
        key = os.path.basename(f)[: -len(".jsonl.zst")]
        desc_path = os.path.join(args.dir, f"device-{key}.json")
        desc = json.load(open(desc_path)) if os.path.exists(desc_path) else {}
        devices[key] = {"file": os.path.basename(f), "records": read_records(f), "desc": desc}

    total = sum(len(d["records"]) for d in devices.values())
    print("# Measurement dataset\n")
    print("Measured tensor programs for learned cost models: every record is one (workload, config) timed on one")
    print("device, as tensorperf native records (`src/measure/record.h`), one zstd-compressed file per device.")
    print("Import them with `tensorperf db import data/measurements/*.jsonl.zst`; `tensorperf features` gives a")
    print("record's program features and the `device-<key>.json` files the devices' descriptions (measured peaks).")
    print("Made by `scripts/make_dataset.sh` (resumable); this README by `scripts/dataset_readme.py`. Records that a")
    print("known measurement fault made wrong are removed by `scripts/drop_faulty_records.py` (its table lists the")
    print("faults and how their records are recognised).\n")
    print(f"**{total} records on {len(devices)} devices.**\n")
    print("## Devices\n")
    print("| device | CPU | ISA | threads | peak GFLOP/s | triad GB/s | records | error-free | workloads | measured (UTC) | median load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key, d in devices.items():
        recs = d["records"]
        ok = [r for r in recs if r["result"]["error_no"] == 0 and r["result"]["costs"]]
        ts = [r["result"]["timestamp"] for r in recs]
        loads = [r["result"]["load"] for r in recs if "load" in r["result"]]
        desc = d["desc"]
        load = f"{statistics.median(loads):.2f}" if loads else "-"
        when = (time.strftime("%Y-%m-%d", time.gmtime(min(ts))) + " to " + time.strftime("%Y-%m-%d", time.gmtime(max(ts)))) if ts else "-"
        cpu = desc.get("cpu_model", "?")
        if desc.get("cpu_signature"):  # cpuid family/model: tells apart CPUs whose name is masked
            cpu += f" ({desc['cpu_signature']})"
        if desc.get("l1d_bytes"):
            cpu += f", {desc['l1d_bytes'] // 1024} KiB L1d"
        print(f"| `{key}` | {cpu} | {desc.get('isa', '?')} | {desc.get('threads', '?')} | "
              f"{desc.get('peak_gflops', 0):.0f} | {desc.get('mem_bandwidth_gbs', 0):.1f} | {len(recs)} | {len(ok)} | "
              f"{len({r['input']['workload'] for r in recs})} | {when} | {load} |")
    print("\n## Records per model and device\n")
    print("A record counts for every model that has its workload. `covered`: devices holding records of every one")
    print("of the model's workloads.\n")
    keys = list(devices)
    print("| model | workloads | " + " | ".join(f"`{k}`" for k in keys) + " | covered |")
    print("|---|---|" + "---|" * len(keys) + "---|")
    for name, wl in workloads_of.items():
        cells, covered = [], 0
        for k in keys:
            recs = [r for r in devices[k]["records"] if r["input"]["workload"] in wl]
            cells.append(str(len(recs)))
            if wl <= {r["input"]["workload"] for r in recs}:
                covered += 1
        print(f"| {name} | {len(wl)} | " + " | ".join(cells) + f" | {covered} |")
    print("\n## Noise floor\n")
    print("Configs measured twice, at least a minute apart (the repeat passes of `make_dataset.sh`): the median")
    print("relative difference |a - b| / min(a, b) of their median costs, per device. A cost model's error is")
    print("only meaningful above this.\n")
    print("| device | pairs | median relative difference | 90th percentile |")
    print("|---|---|---|---|")
    for key, d in devices.items():
        diffs = noise_pairs(d["records"])
        if diffs:
            diffs.sort()
            print(f"| `{key}` | {len(diffs)} | {100 * statistics.median(diffs):.1f}% | {100 * diffs[int(0.9 * (len(diffs) - 1))]:.1f}% |")
        else:
            print(f"| `{key}` | 0 | - | - |")


if __name__ == "__main__":
    main()
