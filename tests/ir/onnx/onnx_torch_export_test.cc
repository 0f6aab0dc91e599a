// Models exported by torch.onnx. Torchvision's (tests/ir/models/export_torchvision.py: weights=None,
// eval mode, opset 13) import to the same task set as the zoo's C++ definitions: the same workload
// keys with the same counts. A transformer layer imports to the same tasks at opsets 13 and 17.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "ir/models/zoo.h"
#include "ir/onnx/onnx_import.h"
#include "ir/task_extraction.h"

namespace tensorperf::ir {
namespace {

std::map<std::string, int64_t> task_counts(const Graph& g) {
  Result<std::vector<Task>> tasks = extract_tasks(g);
  if (!tasks.ok()) throw std::runtime_error(tasks.status().message());
  std::map<std::string, int64_t> counts;
  for (const Task& t : *tasks) counts[t.workload.key()] += t.count;
  return counts;
}

class TorchvisionExport : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("tp_onnx_tv_" + std::to_string(::getpid()));
    const std::string cmd = std::string("/usr/bin/python3 ") + TENSORPERF_SOURCE_DIR +
                            "/tests/ir/models/export_torchvision.py " + dir_.string() + " " + GetParam() +
                            " > /dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::filesystem::path dir_;
};

// One test per model (an export takes seconds): batch 1 key by key, then the batch option.
TEST_P(TorchvisionExport, ImportsToTheZooTaskSet) {
  const std::string path = (dir_ / (GetParam() + ".onnx")).string();
  Result<Graph> onnx = import_onnx(path);
  ASSERT_TRUE(onnx.ok()) << onnx.status().message();
  Result<Graph> zoo = build_model(GetParam());
  ASSERT_TRUE(zoo.ok()) << zoo.status().message();
  const std::map<std::string, int64_t> from_onnx = task_counts(*onnx);
  const std::map<std::string, int64_t> from_zoo = task_counts(*zoo);
  ASSERT_FALSE(from_zoo.empty());
  for (const auto& [key, count] : from_zoo) {
    auto it = from_onnx.find(key);
    EXPECT_TRUE(it != from_onnx.end() && it->second == count)
        << key << ": zoo " << count << ", onnx " << (it == from_onnx.end() ? 0 : it->second);
  }
  for (const auto& [key, count] : from_onnx) {
    EXPECT_TRUE(from_zoo.count(key) != 0) << key << " (x" << count << ") only in the ONNX import";
  }

  Result<Graph> onnx4 = import_onnx(path, {.batch = 4});
  ASSERT_TRUE(onnx4.ok()) << onnx4.status().message();
  Result<Graph> zoo4 = build_model(GetParam(), {.batch = 4});
  ASSERT_TRUE(zoo4.ok()) << zoo4.status().message();
  EXPECT_EQ(onnx4->batch(), 4);
  EXPECT_EQ(task_counts(*onnx4), task_counts(*zoo4));
}

INSTANTIATE_TEST_SUITE_P(Models, TorchvisionExport,
                         ::testing::Values("resnet18", "squeezenet1_1", "mobilenet_v2", "inception_v3"));

TEST(TransformerExport, DecomposedAndNativeLayerNormGiveTheSameTasks) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tp_onnx_transformer_" + std::to_string(::getpid()));
  const std::string cmd = std::string("/usr/bin/python3 ") + TENSORPERF_SOURCE_DIR +
                          "/tests/ir/onnx/export_transformer.py " + dir.string() + " 13 17 > /dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  Result<Graph> g13 = import_onnx((dir / "transformer_13.onnx").string());
  Result<Graph> g17 = import_onnx((dir / "transformer_17.onnx").string());
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  ASSERT_TRUE(g13.ok()) << g13.status().message();
  ASSERT_TRUE(g17.ok()) << g17.status().message();
  const std::map<std::string, int64_t> tasks = task_counts(*g17);
  EXPECT_EQ(task_counts(*g13), tasks);
  // Two layer norms, the feed-forward's GELU fused into its first dense, attention as batch_matmul.
  int64_t layer_norms = 0, gelu_dense = 0, batch_matmuls = 0;
  for (const auto& [key, count] : tasks) {
    if (key.rfind("layer_norm|", 0) == 0) layer_norms += count;
    if (key.rfind("dense|", 0) == 0 && key.find("gelu") != std::string::npos) gelu_dense += count;
    if (key.rfind("batch_matmul|", 0) == 0) batch_matmuls += count;
  }
  EXPECT_EQ(layer_norms, 2);
  EXPECT_EQ(gelu_dense, 1);
  EXPECT_EQ(batch_matmuls, 2);
}

}  // namespace
}  // namespace tensorperf::ir
