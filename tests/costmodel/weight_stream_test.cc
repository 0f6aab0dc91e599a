#include "costmodel/weight_stream.h"

#include <gtest/gtest.h>

#include "ir/workload.h"

namespace tensorperf::costmodel {
namespace {

ir::Workload parse(const char* key) {
  auto w = ir::parse_workload_key(key);
  EXPECT_TRUE(w.ok()) << w.status().message();
  return *w;
}

// A device of 467 GFLOP/s and 27.7 GB/s: its ridge is 16.9 flops per byte.
constexpr double kPeak = 467, kBandwidth = 27.7;

TEST(WeightStream, WeightsAreTheSecondInputOfConvolutionsAndDenseLayersOnly) {
  EXPECT_DOUBLE_EQ(weight_bytes(parse("conv2d|float32[1,512,7,7];float32[512,512,3,3]|dilations=[1,1];groups=1;"
                                      "pads=[1,1,1,1];strides=[1,1]|bias+relu")),
                   512.0 * 512 * 9 * 4);
  EXPECT_DOUBLE_EQ(weight_bytes(parse("conv2d|float32[1,96,14,14];float32[96,1,3,3]|dilations=[1,1];groups=96;"
                                      "pads=[1,1,1,1];strides=[1,1]|")),
                   96.0 * 9 * 4);
  EXPECT_DOUBLE_EQ(weight_bytes(parse("dense|float32[1,4096];float32[1000,4096]||bias")), 1000.0 * 4096 * 4);
  EXPECT_EQ(weight_bytes(parse("batch_matmul|float32[1,12,128,64];float32[1,12,128,64]|transpose_a=0;"
                               "transpose_b=1|")),
            0);
  EXPECT_EQ(weight_bytes(parse("relu|float32[1,64,56,56]||")), 0);
}

TEST(WeightStream, AConvolutionAboveTheRidgePaysTheStreamOnTopOfItsPrediction) {
  // 49 output pixels: 24.5 flops per weight byte, above the ridge.
  const ir::Workload conv = parse(
      "conv2d|float32[1,512,7,7];float32[512,512,3,3]|dilations=[1,1];groups=1;pads=[1,1,1,1];strides=[1,1]|bias");
  const double stream_s = 512.0 * 512 * 9 * 4 / 27.7e9;
  EXPECT_NEAR(streamed_weights_seconds(conv, 0.6e-3, kPeak, kBandwidth), stream_s, 1e-12);
  // Whatever its prediction: the stream is not hidden behind the computation.
  EXPECT_NEAR(streamed_weights_seconds(conv, 5e-3, kPeak, kBandwidth), stream_s, 1e-12);
  EXPECT_NEAR(streamed_weights_seconds(conv, 0.1e-3, kPeak, kBandwidth), stream_s, 1e-12);
  // A device without a measured peak: every kernel counts as above its ridge.
  EXPECT_NEAR(streamed_weights_seconds(conv, 0.6e-3, 0, kBandwidth), stream_s, 1e-12);
  // A dense layer over 128 rows (64 flops per byte) likewise.
  const ir::Workload dense128 = parse("dense|float32[1,128,768];float32[3072,768]||bias+gelu");
  EXPECT_NEAR(streamed_weights_seconds(dense128, 1.8e-3, kPeak, kBandwidth), 3072.0 * 768 * 4 / 27.7e9, 1e-12);
}

TEST(WeightStream, ADenseLayerBelowTheRidgeTakesAtLeastItsStream) {
  // One row: half a flop per weight byte, far below the ridge.
  const ir::Workload fc = parse("dense|float32[1,4096];float32[4096,4096]||bias+relu");
  const double stream_s = 4096.0 * 4096 * 4 / 27.7e9;  // 2.42 ms
  // Timed with its weights cached at 1.24 ms: it takes the stream's time in the graph.
  EXPECT_NEAR(streamed_weights_seconds(fc, 1.24e-3, kPeak, kBandwidth), stream_s - 1.24e-3, 1e-12);
  // Timed no faster than the stream (its weights did not fit in a cache): nothing more.
  EXPECT_EQ(streamed_weights_seconds(fc, 3e-3, kPeak, kBandwidth), 0);
  // Eight rows (4 flops per byte) are still below this device's ridge, and above a slower
  // processor's (2 flops per byte at 55.4 GFLOP/s).
  const ir::Workload fc8 = parse("dense|float32[8,4096];float32[4096,4096]||bias+relu");
  EXPECT_NEAR(streamed_weights_seconds(fc8, 2e-3, kPeak, kBandwidth), stream_s - 2e-3, 1e-12);
  EXPECT_NEAR(streamed_weights_seconds(fc8, 2e-3, 55.4, kBandwidth), stream_s, 1e-12);
}

TEST(WeightStream, NothingWithoutWeightsOrWithoutAMeasuredBandwidth) {
  EXPECT_EQ(streamed_weights_seconds(parse("relu|float32[1,64,56,56]||"), 1e-4, kPeak, kBandwidth), 0);
  EXPECT_EQ(streamed_weights_seconds(parse("dense|float32[1,4096];float32[1000,4096]||bias"), 1e-4, kPeak, 0), 0);
}

}  // namespace
}  // namespace tensorperf::costmodel
