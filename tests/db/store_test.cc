#include "store_test.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "db/line_parser.h"
#include "pg_server.h"

namespace tensorperf::testing {

std::string backend_test_name(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kSqlite ? "Sqlite" : "Postgres";
}

void StoreTest::SetUp() {
  char tmpl[] = "/tmp/tensorperf-db-test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  temp_dir_ = tmpl;
  if (GetParam() == Backend::kSqlite) {
    url_ = temp_dir_ + "/store.db";
    return;
  }
  Result<PgServer*> server = shared_pg_server();
  ASSERT_TRUE(server.ok()) << "PostgreSQL test server did not start: " << server.status().message();
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = "t" + std::to_string(getpid()) + "_" + info->name();
  std::string db;
  for (char c : name) db.push_back(std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_');
  db = db.substr(0, 60);
  Result<std::string> url = (*server)->create_database(db);
  ASSERT_TRUE(url.ok()) << url.status().message();
  url_ = *url;
}

void StoreTest::TearDown() {
  std::error_code ec;
  if (!temp_dir_.empty()) std::filesystem::remove_all(temp_dir_, ec);
}

std::unique_ptr<db::RecordStore> StoreTest::open() {
  auto store = db::open_store(url_, db::OpenMode::kCreate);
  EXPECT_TRUE(store.ok()) << store.status().message();
  return store.ok() ? std::move(store).value() : nullptr;
}

std::vector<std::string> tvm_log_files() {
  std::vector<std::string> files;
  std::filesystem::path root = std::filesystem::path(TENSORPERF_TVM_LOGS);
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root, ec))
    if (e.is_regular_file()) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> record_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::istringstream in(read_file(path));
  std::string line;
  while (std::getline(in, line))
    if (!db::is_skippable_line(line)) lines.push_back(line);
  return lines;
}

}  // namespace tensorperf::testing
