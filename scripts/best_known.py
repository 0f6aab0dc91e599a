#!/usr/bin/python3
"""Writes the best error-free record of each (workload, provider) of one device from a tensorperf
record stream (e.g. `tensorperf db export --all --device KEY`) as native record lines, the way
data/best_known/ holds them:

    tensorperf db export --all --db tuned.db --device KEY | scripts/best_known.py > data/best_known/MODEL_KEY.jsonl
"""
import json
import sys

best = {}
order = []
for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    j = json.loads(line)
    r = j["result"]
    if r["error_no"] != 0 or not r["costs"]:
        continue
    key = (j["input"]["workload"], j["input"]["provider"])
    cost = sum(r["costs"]) / len(r["costs"])
    if key not in best:
        order.append(key)
    if key not in best or cost < best[key][0]:
        best[key] = (cost, line)
for key in order:
    print(best[key][1])
