// The shared TVM logs (TopHub and TVM's own): every line imports, export --all re-creates the record
// lines, export --best picks what TVM's apply_history_best would.
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "db/exporter.h"
#include "db/importer.h"
#include "store_test.h"

namespace tensorperf::testing {
namespace {

using TvmLogsTest = StoreTest;

std::string export_text(db::RecordStore& store, db::ExportSelection selection) {
  std::ostringstream out;
  db::ExportOptions options;
  options.selection = selection;
  auto n = db::export_records(store, options, out);
  EXPECT_TRUE(n.ok()) << n.status().message();
  return out.str();
}

TEST_P(TvmLogsTest, EveryFileImportsAndExportAllRecreatesItsRecordLines) {
  std::vector<std::string> files = tvm_log_files();
  ASSERT_GE(files.size(), 10u) << "shared TVM logs not found beside the repository";
  auto store = open();
  ASSERT_TRUE(store);
  std::string expected;
  std::set<std::string> seen;
  for (const std::string& f : files) {
    std::vector<std::string> problems;
    auto report = db::import_file(*store, f, {}, [&](const std::string& p) { problems.push_back(p); });
    ASSERT_TRUE(report.ok()) << report.status().message();
    EXPECT_EQ(report->skipped, 0) << f << ": " << (problems.empty() ? "" : problems[0]);
    std::vector<std::string> lines = record_lines(f);
    EXPECT_EQ(report->records, static_cast<int64_t>(lines.size())) << f;
    for (const std::string& l : lines)
      if (seen.insert(l).second) expected += l + "\n";
  }
  EXPECT_EQ(export_text(*store, db::ExportSelection::kAll), expected);
  auto stats = store->stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->records, static_cast<int64_t>(seen.size()));
}

// apply_history_best's rule, computed independently from the raw JSON: per (target key, workload)
// and (model, workload) the error-free record of lowest mean cost, the earlier on a tie.
std::vector<std::string> expected_best(const std::vector<std::string>& lines) {
  struct Best {
    size_t index;
    double cost;
  };
  std::map<std::pair<std::string, std::string>, Best> best;
  for (size_t i = 0; i < lines.size(); ++i) {
    auto j = nlohmann::json::parse(lines[i]);
    bool v02 = j.contains("input");
    const auto& input = v02 ? j["input"] : j["i"];
    const auto& result = v02 ? j["result"] : j["r"];
    if (result[1].get<int>() != 0) continue;
    double sum = 0;
    for (const auto& c : result[0]) sum += c.get<double>();
    double cost = sum / static_cast<double>(result[0].size());
    nlohmann::json wl = nlohmann::json::array({input[1]});
    for (const auto& a : input[2]) wl.push_back(a);
    db::DeviceDescription target = db::describe_tvm_target(input[0].get<std::string>());
    std::vector<std::string> groups;
    for (const auto& k : target.keys) groups.push_back("key:" + k);
    if (!target.model.empty()) groups.push_back("model:" + target.model);
    for (const auto& g : groups) {
      auto [it, inserted] = best.try_emplace({g, wl.dump()}, Best{i, cost});
      if (!inserted && it->second.cost > cost) it->second = Best{i, cost};
    }
  }
  std::set<size_t> picked;
  for (const auto& [key, b] : best) picked.insert(b.index);
  std::vector<std::string> out;
  for (size_t i : picked) out.push_back(lines[i]);
  return out;
}

TEST_P(TvmLogsTest, ExportBestPicksTheLowestMeanCostPerTargetKeyAndModel) {
  auto store = open();
  ASSERT_TRUE(store);
  std::vector<std::string> all;
  std::set<std::string> seen;
  for (const std::string& f : tvm_log_files()) {
    if (f.find("/autotvm/") == std::string::npos) continue;
    auto report = db::import_file(*store, f, {}, {});
    ASSERT_TRUE(report.ok()) << report.status().message();
    for (const std::string& l : record_lines(f))
      if (seen.insert(l).second) all.push_back(l);
  }
  ASSERT_GT(all.size(), 2000u);
  std::vector<std::string> expected = expected_best(all);
  std::string text = export_text(*store, db::ExportSelection::kBest);
  std::vector<std::string> exported;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) exported.push_back(l);
  EXPECT_EQ(exported.size(), expected.size());
  EXPECT_TRUE(exported == expected) << "export --best differs from apply_history_best's choice";
}

TP_INSTANTIATE_BACKENDS(TvmLogsTest);

}  // namespace
}  // namespace tensorperf::testing
