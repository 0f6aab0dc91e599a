#include "db/record_store.h"

#include <sqlite3.h>
#include <zstd.h>

#include <fstream>
#include <map>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "db/best_configs.h"
#include "db/exporter.h"
#include "db/importer.h"
#include "store_test.h"

namespace tensorperf::testing {
namespace {

using db::OpenMode;

std::string v02(const std::string& target, int arg, double cost, int index, int error_no = 0) {
  std::ostringstream s;
  s.precision(17);
  s << R"({"input": [")" << target << R"(", "dense.x86", [["TENSOR", [1, )" << arg << R"(], "float32"]], {}], )"
    << R"("config": {"index": )" << index << R"(, "code_hash": null, "entity": []}, "result": [[)";
  if (error_no == 0) s << cost; else s << R"("error")";
  s << "], " << error_no << R"(, 1.0, 1600000000.5], "version": 0.2, "tvm_version": "0.7.dev0"})";
  return s.str();
}

std::string workload(int arg) { return R"(["dense.x86",["TENSOR",[1,)" + std::to_string(arg) + R"(],"float32"]])"; }

db::ImportReport import_text(db::RecordStore& store, const std::string& text, std::vector<std::string>* problems = nullptr,
                             db::ImportOptions options = {}) {
  std::istringstream in(text);
  auto report = db::import_stream(store, in, "input.log", options, [&](const std::string& p) {
    if (problems) problems->push_back(p);
  });
  EXPECT_TRUE(report.ok()) << report.status().message();
  return report.ok() ? *report : db::ImportReport{};
}

std::string export_text(db::RecordStore& store, db::ExportSelection selection) {
  std::ostringstream out;
  db::ExportOptions options;
  options.selection = selection;
  auto n = db::export_records(store, options, out);
  EXPECT_TRUE(n.ok()) << n.status().message();
  return out.str();
}

using RecordStoreTest = StoreTest;

TEST_P(RecordStoreTest, ImportIsIdempotentAndDuplicatesAreStoredOnce) {
  auto store = open();
  ASSERT_TRUE(store);
  std::string a = v02("llvm -mcpu=core-avx2", 64, 2e-3, 1), b = v02("llvm -mcpu=core-avx2", 64, 1e-3, 2);
  std::string text = "# comment\n" + a + "\n" + b + "\n" + a + "\n\n";
  db::ImportReport first = import_text(*store, text);
  EXPECT_EQ(first.lines, 5);
  EXPECT_EQ(first.records, 3);
  EXPECT_EQ(first.inserted, 2);
  EXPECT_EQ(first.duplicates, 1);
  db::ImportReport second = import_text(*store, text);
  EXPECT_EQ(second.inserted, 0);
  EXPECT_EQ(second.duplicates, 3);
  EXPECT_EQ(export_text(*store, db::ExportSelection::kAll), a + "\n" + b + "\n");
  auto stats = store->stats();
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->records, 2);
  EXPECT_EQ(stats->configs, 2);
  EXPECT_EQ(stats->workloads, 1);
  EXPECT_EQ(stats->devices, 1);
  EXPECT_EQ(stats->schema_version, GetParam() == Backend::kSqlite ? 3 : 2);
}

TEST_P(RecordStoreTest, BestConfigsRankByMeanCostWithTiesToTheEarlierRecord) {
  auto store = open();
  ASSERT_TRUE(store);
  const std::string t = "llvm -mcpu=core-avx2";
  import_text(*store, v02(t, 64, 3e-3, 1) + "\n" + v02(t, 64, 1e-3, 2) + "\n" + v02(t, 64, 0, 3, 4) + "\n" +
                          v02(t, 64, 1e-3, 4) + "\n" + v02(t, 32, 1e-4, 5) + "\n");
  auto best = db::best_configs(*store, workload(64), t, 3);
  ASSERT_TRUE(best.ok()) << best.status().message();
  EXPECT_EQ(best->match, db::DeviceMatch::kExact);
  ASSERT_EQ(best->records.size(), 3u);
  EXPECT_THAT(best->records[0].config, ::testing::HasSubstr("\"index\":2"));
  EXPECT_THAT(best->records[1].config, ::testing::HasSubstr("\"index\":4"));
  EXPECT_THAT(best->records[2].config, ::testing::HasSubstr("\"index\":1"));
  EXPECT_DOUBLE_EQ(*best->records[0].mean_cost, 1e-3);
  auto none = db::best_configs(*store, workload(16), t, 3);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->records.empty());
}

