#include "costmodel/torch_params.h"

namespace tensorperf::costmodel {

namespace {

nlohmann::json tensor_json(const torch::Tensor& t) {
  torch::Tensor c = t.detach().to(torch::kFloat32).contiguous();
  std::vector<float> values(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  return {{"shape", c.sizes().vec()}, {"values", values}};
}

Status copy_into(torch::Tensor& t, const nlohmann::json& j, const std::string& name) {
  if (!j.is_object() || !j.contains("shape") || !j.contains("values"))
    return Status::Corruption("model state: '" + name + "' is not a tensor");
  std::vector<int64_t> shape = j["shape"].get<std::vector<int64_t>>();
  std::vector<float> values = j["values"].get<std::vector<float>>();
  if (shape != t.sizes().vec() || static_cast<int64_t>(values.size()) != t.numel())
    return Status::Corruption("model state: '" + name + "' has another shape than the model's");
  torch::NoGradGuard no_grad;
  t.copy_(torch::from_blob(values.data(), shape, torch::kFloat32).clone());
  return Status::Ok();
}

}  // namespace

nlohmann::json module_state(const torch::nn::Module& module) {
  nlohmann::json state = nlohmann::json::object();
  for (const auto& p : module.named_parameters()) state[p.key()] = tensor_json(p.value());
  for (const auto& b : module.named_buffers()) state["buffer:" + b.key()] = tensor_json(b.value());
  return state;
}

Status load_module_state(torch::nn::Module& module, const nlohmann::json& state) {
  if (!state.is_object()) return Status::Corruption("model state is not an object");
  for (auto& p : module.named_parameters()) {
    if (!state.contains(p.key())) return Status::Corruption("model state lacks '" + p.key() + "'");
    TP_RETURN_IF_ERROR(copy_into(p.value(), state[p.key()], p.key()));
  }
  for (auto& b : module.named_buffers()) {
    const std::string name = "buffer:" + b.key();
    if (!state.contains(name)) return Status::Corruption("model state lacks '" + name + "'");
    TP_RETURN_IF_ERROR(copy_into(b.value(), state[name], name));
  }
  return Status::Ok();
}

void Standardizer::fit(const torch::Tensor& x) {
  torch::Tensor m = x.mean(0), s = x.std(0, /*unbiased=*/false);
  mean.assign(m.data_ptr<float>(), m.data_ptr<float>() + m.numel());
  scale.assign(s.data_ptr<float>(), s.data_ptr<float>() + s.numel());
  for (float& v : scale)
    if (!(v > 1e-6f)) v = 1.0f;
}

torch::Tensor Standardizer::apply(const torch::Tensor& x) const {
  auto m = torch::from_blob(const_cast<float*>(mean.data()), {static_cast<int64_t>(mean.size())}, torch::kFloat32);
  auto s = torch::from_blob(const_cast<float*>(scale.data()), {static_cast<int64_t>(scale.size())}, torch::kFloat32);
  return (x - m) / s;
}

nlohmann::json Standardizer::to_json() const { return {{"mean", mean}, {"scale", scale}}; }

Result<Standardizer> Standardizer::from_json(const nlohmann::json& j, size_t width) {
  Standardizer s;
  try {
    s.mean = j.at("mean").get<std::vector<float>>();
    s.scale = j.at("scale").get<std::vector<float>>();
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(std::string("model standardisation: ") + e.what());
  }
  if (s.mean.size() != width || s.scale.size() != width)
    return Status::Corruption("model standardisation has " + std::to_string(s.mean.size()) + " columns, not " +
                              std::to_string(width));
  return s;
}

}  // namespace tensorperf::costmodel
