#!/usr/bin/env bash
# The main job `make run` performs, on the embedded SQLite database (tensorperf.db here):
# ResNet-18's workloads, then a short tune of every workload with Halide and oneDNN (300 trials or
# 5 minutes) into the database, with the summary, then what the database holds, then ResNet-18 run
# whole: before (default configs only) and after (the database's configs), with the coverage line.
# Tuning is resumable: a second run measures only what is missing.
set -euo pipefail
BUILD_DIR=${1:-build}
DB=${TENSORPERF_DB:-tensorperf.db}
TP="$BUILD_DIR/tensorperf"
"$TP" tasks --model resnet18
"$TP" tune --model resnet18 --trials 300 --time-budget 5m --db "$DB"
"$TP" db stats --db "$DB"
echo
echo "== before: ResNet-18 on oneDNN's default configs"
"$TP" run --model resnet18 --configs onednn --repeat 20 2>/dev/null | tail -5
echo
echo "== after: ResNet-18 on the database's configs"
"$TP" run --model resnet18 --db "$DB" --repeat 20 2>/dev/null | tail -5
