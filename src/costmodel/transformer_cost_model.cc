// The CDMPP-style cost model (libtorch): the program's loop-nest leaves as a sequence (the hottest
// kMaxLeaves, in program order) with a positional encoding of their place in the loop tree
// (pre-order index, sinusoidal; depth, learned), a transformer encoder pooled over the leaves, beside
// encoders of the pooled program vector and of the device vector; their fusion goes through an MLP
// decoder. The program encoder reads the pooled program vector and the cross features
// (cross_features.h: the program's data against the device's caches and balance). Targets are
// latencies over the roofline estimate (roofline.h, as xgb and mlp fit), Box-Cox transformed (lambda
// fitted on the training set) and standardised; the loss is MSE plus a MAPE term on the latencies
// themselves, and, given unmeasured target programs (fit_adapted, CostModelOptions::cmd_weight > 0),
// CDMPP's regulariser: the central moment discrepancy between the embeddings of a training batch and
// of as many target programs.
// Samples without a loop nest (oneDNN's) get one zero leaf. Deterministic given the seed.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <thread>

#include "costmodel/cost_model.h"
#include "costmodel/fine_tune_validation.h"
#include "costmodel/cross_features.h"
#include "costmodel/moment_discrepancy.h"
#include "costmodel/neural_cost_models.h"
#include "costmodel/roofline.h"
#include "costmodel/torch_params.h"
#include "costmodel/training_schedule.h"
#include "measure/device.h"
#include "features/leaf_features.h"

namespace tensorperf::costmodel {
namespace {

constexpr int64_t kMaxLeaves = 32, kModel = 64, kDepths = 16;
constexpr size_t kPool = 16;  // training batches per pool sorted by leaf count
constexpr double kMapeWeight = 0.1;

size_t leaf_width() { return features::leaf_feature_names().size(); }
size_t program_width() { return features::pooled_feature_names().size(); }
size_t device_width() { return measure::device_feature_names().size(); }
// What the program encoder reads: the pooled program vector, then the cross features.
size_t program_input_width() { return program_width() + cross_feature_names().size(); }
// The architecture a payload must have been saved with: files of builds before the cross features
// and the roofline target have narrower program encoders and latencies in other units.
nlohmann::json architecture() {
  return {{"max_leaves", kMaxLeaves},
          {"model", kModel},
          {"depths", kDepths},
          {"program_inputs", program_input_width()},
          {"target", "box_cox_seconds_over_roofline"}};
}

struct Net : torch::nn::Module {
  Net() {
    leaf_in = register_module("leaf_in", torch::nn::Linear(static_cast<int64_t>(leaf_width()), kModel));
    depth = register_module("depth", torch::nn::Embedding(kDepths, kModel));
    encoder = register_module(
        "encoder", torch::nn::TransformerEncoder(torch::nn::TransformerEncoderOptions(
                                                     torch::nn::TransformerEncoderLayerOptions(kModel, 4)
                                                         .dim_feedforward(128)
                                                         .dropout(0.0),
                                                     2)));
    program = register_module("program", torch::nn::Sequential(torch::nn::Linear(static_cast<int64_t>(program_input_width()), 128),
                                                               torch::nn::ReLU(), torch::nn::Linear(128, kModel)));
    device = register_module("device", torch::nn::Sequential(torch::nn::Linear(static_cast<int64_t>(device_width()), 32),
                                                             torch::nn::ReLU()));
    decoder = register_module("decoder", torch::nn::Sequential(torch::nn::Linear(kModel + kModel + 32, 128), torch::nn::ReLU(),
                                                               torch::nn::Linear(128, 64), torch::nn::ReLU(),
                                                               torch::nn::Linear(64, 1)));
  }

