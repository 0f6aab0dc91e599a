#include "cli/model_source.h"

#include <filesystem>

#include "cli/exit.h"
#include "cli/validators.h"
#include "ir/models/zoo.h"
#include "ir/onnx/onnx_import.h"

namespace tensorperf::cli {

void ModelSource::add_options(CLI::App* cmd, const std::string& seed_flag) {
  auto* m = cmd->add_option("--model", model, "a model of the built-in zoo (see `tensorperf models`)");
  auto* o = cmd->add_option("--onnx", onnx, "an ONNX model file (opsets 11-17)");
  m->excludes(o);
  o->excludes(m);
  batch_option = cmd->add_option("--batch", batch, "batch size (default 1; for --onnx, the file's own)")->default_val(1)->check(whole_range(1, 1 << 20));
  cmd->add_option("--image-size", image_size, "input image size for the zoo's CNNs (0: the model's standard size)")
      ->default_val(0)
      ->check(whole_range(0, 1 << 16));
  cmd->add_option("--seq-len", seq_len, "sequence length for bert_base")->default_val(128)->check(whole_range(1, 1 << 20));
  cmd->add_option(seed_flag, seed, "random graph seed for randwire")->default_val(0)->check(uint64_value());
}

std::string ModelSource::name() const {
  return model.empty() ? std::filesystem::path(onnx).stem().string() : model;
}

ir::Graph ModelSource::load() const {
  if (model.empty() && onnx.empty()) throw CommandFailed("give a model: --model NAME (see `tensorperf models`) or --onnx FILE", kExitUsage);
  ir::Graph g;
  if (!model.empty()) {
    ir::ModelOptions opts;
    opts.batch = batch;
    opts.image_size = image_size;
    opts.seq_len = seq_len;
    opts.seed = seed;
    g = check(ir::build_model(model, opts));
  } else {
    ir::OnnxImportOptions opts;
    opts.batch = batch_option && batch_option->count() > 0 ? batch : 0;  // 0 keeps the file's batch
    g = check(ir::import_onnx(onnx, opts));
  }
  check(g.validate());
  return g;
}

}  // namespace tensorperf::cli
