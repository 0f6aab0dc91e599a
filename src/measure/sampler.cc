#include "measure/sampler.h"

#include <random>
#include <set>

namespace tensorperf::measure {
namespace {

using Digits = std::vector<int64_t>;  // one value index per knob

kernels::Config make_config(const kernels::ConfigSpace& space, const std::string& provider, const Digits& d) {
  kernels::Config c;
  c.provider = provider;
  for (size_t k = 0; k < space.knobs.size(); ++k) c.knobs[space.knobs[k].name] = space.knobs[k].values[d[k]];
  return c;
}

std::vector<kernels::Config> random_configs(const kernels::ConfigSpace& space, const std::string& provider, int n,
                                            uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::set<Digits> seen;
  std::vector<kernels::Config> out;
  const double size = space.size();
  // Draws until n distinct points, the whole space, or (for a small space nearly exhausted) a
  // generous number of repeats.
  for (int64_t draws = 0; static_cast<int>(out.size()) < n && static_cast<double>(seen.size()) < size &&
                          draws < 100 * static_cast<int64_t>(n) + 1000;
       ++draws) {
    Digits d;
    for (const auto& knob : space.knobs)
      d.push_back(std::uniform_int_distribution<int64_t>(0, static_cast<int64_t>(knob.values.size()) - 1)(rng));
    if (seen.insert(d).second) out.push_back(make_config(space, provider, d));
  }
  return out;
}

// Mixed-radix arithmetic on digit vectors (knob 0 most significant): exact for any space size.
std::vector<kernels::Config> grid_configs(const kernels::ConfigSpace& space, const std::string& provider, int n) {
  const size_t k = space.knobs.size();
  std::vector<int64_t> radix;
  for (const auto& knob : space.knobs) radix.push_back(static_cast<int64_t>(knob.values.size()));
  // step = floor((size - 1) / n), by long division of the all-max number; at least 1.
  Digits step(k, 0);
  int64_t rem = 0;
  for (size_t i = 0; i < k; ++i) {
    int64_t cur = rem * radix[i] + (radix[i] - 1);
    step[i] = cur / n;
    rem = cur % n;
  }
  bool zero = true;
  for (int64_t s : step) zero = zero && s == 0;
  if (zero && k > 0) step[k - 1] = 1;

  std::vector<kernels::Config> out;
  Digits at(k, 0);
  for (int i = 0; i < n; ++i) {
    out.push_back(make_config(space, provider, at));
    // at += step; stop when it overflows (the walk left the space).
    int64_t carry = 0;
    for (size_t j = k; j-- > 0;) {
      int64_t v = at[j] + step[j] + carry;
      at[j] = v % radix[j];
      carry = v / radix[j];
    }
    if (carry) break;
  }
  return out;
}

}  // namespace

std::string_view sampler_name(SamplerKind k) { return k == SamplerKind::kRandom ? "random" : "grid"; }

Result<SamplerKind> parse_sampler(std::string_view name) {
  if (name == "random") return SamplerKind::kRandom;
  if (name == "grid") return SamplerKind::kGrid;
  return Status::InvalidArgument("unknown sampler \"" + std::string(name) + "\": use random or grid");
}

std::vector<kernels::Config> sample_configs(const kernels::ConfigSpace& space, const std::string& provider,
                                            SamplerKind kind, int n, uint64_t seed) {
  if (n <= 0) return {};
  for (const auto& knob : space.knobs)
    if (knob.values.empty()) return {};  // an empty knob leaves no point in the space
  if (space.knobs.empty()) return {make_config(space, provider, {})};
  return kind == SamplerKind::kRandom ? random_configs(space, provider, n, seed) : grid_configs(space, provider, n);
}

}  // namespace tensorperf::measure
