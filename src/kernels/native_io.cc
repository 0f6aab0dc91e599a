#include "kernels/native_io.h"

#include <algorithm>
#include <random>

namespace tensorperf::kernels {
namespace {

// A flat float32 type with room for `t` in its plain layout and for `native_bytes`.
ir::TensorType room_for(const ir::TensorType& t, int64_t native_bytes) {
  ir::TensorType b = t;
  b.shape = {std::max(t.num_elements(), (native_bytes + 3) / 4)};
  return b;
}

}  // namespace

bool has_native_layout(const Kernel& k) {
  return !k.native_input_layout(0).key.empty() || !k.native_output_layout().key.empty() ||
         !k.alternative_input_layouts(0).empty();
}

Result<NativeIo> NativeIo::prepare(Kernel& k, const ir::Workload& w, uint64_t seed, bool native) {
  const std::vector<ir::TensorType> types = kernel_input_types(w);
  // A kernel that runs in its producer's layout (a pool) is timed in one it can adopt: channels
  // last where offered, as oneDNN's convolutions write on many CPUs.
  if (native && k.native_input_layout(0).key.empty()) {
    const std::vector<Kernel::NativeLayout> alternatives = k.alternative_input_layouts(0);
    if (!alternatives.empty()) {
      auto it = std::find_if(alternatives.begin(), alternatives.end(),
                             [](const Kernel::NativeLayout& l) { return l.channels_last; });
      TP_RETURN_IF_ERROR(k.adopt_input_layout(0, (it == alternatives.end() ? alternatives.front() : *it).key));
    }
  }
  std::vector<bool> native_in(types.size(), false);
  if (native && !types.empty()) native_in[0] = !k.native_input_layout(0).key.empty();
  const Kernel::NativeLayout out_layout = native ? k.native_output_layout() : Kernel::NativeLayout{};
  if (native) TP_RETURN_IF_ERROR(k.use_native_layouts(native_in, !out_layout.key.empty()));

  NativeIo io;
  std::mt19937_64 rng(seed);
  io.storage_.reserve(types.size());
  for (size_t i = 0; i < types.size(); ++i) {
    io.storage_.emplace_back(room_for(types[i], native_in[i] ? k.native_input_layout(i).bytes : 0));
    io.storage_.back().fill_random(rng);
  }
  for (size_t i = 0; i < types.size(); ++i) io.views_.push_back(HostTensor::view(types[i], io.storage_[i].bytes()));
  for (const HostTensor& t : io.views_) io.pointers_.push_back(&t);
  io.output_storage_ = HostTensor(room_for(w.output, out_layout.bytes));
  io.output_ = HostTensor::view(w.output, io.output_storage_.bytes());
  return io;
}

}  // namespace tensorperf::kernels
