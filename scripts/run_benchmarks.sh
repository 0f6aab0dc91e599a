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
echo
echo "== e2e: whole models, tensorperf run vs ONNX Runtime and PyTorch"
/usr/bin/python3 bench/e2e/e2e_bench.py --build "$BUILD_DIR"
echo
echo "== features: lowering and feature extraction vs compiling"
"$BUILD_DIR/bench/features/features_bench"
echo
echo "== costmodel: predictions per second, features given"
"$BUILD_DIR/bench/costmodel/costmodel_bench"
echo
echo "== predict: whole-model predicted latency vs tensorperf run, every zoo model at batch 1 and 8"
/usr/bin/python3 bench/costmodel/predict_e2e.py --build "$BUILD_DIR"
