#include "candidate_configs.h"

#include <string>

namespace tensorperf::bench {

std::vector<kernels::Config> candidate_configs(const ir::Workload& w, int vw) {
  std::vector<kernels::Config> out;
  if (w.op == ir::OpKind::kConv2d && w.attrs.get_int("groups", 1) == 1) {
    auto pads = w.attrs.get_ints("pads", {0, 0, 0, 0});
    bool padded = pads[0] || pads[1] || pads[2] || pads[3];
    int64_t oh = w.output.shape[2], ow = w.output.shape[3];
    struct Tile {
      int ob, tx;
      const char* at;
      int rc;
      int strip = 1;  // tile rows per strip (0: the whole height)
    };
    // Register tiles of 4 to 8 vectors; the row strip with a channel split keeps weights in L1.
    std::vector<Tile> tiles = {{2 * vw, 8, "tile", 0}, {4 * vw, 4, "tile", 0}, {2 * vw, 7, "tile", 0},
                               {2 * vw, 8, "row", 32}, {2 * vw, 8, "row", 64},  {4 * vw, 4, "row", 64},
                               {2 * vw, 7, "row", 64}, {4 * vw, 7, "row", 32}};
    // Deep outputs (7x7 to 28x28): one weight block swept over a strip of 7 rows or of the whole
    // output instead of streaming all weights once per row (at 2 threads the whole 28x28 output of
    // 64->128 s2 in two 64-channel tasks beats 7-row strips). Padded copy made at root only: "row"
    // would redo it for every channel block.
    if (oh <= 28)
      for (int strip : {7, 0}) {
        if (strip == 7 && oh <= 7) continue;  // 7 of 7 rows: same as 0
        for (Tile t : std::vector<Tile>{{2 * vw, 7, "row", 16}, {2 * vw, 7, "row", 32}, {4 * vw, 7, "row", 16}}) {
          t.strip = strip;
          tiles.push_back(t);
        }
      }
    // A root padded copy in 8 tasks: one task per channel costs more than the copy on deep layers.
    for (const Tile& t : tiles) {
      if (t.tx == 7 && ow % 7 != 0) continue;
      std::vector<const char*> pads = {"inline"};
      if (padded && t.strip == 1) pads = {"root", "row"};
      else if (padded) pads = {"root"};
      for (const char* pad : pads) {
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
                                       {"parallel", "rows"},
                                       {"strip", t.strip},
                                       {"pad_tasks", std::string(pad) == "root" ? 8 : 0}}});
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
