#include "fuzz_targets.h"

#include <onnx/onnx_pb.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "db/line_parser.h"
#include "db/store_url.h"
#include "ir/onnx/onnx_import.h"
#include "ir/task_extraction.h"
#include "measure/record.h"

namespace tensorperf::fuzz {
namespace {

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz: invariant broken: %s\n", what);
    std::abort();
  }
}

std::string signature(const Status& s) {
  return std::string(code_name(s.code())) + ":" + s.message().substr(0, 24);
}

// --- ONNX -------------------------------------------------------------------------------------
onnx::TensorProto weight(const std::string& name, std::vector<int64_t> dims, float value) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) {
    t.add_dims(d);
    n *= d;
  }
  for (int64_t i = 0; i < n; ++i) t.add_float_data(value + 0.01f * static_cast<float>(i % 7));
  return t;
}

void add_node(onnx::GraphProto* g, const std::string& op, std::vector<std::string> in, std::string out) {
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(out);
  for (auto& i : in) n->add_input(i);
  n->add_output(out);
}

// A small CNN: Conv, BatchNormalization, Relu, MaxPool, Add, GlobalAveragePool, Flatten, Gemm.
std::string small_cnn(int64_t opset) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(opset);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("fuzz");
  onnx::ValueInfoProto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : {1, 3, 8, 8}) tt->mutable_shape()->add_dim()->set_dim_value(d);
  *g->add_initializer() = weight("w", {4, 3, 3, 3}, 0.1f);
  *g->add_initializer() = weight("b", {4}, 0.0f);
  for (const char* p : {"scale", "bias", "mean", "var"}) *g->add_initializer() = weight(p, {4}, 1.0f);
  *g->add_initializer() = weight("fc", {10, 4}, 0.2f);
  *g->add_initializer() = weight("fcb", {10}, 0.0f);
  add_node(g, "Conv", {"x", "w", "b"}, "c");
  auto* pads = g->mutable_node(0)->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  add_node(g, "BatchNormalization", {"c", "scale", "bias", "mean", "var"}, "bn");
  add_node(g, "Relu", {"bn"}, "r");
  add_node(g, "Add", {"r", "c"}, "a");
  add_node(g, "GlobalAveragePool", {"a"}, "gap");
  add_node(g, "Flatten", {"gap"}, "f");
  add_node(g, "Gemm", {"f", "fc", "fcb"}, "y");
  auto* tb = g->mutable_node(6)->add_attribute();
  tb->set_name("transB");
  tb->set_type(onnx::AttributeProto::INT);
  tb->set_i(1);
  g->add_output()->set_name("y");
  std::string bytes;
  m.SerializeToString(&bytes);
  return bytes;
}

std::string run_onnx(const std::string& input) {
  auto g = ir::import_onnx_bytes(input, "fuzz.onnx");
  if (!g.ok()) {
    require(!g.status().message().empty(), "an import error has a message");
    require(g.status().message().find('\n') == std::string::npos, "an import error is one line");
    return signature(g.status());
  }
  require(g->validate().ok(), "an imported graph validates");
  auto tasks = ir::extract_tasks(*g);
  if (tasks.ok())
    for (const auto& t : *tasks) require(t.workload.flops() >= 0, "FLOPs are not negative");
  return "ok:" + std::to_string(g->nodes().size());
}

// --- log lines ----------------------------------------------------------------------------------
std::vector<std::string> log_seeds() {
  std::vector<std::string> seeds;
  const std::filesystem::path root = std::filesystem::path(TENSORPERF_TVM_LOGS);
  std::error_code ec;
  if (std::filesystem::exists(root, ec))
    for (const auto& f : std::filesystem::recursive_directory_iterator(root, ec)) {
      std::ifstream in(f.path());
      std::string line;
      for (int i = 0; i < 3 && std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        seeds.push_back(line);
        ++i;
      }
    }
  measure::Record r;
  r.workload_key = "conv2d|float32[1,8,8,8];float32[8,8,3,3]|dilations=[1,1];groups=1;pads=[1,1,1,1];strides=[1,1]|bias";
  r.device_key = "x86_64-fuzz-avx2-fma-t1";
  r.target = "x86-64-linux-avx2";
  r.provider = "halide";
  r.config = {{"tile_x", 8}, {"layout", "nchwc"}};
  r.costs = {1e-3, 1.1e-3};
  r.timestamp = 1.7e9;
  seeds.push_back(measure::record_to_line(r));
  // A seed of each format written by hand, in case the shared logs are absent.
  seeds.push_back(R"({"i": ["llvm -mcpu=skylake", "conv2d", [["TENSOR", [1, 3, 8, 8], "float32"]], {}, ["conv2d"], {"i": 1, "t": "direct", "c": null, "e": [["tile_x", "sp", [-1, 4]]]}], "r": [[0.001], 0, 0.5, 1600000000], "v": 0.1})");
  seeds.push_back(R"({"input": ["llvm", "dense_nopack.x86", [["TENSOR", [1, 512], "float32"]], {}], "config": {"index": 3, "code_hash": null, "entity": []}, "result": [[2e-05], 0, 1.2, 1600000000.0], "version": 0.2, "tvm_version": "0.8.dev0"})");
  return seeds;
}

