// The neural cost models' training schedule (libtorch; private to costmodel/). The learning rate
// falls along a cosine from its initial value to kSettledShare of it over the first epochs, then
// stays there for the last kAveragedShare of the epochs, and the model keeps the average of its
// weights at the end of each of those last epochs (stochastic weight averaging, Izmailov et al.,
// UAI 2018). With a constant rate, the weights a run ends with depend on the order of its last
// batches, and so does what it predicts for an unseen network; averaging over the settled epochs
// narrows that spread.
#pragma once

#include <functional>

#include <torch/torch.h>

namespace tensorperf::costmodel {

inline constexpr double kSettledShare = 0.1;    // the rate of the averaged epochs, relative to the first
inline constexpr double kAveragedShare = 0.25;  // the share of the epochs whose end weights are averaged

// Epochs 0 .. epochs-1: the first epoch whose end weights are averaged (at least the last epoch),
// and the learning rate of each epoch (a single epoch runs at the full rate).
int first_averaged_epoch(int epochs);
double scheduled_rate(double rate, int epoch, int epochs);

// The running mean of a module's parameters over the snapshots added.
class WeightAverage {
 public:
  void add(const torch::nn::Module& module);
  // Writes the mean into `module`'s parameters (the module the snapshots came from). No-op when no
  // snapshot was added.
  void assign_to(torch::nn::Module& module) const;
  int count() const { return count_; }

 private:
  std::vector<torch::Tensor> mean_;
  int count_ = 0;
};

// Runs `epoch(e)` for e = 0 .. epochs-1, setting `optimizer`'s learning rate to
// scheduled_rate(rate, e, epochs) before each, and leaves `module` with the average of its
// parameters at the end of the averaged epochs.
void train_on_schedule(torch::nn::Module& module, torch::optim::Adam& optimizer, double rate, int epochs,
                       const std::function<void(int)>& epoch);

}  // namespace tensorperf::costmodel
