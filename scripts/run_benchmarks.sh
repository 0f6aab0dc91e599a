#!/usr/bin/env bash
# `make bench`: every benchmark, each printing its table. Run on a quiet machine: they time things.
set -euo pipefail
BUILD_DIR=${1:-build}
echo "== kernels: ResNet-18 workloads, schedules vs oneDNN"
"$BUILD_DIR/bench/kernels/kernels_bench" --ops all
echo
echo "== db: import and best-config query at 1,000,000 records"
"$BUILD_DIR/bench/db/db_bench"
echo
echo "== tune: tuning curves, transfer, throughput vs profile, tuned vs oneDNN (about 75 minutes)"
/usr/bin/python3 bench/tune/tune_bench.py --build "$BUILD_DIR"
echo
echo "== ios: inter-operator scheduling, Inception-V3 / RandWire / NASNet-A / SqueezeNet at batch 1 and 16"
/usr/bin/python3 bench/ios/ios_bench.py --build "$BUILD_DIR"
