#include "base/atomic_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace tensorperf {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tp-atomic-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(AtomicFileTest, ReplacesTheFileOnlyOnCommit) {
  const fs::path out = dir_ / "out.txt";
  std::ofstream(out) << "old\n";
  {
    auto f = AtomicFile::create(out.string());
    ASSERT_TRUE(f.ok()) << f.status().message();
    f->stream() << "new\n";
    EXPECT_EQ(slurp(out), "old\n");  // not before commit
    ASSERT_TRUE(f->commit().ok());
  }
  EXPECT_EQ(slurp(out), "new\n");
  {
    auto f = AtomicFile::create(out.string());
    ASSERT_TRUE(f.ok());
    f->stream() << "abandoned, half written";
  }  // a write that fails or is abandoned leaves the file as it was, and no temporary file
  EXPECT_EQ(slurp(out), "new\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(AtomicFileTest, ADirectoryOrAMissingDirectoryIsAnError) {
  EXPECT_FALSE(AtomicFile::create(dir_.string()).ok());
  EXPECT_FALSE(AtomicFile::create((dir_ / "no" / "such" / "dir" / "f").string()).ok());
  EXPECT_FALSE(AtomicFile::create("").ok());
}

TEST_F(AtomicFileTest, SameFileSeesThroughLinksAndDots) {
  const fs::path a = dir_ / "a.db";
  std::ofstream(a) << "x";
  fs::create_symlink(a, dir_ / "link.db");
  EXPECT_TRUE(same_file(a.string(), (dir_ / "link.db").string()));
  EXPECT_TRUE(same_file(a.string(), (dir_ / "." / "a.db").string()));
  EXPECT_TRUE(same_file((dir_ / "new.db").string(), (dir_ / "sub" / ".." / "new.db").string()));
  EXPECT_FALSE(same_file(a.string(), (dir_ / "b.db").string()));
}

}  // namespace
}  // namespace tensorperf
