#include "runtime/constants.h"

#include <cmath>
#include <cstring>
#include <random>

namespace tensorperf::runtime {
namespace {

using ir::OpKind;

struct Range {
  float lo, hi;
};

// The value range of random data for constant `v`, from its first consumer.
Range random_range(const ir::Graph& g, ir::ValueId v, const std::vector<std::vector<ir::NodeId>>& users) {
  const ir::TensorType& t = g.type(v);
  for (ir::NodeId id : users[v]) {
    const ir::Node& n = g.node(id);
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (n.inputs[i] != v) continue;
      auto he = [](double fan_in) {
        const float b = static_cast<float>(std::sqrt(6.0 / std::max(fan_in, 1.0)));
        return Range{-b, b};
      };
      if (n.op == OpKind::kConv2d && i == 1 && t.rank() == 4)
        return he(static_cast<double>(t.shape[1] * t.shape[2] * t.shape[3]));
      if (n.op == OpKind::kDense && i == 1) return he(static_cast<double>(t.shape.back()));
      if ((n.op == OpKind::kMatmul || n.op == OpKind::kBatchMatmul) && t.rank() >= 2) {
        const bool transposed = n.attrs.get_int(i == 0 ? "transpose_a" : "transpose_b", 0) != 0;
        const int64_t k = (i == 0) != transposed ? t.shape[t.rank() - 1] : t.shape[t.rank() - 2];
        return he(static_cast<double>(k));
      }
      if (n.op == OpKind::kBatchNorm && (i == 1 || i == 4)) return {0.5f, 1.5f};  // scale, variance
      if (n.op == OpKind::kLayerNorm && i == 1) return {0.5f, 1.5f};             // gamma
      if (n.op == OpKind::kMul) return {0.5f, 1.5f};                             // a scale
      return {-0.1f, 0.1f};
    }
  }
  return {-0.1f, 0.1f};
}

}  // namespace

Result<std::vector<std::shared_ptr<kernels::HostTensor>>> load_constants(const ir::Graph& g, uint64_t seed) {
  std::vector<std::shared_ptr<kernels::HostTensor>> out(g.values().size());
  const auto users = g.consumers();
  for (size_t v = 0; v < g.values().size(); ++v) {
    const ir::Value& value = g.values()[v];
    if (value.kind != ir::ValueKind::kConstant) continue;
    if (!value.type) return Status::Internal("constant '" + value.name + "' has no type");
    auto t = std::make_shared<kernels::HostTensor>(*value.type);
    if (value.data) {
      if (static_cast<int64_t>(value.data->size()) != value.type->num_bytes())
        return Status::InvalidArgument("constant '" + value.name + "' has " + std::to_string(value.data->size()) +
                                       " bytes of data; its type " + value.type->to_string() + " needs " +
                                       std::to_string(value.type->num_bytes()));
      if (!value.data->empty()) std::memcpy(t->bytes(), value.data->data(), value.data->size());
    } else if (value.type->dtype == ir::DType::kFloat32) {
      std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + v);
      Range r = random_range(g, static_cast<ir::ValueId>(v), users);
      t->fill_random(rng, r.lo, r.hi);
    }
    out[v] = std::move(t);
  }
  return out;
}

}  // namespace tensorperf::runtime
