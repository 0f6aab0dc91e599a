#!/usr/bin/env bash
# Installs every Debian package tensorperf builds, tests or runs with. Idempotent: packages already
# installed are skipped, so a second run costs a few dpkg queries and no network.
set -euo pipefail

PACKAGES=(
  # toolchain
  g++ cmake ninja-build pkg-config make
  # kernels and measurement
  libhalide14-0-dev libdnnl-dev
  ocl-icd-opencl-dev  # dnnl-config.cmake needs OpenCL: Debian builds oneDNN with the OpenCL GPU runtime
  # record store
  libsqlite3-dev sqlite3 libzstd-dev zstd libxxhash-dev libpqxx-dev postgresql libsimdjson-dev libssl-dev
  # model import
  libonnx-dev libprotobuf-dev protobuf-compiler
  # formats, command line, logging
  nlohmann-json3-dev libcli11-dev libfmt-dev libspdlog-dev
  # cost models
  libxgboost-dev libtorch-dev
  libopenblas0-pthread  # the libblas.so.3 that libtorch (built with generic BLAS) calls: 20x the reference BLAS
  # tests and benchmarks; plots (scripts/plot.py)
  libgtest-dev libgmock-dev libbenchmark-dev python3-matplotlib
  # test fixtures: ONNX files exported by torch.onnx from torchvision's model definitions
  python3 python3-onnx python3-numpy python3-torch python3-torchvision
  # ONNX backend conformance data (data/node, data/pytorch-converted, data/pytorch-operator)
  libonnx-testdata
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "install_deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
