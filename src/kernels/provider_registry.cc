// The one table of kernel providers.
#include "kernels/halide/halide_provider.h"
#include "kernels/onednn/onednn_provider.h"
#include "kernels/provider.h"

namespace tensorperf::kernels {

const std::vector<const Provider*>& providers() {
  static const std::vector<const Provider*> all = {&halide::halide_provider(), &onednn::onednn_provider()};
  return all;
}

Result<const Provider*> find_provider(const std::string& name) {
  std::string known;
  for (const Provider* p : providers()) {
    if (p->name() == name) return p;
    known += (known.empty() ? "" : ", ") + p->name();
  }
  return Status::NotFound("no kernel provider named '" + name + "' (known: " + known + ")");
}

}  // namespace tensorperf::kernels
