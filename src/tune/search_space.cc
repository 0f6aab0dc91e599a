#include "tune/search_space.h"

#include <algorithm>
#include <limits>

namespace tensorperf::tune {

size_t PointHash::operator()(const Point& p) const {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the indices
  for (int v : p) {
    h ^= static_cast<uint64_t>(v) + 0x9e3779b97f4a7c15ull;
    h *= 1099511628211ull;
  }
  return static_cast<size_t>(h);
}

SearchSpace::SearchSpace(kernels::ConfigSpace space, std::string provider,
                         std::function<Status(const kernels::Config&)> validate, nlohmann::json fallback,
                         ScheduleFeatureFn schedule_features)
    : space_(std::move(space)),
      provider_(std::move(provider)),
      validate_(std::move(validate)),
      fallback_(std::move(fallback)),
      schedule_features_(std::move(schedule_features)) {
  for (const kernels::Knob& k : space_.knobs) {
    bool numeric = true;
    for (const auto& v : k.values) numeric = numeric && v.is_number();
    std::vector<float> values;
    for (size_t i = 0; i < k.values.size(); ++i)
      values.push_back(numeric ? k.values[i].get<float>() : static_cast<float>(i));
    knob_values_.push_back(std::move(values));
  }
}

SearchSpace SearchSpace::of(const ir::Workload& w, const kernels::Provider& provider) {
  const kernels::Provider* p = &provider;
  return SearchSpace(
      provider.space(w), provider.name(), [w, p](const kernels::Config& c) { return p->validate(w, c); },
      provider.default_config(w).knobs, [w, p](const kernels::Config& c) { return p->schedule_features(w, c); });
}

size_t SearchSpace::feature_width() const {
  if (!schedule_width_) {
    schedule_width_ = 0;
    if (schedule_features_) {
      // The width of any valid config's features: the default's, else the first valid point's.
      std::optional<Point> p = point_of(fallback_);
      for (uint64_t i = 0; (!p || !valid(*p)) && i < 4096 && static_cast<double>(i) < size(); ++i) p = at(i);
      if (p && valid(*p))
        if (auto f = schedule_features_(config(*p)); f.ok()) schedule_width_ = f->size();
    }
  }
  return knob_values_.size() + *schedule_width_;
}

void SearchSpace::features(const Point& p, float* out) const {
  const size_t width = feature_width();
  auto it = feature_cache_.find(p);
  if (it == feature_cache_.end()) {
    std::vector<float> f(width, std::numeric_limits<float>::quiet_NaN());
    for (size_t k = 0; k < knob_values_.size(); ++k) f[k] = knob_values_[k][p[k]];
    if (schedule_features_) {
      auto extra = schedule_features_(config(p));
      if (extra.ok() && extra->size() == width - knob_values_.size())
        for (size_t i = 0; i < extra->size(); ++i) f[knob_values_.size() + i] = static_cast<float>((*extra)[i]);
    }
    it = feature_cache_.emplace(p, std::move(f)).first;
  }
  std::copy(it->second.begin(), it->second.end(), out);
}

kernels::Config SearchSpace::config(const Point& p) const {
  kernels::Config c{provider_, nlohmann::json::object()};
  for (size_t k = 0; k < space_.knobs.size(); ++k) c.knobs[space_.knobs[k].name] = space_.knobs[k].values[p[k]];
  return c;
}

std::optional<Point> SearchSpace::point_of(const nlohmann::json& knobs) const {
  if (!knobs.is_object()) return std::nullopt;
  Point p;
  p.reserve(space_.knobs.size());
  for (const kernels::Knob& k : space_.knobs) {
    auto it = knobs.find(k.name);
    const nlohmann::json* value = nullptr;
    if (it != knobs.end()) value = &*it;
    else if (auto f = fallback_.find(k.name); f != fallback_.end()) value = &*f;
    if (value == nullptr) return std::nullopt;
    auto at = std::find(k.values.begin(), k.values.end(), *value);
    if (at == k.values.end()) return std::nullopt;
    p.push_back(static_cast<int>(at - k.values.begin()));
  }
  return p;
}

bool SearchSpace::valid(const Point& p) const {
  if (!validate_) return true;
  auto it = valid_cache_.find(p);
  if (it != valid_cache_.end()) return it->second;
  bool ok = validate_(config(p)).ok();
  valid_cache_.emplace(p, ok);
  return ok;
}

Point SearchSpace::random_point(std::mt19937_64& rng) const {
  Point p(space_.knobs.size());
  for (size_t k = 0; k < p.size(); ++k) p[k] = std::uniform_int_distribution<int>(0, radix(k) - 1)(rng);
  return p;
}

std::optional<Point> SearchSpace::random_valid_point(std::mt19937_64& rng, int tries) const {
  for (int i = 0; i < tries; ++i) {
    Point p = random_point(rng);
    if (valid(p)) return p;
  }
  return std::nullopt;
}

Point SearchSpace::at(uint64_t i) const {
  Point p(space_.knobs.size());
  for (size_t k = p.size(); k-- > 0;) {
    p[k] = static_cast<int>(i % static_cast<uint64_t>(radix(k)));
    i /= static_cast<uint64_t>(radix(k));
  }
  return p;
}

uint64_t SearchSpace::index(const Point& p) const {
  uint64_t i = 0;
  for (size_t k = 0; k < p.size(); ++k) i = i * static_cast<uint64_t>(radix(k)) + static_cast<uint64_t>(p[k]);
  return i;
}

}  // namespace tensorperf::tune
