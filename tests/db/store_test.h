// Test fixture running one suite against both backends: each test gets a fresh, empty store (a
// SQLite file in a temp dir, or a new database on the process's shared PostgreSQL server).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "db/record_store.h"

namespace tensorperf::testing {

enum class Backend { kSqlite, kPostgres };

class StoreTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override;
  void TearDown() override;
  // Opens the test's store (kCreate); FAILs the test when it cannot.
  std::unique_ptr<db::RecordStore> open();

  std::string url_;       // the test's store
  std::string temp_dir_;  // scratch files of the test (removed at the end)
};

std::string backend_test_name(const ::testing::TestParamInfo<Backend>& info);

// Every file under the TVM logs folder (the TENSORPERF_TVM_LOGS CMake cache path; sorted), and its
// record lines (comments and blank lines dropped) in order.
std::vector<std::string> tvm_log_files();
std::vector<std::string> record_lines(const std::string& path);
std::string read_file(const std::string& path);

}  // namespace tensorperf::testing

#define TP_INSTANTIATE_BACKENDS(Suite)                                                                     \
  INSTANTIATE_TEST_SUITE_P(Backends, Suite,                                                                \
                           ::testing::Values(::tensorperf::testing::Backend::kSqlite,                     \
                                             ::tensorperf::testing::Backend::kPostgres),                  \
                           ::tensorperf::testing::backend_test_name)
