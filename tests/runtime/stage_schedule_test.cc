// Stage schedules: JSON round trip, field errors, and validation against an operator list.
#include "runtime/stage_schedule.h"

#include <gtest/gtest.h>

namespace tensorperf::runtime {
namespace {

// a -> b -> d, a -> c -> d
const std::vector<std::string> kNames = {"a", "b", "c", "d"};
const std::vector<std::vector<int>> kPreds = {{}, {0}, {0}, {1, 2}};

StageSchedule diamond() {
  StageSchedule s;
  s.model = "diamond";
  s.graph = "4-0000000000000000";
  s.threads = 2;
  s.stages = {Stage{{StageGroup{2, {"a"}}}}, Stage{{StageGroup{1, {"b"}}, StageGroup{1, {"c"}}}},
              Stage{{StageGroup{2, {"d"}}}}};
  return s;
}

TEST(StageSchedule, JsonRoundTrip) {
  StageSchedule s = diamond();
  s.merges = {MergeSpec{"merge:b+c", {"b", "c"}}};
  s.configs["w1"] = ChosenConfig{kernels::Config{"onednn", {{"block", 16}}}, ConfigSource::kTuned, "dev-t2", 0};
  Result<StageSchedule> back = schedule_from_json(schedule_to_json(s));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(schedule_to_json(*back), schedule_to_json(s));
  EXPECT_EQ(back->num_ops(), 4);
  EXPECT_EQ(back->configs.at("w1").source, ConfigSource::kTuned);
}

TEST(StageSchedule, MalformedFieldsAreNamed) {
  nlohmann::json j = schedule_to_json(diamond());
  j["stages"][1]["groups"][0]["threads"] = 0;
  Result<StageSchedule> r = schedule_from_json(j);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("stages[1].groups[0].threads"), std::string::npos) << r.status().message();
  j = schedule_to_json(diamond());
  j["format"] = 2;
  EXPECT_FALSE(schedule_from_json(j).ok());
  j = schedule_to_json(diamond());
  j.erase("graph");
  EXPECT_FALSE(schedule_from_json(j).ok());
}

TEST(StageSchedule, ValidationCatchesEachViolation) {
  EXPECT_TRUE(validate_schedule(diamond(), kNames, kPreds, 2).ok());
  EXPECT_TRUE(validate_schedule(sequential_schedule(kNames, 2), kNames, kPreds, 2).ok());
  struct Case {
    std::function<void(StageSchedule&)> edit;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](StageSchedule& s) { s.stages[1].groups[1].ops = {"b"}; }, "twice"},
      {[](StageSchedule& s) { s.stages[2].groups[0].ops = {"e"}; }, "does not have"},
      {[](StageSchedule& s) { s.stages.pop_back(); }, "does not run operator 'd'"},
      {[](StageSchedule& s) { std::swap(s.stages[0], s.stages[1]); }, "before or beside its input"},
      {[](StageSchedule& s) { s.stages[1].groups[0].threads = 2; }, "uses 3 threads"},
      {[](StageSchedule& s) { s.stages[1] = Stage{{StageGroup{1, {"b"}}, StageGroup{1, {"c", "d"}}}}, s.stages.pop_back(); },
       "before or beside its input"},
  };
  for (const Case& c : cases) {
    StageSchedule s = diamond();
    c.edit(s);
    Status st = validate_schedule(s, kNames, kPreds, 2);
    ASSERT_FALSE(st.ok()) << c.message;
    EXPECT_NE(st.message().find(c.message), std::string::npos) << st.message();
  }
  // Within one group, order is what counts: b then d in one group is fine after a and c.
  StageSchedule s;
  s.graph = "x";
  s.stages = {Stage{{StageGroup{1, {"a"}}}}, Stage{{StageGroup{1, {"c"}}}}, Stage{{StageGroup{1, {"b", "d"}}}}};
  EXPECT_TRUE(validate_schedule(s, kNames, kPreds, 1).ok());
}

}  // namespace
}  // namespace tensorperf::runtime
