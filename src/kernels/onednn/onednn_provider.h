// The oneDNN kernel provider: conv2d (grouped, dilated; epilogue as post-ops), dense (inner product),
// matmul / batch_matmul, max/avg/global-avg pooling. Its space is small: memory formats and algorithm.
// oneDNN's ISA limit is process-wide and fixed at first use: compiling for a second, different target
// in one process is Unsupported (run one process per target).
#pragma once

#include "kernels/provider.h"

namespace tensorperf::kernels::onednn {

const Provider& onednn_provider();

}  // namespace tensorperf::kernels::onednn
