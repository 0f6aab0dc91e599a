#include "runtime/tensor_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace tensorperf::runtime {
namespace {

ir::TensorData sample() {
  ir::TensorData t;
  t.name = "x";
  t.type = ir::TensorType{{2, 3, 5}, ir::DType::kFloat32};
  t.bytes.resize(t.type.num_bytes());
  float* f = reinterpret_cast<float*>(t.bytes.data());
  for (int i = 0; i < 30; ++i) f[i] = 0.5f * i - 3;
  return t;
}

class TensorFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("tp_tensor_file_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(TensorFileTest, NpyAndPbRoundTrip) {
  for (const std::string name : {"a.npy", "a.pb"}) {
    ASSERT_TRUE(write_tensor_file(path(name), sample()).ok()) << name;
    Result<ir::TensorData> back = read_tensor_file(path(name));
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(back->type, sample().type) << name;
    EXPECT_EQ(back->bytes, sample().bytes) << name;
  }
}

TEST_F(TensorFileTest, NumpyReadsWhatWeWriteAndWeReadWhatNumpyWrites) {
  ASSERT_TRUE(write_tensor_file(path("ours.npy"), sample()).ok());
  const std::string cmd = "/usr/bin/python3 -c \"import numpy as np; a = np.load('" + path("ours.npy") +
                          "'); assert a.shape == (2, 3, 5) and a.dtype == np.float32 and a[1, 2, 4] == 0.5 * 29 - 3; "
                          "np.save('" + path("theirs.npy") + "', np.arange(24, dtype=np.float32).reshape(2, 3, 4))\"";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  Result<ir::TensorData> t = read_tensor_file(path("theirs.npy"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->type.to_string(), "float32[2,3,4]");
  EXPECT_EQ(reinterpret_cast<const float*>(t->bytes.data())[23], 23.0f);
}

TEST_F(TensorFileTest, MalformedFilesAreOneLineErrorsNamingTheFile) {
  std::string good = npy_bytes(sample());
  auto check_error = [&](std::string bytes, const std::string& expect) {
    Result<ir::TensorData> r = parse_npy(bytes, "f.npy");
    ASSERT_FALSE(r.ok()) << expect;
    EXPECT_NE(r.status().message().find(expect), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("f.npy"), std::string::npos);
    EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  };
  check_error("hello", "not a .npy file");
  check_error(good.substr(0, good.size() - 4), "needs 120");
  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  check_error(fortran, "Fortran order");
  std::string f64 = good;
  f64.replace(f64.find("<f4"), 3, "<f8");
  check_error(f64, "element type '<f8'");
  EXPECT_EQ(read_tensor_file(path("missing.npy")).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(read_tensor_file(path("x.txt")).status().code(), StatusCode::kInvalidArgument);
  std::ofstream(path("junk.pb")) << "not a proto at all \xff\xff\xff";
  EXPECT_FALSE(read_tensor_file(path("junk.pb")).ok());
}

}  // namespace
}  // namespace tensorperf::runtime
