#include "ir/tensor_type.h"

#include <gtest/gtest.h>

namespace tensorperf::ir {
namespace {

TEST(TensorType, ToStringAndBack) {
  TensorType t{{1, 64, 56, 56}, DType::kFloat32};
  EXPECT_EQ(t.to_string(), "float32[1,64,56,56]");
  EXPECT_EQ(t.num_elements(), 64 * 56 * 56);
  EXPECT_EQ(t.num_bytes(), 4 * 64 * 56 * 56);
  auto back = parse_tensor_type(t.to_string());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, t);
}

TEST(TensorType, ScalarAndOtherDtypes) {
  auto s = parse_tensor_type("int8[]");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->rank(), 0);
  EXPECT_EQ(s->num_elements(), 1);
  EXPECT_EQ(s->dtype, DType::kInt8);
  EXPECT_EQ(parse_tensor_type("float16[2,3]")->num_bytes(), 12);
}

TEST(TensorType, RejectsMalformed) {
  for (const char* bad : {"float32", "float32[1,", "float33[1]", "float32[1,,2]", "float32[-1]", "float32[1,2,]", "[1]"}) {
    auto r = parse_tensor_type(bad);
    EXPECT_FALSE(r.ok()) << bad;
  }
}

}  // namespace
}  // namespace tensorperf::ir
