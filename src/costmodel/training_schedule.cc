#include "costmodel/training_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace tensorperf::costmodel {

int first_averaged_epoch(int epochs) {
  const int averaged = std::max(1, static_cast<int>(std::lround(kAveragedShare * epochs)));
  return std::max(0, epochs - averaged);
}

double scheduled_rate(double rate, int epoch, int epochs) {
  const int settle = first_averaged_epoch(epochs);
  if (settle == 0) return rate;  // a single epoch: nothing to settle from
  if (epoch >= settle) return rate * kSettledShare;
  const double t = static_cast<double>(epoch) / settle;  // 0 at the first epoch
  return rate * (kSettledShare + (1 - kSettledShare) * 0.5 * (1 + std::cos(std::numbers::pi * t)));
}

void WeightAverage::add(const torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  const std::vector<torch::Tensor> params = module.parameters();
  ++count_;
  if (mean_.empty()) {
    for (const torch::Tensor& p : params) mean_.push_back(p.detach().clone());
    return;
  }
  for (size_t i = 0; i < params.size(); ++i) mean_[i].add_((params[i].detach() - mean_[i]) / count_);
}

void WeightAverage::assign_to(torch::nn::Module& module) const {
  if (count_ == 0) return;
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> params = module.parameters();
  for (size_t i = 0; i < params.size() && i < mean_.size(); ++i) params[i].copy_(mean_[i]);
}

void train_on_schedule(torch::nn::Module& module, torch::optim::Adam& optimizer, double rate, int epochs,
                       const std::function<void(int)>& epoch) {
  WeightAverage average;
  const int settle = first_averaged_epoch(epochs);
  for (int e = 0; e < epochs; ++e) {
    const double lr = scheduled_rate(rate, e, epochs);
    for (auto& group : optimizer.param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
    epoch(e);
    if (e >= settle) average.add(module);
  }
  average.assign_to(module);
}

}  // namespace tensorperf::costmodel
