#include "candidate_configs.h"

namespace tensorperf::bench {

std::vector<kernels::Config> candidate_configs(const ir::Workload& w, int vw) {
  std::vector<kernels::Config> out;
  if (w.op == ir::OpKind::kConv2d && w.attrs.get_int("groups", 1) == 1) {
    auto pads = w.attrs.get_ints("pads", {0, 0, 0, 0});
    bool padded = pads[0] || pads[1] || pads[2] || pads[3];
    int64_t ow = w.output.shape[3];
    struct Tile {
      int ob, tx;
      const char* at;
      int rc;
    };
    // Register tiles of 4 to 8 vectors; the row strip with a channel split keeps weights in L1.
    std::vector<Tile> tiles = {{2 * vw, 8, "tile", 0}, {4 * vw, 4, "tile", 0}, {2 * vw, 7, "tile", 0},
                               {2 * vw, 8, "row", 32}, {2 * vw, 8, "row", 64},  {4 * vw, 4, "row", 64},
                               {2 * vw, 7, "row", 64}, {4 * vw, 7, "row", 32}};
    for (const Tile& t : tiles) {
      if (t.tx == 7 && ow % 7 != 0) continue;
      for (const char* pad : padded ? std::vector<const char*>{"root", "row"} : std::vector<const char*>{"inline"}) {
        out.push_back(kernels::Config{"halide",
                                      {{"layout", "nchwc"},
                                       {"oc_block", t.ob},
                                       {"vector_width", vw},
                                       {"tile_x", t.tx},
                                       {"tile_y", 1},
                                       {"tail", "guard"},
                                       {"compute_at", t.at},
                                       {"rc_block", t.rc},
                                       {"reduce_order", "c_k"},
                                       {"pad", pad},
                                       {"unroll", 1},
                                       {"parallel", "rows"}}});
      }
    }
  } else if (w.op == ir::OpKind::kDense) {
    for (int mb : {vw, 2 * vw, 4 * vw})
      for (int kb : {0, 256})
        out.push_back(kernels::Config{"halide",
                                      {{"layout", "packed"},
                                       {"m_block", mb},
                                       {"vector_width", vw},
                                       {"tile_r", 1},
                                       {"k_block", kb},
                                       {"unroll", 1},
                                       {"parallel", "m"}}});
  }
  return out;
}

}  // namespace tensorperf::bench
