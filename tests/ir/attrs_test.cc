#include "ir/attrs.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tensorperf::ir {
namespace {

TEST(Attrs, CanonicalTextIsSortedAndTyped) {
  Attrs a;
  a.set("strides", std::vector<int64_t>{2, 2}).set("groups", int64_t{1}).set("epsilon", 1.0).set("layout", std::string("NC;HW"));
  EXPECT_EQ(a.to_string(), "epsilon=1.0;groups=1;layout=\"NC;HW\";strides=[2,2]");
}

TEST(Attrs, RoundTrip) {
  Attrs a{{"pads", std::vector<int64_t>{1, 0, 1, 0}}, {"eps", 1e-5}, {"axis", int64_t{-1}},
          {"name", std::string("a\"b\\c")}, {"empty", std::vector<int64_t>{}}, {"one", std::vector<int64_t>{7}}};
  auto b = parse_attrs(a.to_string());
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(*b, a);
  EXPECT_EQ(b->get_ints("one", {}), std::vector<int64_t>{7});
  EXPECT_EQ(b->get_int("axis", 0), -1);
  EXPECT_DOUBLE_EQ(b->get_float("eps", 0), 1e-5);
}

TEST(Attrs, GettersFallBackAndCheckTypes) {
  Attrs a{{"k", int64_t{3}}};
  EXPECT_EQ(a.get_int("missing", 42), 42);
  EXPECT_DOUBLE_EQ(a.get_float("k", 0), 3.0);  // ints read as floats
  EXPECT_THROW(a.get_ints("k", {}), std::logic_error);
}

TEST(Attrs, ParseRejectsMalformed) {
  for (const char* bad : {"a", "=1", "a=", "a=[1,2", "a=\"x", "a=1x", "a=1;;b=2", "a=[1,x]"}) {
    EXPECT_FALSE(parse_attrs(bad).ok()) << bad;
  }
  EXPECT_TRUE(parse_attrs("").ok());
}

}  // namespace
}  // namespace tensorperf::ir