TEST_P(RecordStoreTest, BestConfigsFallBackToModelThenTargetKeyAndSaySo) {
  auto store = open();
  ASSERT_TRUE(store);
  import_text(*store, v02("llvm -device=arm_cpu -model=rk3399 -mattr=+neon", 64, 2e-3, 1) + "\n" +
                          v02("llvm -device=arm_cpu -model=pynq", 64, 1e-3, 2) + "\n" +
                          v02("llvm -mcpu=core-avx2", 64, 1e-4, 3) + "\n");
  auto by_model = db::best_configs(*store, workload(64), "llvm -device=arm_cpu -model=rk3399", 1);
  ASSERT_TRUE(by_model.ok()) << by_model.status().message();
  EXPECT_EQ(by_model->match, db::DeviceMatch::kModel);
  EXPECT_EQ(by_model->matched_on, "rk3399");
  ASSERT_EQ(by_model->records.size(), 1u);
  EXPECT_EQ(by_model->records[0].device_key, "llvm -device=arm_cpu -model=rk3399 -mattr=+neon");

  auto by_key = db::best_configs(*store, workload(64), "llvm -device=arm_cpu -model=rpi4", 5);
  ASSERT_TRUE(by_key.ok());
  EXPECT_EQ(by_key->match, db::DeviceMatch::kTargetKey);
  EXPECT_EQ(by_key->matched_on, "arm_cpu");
  ASSERT_EQ(by_key->records.size(), 2u);
  EXPECT_EQ(by_key->records[0].device_key, "llvm -device=arm_cpu -model=pynq");

  auto cpu = db::best_configs(*store, workload(64), "llvm -mcpu=znver3", 1);
  ASSERT_TRUE(cpu.ok());
  EXPECT_EQ(cpu->match, db::DeviceMatch::kTargetKey);
  EXPECT_EQ(cpu->matched_on, "cpu");
  EXPECT_EQ(cpu->records[0].device_key, "llvm -mcpu=core-avx2");

  auto gpu = db::best_configs(*store, workload(64), "cuda -model=titanx", 1);
  ASSERT_TRUE(gpu.ok());
  EXPECT_TRUE(gpu->records.empty());
}

// best_configs_elsewhere skips the device's own records, however good, and falls back as above.
TEST_P(RecordStoreTest, BestConfigsElsewhereSkipTheDevicesOwnRecords) {
  auto store = open();
  ASSERT_TRUE(store);
  import_text(*store, v02("llvm -device=arm_cpu -model=rk3399", 64, 1e-5, 1) + "\n" +
                          v02("llvm -device=arm_cpu -model=rk3399 -mattr=+neon", 64, 2e-3, 2) + "\n" +
                          v02("llvm -device=arm_cpu -model=pynq", 64, 1e-3, 3) + "\n");
  auto own = db::best_configs(*store, workload(64), "llvm -device=arm_cpu -model=rk3399", 3);
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(own->match, db::DeviceMatch::kExact);
  auto elsewhere = db::best_configs_elsewhere(*store, workload(64), "llvm -device=arm_cpu -model=rk3399", 3);
  ASSERT_TRUE(elsewhere.ok()) << elsewhere.status().message();
  EXPECT_EQ(elsewhere->match, db::DeviceMatch::kModel);
  ASSERT_EQ(elsewhere->records.size(), 1u);
  EXPECT_EQ(elsewhere->records[0].device_key, "llvm -device=arm_cpu -model=rk3399 -mattr=+neon");
  auto none = db::best_configs_elsewhere(*store, workload(64), "llvm -device=arm_cpu -model=pynq", 0);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->records.empty());
}

measure::Record native(int i) {
  measure::Record r;
  r.workload_key = "conv2d|n1|c" + std::to_string(i % 3);
  r.device_key = i % 2 ? "x86_64-avx2-fma-amd-epyc-7b13-t2" : "x86_64-avx2-fma-amd-epyc-7b13-t1";
  r.target = "x86-64-linux-avx2-fma";
  r.provider = "halide";
  r.config = {{"tile_x", i}, {"vectorize", i % 2 == 0}};
  if (i % 5 == 4) {
    r.error = measure::ErrorCode::kWrongAnswerError;
    r.error_msg = "max abs diff 0.5";
  } else {
    r.costs = {1e-3 * (i + 1), 1.1e-3 * (i + 1)};
  }
  r.build_time_s = 0.25;
  r.run_time_s = 0.5;
  r.timestamp = 1700000000.125 + i;
  if (i % 3 == 0) r.load = 0.25 * i;  // the machine's load is kept by newer records only
  return r;
}

