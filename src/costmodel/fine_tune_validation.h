// Whether fine-tuning a pre-trained cost model on a new device's few samples pays, judged on those
// samples by k-fold cross-validation: copies of the pre-trained model fine-tuned on all but one fold
// predict the fold left out, and their mean absolute percentage error over every fold is set against
// the pre-trained model's on the same samples. With a few dozen noisy samples of a device whose
// siblings a model was trained on, the pre-trained model is often the better one: every model's
// unconditional fine-tuning made the cross-device split worse on most held-out devices, and helped
// on a CPU the model had never met (docs/costmodel.md, "xgb's fine-tuning, cross-validated" and
// "The neural models' fine-tuning, cross-validated").
#pragma once

#include <cstddef>
#include <functional>
#include <span>

#include "base/status.h"
#include "costmodel/cost_model.h"
#include "costmodel/metrics.h"
#include "costmodel/sample.h"

namespace tensorperf::costmodel {

inline constexpr size_t kFineTuneFolds = 5;
// Fewer samples than this are not enough to judge with, and leave the pre-trained model as it is.
inline constexpr size_t kMinFineTuneSamples = 2 * kFineTuneFolds;
// The fold of the i-th fine-tuning sample (every kFineTuneFolds-th sample, so that each fold
// takes its share of an order the samples came in).
inline size_t fine_tune_fold(size_t i) { return i % kFineTuneFolds; }

// Fine-tunes `model` (a copy of the pre-trained one, of its kind) on `samples`, unconditionally.
using FineTuneStep = std::function<Status(CostModel& model, std::span<const Sample> samples)>;

// True when `adapt`ed copies of `pretrained` (loaded with `options` from its payload, saved once)
// predict the folds they did not see with a lower MAPE, over every fold, than `pretrained` itself;
// false with fewer than kMinFineTuneSamples samples.
Result<bool> fine_tuning_pays(const CostModel& pretrained, std::span<const Sample> more, const FineTuneStep& adapt,
                              const CostModelOptions& options);

}  // namespace tensorperf::costmodel
