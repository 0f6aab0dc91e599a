#!/usr/bin/python3
"""Where a cost model's error lies: per split, per operator kind and provider, from the CSV that
`tensorperf eval --predictions FILE` writes.

    scripts/eval_breakdown.py FILE [--splits NAME,NAME] [--top N]

Kinds: the workload's op, with convolutions split into depthwise (groups > 1), 1x1 and k x k. For each
split, the kinds carrying the most absolute percentage error first: samples, MAPE, the mean of
ln(predicted / measured) (above 0: predicted too slow), the kind's share of the split's summed error,
and the median measured latency.
"""
import argparse
import collections
import csv
import math
import re
import sys


def kind_of(workload):
    op = workload.split("|")[0]
    if op != "conv2d":
        return op
    groups = re.search(r"groups=(\d+)", workload)
    if groups and int(groups.group(1)) > 1:
        return "conv dw"
    weight = re.search(r";float32\[\d+,\d+,(\d+),(\d+)\]", workload)
    return "conv 1x1" if weight and weight.group(1) == "1" and weight.group(2) == "1" else "conv kxk"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--splits", help="comma-separated split names (default: all)")
    ap.add_argument("--top", type=int, default=8, help="kinds per split")
    a = ap.parse_args()
    errors = collections.defaultdict(list)  # (model, split) -> kind, provider -> [(ape, log ratio, measured)]
    try:
        with open(a.file, newline="") as f:
            for r in csv.DictReader(f):
                measured, predicted = float(r["measured_s"]), float(r["predicted_s"])
                if measured <= 0 or predicted <= 0:
                    continue
                key = (r["model"], r["split"], kind_of(r["workload"]), r["provider"])
                errors[key].append((abs(predicted - measured) / measured, math.log(predicted / measured), measured))
    except (OSError, KeyError, ValueError) as e:
        sys.exit("eval_breakdown.py: cannot read %s as `tensorperf eval --predictions` CSV: %s" % (a.file, e))
    wanted = set(a.splits.split(",")) if a.splits else None
    splits = sorted({(m, s) for m, s, _, _ in errors if wanted is None or s in wanted})
    if not splits:
        sys.exit("eval_breakdown.py: no split of %s matches" % a.file)
    for model, split in splits:
        rows = [(k, v) for k, v in errors.items() if k[:2] == (model, split)]
        total = sum(e for _, v in rows for e, _, _ in v)
        print("%s %s: %d samples, MAPE %.1f%%" % (model, split, sum(len(v) for _, v in rows),
                                                   100 * total / max(1, sum(len(v) for _, v in rows))))
        print("  %-18s %-8s %7s %8s %10s %7s %12s" % ("kind", "provider", "samples", "MAPE", "ln(p/m)", "share", "median ms"))
        rows.sort(key=lambda kv: -sum(e for e, _, _ in kv[1]))
        for (_, _, kind, provider), v in rows[:a.top]:
            summed = sum(e for e, _, _ in v)
            median_ms = 1e3 * sorted(m for _, _, m in v)[len(v) // 2]
            print("  %-18s %-8s %7d %7.1f%% %+10.2f %6.1f%% %12.3g" % (kind, provider, len(v), 100 * summed / len(v),
                                                                    sum(l for _, l, _ in v) / len(v),
                                                                    100 * summed / total, median_ms))
        print()


if __name__ == "__main__":
    main()