TEST_P(RecordStoreTest, NativeRecordsRoundTripLosslessly) {
  auto store = open();
  ASSERT_TRUE(store);
  std::string expected;
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(db::add_record(*store, native(i)).ok());
    expected += measure::record_to_line(native(i)) + "\n";
  }
  std::string exported = export_text(*store, db::ExportSelection::kAll);
  EXPECT_EQ(exported, expected);
  // Importing the export into a second store gives the same export again.
  auto again = db::open_store(temp_dir_ + "/copy.db", OpenMode::kCreate);
  ASSERT_TRUE(again.ok());
  db::ImportReport report = import_text(**again, exported);
  EXPECT_EQ(report.inserted, 10);
  EXPECT_EQ(export_text(**again, db::ExportSelection::kAll), expected);
  std::istringstream lines(exported);
  std::string line;
  for (int i = 0; std::getline(lines, line); ++i) {
    auto r = measure::record_from_line(line);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(measure::record_to_json(*r), measure::record_to_json(native(i)));
    EXPECT_EQ(r->load, native(i).load);
    EXPECT_EQ(line.find("\"load\"") != std::string::npos, i % 3 == 0) << line;
  }
  auto negative = measure::record_from_line(R"({"config":{},"input":{"device":"d","provider":"p","target":"t",)"
                                            R"("workload":"w"},"result":{"build_time":0,"costs":[1],"error_msg":"",)"
                                            R"("error_no":0,"load":-2,"run_time":0,"timestamp":0},)"
                                            R"("version":{"format":1,"tensorperf":"0.1.0"}})");
  EXPECT_EQ(negative.status().code(), StatusCode::kCorruption);
  // Same ISA level on the other thread count is the closest device.
  auto best = db::best_configs(*store, "conv2d|n1|c0", "x86_64-avx2-fma-amd-epyc-7b13-t1", 1);
  ASSERT_TRUE(best.ok());
  EXPECT_EQ(best->match, db::DeviceMatch::kExact);
  EXPECT_EQ(best->records.at(0).config, R"({"tile_x":0,"vectorize":true})");
}

// Record files compressed with zstd (how shipped datasets are committed) import like plain ones; a
// damaged one is a Corruption error naming the file.
TEST_P(RecordStoreTest, ZstdCompressedFilesImport) {
  auto store = open();
  ASSERT_TRUE(store);
  std::string text;
  for (int i = 0; i < 10; ++i) text += measure::record_to_line(native(i)) + "\n";
  std::string packed(ZSTD_compressBound(text.size()), '\0');
  const size_t n = ZSTD_compress(packed.data(), packed.size(), text.data(), text.size(), 3);
  ASSERT_FALSE(ZSTD_isError(n));
  packed.resize(n);
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream out(temp_dir_ + "/" + name, std::ios::binary);
    out << bytes;
    return temp_dir_ + "/" + name;
  };
  auto report = db::import_file(*store, write("records.jsonl.zst", packed), db::ImportOptions{}, {});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->inserted, 10);
  EXPECT_EQ(export_text(*store, db::ExportSelection::kAll), text);
  auto truncated = db::import_file(*store, write("cut.jsonl.zst", packed.substr(0, packed.size() / 2)), {}, {});
  EXPECT_EQ(truncated.status().code(), StatusCode::kCorruption);
  EXPECT_NE(truncated.status().message().find("cut.jsonl.zst"), std::string::npos);
  auto garbage = db::import_file(*store, write("plain.zst", text), {}, {});
  EXPECT_EQ(garbage.status().code(), StatusCode::kCorruption);
}

TEST_P(RecordStoreTest, MalformedLinesAreReportedWithFileAndLineThenSkipped) {
  auto store = open();
  ASSERT_TRUE(store);
  std::string good = v02("llvm", 8, 1e-3, 1);
  std::vector<std::string> problems;
  db::ImportReport r = import_text(*store, good + "\n{not json\n# fine\n{\"i\": 3, \"r\": []}\n", &problems);
  EXPECT_EQ(r.skipped, 2);
  EXPECT_EQ(r.inserted, 1);
  EXPECT_THAT(problems, ::testing::ElementsAre("input.log:2: not valid JSON", "input.log:4: \"i\" is not an array"));

  std::istringstream in(v02("llvm", 9, 1e-3, 1) + "\n{not json\n");
  db::ImportOptions strict;
  strict.strict = true;
  auto failed = db::import_stream(*store, in, "strict.log", strict, {});
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.status().message(), ::testing::HasSubstr("strict.log:2: not valid JSON"));
}

