#!/usr/bin/env bash
# Long fuzzing campaigns over every target of tests/fuzz (ONNX import, log-line parsing, database
# URLs), one after another, each for RUNS executions (default 1,000,000). Build first (`make build`,
# or a sanitizer build: `make BUILD_TYPE=Debug SANITIZE=address,undefined BUILD_DIR=build-asan build`).
#   scripts/fuzz.sh [BUILD_DIR] [RUNS] [SEED]
set -euo pipefail
BUILD_DIR=${1:-build}
RUNS=${2:-1000000}
SEED=${3:-1}
for target in onnx line url; do
  "$BUILD_DIR/tests/fuzz/tensorperf_fuzz" --target "$target" --runs "$RUNS" --seed "$SEED"
done
