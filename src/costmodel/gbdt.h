// Gradient-boosted trees (XGBoost, through its C API): what the model-guided tuner ranks candidates
// with and the cost models regress latency with. A dense float matrix in, one score per row out.
// The handle types of XGBoost stay in gbdt.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"

namespace tensorperf::costmodel {

// Row-major rows of `cols` features; NaN marks a missing value (XGBoost routes it by learned default).
struct Matrix {
  size_t cols = 0;
  std::vector<float> values;  // rows() * cols
  size_t rows() const { return cols == 0 ? 0 : values.size() / cols; }
  float* row(size_t r) { return values.data() + r * cols; }
  const float* row(size_t r) const { return values.data() + r * cols; }
};

struct GbdtOptions {
  // "rank:pairwise" (labels are relevance within each group; the model only orders rows of one
  // group) or "reg:squarederror".
  std::string objective = "rank:pairwise";
  int rounds = 60;        // boosting rounds
  int max_depth = 6;
  double eta = 0.2;       // learning rate
  double subsample = 1.0;
  double min_child_weight = 1.0;  // least hessian per leaf (squared error: rows)
  double lambda = 1.0;            // L2 penalty on leaf weights (XGBoost's default)
  int threads = 1;        // XGBoost's nthread. 1 starts no OpenMP team: the caller stays fork-safe
  uint64_t seed = 0;
};

class Gbdt {
 public:
  ~Gbdt();
  Gbdt(Gbdt&&) noexcept;
  Gbdt& operator=(Gbdt&&) noexcept;

  // Trains on `x` with `labels` (one per row). `groups`: sizes of consecutive row groups, summing to
  // x.rows(), for a ranking objective (empty: all rows one group). `weights`: one per group for
  // ranking, one per row otherwise; empty for 1. Errors: inconsistent sizes (InvalidArgument),
  // XGBoost failures (Internal, with XGBoost's message).
  static Result<Gbdt> train(const Matrix& x, std::span<const float> labels, std::span<const unsigned> groups,
                            std::span<const float> weights, const GbdtOptions& options);

  // Continues boosting this model with options.rounds more trees fitted to `x` and `labels` (a
  // regression objective: each new tree fits what the model so far gets wrong on those rows); the
  // objective is kept, the tree parameters are options'. Errors as train(); a model is unchanged
  // when it fails.
  Status boost_more(const Matrix& x, std::span<const float> labels, const GbdtOptions& options);

  // One score per row, from the model's first `rounds` boosting rounds (0: all of them).
  // REQUIRES: x.cols == the training matrix's cols.
  Result<std::vector<float>> predict(const Matrix& x, int rounds = 0) const;
  // How many boosting rounds the model has.
  Result<int> rounds() const;

  // XGBoost's own JSON model format, and back.
  Result<std::string> save() const;
  static Result<Gbdt> load(const std::string& bytes, int threads = 1);

  size_t features() const { return features_; }

 private:
  Gbdt() = default;
  void* booster_ = nullptr;  // BoosterHandle
  size_t features_ = 0;
};

}  // namespace tensorperf::costmodel
