#include "kernels/host_tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

namespace tensorperf::kernels {
namespace {
constexpr size_t kAlignment = 64;  // one cache line: aligned vector loads up to AVX-512
}  // namespace

void HostTensor::Free::operator()(std::byte* p) const {
  if (owns) std::free(p);
}

HostTensor HostTensor::view(ir::TensorType type, std::byte* data) {
  HostTensor t;
  t.type_ = std::move(type);
  t.data_ = std::unique_ptr<std::byte[], Free>(data, Free{false});
  return t;
}

HostTensor::HostTensor(ir::TensorType type) : type_(std::move(type)) {
  size_t bytes = static_cast<size_t>(std::max<int64_t>(type_.num_bytes(), 1));
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  auto* p = static_cast<std::byte*>(std::aligned_alloc(kAlignment, rounded));
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, rounded);
  data_.reset(p);
}

void HostTensor::fill_random(std::mt19937_64& rng, float lo, float hi) {
  if (type_.dtype != ir::DType::kFloat32) throw std::logic_error("HostTensor::fill_random: only float32 is supported");
  std::uniform_real_distribution<float> dist(lo, hi);
  float* p = f32();
  const int64_t n = num_elements();
  bool any_nonzero = false;
  for (int64_t i = 0; i < n; ++i) {
    p[i] = dist(rng);
    any_nonzero = any_nonzero || p[i] != 0.0f;
  }
  if (n > 0 && !any_nonzero) p[0] = hi > 0.0f ? hi / 2 : lo / 2;
}

double max_scaled_error(const HostTensor& a, const HostTensor& b, double atol, double rtol) {
  if (!(a.type() == b.type())) throw std::logic_error("max_scaled_error: tensors of different types");
  const float* pa = a.f32();
  const float* pb = b.f32();
  double worst = 0.0;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    double x = pa[i];
    double y = pb[i];
    if (std::isnan(x) != std::isnan(y)) return INFINITY;
    if (std::isnan(x)) continue;
    worst = std::max(worst, std::abs(x - y) / (atol + rtol * std::abs(y)));
  }
  return worst;
}

}  // namespace tensorperf::kernels
