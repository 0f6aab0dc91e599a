// Samplers: which configs of a schedule space to measure. `random` draws seeded, distinct points;
// `grid` walks the space deterministically with an even stride over its mixed-radix enumeration
// (knob 0 most significant), so n points spread over the whole space. Both return fewer than n
// configs only when the space has fewer points.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kernels/provider.h"

namespace tensorperf::measure {

enum class SamplerKind { kRandom, kGrid };

std::string_view sampler_name(SamplerKind k);  // "random", "grid"
Result<SamplerKind> parse_sampler(std::string_view name);

// Up to n distinct configs of `space` for `provider`; the same arguments give the same configs. For
// `random`, a larger n with the same seed extends the list (the same draws come first); `grid`
// ignores the seed.
std::vector<kernels::Config> sample_configs(const kernels::ConfigSpace& space, const std::string& provider,
                                            SamplerKind kind, int n, uint64_t seed);

}  // namespace tensorperf::measure
