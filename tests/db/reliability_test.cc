// Regression tests of the store under hostile input and misuse (one per failure found by trying the
// store as an adversary would), on both backends.
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <streambuf>
#include <thread>

#include <gtest/gtest.h>

#include "db/best_configs.h"
#include "db/exporter.h"
#include "db/importer.h"
#include "db/parsed_record.h"
#include "db/record_chunk.h"
#include "measure/record.h"
#include "store_test.h"

namespace tensorperf::testing {
namespace {

using ReliabilityTest = StoreTest;

db::ImportReport import_text(db::RecordStore& store, const std::string& text, std::vector<std::string>* problems = nullptr) {
  std::istringstream in(text);
  auto report = db::import_stream(store, in, "input.log", {}, [&](const std::string& p) {
    if (problems) problems->push_back(p);
  });
  EXPECT_TRUE(report.ok()) << report.status().message();
  return report.ok() ? *report : db::ImportReport{};
}

std::string export_all(db::RecordStore& store) {
  std::ostringstream out;
  auto n = db::export_records(store, {}, out);
  EXPECT_TRUE(n.ok()) << n.status().message();
  return out.str();
}

// One error-free line of each format with the cost text `cost` (spliced in as written).
std::vector<std::string> lines_with_cost(const std::string& cost, int arg) {
  const std::string a = std::to_string(arg);
  return {
      R"({"input": ["llvm -mcpu=skylake", "dense.x86", [["TENSOR", [1, )" + a +
          R"(], "float32"]], {}], "config": {"index": 1, "code_hash": null, "entity": []}, "result": [[)" + cost +
          R"(], 0, 1.0, 1600000000.5], "version": 0.2, "tvm_version": "0.7.dev0"})",
      R"({"i": ["cuda", "conv2d", [["TENSOR", [1, )" + a +
          R"(], "float32"]], {}, ["conv2d"], {"i": 1, "t": "direct", "c": null, "e": []}], "r": [[)" + cost +
          R"(], 0, 0.5, 1600000000], "v": 0.1})",
      R"({"i": [["[\"wl)" + a + R"(\"]", "llvm -keys=cpu"], [[], []]], "r": [[)" + cost + R"(], 0, 0.3, 1600000000], "v": "v0.6"})",
      R"({"config":{"k":1},"input":{"device":"x86_64-test-avx2-fma-t1","provider":"halide","target":"x86-64-linux-avx2","workload":"relu|float32[)" +
          a + R"(]||"},"result":{"build_time":0.1,"costs":[)" + cost +
          R"(],"error_msg":"","error_no":0,"run_time":0.2,"timestamp":1600000000.0},"version":{"format":1,"tensorperf":"0.1.0"}})",
  };
}

TEST_P(ReliabilityTest, ImpossibleCostsAreNotMeasurementsInAnyFormat) {
  auto store = open();
  ASSERT_TRUE(store);
  std::string text;
  int arg = 1;
  int impossible = 0;
  // Negative, zero, subnormal (flushes to zero), out of double range (inf), and absurdly large.
  for (const char* cost : {"-1e-3", "0", "0.0", "4.9e-324", "1e-320", "1e400", "-1e400", "1e300"})
    for (const std::string& l : lines_with_cost(cost, arg++)) {
      text += l + "\n";
      ++impossible;
    }
  const std::vector<std::string> good = lines_with_cost("0.002", 1000);
  for (const std::string& l : good) text += l + "\n";
  std::vector<std::string> problems;
  db::ImportReport r = import_text(*store, text, &problems);
  EXPECT_EQ(r.inserted, static_cast<int64_t>(good.size()));
  EXPECT_EQ(r.skipped, impossible);
  ASSERT_FALSE(problems.empty());
  // The lines that are malformed as JSON (1e400) and those with an impossible cost all say why.
  for (const std::string& p : problems) EXPECT_FALSE(p.empty());
  auto best = db::best_configs(*store, R"(["dense.x86",["TENSOR",[1,1000],"float32"]])", "llvm -mcpu=skylake", 1);
  ASSERT_TRUE(best.ok());
  ASSERT_EQ(best->records.size(), 1u);
  EXPECT_DOUBLE_EQ(*best->records[0].mean_cost, 0.002);
  // Our own measurements cannot store one either.
  measure::Record m;
  m.workload_key = "relu|float32[4]||";
  m.device_key = "x86_64-test-avx2-fma-t1";
  m.provider = "halide";
  for (double c : {-1.0, 0.0, 1e-320, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    m.costs = {c};
    EXPECT_EQ(db::add_record(*store, m).code(), StatusCode::kInvalidArgument) << c;
  }
}

TEST_P(ReliabilityTest, LineEndingsAndAByteOrderMarkKeepARecordsIdentity) {
  auto store = open();
  ASSERT_TRUE(store);
  const std::vector<std::string> lines = lines_with_cost("0.001", 7);
  std::string lf, crlf, cr;
  for (const std::string& l : lines) {
    lf += l + "\n";
    crlf += l + "\r\n";
    cr += l + "\r";
  }
  db::ImportReport first = import_text(*store, "\xEF\xBB\xBF" + lf);  // the BOM costs no record
  EXPECT_EQ(first.inserted, static_cast<int64_t>(lines.size()));
  EXPECT_EQ(first.skipped, 0);
  for (const std::string& copy : {crlf, cr, "\xEF\xBB\xBF" + crlf}) {
    db::ImportReport again = import_text(*store, copy);
    EXPECT_EQ(again.inserted, 0);
    EXPECT_EQ(again.duplicates, static_cast<int64_t>(lines.size()));
    EXPECT_EQ(again.skipped, 0);
  }
  EXPECT_EQ(export_all(*store), lf);  // no '\r' written back
  auto top = store->top_records(R"(["dense.x86",["TENSOR",[1,7],"float32"]])", "llvm -mcpu=skylake", 2);
  ASSERT_TRUE(top.ok());
  EXPECT_EQ(top->size(), 1u);  // the same config once, not once per line ending
}

// An input that never ends a line: endless zeros, like /dev/zero.
class Zeros : public std::streambuf {
 public:
  explicit Zeros(size_t total) : left_(total) {}

 protected:
  int_type underflow() override {
    if (left_ == 0) return traits_type::eof();
    const size_t n = std::min(left_, sizeof(buf_));
    left_ -= n;
    setg(buf_, buf_, buf_ + n);
    return traits_type::to_int_type(buf_[0]);
  }

 private:
  char buf_[1 << 16] = {};
  size_t left_;
};

int64_t peak_rss_kib() {
  std::ifstream in("/proc/self/status");
  std::string key;
  int64_t v = 0;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  return v;
}

TEST_P(ReliabilityTest, EndlessLinesAreSkippedInBoundedMemory) {
  auto store = open();
  ASSERT_TRUE(store);
  const int64_t before = peak_rss_kib();
  Zeros zeros(size_t{512} << 20);  // 512 MiB without a newline
  std::istream in(&zeros);
  std::vector<std::string> problems;
  auto r = db::import_stream(*store, in, "zeros", {}, [&](const std::string& p) { problems.push_back(p); });
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->records, 0);
  EXPECT_EQ(r->skipped, 1);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("longer than the limit"), std::string::npos) << problems[0];
  EXPECT_LT(peak_rss_kib() - before, 64 << 10) << "importing grew the process by more than 64 MiB";
}

