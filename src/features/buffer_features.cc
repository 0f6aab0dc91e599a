// Per buffer a leaf touches, most distinct bytes first, up to kBuffers (zeros past the last):
// access type, bytes and cache lines (all and distinct), reuse type, distance and count, and the
// innermost stride (as Ansor's buffer-access features).
#include "features/leaf_features.h"

namespace tensorperf::features {
namespace {

constexpr size_t kBuffers = 5;
const std::vector<std::string>& per_buffer() {
  static const std::vector<std::string> n = {
      "read",        "write",          "read_write",     "bytes",       "unique_bytes",
      "lines",       "unique_lines",   "reuse_loop",     "reuse_serial", "reuse_none",
      "reuse_iters", "reuse_bytes",    "reuse_count",    "stride",      "bytes_per_reuse",
  };
  return n;
}

void extract(const LeafContext& ctx, std::vector<float>& out) {
  for (size_t i = 0; i < kBuffers; ++i) {
    if (i >= ctx.buffers.size()) {
      out.insert(out.end(), per_buffer().size(), 0.0f);
      continue;
    }
    const BufferTouch& b = ctx.buffers[i];
    out.push_back(b.read && !b.write ? 1.0f : 0.0f);
    out.push_back(b.write && !b.read ? 1.0f : 0.0f);
    out.push_back(b.read && b.write ? 1.0f : 0.0f);
    out.push_back(log_feature(b.bytes));
    out.push_back(log_feature(b.unique_bytes));
    out.push_back(log_feature(b.lines));
    out.push_back(log_feature(b.unique_lines));
    out.push_back(b.reuse == ReuseType::kLoopMultipleRead ? 1.0f : 0.0f);
    out.push_back(b.reuse == ReuseType::kSerialReadWrite ? 1.0f : 0.0f);
    out.push_back(b.reuse == ReuseType::kNone ? 1.0f : 0.0f);
    out.push_back(log_feature(b.reuse_iterations));
    out.push_back(log_feature(b.reuse_bytes));
    out.push_back(log_feature(b.reuse_count));
    out.push_back(log_feature(b.innermost_stride));
    out.push_back(log_feature(b.reuse_count > 0 ? b.bytes / b.reuse_count : b.bytes));
  }
}

std::vector<std::string> names() {
  std::vector<std::string> n;
  for (size_t i = 0; i < kBuffers; ++i)
    for (const std::string& f : per_buffer()) n.push_back("b" + std::to_string(i) + "_" + f);
  return n;
}

}  // namespace

const LeafFeatureGroup& buffer_features() {
  static const LeafFeatureGroup g{"buffer", names(), extract};
  return g;
}

}  // namespace tensorperf::features
