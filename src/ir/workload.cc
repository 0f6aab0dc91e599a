#include "ir/workload.h"

#include <algorithm>
#include <array>

#include "ir/op_registry.h"

namespace tensorperf::ir {

namespace {
constexpr std::array<std::string_view, 8> kEpilogueOps = {"bias", "add", "mul", "relu", "relu6", "sigmoid", "tanh", "gelu"};
}  // namespace

bool is_epilogue_op(std::string_view name) {
  return std::find(kEpilogueOps.begin(), kEpilogueOps.end(), name) != kEpilogueOps.end();
}

std::string Workload::key() const {
  std::string k(op_name(op));
  k += '|';
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i) k += ';';
    k += inputs[i].to_string();
  }
  k += '|';
  k += attrs.to_string();
  k += '|';
  for (size_t i = 0; i < epilogue.size(); ++i) {
    if (i) k += '+';
    k += epilogue[i];
  }
  return k;
}

double Workload::flops() const { return op_flops(op, inputs, attrs, {output}); }

double Workload::epilogue_flops() const {
  return static_cast<double>(epilogue.size()) * static_cast<double>(output.num_elements());
}

Result<Workload> parse_workload_key(std::string_view key) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("malformed workload key \"" + std::string(key) + "\": " + why);
  };
  size_t first = key.find('|');
  size_t last = key.rfind('|');
  if (first == std::string_view::npos || first == last) return bad("expected op|inputs|attrs|epilogue");
  size_t second = key.find('|', first + 1);
  Workload w;
  auto op = parse_op(key.substr(0, first));
  if (!op.ok()) return bad(op.status().message());
  w.op = *op;
  std::string_view types = key.substr(first + 1, second - first - 1);
  while (!types.empty()) {
    size_t semi = types.find(';');
    auto t = parse_tensor_type(types.substr(0, semi));
    if (!t.ok()) return bad(t.status().message());
    w.inputs.push_back(*t);
    if (semi == std::string_view::npos) break;
    types.remove_prefix(semi + 1);
  }
  auto attrs = parse_attrs(key.substr(second + 1, last - second - 1));
  if (!attrs.ok()) return bad(attrs.status().message());
  w.attrs = *attrs;
  std::string_view ep = key.substr(last + 1);
  while (!ep.empty()) {
    size_t plus = ep.find('+');
    std::string_view name = ep.substr(0, plus);
    if (!is_epilogue_op(name)) return bad("unknown epilogue op \"" + std::string(name) + "\"");
    w.epilogue.emplace_back(name);
    if (plus == std::string_view::npos) break;
    ep.remove_prefix(plus + 1);
  }
  auto out = infer_op(w.op, w.inputs, w.attrs, 1);
  if (!out.ok()) return bad(out.status().message());
  w.output = out->front();
  return w;
}

}  // namespace tensorperf::ir