  // leaves [B, L, F], preorder [B, L] (float), depths [B, L] (int64), pad [B, L] (bool, true = padding),
  // program [B, P], device [B, D] -> the fused embedding the decoder reads, [B, 2 kModel + 32]
  torch::Tensor embed(const torch::Tensor& leaves, const torch::Tensor& preorder, const torch::Tensor& depths,
                      const torch::Tensor& pad, const torch::Tensor& prog, const torch::Tensor& dev) {
    torch::Tensor h = leaf_in->forward(leaves) + depth->forward(depths) + sinusoid(preorder);
    h = encoder->forward(h.transpose(0, 1), {}, pad).transpose(0, 1);  // [B, L, E]
    torch::Tensor keep = (~pad).unsqueeze(2).to(torch::kFloat32);
    torch::Tensor pooled = (h * keep).sum(1) / keep.sum(1).clamp_min(1.0);
    return torch::cat({pooled, program->forward(prog), device->forward(dev)}, 1);
  }
  // -> [B]
  torch::Tensor forward(const torch::Tensor& leaves, const torch::Tensor& preorder, const torch::Tensor& depths,
                        const torch::Tensor& pad, const torch::Tensor& prog, const torch::Tensor& dev) {
    return decoder->forward(embed(leaves, preorder, depths, pad, prog, dev)).squeeze(1);
  }

  static torch::Tensor sinusoid(const torch::Tensor& position) {
    torch::Tensor i = torch::arange(kModel / 2, torch::kFloat32);
    torch::Tensor freq = torch::exp(-std::log(10000.0) * 2 * i / kModel);
    torch::Tensor angle = position.unsqueeze(2) * freq;  // [B, L, E/2]
    return torch::cat({torch::sin(angle), torch::cos(angle)}, 2);
  }

  torch::nn::Linear leaf_in{nullptr};
  torch::nn::Embedding depth{nullptr};
  torch::nn::TransformerEncoder encoder{nullptr};
  torch::nn::Sequential program{nullptr}, device{nullptr}, decoder{nullptr};
};

struct Batch {
  torch::Tensor leaves, preorder, depths, pad, program, device;
};

// The leaves a sample contributes: the kMaxLeaves with the most flops (then the most bytes), in
// program order; one zero leaf when it has none.
std::vector<size_t> chosen_leaves(const Sample& s, size_t flops_col, size_t bytes_col) {
  std::vector<size_t> idx(s.leaves.size());
  std::iota(idx.begin(), idx.end(), 0);
  if (idx.size() > static_cast<size_t>(kMaxLeaves)) {
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      if (s.leaves[a][flops_col] != s.leaves[b][flops_col]) return s.leaves[a][flops_col] > s.leaves[b][flops_col];
      return s.leaves[a][bytes_col] > s.leaves[b][bytes_col];
    });
    idx.resize(static_cast<size_t>(kMaxLeaves));
    std::sort(idx.begin(), idx.end());
  }
  return idx;
}

class TransformerCostModel final : public CostModel {
 public:
  explicit TransformerCostModel(const CostModelOptions& options) : options_(options) {
    const auto& names = features::leaf_feature_names();
    flops_col_ = static_cast<size_t>(std::find(names.begin(), names.end(), "ops.flops") - names.begin());
    bytes_col_ = static_cast<size_t>(std::find(names.begin(), names.end(), "intensity.bytes") - names.begin());
  }

  std::string kind() const override { return "transformer"; }

  Status fit(std::span<const Sample> train) override { return fit_adapted(train, {}); }

  Status fit_adapted(std::span<const Sample> train, std::span<const Sample> target) override {
    TP_RETURN_IF_ERROR(check_training_set(train));
    TP_RETURN_IF_ERROR(check(train));
    TP_RETURN_IF_ERROR(check(target));
    std::vector<double> seconds;  // over the roofline estimate
    for (const Sample& s : train) seconds.push_back(relative(s));
    torch::manual_seed(options_.seed);
    torch::set_num_threads(1);  // see predict: intra-op threads only slow these small operators down
    fit_box_cox(seconds);
    // Standardisation of leaf rows (over every leaf), program and device vectors.
    {
      std::vector<float> all;
      size_t rows = 0;
      for (const Sample& s : train)
        for (size_t i : chosen_leaves(s, flops_col_, bytes_col_)) {
          all.insert(all.end(), s.leaves[i].begin(), s.leaves[i].end());
          ++rows;
        }
      if (rows == 0) all.assign(leaf_width(), 0.0f), rows = 1;
      leaf_std_.fit(torch::from_blob(all.data(), {static_cast<int64_t>(rows), static_cast<int64_t>(leaf_width())}));
      Batch whole = raw_batch(train, 0, train.size());
      program_std_.fit(whole.program);
      device_std_.fit(whole.device);
    }
    std::vector<float> y;
    for (double s : seconds) y.push_back(static_cast<float>(box_cox(s)));
    const torch::Tensor boxed = torch::tensor(y);
    y_mean_ = boxed.mean().item<float>();
    y_scale_ = std::max(1e-6f, boxed.std(false).item<float>());

    net_ = std::make_shared<Net>();
    const size_t n = train.size();
    train_steps(train, options_.epochs > 0 ? options_.epochs
                                           : static_cast<int>(std::clamp<size_t>(600000 / std::max<size_t>(n, 1), 15, 200)),
                5e-4, target);
    return Status::Ok();
  }