TEST_P(ReliabilityTest, EveryStoredChunkStaysReadable) {
  auto store = open();
  ASSERT_TRUE(store);
  // Error records whose message fills the line to the limit: a whole chunk of the longest lines.
  std::string text;
  const int n = db::kChunkRecords + 3;
  for (int i = 0; i < n; ++i) {
    measure::Record r;
    r.workload_key = "relu|float32[" + std::to_string(i + 1) + "]||";
    r.device_key = "x86_64-test-avx2-fma-t1";
    r.provider = "halide";
    r.error = measure::ErrorCode::kCompileHostError;
    std::string line = measure::record_to_line(r);
    r.error_msg = std::string(db::kMaxLineBytes - line.size() - 16, 'e');
    text += measure::record_to_line(r) + "\n";
  }
  text += std::string(db::kMaxLineBytes + 1, 'x') + "\n";  // one byte too long: skipped
  db::ImportReport report = import_text(*store, text);
  EXPECT_EQ(report.inserted, n);
  EXPECT_EQ(report.skipped, 1);
  std::string out = export_all(*store);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), n);
  db::ExportOptions best;
  best.selection = db::ExportSelection::kBest;
  std::ostringstream best_out;
  EXPECT_TRUE(db::export_records(*store, best, best_out).ok());
}

TEST_P(ReliabilityTest, ClaimsDivideWorkAndLapseWithTheirHolder) {
  auto store = open();
  ASSERT_TRUE(store);
  const std::string me = db::claim_owner();
  auto ok = [](Result<bool> r) {
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() && *r;
  };
  EXPECT_TRUE(ok(store->claim("point-a", me, 60)));
  EXPECT_TRUE(ok(store->claim("point-a", me, 60)));  // ours already: renewed
  // Another run on another host, alive as far as we can tell: it must wait.
  const std::string other = "another-host:1234:99";
  EXPECT_FALSE(ok(store->claim("point-a", other, 60)));
  EXPECT_TRUE(store->release("point-a", me).ok());
  EXPECT_TRUE(ok(store->claim("point-a", other, 0.2)));
  EXPECT_FALSE(ok(store->claim("point-a", me, 60)));
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  EXPECT_TRUE(ok(store->claim("point-a", me, 60)));  // the lease ran out
  // A holder on this host whose process is gone loses its claim at once, whatever its lease.
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  const std::string dead = std::string(host) + ":999999999:0";
  EXPECT_TRUE(db::claim_owner_dead(dead));
  EXPECT_FALSE(db::claim_owner_dead(me));
  EXPECT_TRUE(ok(store->claim("point-b", dead, 3600)));
  EXPECT_TRUE(ok(store->claim("point-b", me, 60)));
  // Work done and stored: the point stays refused to everyone, even after its holder died, until
  // the keep runs out (other runs must first read the record).
  EXPECT_TRUE(ok(store->claim("point-c", dead, 3600)));
  EXPECT_TRUE(store->release("point-c", dead, 0.3).ok());
  EXPECT_FALSE(ok(store->claim("point-c", me, 60)));
  EXPECT_FALSE(ok(store->claim("point-c", other, 60)));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_TRUE(ok(store->claim("point-c", me, 60)));
}

TP_INSTANTIATE_BACKENDS(ReliabilityTest);

}  // namespace
}  // namespace tensorperf::testing
