#include "kernels/halide/halide_template.h"

namespace tensorperf::kernels::halide {

Result<int> Knobs::get_int(const std::string& name) const {
  auto it = knobs_.find(name);
  if (it == knobs_.end()) return Status::InvalidArgument("config has no knob '" + name + "'");
  if (!it->is_number_integer()) return Status::InvalidArgument("knob '" + name + "' must be an integer, got " + it->dump());
  return it->get<int>();
}

Result<int> Knobs::get_int(const std::string& name, int fallback) const {
  if (!knobs_.contains(name)) return fallback;
  return get_int(name);
}

Result<std::string> Knobs::get_string(const std::string& name) const {
  auto it = knobs_.find(name);
  if (it == knobs_.end()) return Status::InvalidArgument("config has no knob '" + name + "'");
  if (!it->is_string()) return Status::InvalidArgument("knob '" + name + "' must be a string, got " + it->dump());
  return it->get<std::string>();
}

Result<std::string> Knobs::get_string(const std::string& name, const std::string& fallback) const {
  if (!knobs_.contains(name)) return fallback;
  return get_string(name);
}

Result<Halide::TailStrategy> tail_strategy(const std::string& name) {
  if (name == "guard") return Halide::TailStrategy::GuardWithIf;
  if (name == "shift_inwards") return Halide::TailStrategy::ShiftInwards;
  if (name == "round_up") return Halide::TailStrategy::RoundUp;
  return Status::InvalidArgument("unknown tail strategy '" + name + "' (guard, shift_inwards, round_up)");
}

std::vector<int> halide_sizes(const ir::Shape& shape) {
  return std::vector<int>(shape.rbegin(), shape.rend());
}

int row_vector_width(const ir::Workload& w) {
  return !w.output.shape.empty() && w.output.shape.back() >= 4 ? 8 : 1;
}

std::vector<Halide::ImageParam> make_params(const ir::Workload& w) {
  std::vector<Halide::ImageParam> params;
  std::vector<ir::TensorType> types = kernel_input_types(w);
  for (size_t i = 0; i < types.size(); ++i)
    params.emplace_back(Halide::Float(32), static_cast<int>(types[i].rank()), "in" + std::to_string(i));
  return params;
}

}  // namespace tensorperf::kernels::halide
