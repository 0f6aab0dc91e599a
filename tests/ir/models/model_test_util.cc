#include "model_test_util.h"

#include <gtest/gtest.h>

#include <vector>

#include "ir/models/zoo.h"
#include "ir/op_kind.h"
#include "ir/task_extraction.h"

namespace tensorperf::ir::models::testing {

double anchor_macs(const Graph& g) {
  Result<std::vector<Task>> tasks = extract_tasks(g);
  EXPECT_TRUE(tasks.ok()) << tasks.status().ToString();
  if (!tasks.ok()) return -1;
  double total = 0;
  for (const Task& t : *tasks) {
    if (op_category(t.workload.op) == OpCategory::kAnchor) total += t.total_flops() / 2;
  }
  return total;
}

int64_t count_nodes(const Graph& g, OpKind op) {
  int64_t n = 0;
  for (const Node& node : g.nodes()) n += node.op == op ? 1 : 0;
  return n;
}

void expect_macs(const std::string& name, const ModelOptions& options, double torchvision_macs, double published_gmac) {
  Result<Graph> g = build_model(name, options);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const double macs = anchor_macs(*g);
  EXPECT_EQ(macs, torchvision_macs) << name << " at image size " << options.image_size;
  if (published_gmac > 0) {
    EXPECT_NEAR(macs / 1e9, published_gmac, 0.01 * published_gmac) << name;
  }
}

}  // namespace tensorperf::ir::models::testing
