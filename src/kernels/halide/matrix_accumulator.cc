// The accumulator schedule shared by the dense and matmul templates.
#include "kernels/halide/halide_template.h"

namespace tensorperf::kernels::halide {

void schedule_matrix_accumulator(Halide::Func acc, Halide::Var lane, Halide::Var row, Halide::RDom k, int k_block,
                                 int k_extent, int vector_width, bool unroll_rows) {
  const Halide::TailStrategy guard = Halide::TailStrategy::GuardWithIf;
  std::vector<Halide::VarOrRVar> loops = {lane, row};
  Halide::RVar ko("ko"), ki("ki");
  if (k_block > 0 && k_block < k_extent) {
    acc.update().split(k, ko, ki, k_block, guard);
    loops.insert(loops.end(), {ki, ko});
  } else {
    loops.push_back(k);
  }
  acc.update().reorder(loops);
  acc.vectorize(lane, vector_width, guard);
  acc.update().vectorize(lane, vector_width, guard).unroll(lane);
  if (unroll_rows) acc.update().unroll(row);
}

}  // namespace tensorperf::kernels::halide
