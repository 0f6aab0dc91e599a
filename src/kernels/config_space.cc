#include "kernels/provider.h"

namespace tensorperf::kernels {

double ConfigSpace::size() const {
  double n = 1.0;
  for (const Knob& k : knobs) n *= static_cast<double>(k.values.size());
  return n;
}

}  // namespace tensorperf::kernels