TEST_P(RecordStoreTest, ListsDevicesAndWorkloadsWithCounts) {
  auto store = open();
  ASSERT_TRUE(store);
  import_text(*store, v02("cuda -model=titanx", 8, 1e-3, 1) + "\n" + v02("cuda -model=titanx", 16, 2e-3, 1) + "\n" +
                          v02("llvm", 8, 0, 2, 7) + "\n");
  auto devices = store->devices();
  ASSERT_TRUE(devices.ok()) << devices.status().message();
  ASSERT_EQ(devices->size(), 2u);
  EXPECT_EQ((*devices)[0].device.key, "cuda -model=titanx");
  EXPECT_EQ((*devices)[0].device.keys, std::vector<std::string>({"cuda", "gpu"}));
  EXPECT_EQ((*devices)[0].records, 2);
  EXPECT_EQ((*devices)[0].workloads, 2);
  auto workloads = store->workloads();
  ASSERT_TRUE(workloads.ok());
  ASSERT_EQ(workloads->size(), 2u);
  EXPECT_EQ((*workloads)[1].key, workload(8));
  EXPECT_EQ((*workloads)[1].records, 2);
  EXPECT_EQ((*workloads)[1].devices, 2);
  EXPECT_DOUBLE_EQ(*(*workloads)[1].best_mean_cost, 1e-3);
  auto stats = store->stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->error_records, 1);
  bool has_version = false;
  for (const auto& [component, version] : stats->build_info)
    if (component == "tensorperf") has_version = version == measure::tensorperf_version();
  EXPECT_TRUE(has_version);
}

TEST_P(RecordStoreTest, LargeBatchesRankLikeSmallOnes) {
  // A batch this large makes the SQLite store rebuild its best-config index instead of updating it
  // row by row; the batches before and after it update it row by row.
  auto store = open();
  ASSERT_TRUE(store);
  const std::string t = "llvm -mcpu=core-avx2";
  constexpr int kWorkloads = 50, kBig = 25000;
  std::map<int, std::pair<double, int>> best;  // arg -> (cost, config index) of the expected best
  auto add = [&](std::string& text, int arg, double cost, int index) {
    text += v02(t, arg, cost, index) + "\n";
    auto [it, added] = best.emplace(arg, std::pair(cost, index));
    if (!added && cost < it->second.first) it->second = {cost, index};  // ties keep the earlier record
  };
  std::string small;
  add(small, 1, 0.5, 1);
  add(small, 2, 2e-3, 2);
  import_text(*store, small);
  std::string big;
  for (int i = 0; i < kBig; ++i) add(big, 1 + i % kWorkloads, 1e-3 * (1 + (i * 7919) % 1000), 10 + i);
  db::ImportOptions options;
  options.batch_size = kBig;
  EXPECT_EQ(import_text(*store, big, nullptr, options).inserted, kBig);
  std::string after;
  add(after, 7, 1e-7, kBig + 100);
  import_text(*store, after);
  for (int arg : {1, 2, 7, 33, kWorkloads}) {
    auto top = db::best_configs(*store, workload(arg), t, 1);
    ASSERT_TRUE(top.ok()) << top.status().message();
    ASSERT_EQ(top->records.size(), 1u) << arg;
    EXPECT_DOUBLE_EQ(*top->records[0].mean_cost, best[arg].first) << arg;
    EXPECT_THAT(top->records[0].line, ::testing::HasSubstr("\"index\": " + std::to_string(best[arg].second) + ","))
        << arg;
  }
  if (GetParam() == Backend::kSqlite) {  // the index the queries use is there
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2(url_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* q = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'records_key'",
                                 -1, &q, nullptr),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_step(q), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int(q, 0), 1);
    sqlite3_finalize(q);
    sqlite3_close(db);
  }
}