  // More epochs at a lower rate on the new samples, with the pre-training's Box-Cox and
  // standardisation, if cross-validation on them says so (fine_tune_validation.h).
  Status fine_tune(std::span<const Sample> more) override {
    if (!net_) return Status::InvalidArgument("the transformer cost model is not trained");
    TP_RETURN_IF_ERROR(check_training_set(more));
    TP_RETURN_IF_ERROR(check(more));
    const auto adapt_copy = [](CostModel& copy, std::span<const Sample> s) {
      return static_cast<TransformerCostModel&>(copy).adapt(s);
    };
    TP_ASSIGN_OR_RETURN(const bool pays, fine_tuning_pays(*this, more, adapt_copy, options_));
    return pays ? adapt(more) : Status::Ok();
  }

  // fine_tune's training, unconditional.
  Status adapt(std::span<const Sample> more) {
    torch::manual_seed(options_.seed);
    torch::set_num_threads(1);  // see predict: intra-op threads only slow these small operators down
    train_steps(more, static_cast<int>(std::clamp<size_t>(20000 / std::max<size_t>(more.size(), 1), 30, 200)), 2e-4);
    return Status::Ok();
  }

  // Adam over shuffled mini-batches of `train`, loss MSE of the standardised Box-Cox target + MAPE,
  // + cmd_weight x CMD(embeddings of the batch, of as many random `unlabeled` programs), on the
  // schedule of training_schedule.h (the rate falls, the last epochs' weights are averaged).
  // Each epoch shuffles the samples, sorts each pool of kPool batches' worth of them by leaf count,
  // cuts the pools into batches and takes the batches in random order. A batch computes at its own
  // widest program: padding is masked, so a narrower batch gives the same result at less cost, and a
  // batch of 1-leaf programs (oneDNN's) does not run the encoder over 32 positions.
  void train_steps(std::span<const Sample> train, int epochs, double lr, std::span<const Sample> unlabeled = {}) {
    std::vector<float> y, seconds;
    for (const Sample& s : train) {
      const double ratio = relative(s);  // the MAPE term too: the same ratio, the same relative error
      y.push_back((static_cast<float>(box_cox(ratio)) - y_mean_) / y_scale_);
      seconds.push_back(static_cast<float>(ratio));
    }
    const torch::Tensor target = torch::tensor(y), measured = torch::tensor(seconds);
    torch::optim::Adam adam(net_->parameters(), torch::optim::AdamOptions(lr).weight_decay(1e-5));
    const size_t n = train.size(), batch = 128;
    const Batch all = standardized(raw_batch(train, 0, n));
    const bool adapt = options_.cmd_weight > 0 && !unlabeled.empty();
    const Batch goal = adapt ? standardized(raw_batch(unlabeled, 0, unlabeled.size())) : Batch{};
    const std::vector<int64_t> width = leaf_counts(train), goal_width = adapt ? leaf_counts(unlabeled) : std::vector<int64_t>{};
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::vector<size_t> starts;
    for (size_t b = 0; b < n; b += batch) starts.push_back(b);
    std::mt19937_64 rng(options_.seed);
    std::uniform_int_distribution<int64_t> any_target(0, adapt ? static_cast<int64_t>(unlabeled.size()) - 1 : 0);
    net_->train();
    train_on_schedule(*net_, adam, lr, epochs, [&](int) {
      std::shuffle(order.begin(), order.end(), rng);
      for (size_t p = 0; p < n; p += kPool * batch)
        std::stable_sort(order.begin() + static_cast<long>(p), order.begin() + static_cast<long>(std::min(n, p + kPool * batch)),
                         [&](int64_t a, int64_t b) { return width[static_cast<size_t>(a)] < width[static_cast<size_t>(b)]; });
      std::shuffle(starts.begin(), starts.end(), rng);
      for (size_t b : starts) {
        const int64_t len = static_cast<int64_t>(std::min(batch, n - b));
        torch::Tensor idx = torch::from_blob(order.data() + b, {len}, torch::kInt64);
        int64_t w = 1;
        for (int64_t i = 0; i < len; ++i) w = std::max(w, width[static_cast<size_t>(order[b + static_cast<size_t>(i)])]);
        auto pick = [&](const torch::Tensor& t) { return t.index_select(0, idx); };
        auto pick_leaves = [&](const torch::Tensor& t) { return t.index_select(0, idx).narrow(1, 0, w); };
        adam.zero_grad();
        torch::Tensor mine = net_->embed(pick_leaves(all.leaves), pick_leaves(all.preorder), pick_leaves(all.depths),
                                         pick_leaves(all.pad), pick(all.program), pick(all.device));
        torch::Tensor pred = net_->decoder->forward(mine).squeeze(1);
        torch::Tensor loss = torch::mse_loss(pred, pick(target));
        torch::Tensor m = pick(measured);
        torch::Tensor s = inverse_box_cox(pred * y_scale_ + y_mean_);
        loss = loss + kMapeWeight * ((s - m).abs() / m).clamp_max(10.0).mean();
        if (adapt) {
          std::vector<int64_t> rows(static_cast<size_t>(len));
          int64_t gw = 1;
          for (int64_t& r : rows) {
            r = any_target(rng);
            gw = std::max(gw, goal_width[static_cast<size_t>(r)]);
          }
          torch::Tensor t = torch::tensor(rows);
          auto at = [&](const torch::Tensor& x) { return x.index_select(0, t); };
          auto at_leaves = [&](const torch::Tensor& x) { return x.index_select(0, t).narrow(1, 0, gw); };
          torch::Tensor theirs = net_->embed(at_leaves(goal.leaves), at_leaves(goal.preorder), at_leaves(goal.depths),
                                             at_leaves(goal.pad), at(goal.program), at(goal.device));
          loss = loss + options_.cmd_weight * central_moment_discrepancy(mine, theirs);
        }
        loss.backward();
        adam.step();
      }
    });
    net_->eval();
  }

