// ONNX files exported by torch.onnx run through the executor and give PyTorch's output for the same
// input (relative error <= 1e-3 at float32): real initializers, folded batch norms, every layout op.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "ir/onnx/onnx_import.h"
#include "measure/device.h"
#include "runtime/executor.h"
#include "runtime/tensor_file.h"

namespace tensorperf::runtime {
namespace {

struct TorchCase {
  std::string model;
  int image_size;
  ConfigPolicy policy;
};

std::ostream& operator<<(std::ostream& os, const TorchCase& c) { return os << c.model; }

class TorchParity : public ::testing::TestWithParam<TorchCase> {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("tp_torch_parity_" + std::to_string(::getpid()));
    const std::string cmd = std::string("/usr/bin/python3 ") + TENSORPERF_SOURCE_DIR +
                            "/tests/runtime/torch_reference.py " + dir_.string() + " " + GetParam().model + " " +
                            std::to_string(GetParam().image_size) + " > /dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string file(const std::string& suffix) const { return (dir_ / (GetParam().model + suffix)).string(); }
  std::filesystem::path dir_;
};

TEST_P(TorchParity, OutputMatchesPyTorch) {
  Result<ir::Graph> g = ir::import_onnx(file(".onnx"));
  ASSERT_TRUE(g.ok()) << g.status().message();
  measure::DeviceOptions d;
  d.threads = 1;
  Result<measure::Device> device = measure::detect_device(d);
  ASSERT_TRUE(device.ok());
  ExecutorOptions o;
  o.policy = GetParam().policy;
  o.device_key = device->key();
  o.target = device->target;
  Result<std::unique_ptr<Executor>> e = Executor::load(*g, o);
  ASSERT_TRUE(e.ok()) << e.status().message();
  Result<ir::TensorData> x = read_tensor_file(file(".input.npy"));
  Result<ir::TensorData> want = read_tensor_file(file(".output.npy"));
  ASSERT_TRUE(x.ok() && want.ok());
  ASSERT_EQ((*e)->input(0).type(), x->type);
  std::memcpy((*e)->input(0).bytes(), x->bytes.data(), x->bytes.size());
  ASSERT_TRUE((*e)->run().ok());
  const kernels::HostTensor& out = (*e)->output(0);
  ASSERT_EQ(out.type(), want->type);
  const float* w = reinterpret_cast<const float*>(want->bytes.data());
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    diff = std::max(diff, static_cast<double>(std::abs(out.f32()[i] - w[i])));
    scale = std::max(scale, static_cast<double>(std::abs(w[i])));
  }
  EXPECT_GT(scale, 0);
  EXPECT_LE(diff / scale, 1e-3) << "max abs difference " << diff << " at output scale " << scale;
}

INSTANTIATE_TEST_SUITE_P(Runtime, TorchParity,
                         ::testing::Values(TorchCase{"resnet18", 224, ConfigPolicy::kOnednn},
                                           TorchCase{"squeezenet1_1", 224, ConfigPolicy::kDatabase},
                                           TorchCase{"mobilenet_v2", 224, ConfigPolicy::kOnednn},
                                           TorchCase{"inception_v3", 299, ConfigPolicy::kOnednn}),
                         [](const auto& info) { return info.param.model; });

}  // namespace
}  // namespace tensorperf::runtime
