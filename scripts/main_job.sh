#!/usr/bin/env bash
# The main job `make run` performs, on the embedded SQLite database (tensorperf.db here):
# ResNet-18's workloads, then profiling every workload with Halide and oneDNN (4 configs each,
# the default schedule among them) into the database, then what the database holds.
# Profiling is resumable: a second run measures only what is missing.
set -euo pipefail
BUILD_DIR=${1:-build}
DB=${TENSORPERF_DB:-tensorperf.db}
TP="$BUILD_DIR/tensorperf"
"$TP" tasks --model resnet18
"$TP" profile --model resnet18 --configs-per-task 4 --provider all --db "$DB" --out ""
"$TP" db stats --db "$DB"
