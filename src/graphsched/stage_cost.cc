#include "graphsched/stage_cost.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "base/steady_time.h"
#include "base/unix_time.h"
#include "db/content_hash.h"
#include "measure/record.h"

namespace tensorperf::graphsched {

MeasuredStageCost::MeasuredStageCost(runtime::Executor& profiling, const OpGraph& g, db::RecordStore* store,
                                     std::string device_key, std::string target, MergedStageTimer* merged, int repeat,
                                     runtime::StageTiming timing, double clock_mhz)
    : profiling_(profiling),
      g_(g),
      store_(store),
      device_key_(std::move(device_key)),
      target_(std::move(target)),
      merged_(merged),
      repeat_(repeat),
      timing_(timing),
      clock_mhz_(clock_mhz) {}

std::string MeasuredStageCost::content_key(const StageChoice& c) const {
  // What runs, not where in which model: the same stage of another model shares the record.
  const std::vector<runtime::StepInfo>& steps = profiling_.steps();
  nlohmann::json groups = nlohmann::json::array();
  for (size_t k = 0; k < c.groups.size(); ++k) {
    nlohmann::json ops = nlohmann::json::array();
    for (int v : c.groups[k]) {
      const runtime::StepInfo& s = steps[v];
      if (s.workload.empty()) ops.push_back({{"layout", s.op}, {"node", s.name}, {"graph", g_.fingerprint}});
      else {
        nlohmann::json op{{"workload", s.workload}, {"provider", s.provider}, {"config", s.config}};
        // A step that converts a layout costs more than one of the same program that does not (the
        // key of a step with plain tensors only is what it was before layouts were part of it).
        if (!s.layouts.is_null()) op["layouts"] = s.layouts;
        ops.push_back(std::move(op));
      }
    }
    groups.push_back({{"threads", c.threads[k]}, {"ops", ops}});
  }
  nlohmann::json key{{"merged", c.merged}, {"groups", groups}};
  // The first cold rule's records (only a timing's first run cold) keep their key.
  if (timing_ == runtime::StageTiming::kColdFirstRun) key["cold"] = true;
  if (timing_ == runtime::StageTiming::kCold) key["cold"] = "every-run";
  return key.dump();
}

Result<double> MeasuredStageCost::operator()(const StageChoice& c) {
  const std::string content = content_key(c);
  const std::string workload = "ios-stage:" + db::to_hex(db::content_hash(content));
  TP_RETURN_IF_ERROR(load_store());
  if (auto it = known_.find(workload); it != known_.end()) {
    ++from_store_;
    return it->second;
  }
  double seconds = 0;
  const double t0 = steady_seconds();
  if (c.merged) {
    if (merged_ == nullptr) return Status::Unsupported("merged stages cannot be measured here");
    TP_ASSIGN_OR_RETURN(seconds, merged_->time_merged(c.groups[0], c.threads[0]));
  } else {
    TP_ASSIGN_OR_RETURN(seconds, profiling_.time_stage(c.groups, c.threads, repeat_, timing_));
  }
  ++measured_;
  const double t1 = steady_seconds();
  timing_s_ += t1 - t0;
  if (store_ != nullptr) {
    measure::Record r;
    r.workload_key = workload;
    r.device_key = device_key_;
    r.target = target_;
    r.provider = "graphsched";
    r.config = nlohmann::json::parse(content);
    r.costs = {seconds};
    r.timestamp = unix_seconds();
    r.clock_mhz = clock_mhz_;
    TP_RETURN_IF_ERROR(db::add_record(*store_, r));
    storing_s_ += steady_seconds() - t1;
  }
  known_[workload] = seconds;
  return seconds;
}

Status MeasuredStageCost::load_store() {
  if (loaded_ || store_ == nullptr) return Status::Ok();
  loaded_ = true;
  db::ScanFilter filter;
  filter.device_key = device_key_;
  filter.with_config = false;
  return store_->scan(filter, [this](const db::StoredRecord& r) {
    if (r.mean_cost && r.workload_key.rfind("ios-stage:", 0) == 0) {
      if (clock_mhz_ > 0) {
        Result<measure::Record> rec = measure::record_from_line(r.line);
        if (rec.ok() && rec->clock_mhz > 0 && std::abs(rec->clock_mhz / clock_mhz_ - 1) > 0.01) return Status::Ok();
      }
      auto [it, fresh] = known_.emplace(r.workload_key, *r.mean_cost);
      if (!fresh) it->second = std::min(it->second, *r.mean_cost);
    }
    return Status::Ok();
  });
}

Result<double> MeasuredStageCost::op_cost(int op, int threads) {
  return (*this)(StageChoice{{{op}}, {threads}, false});
}

Contention fit_contention(const std::vector<ContentionSample>& samples) {
  // Least squares on x = longest/measured, y = serial/measured against 1: minimise
  // sum (scale x + shared y - 1)^2.
  double xx = 0, xy = 0, yy = 0, x1 = 0, y1 = 0;
  int n = 0;
  for (const ContentionSample& s : samples) {
    if (!(s.measured_s > 0) || !(s.longest_s > 0)) continue;
    const double x = s.longest_s / s.measured_s, y = std::max(0.0, s.serial_s) / s.measured_s;
    xx += x * x, xy += x * y, yy += y * y, x1 += x, y1 += y;
    ++n;
  }
  if (n == 0) return Contention{};
  const double det = xx * yy - xy * xy;
  if (n >= 2 && det > 1e-12 * xx * yy) {
    const Contention c{(x1 * yy - y1 * xy) / det, (y1 * xx - x1 * xy) / det};
    if (c.scale > 0 && c.shared >= 0) return c;
  }
  return Contention{x1 / xx, 0.0};  // one term only: the longest group scaled
}

ComposedStageCost::ComposedStageCost(OpCost op_cost, Contention contention, double barrier_s, int threads,
                                     MergedCost merged_cost)
    : op_cost_(std::move(op_cost)), merged_cost_(std::move(merged_cost)), contention_(contention),
      barrier_s_(barrier_s), threads_(threads) {}

Result<double> ComposedStageCost::cost(int op, int threads) {
  auto key = std::make_pair(op, threads);
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    TP_ASSIGN_OR_RETURN(double s, op_cost_(op, threads));
    it = cache_.emplace(key, s).first;
  }
  return it->second;
}

