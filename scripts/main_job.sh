#!/usr/bin/env bash
# The main job `make run` performs: ResNet-18's workload table.
set -euo pipefail
BUILD_DIR=${1:-build}
"$BUILD_DIR/tensorperf" tasks --model resnet18