  Result<std::vector<double>> predict(std::span<const Sample> samples) const override {
    if (!net_) return Status::InvalidArgument("the transformer cost model is not trained");
    if (samples.empty()) return std::vector<double>{};
    TP_RETURN_IF_ERROR(check(samples));
    // Batches of programs with similar leaf counts: the encoder runs at each batch's widest program,
    // so a batch mixing 1-leaf and 32-leaf programs would mostly compute padding.
    std::vector<size_t> order(samples.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return std::min(samples[a].leaves.size(), static_cast<size_t>(kMaxLeaves)) <
             std::min(samples[b].leaves.size(), static_cast<size_t>(kMaxLeaves));
    });
    constexpr size_t kBatch = 512;
    const size_t batches = (order.size() + kBatch - 1) / kBatch;
    std::vector<double> out(samples.size());
    // The batches are spread over `threads` workers, each running torch on one thread: its operators
    // on [512 x 32, 64] tensors are too small to gain from intra-op threads (measured on 2 cores:
    // 14.9k predictions/s on one thread, 10.6k on two intra-op threads). One intra-op thread also
    // makes every prediction independent of the thread count.
    auto work = [&](size_t first, size_t step) {
      c10::InferenceMode inference;  // thread-local
      at::set_num_threads(1);        // OpenMP: this thread's own setting
      for (size_t k = first; k < batches; k += step) {
        const size_t b = k * kBatch;
        const std::span<const size_t> rows(order.data() + b, std::min(order.size(), b + kBatch) - b);
        Batch in = standardized(raw_batch(samples, rows));
        torch::Tensor s = inverse_box_cox(net_->forward(in.leaves, in.preorder, in.depths, in.pad, in.program, in.device) *
                                              y_scale_ +
                                          y_mean_)
                              .contiguous();
        const float* v = s.data_ptr<float>();
        for (size_t i = 0; i < rows.size(); ++i)
          out[rows[i]] = static_cast<double>(v[i]) * roofline_seconds(samples[rows[i]]);
      }
    };
    const size_t workers = std::min(batches, static_cast<size_t>(std::max(1, options_.threads)));
    std::vector<std::thread> pool;
    for (size_t w = 1; w < workers; ++w) pool.emplace_back(work, w, workers);
    work(0, workers);
    for (std::thread& t : pool) t.join();
    return out;
  }

  Result<nlohmann::json> payload() const override {
    if (!net_) return Status::InvalidArgument("the transformer cost model is not trained");
    return nlohmann::json{{"architecture", architecture()},
                          {"box_cox_lambda", lambda_},
                          {"y_mean", y_mean_},
                          {"y_scale", y_scale_},
                          {"leaf_standardizer", leaf_std_.to_json()},
                          {"program_standardizer", program_std_.to_json()},
                          {"device_standardizer", device_std_.to_json()},
                          {"state", module_state(*net_)}};
  }

  Status restore(const nlohmann::json& p) {
    if (!p.is_object() || p.value("architecture", nlohmann::json()) != architecture() || !p.contains("state"))
      return Status::Corruption(
          "transformer cost model: the payload is not this build's architecture (a file of an older build: retrain "
          "it)");
    lambda_ = p.value("box_cox_lambda", 0.0);
    y_mean_ = p.value("y_mean", 0.0f);
    y_scale_ = p.value("y_scale", 1.0f);
    TP_ASSIGN_OR_RETURN(leaf_std_, Standardizer::from_json(p.value("leaf_standardizer", nlohmann::json()), leaf_width()));
    TP_ASSIGN_OR_RETURN(program_std_,
                        Standardizer::from_json(p.value("program_standardizer", nlohmann::json()), program_input_width()));
    TP_ASSIGN_OR_RETURN(device_std_, Standardizer::from_json(p.value("device_standardizer", nlohmann::json()), device_width()));
    net_ = std::make_shared<Net>();
    TP_RETURN_IF_ERROR(load_module_state(*net_, p["state"]));
    net_->eval();
    return Status::Ok();
  }

 private:
  static Status check(std::span<const Sample> samples) {
    for (const Sample& s : samples) {
      bool ok = s.program.size() == program_width() && s.device.size() == device_width() &&
                s.positions.size() == s.leaves.size();
      for (const auto& row : s.leaves) ok = ok && row.size() == leaf_width();
      if (!ok)
        return Status::InvalidArgument("a sample of " + s.workload + " does not have this build's feature widths (" +
                                       std::to_string(program_width()) + " program, " + std::to_string(device_width()) +
                                       " device, " + std::to_string(leaf_width()) + " per leaf)");
    }
    return Status::Ok();
  }

  // How many positions each sample fills in raw_batch: its chosen leaves, or its one zero leaf.
  static std::vector<int64_t> leaf_counts(std::span<const Sample> samples) {
    std::vector<int64_t> out;
    out.reserve(samples.size());
    for (const Sample& s : samples) out.push_back(std::clamp<int64_t>(static_cast<int64_t>(s.leaves.size()), 1, kMaxLeaves));
    return out;
  }

  // Padded to the most leaves any of the samples has (at least one).
  Batch raw_batch(std::span<const Sample> samples, size_t begin, size_t end) const {
    std::vector<size_t> rows(end - begin);
    std::iota(rows.begin(), rows.end(), begin);
    return raw_batch(samples, rows);
  }
  // The samples at `rows`, in that order.
  Batch raw_batch(std::span<const Sample> samples, std::span<const size_t> rows) const {
    const int64_t b = static_cast<int64_t>(rows.size()), f = static_cast<int64_t>(leaf_width());
    if (b == 0) return Batch{};
    int64_t width = 1;
    for (size_t k : rows)
      width = std::max<int64_t>(width, std::min<int64_t>(kMaxLeaves, static_cast<int64_t>(samples[k].leaves.size())));
    std::vector<float> leaves(static_cast<size_t>(b * width * f), 0.0f), preorder(static_cast<size_t>(b * width), 0.0f);
    std::vector<int64_t> depths(static_cast<size_t>(b * width), 0);
    std::vector<uint8_t> pad(static_cast<size_t>(b * width), 1);
    std::vector<float> program, device;
    for (size_t r = 0; r < rows.size(); ++r) {
      const Sample& s = samples[rows[r]];
      const int64_t row = static_cast<int64_t>(r);
      std::vector<size_t> chosen = chosen_leaves(s, flops_col_, bytes_col_);
      if (chosen.empty()) pad[static_cast<size_t>(row * width)] = 0;  // one zero leaf
      for (size_t j = 0; j < chosen.size(); ++j) {
        const size_t at = static_cast<size_t>(row * width) + j;
        std::copy(s.leaves[chosen[j]].begin(), s.leaves[chosen[j]].end(), leaves.begin() + static_cast<long>(at) * f);
        preorder[at] = static_cast<float>(s.positions[chosen[j]].preorder);
        depths[at] = std::clamp<int64_t>(s.positions[chosen[j]].depth, 0, kDepths - 1);
        pad[at] = 0;
      }
      program.insert(program.end(), s.program.begin(), s.program.end());
      const std::vector<float> cross = cross_features(s);
      program.insert(program.end(), cross.begin(), cross.end());
      device.insert(device.end(), s.device.begin(), s.device.end());
    }
    Batch out;
    out.leaves = torch::from_blob(leaves.data(), {b, width, f}, torch::kFloat32).clone();
    out.preorder = torch::from_blob(preorder.data(), {b, width}, torch::kFloat32).clone();
    out.depths = torch::from_blob(depths.data(), {b, width}, torch::kInt64).clone();
    out.pad = torch::from_blob(pad.data(), {b, width}, torch::kUInt8).clone().to(torch::kBool);
    out.program = torch::from_blob(program.data(), {b, static_cast<int64_t>(program_input_width())}, torch::kFloat32).clone();
    out.device = torch::from_blob(device.data(), {b, static_cast<int64_t>(device_width())}, torch::kFloat32).clone();
    return out;
  }

  Batch standardized(Batch in) const {
    const auto sizes = in.leaves.sizes().vec();
    in.leaves = leaf_std_.apply(in.leaves.reshape({-1, sizes[2]})).reshape(sizes) *
                (~in.pad).unsqueeze(2).to(torch::kFloat32);
    in.program = program_std_.apply(in.program);
    in.device = device_std_.apply(in.device);
    return in;
  }

  // Box-Cox: lambda maximising the profile log-likelihood over a grid (0 is the log).
  void fit_box_cox(const std::vector<double>& seconds) {
    double best = -std::numeric_limits<double>::infinity(), best_lambda = 0, log_sum = 0;
    const double n = static_cast<double>(seconds.size());
    for (double s : seconds) log_sum += std::log(s);
    for (int k = -20; k <= 20; ++k) {
      lambda_ = k / 40.0;
      double mean = 0, var = 0;
      for (double s : seconds) mean += box_cox(s) / n;
      for (double s : seconds) var += (box_cox(s) - mean) * (box_cox(s) - mean) / n;
      const double ll = -0.5 * n * std::log(std::max(var, 1e-300)) + (lambda_ - 1) * log_sum;
      if (ll > best) {
        best = ll;
        best_lambda = lambda_;
      }
    }
    lambda_ = best_lambda;
  }
  // The training target before Box-Cox: seconds over the roofline estimate, which carries over to
  // workloads larger than the training set's (roofline.h).
  static double relative(const Sample& s) { return s.seconds / roofline_seconds(s); }
  double box_cox(double s) const { return lambda_ == 0 ? std::log(s) : (std::pow(s, lambda_) - 1) / lambda_; }
  torch::Tensor inverse_box_cox(const torch::Tensor& y) const {
    if (lambda_ == 0) return torch::exp(y.clamp(-60, 30));
    return torch::pow((y * lambda_ + 1).clamp_min(1e-12), 1.0 / lambda_);
  }

  CostModelOptions options_;
  size_t flops_col_ = 0, bytes_col_ = 0;
  double lambda_ = 0;
  float y_mean_ = 0, y_scale_ = 1;
  Standardizer leaf_std_, program_std_, device_std_;
  std::shared_ptr<Net> net_;
};

}  // namespace

std::unique_ptr<CostModel> make_transformer_cost_model(const CostModelOptions& options) {
  return std::make_unique<TransformerCostModel>(options);
}

Result<std::unique_ptr<CostModel>> load_transformer_cost_model(const nlohmann::json& payload,
                                                               const CostModelOptions& options) {
  auto model = std::make_unique<TransformerCostModel>(options);
  TP_RETURN_IF_ERROR(model->restore(payload));
  return std::unique_ptr<CostModel>(std::move(model));
}

}  // namespace tensorperf::costmodel