std::string run_line(const std::string& input) {
  static db::LineParser parser;
  if (db::is_skippable_line(input)) return "skip";
  auto r = parser.parse(input);
  if (!r.ok()) {
    require(r.status().code() == StatusCode::kCorruption, "a malformed line is Corruption");
    return signature(r.status());
  }
  if (r->format == db::RecordFormat::kNative) {
    // tensorperf's own lines are stored in canonical form, which is a fixed point of parsing.
    auto canonical = parser.parse(r->line);
    require(canonical.ok() && canonical->line == r->line, "a native record's stored line is canonical");
  } else {
    require(r->line == input, "a TVM record's stored line is the input");
  }
  require(r->hash.size() > 0, "a record has a content hash");
  if (r->error_no == 0) {
    require(r->mean_cost.has_value(), "an error-free record has a mean cost");
    require(db::plausible_cost(*r->mean_cost), "an error-free record's mean cost is plausible");
  }
  // The same line parses the same way twice (the parser reuses its buffers).
  auto again = parser.parse(input);
  require(again.ok() && again->hash == r->hash && again->workload_key == r->workload_key, "parsing is repeatable");
  return "ok:" + std::string(db::format_name(r->format));
}

// --- database URLs --------------------------------------------------------------------------------
size_t occurrences(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

std::string run_url(const std::string& input) {
  const std::string redacted = db::redact_url(input);
  const std::string frame = "libpq: invalid token \"\"";
  for (const std::string& secret : db::url_secrets(input)) {
    if (secret.empty() || secret.find_first_not_of('*') == std::string::npos) continue;
    // A secret written once in the URL is gone from its redacted form (one that also occurs as, say,
    // part of the user name cannot be told apart by a substring test).
    if (occurrences(input, secret) == 1) require(redacted.find(secret) == std::string::npos, "a redacted URL holds no secret");
    const std::string message = "libpq: invalid token \"" + secret + "\"";
    if (frame.find(secret) == std::string::npos)
      require(db::scrub_secrets(message, input).find(secret) == std::string::npos, "a scrubbed message holds no secret");
  }
  return db::is_postgres_url(input) ? "pg:" + std::to_string(db::url_secrets(input).size()) : "path";
}

}  // namespace

const std::vector<Target>& targets() {
  static const std::vector<Target> all = {
      {"onnx", run_onnx, {small_cnn(13), small_cnn(11), small_cnn(17)}, {}},
      {"line", run_line, log_seeds(),
       {"\"", "{", "}", "[", "]", ",", ":", "1e400", "-1", "0", "4.9e-324", "NaN", "\r", "\n", "\r\n",
        "\xEF\xBB\xBF", "\"costs\"", "\"error_no\"", "\"input\"", "\"i\"", "\"r\"", "null", "true", "\\u0000"}},
      {"url", run_url,
       {"postgresql://alice:hunter2@db.example:5432/tuning", "postgres://bob@host/db?sslmode=require&password=s3cret",
        "postgresql://alice:pa%ss-Word1@127.0.0.1:1/db", "postgresql://alice:hunter2@Secret@host/db",
        "postgresql://[::1]:5432/db?password=x%41y", "tensorperf.db"},
       {"@", ":", "%", "%4", "%41", "/", "?", "#", "&", "=", "password=", "?password=", "&password=", "PASSWORD=",
        "postgresql://", "postgres://", "[", "]"}},
  };
  return all;
}

}  // namespace tensorperf::fuzz