TEST_P(RecordStoreTest, ReimportMixingStoredAndNewRecordsKeepsEveryLineOnce) {
  // Imports of thousands of records come in blocks whose lines arrive compressed in chunks; a
  // block mixing stored and new records must store exactly the new lines, in order.
  auto store = open();
  ASSERT_TRUE(store);
  const std::string t = "llvm -mcpu=core-avx2";
  std::vector<std::string> lines;
  for (int i = 0; i < 5000; ++i) lines.push_back(v02(t, 1 + i % 37, 1e-3 * (1 + i % 101), i));
  std::string every_third, all;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i % 3 == 0) every_third += lines[i] + "\n";
    all += lines[i] + "\n";
  }
  db::ImportOptions options;
  options.batch_size = 1500;  // batch ends inside blocks and chunks
  EXPECT_EQ(import_text(*store, every_third, nullptr, options).inserted, 1667);
  db::ImportReport second = import_text(*store, all + all, nullptr, options);
  EXPECT_EQ(second.inserted, 5000 - 1667);
  EXPECT_EQ(second.duplicates, 5000 + 1667);
  std::string expected = every_third;
  for (size_t i = 0; i < lines.size(); ++i)
    if (i % 3 != 0) expected += lines[i] + "\n";
  EXPECT_EQ(export_text(*store, db::ExportSelection::kAll), expected);
  std::vector<int> stored_order;  // records by id: the first import's, then the second's new ones
  for (int i = 0; i < 5000; i += 3) stored_order.push_back(i);
  for (int i = 0; i < 5000; ++i)
    if (i % 3 != 0) stored_order.push_back(i);
  int best_index = -1;  // workload(5) is arg 5: i % 37 == 4; lowest cost, ties to the lower id
  for (int i : stored_order)
    if (i % 37 == 4 && (best_index < 0 || i % 101 < best_index % 101)) best_index = i;
  auto best = db::best_configs(*store, workload(5), t, 1);
  ASSERT_TRUE(best.ok()) << best.status().message();
  ASSERT_EQ(best->records.size(), 1u);
  EXPECT_EQ(best->records[0].config, "{\"index\":" + std::to_string(best_index) + ",\"code_hash\":null,\"entity\":[]}");
  EXPECT_EQ(best->records[0].line, lines[best_index]);
}

TEST_P(RecordStoreTest, LinesSplitAtAnyLineEndingUpToTheLengthLimit) {
  auto store = open();
  ASSERT_TRUE(store);
  const std::string t = "llvm -mcpu=core-avx2";
  std::string crlf = v02(t, 8, 1e-3, 1);  // ended by "\r\n": the '\r' is not part of the line
  // Together longer than the importer's 1 MiB reads: the second crosses a refill.
  std::string long1 = v02(t + " -libs=" + std::string(600 << 10, 'x'), 9, 2e-3, 2);
  std::string long2 = v02(t + " -libs=" + std::string(900 << 10, 'y'), 11, 2e-3, 2);
  std::string over = v02(t + " -libs=" + std::string(3 << 20, 'z'), 12, 2e-3, 2);  // over kMaxLineBytes
  std::string cr = v02(t, 13, 4e-3, 4);  // ended by a lone '\r'
  std::string last = v02(t, 10, 3e-3, 3);  // no line end at the end of the input
  db::ImportReport report =
      import_text(*store, crlf + "\r\n\n" + long1 + "\n" + long2 + "\n" + over + "\n" + cr + "\r" + last);
  EXPECT_EQ(report.lines, 7);
  EXPECT_EQ(report.skipped, 1);
  EXPECT_EQ(report.inserted, 5);
  EXPECT_EQ(export_text(*store, db::ExportSelection::kAll),
            crlf + "\n" + long1 + "\n" + long2 + "\n" + cr + "\n" + last + "\n");
}

TEST_P(RecordStoreTest, OpeningAnExistingStoreRequiresInit) {
  if (GetParam() == Backend::kSqlite) {
    auto missing = db::open_store(url_, OpenMode::kExisting);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
    EXPECT_THAT(missing.status().message(), ::testing::HasSubstr("tensorperf db init"));
  } else {
    auto empty = db::open_store(url_, OpenMode::kExisting);
    ASSERT_FALSE(empty.ok());
    EXPECT_EQ(empty.status().code(), StatusCode::kNotFound);
  }
  ASSERT_TRUE(open());
  auto existing = db::open_store(url_, OpenMode::kExisting);
  EXPECT_TRUE(existing.ok()) << existing.status().message();
}

TP_INSTANTIATE_BACKENDS(RecordStoreTest);

}  // namespace
}  // namespace tensorperf::testing
