#!/usr/bin/env python3
"""Writes the README of data/measurements/ to stdout: devices, dates and counts, records per model and
device, and the noise floor (median relative difference of configs measured twice at different
times), from the record files <device key>.jsonl.zst and descriptions device-<key>.json there.

Usage: scripts/dataset_readme.py --tensorperf build/tensorperf --dir data/measurements
       scripts/dataset_readme.py --pairs-of FILE|-   (prints "<records> <pairs>" of uncompressed JSONL records)
       scripts/dataset_readme.py --tensorperf build/tensorperf --repeated-models-of FILE|-
                                 (the models whose default configs are already measured twice there)
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


def paired_runs(records):
    """{(device, workload, provider, config, host clock): (first, last)} of the configs measured (error-free)
    at least twice on one device by one host, the first and last time at least a minute apart; first and
    last are (timestamp, median cost). One device key covers hosts at different clocks: a record keeps
    its host's (result.clock_mhz, to 10 MHz; records older than the field count as one host), and
    measurements of two hosts are no pair."""
    groups = defaultdict(list)
    for r in records:
        c = median_cost(r)
        if r["result"]["error_no"] == 0 and c:
            groups[(r["input"]["device"], r["input"]["workload"], r["input"]["provider"],
                    json.dumps(r["config"], sort_keys=True),
                    round(r["result"].get("clock_mhz", 0) / 10))].append((r["result"]["timestamp"], c))
    out = {}
    for key, runs in groups.items():
        runs.sort()
        if len(runs) >= 2 and runs[-1][0] - runs[0][0] >= 60:
            out[key] = (runs[0], runs[-1])
    return out


def noise_pairs(records):
    """Relative differences |a - b| / min(a, b) of the median costs of configs measured twice (paired_runs)."""
    return [abs(a[1] - b[1]) / min(a[1], b[1]) for a, b in paired_runs(records).values()]


def repeated_models(records, workloads_of):
    """The models (names of workloads_of, "<model> b<batch>") at least half of whose workloads have a
    config measured twice in `records`: measuring their defaults again would add third measurements."""
    paired = {key[1] for key in paired_runs(records)}
    return [m for m, keys in workloads_of.items() if len(keys & paired) * 2 >= len(keys)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tensorperf")
    ap.add_argument("--dir")
    ap.add_argument("--pairs-of", metavar="FILE", help="print '<records> <pairs>' of a JSONL file ('-': stdin)")
    ap.add_argument("--repeated-models-of", metavar="FILE",
                    help="print the models (one per line, '<model> b<batch>') at least half of whose workloads have a "
                         "config measured twice in a JSONL file ('-': stdin); needs --tensorperf")
    args = ap.parse_args()
    if args.pairs_of or args.repeated_models_of:
        path = args.pairs_of or args.repeated_models_of
        src = sys.stdin if path == "-" else open(path)
        records = [json.loads(line) for line in src if line.strip()]
        if args.pairs_of:
            print(len(records), len(noise_pairs(records)))
        else:
            if not args.tensorperf:
                ap.error("--repeated-models-of needs --tensorperf")
            print("\n".join(repeated_models(records, model_workloads(args.tensorperf))))
        return
    if not args.tensorperf or not args.dir:
        ap.error("--tensorperf and --dir are required (or --pairs-of, or --repeated-models-of)")
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
    print("faults and how their records are recognised). Besides the zoo's workloads, `make_dataset.sh --synthetic N`")
    print("measures memory-bound kinds (depthwise and pointwise convolutions, pools, element-wise and normalisation")
    print("ops), transformer matrix products (dense layers over rows, attention's batched products) and fully")
    print("connected layers of one or a few rows at shapes of no zoo network (`scripts/synthetic_workloads.py`):")
    print("training data that no cross-model split holds out.\n")
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
    hosts = {}  # device -> {clock MHz: records} of the records that keep their host's clock
    for key, d in devices.items():
        for r in d["records"]:
            if r["result"].get("clock_mhz"):
                c = round(r["result"]["clock_mhz"])
                hosts.setdefault(key, {})[c] = hosts.setdefault(key, {}).get(c, 0) + 1
    if hosts:
        print("\nOne device key covers hosts of one CPU model at different clocks. Records since 2026-11-27 keep")
        print("their host's (`result.clock_mhz`; the older ones were measured on the host that the description")
        print("describes); cost-model samples bring those of another clock to the description's:\n")
        print("| device | description's clock (MHz) | records that keep their host's clock |")
        print("|---|---|---|")
        for key, clocks in hosts.items():
            desc_mhz = devices[key]["desc"].get("clock_mhz", 0)
            print(f"| `{key}` | {desc_mhz:.0f} | " + ", ".join(f"{n} at {c} MHz" for c, n in sorted(clocks.items())) + " |")
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
    # Workloads of no zoo model: the synthetic shapes of scripts/synthetic_workloads.py, per set.
    zoo = set().union(*workloads_of.values())

    def synthetic_set(w):
        if w.startswith("batch_matmul|"):
            return "matrix products"
        if w.startswith("dense|"):  # over rows [N, T, K], or a fully connected layer [N, K]
            return "matrix products" if w.split("[")[1].count(",") == 2 else "fully connected layers"
        return "memory-bound kinds"

    for label in ("memory-bound kinds", "matrix products", "fully connected layers"):
        other = [[r for r in devices[k]["records"]
                  if r["input"]["workload"] not in zoo and synthetic_set(r["input"]["workload"]) == label] for k in keys]
        if any(other):
            n = len({r["input"]["workload"] for recs in other for r in recs})
            print(f"| no zoo model (synthetic {label}, `scripts/synthetic_workloads.py`) | {n} | "
                  + " | ".join(str(len(recs)) for recs in other) + " | |")
    print("\n## Noise floor\n")
    print("Configs measured twice, at least a minute apart (the repeat passes of `make_dataset.sh`): the median")
    print("relative difference |a - b| / min(a, b) of their median costs, per device. A cost model's error is")
    print("only meaningful above this.\n")
    print("| device | pairs | share of its records | median relative difference | 90th percentile |")
    print("|---|---|---|---|---|")
    all_pairs = 0
    for key, d in devices.items():
        diffs = noise_pairs(d["records"])
        all_pairs += len(diffs)
        share = f"{100 * len(diffs) / len(d['records']):.1f}%" if d["records"] else "-"
        if diffs:
            diffs.sort()
            print(f"| `{key}` | {len(diffs)} | {share} | {100 * statistics.median(diffs):.1f}% | "
                  f"{100 * diffs[int(0.9 * (len(diffs) - 1))]:.1f}% |")
        else:
            print(f"| `{key}` | 0 | {share} | - | - |")
    print(f"\n{all_pairs} configs measured twice in {total} records ({100 * all_pairs / max(total, 1):.1f}%). A device's")
    print("share can only grow on its own CPU; `make_dataset.sh` tops up the devices of the machine it runs on until")
    print("their own share and the dataset's are at least 2%.")


if __name__ == "__main__":
    main()
