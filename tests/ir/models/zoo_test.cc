#include "ir/models/zoo.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "model_test_util.h"

namespace tensorperf::ir {
namespace {

using models::testing::anchor_macs;

TEST(ZooTest, ListsEveryModelOnceInAStableOrder) {
  std::vector<std::string> names;
  for (const ModelInfo& m : zoo_models()) {
    names.push_back(m.name);
    EXPECT_FALSE(m.description.empty()) << m.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"resnet18", "resnet50", "vgg16", "inception_v3", "squeezenet1_1",
                                             "mobilenet_v2", "nasnet_a_mobile", "randwire", "bert_base"}));
}

TEST(ZooTest, UnknownModelIsNotFoundAndNamesTheKnownOnes) {
  Result<Graph> g = build_model("resnet19");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kNotFound);
  EXPECT_NE(g.status().message().find("resnet19"), std::string::npos);
  EXPECT_NE(g.status().message().find("resnet18"), std::string::npos);
}

TEST(ZooTest, BatchBelowOneIsInvalidArgument) {
  for (const ModelInfo& m : zoo_models()) {
    Result<Graph> g = build_model(m.name, {.batch = 0});
    ASSERT_FALSE(g.ok()) << m.name;
    EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument) << m.name;
  }
}

class EveryModel : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryModel, ValidatesAtBatch1And4AndScalesWithBatch) {
  Result<Graph> one = build_model(GetParam(), {.batch = 1});
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  Result<Graph> four = build_model(GetParam(), {.batch = 4});
  ASSERT_TRUE(four.ok()) << four.status().ToString();
  for (const Graph* g : {&*one, &*four}) {
    EXPECT_TRUE(g->validate().ok()) << g->validate().ToString();
    EXPECT_EQ(g->name(), GetParam());
    ASSERT_EQ(g->outputs().size(), 1u);
  }
  EXPECT_EQ(one->batch(), 1);
  EXPECT_EQ(four->batch(), 4);
  EXPECT_EQ(four->type(four->outputs()[0]).shape.at(0), 4);
  EXPECT_EQ(one->nodes().size(), four->nodes().size());
  EXPECT_DOUBLE_EQ(anchor_macs(*four), 4 * anchor_macs(*one));
}

TEST_P(EveryModel, NodeAndValueNamesAreUnique) {
  Result<Graph> g = build_model(GetParam());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  std::set<std::string> nodes;
  for (const Node& n : g->nodes()) EXPECT_TRUE(nodes.insert(n.name).second) << "node " << n.name;
  std::set<std::string> values;
  for (const Value& v : g->values()) EXPECT_TRUE(values.insert(v.name).second) << "value " << v.name;
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const ModelInfo& m : zoo_models()) names.push_back(m.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Zoo, EveryModel, ::testing::ValuesIn(model_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace tensorperf::ir