Result<ContentionSample> ComposedStageCost::terms(const StageChoice& c) {
  ContentionSample s;
  for (size_t k = 0; k < c.groups.size(); ++k) {
    const int n = c.threads[k];
    double sum = 0;
    for (int v : c.groups[k]) {
      TP_ASSIGN_OR_RETURN(double tn, cost(v, n));
      sum += tn;
      if (c.groups.size() < 2) continue;
      // Amdahl: t(p) = serial + parallel / p, from t(n) and t(threads).
      double serial = tn;
      if (n < threads_) {
        TP_ASSIGN_OR_RETURN(double tt, cost(v, threads_));
        const double parallel = (tn - tt) * n * threads_ / (threads_ - n);
        serial = std::clamp(tt - parallel / threads_, 0.0, tn);
      }
      s.serial_s += serial;
    }
    s.longest_s = std::max(s.longest_s, sum);
  }
  return s;
}

Result<double> ComposedStageCost::operator()(const StageChoice& c) {
  if (c.merged) {
    if (!merged_cost_) return Status::Unsupported("no cost for merged stages");
    TP_ASSIGN_OR_RETURN(double s, merged_cost_(c.groups[0], c.threads[0]));
    return s + barrier_s_;
  }
  TP_ASSIGN_OR_RETURN(ContentionSample s, terms(c));
  if (c.groups.size() < 2) return s.longest_s + barrier_s_;
  return contention_.scale * s.longest_s + contention_.shared * s.serial_s + barrier_s_;
}

}  // namespace tensorperf::graphsched
