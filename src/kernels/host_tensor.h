// A dense row-major tensor in host memory: what kernels read and write, and what the runner fills
// with random data. Either owns its storage (aligned for vector loads) or is a view: a non-owning
// window of `type` onto memory someone else owns (a slice of the runtime's activation arena, a
// constant's bytes), which kernels read and write the same way. Views are not copyable by accident:
// HostTensor is move-only.
#pragma once

#include <cstddef>
#include <memory>
#include <random>

#include "ir/tensor_type.h"

namespace tensorperf::kernels {

class HostTensor {
 public:
  HostTensor() = default;
  explicit HostTensor(ir::TensorType type);  // zero-filled, owning
  // A view of `type` at `data`. REQUIRES: data points at type.num_bytes() bytes that outlive the view.
  static HostTensor view(ir::TensorType type, std::byte* data);
  bool owns_data() const { return data_.get_deleter().owns; }

  const ir::TensorType& type() const { return type_; }
  int64_t num_elements() const { return type_.num_elements(); }
  // REQUIRES: type().dtype == float32 for the float accessors.
  float* f32() { return reinterpret_cast<float*>(data_.get()); }
  const float* f32() const { return reinterpret_cast<const float*>(data_.get()); }
  std::byte* bytes() { return data_.get(); }
  const std::byte* bytes() const { return data_.get(); }

  // Fills with values uniform in [lo, hi), never all zero (the timing protocol never times on zeros:
  // docs/profiling.md).
  void fill_random(std::mt19937_64& rng, float lo = -1.0f, float hi = 1.0f);

 private:
  struct Free {
    Free() : owns(true) {}
    explicit Free(bool o) : owns(o) {}
    bool owns;
    void operator()(std::byte* p) const;
  };
  ir::TensorType type_;
  std::unique_ptr<std::byte[], Free> data_;
};

// Largest |a-b| / (atol + rtol*|b|) over all elements; <= 1 means "close". REQUIRES: same type.
double max_scaled_error(const HostTensor& a, const HostTensor& b, double atol = 1e-4, double rtol = 1e-3);

}  // namespace tensorperf::kernels
