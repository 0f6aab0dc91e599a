// The model a command works on: `--model NAME` (the zoo) or `--onnx FILE`, with `--batch N`,
// `--image-size`, `--seq-len` and `--seed` for the zoo's parameters. Shared by every command that
// reads a model.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "ir/graph.h"

namespace tensorperf::cli {

struct ModelSource {
  std::string model;
  std::string onnx;
  int64_t batch = 1;
  int64_t image_size = 0;
  int64_t seq_len = 128;
  uint64_t seed = 0;
  const CLI::Option* batch_option = nullptr;  // set by add_options: was --batch given?

  // Adds the options to `cmd`; exactly one of --model / --onnx is required. `seed_flag` names the
  // option of randwire's graph seed (a command whose --seed means something else renames it).
  void add_options(CLI::App* cmd, const std::string& seed_flag = "--seed");
  // The model's display name: the zoo name or the ONNX file's stem.
  std::string name() const;
  // Builds or imports the graph at the requested batch; throws CommandFailed with the reason.
  ir::Graph load() const;
};

}  // namespace tensorperf::cli
