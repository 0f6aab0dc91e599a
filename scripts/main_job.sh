#!/usr/bin/env bash
# The main job `make run` performs, on the embedded SQLite database (tensorperf.db here):
# ResNet-18's workloads, then `optimize`: ResNet-18 run whole with what the database knows, a tune of
# what it is missing (Halide and oneDNN, 5 minutes), ResNet-18 run again, and before / after latency
# with the coverage line of each; then what the database holds.
# Tuning is resumable: a second run measures only what is missing.
set -euo pipefail
BUILD_DIR=${1:-build}
DB=${TENSORPERF_DB:-tensorperf.db}
TP="$BUILD_DIR/tensorperf"
"$TP" tasks --model resnet18
"$TP" optimize --model resnet18 --time-budget 5m --db "$DB"
echo
"$TP" db stats --db "$DB"
