// The tuning loop end to end on a real store with real workers: the synthetic provider's kernels
// spin for a known cost, so the loop must find the known best; a second provider with a small space
// is measured whole; invalid configs are never compiled; a killed run resumes without losing or
// repeating a measurement.
#include "tune/tuning_loop.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "db/db_record_sink.h"
#include "measure/profiler.h"
#include "fake_provider.h"
#include "synthetic.h"
#include "synthetic_provider.h"

namespace tensorperf::tune {
namespace {

namespace fs = std::filesystem;
using testing::kBest;
using testing::synthetic_config;
using testing::synthetic_counters;
using testing::SyntheticProvider;

class TuningLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::reset_synthetic_counters();
    dir_ = fs::temp_directory_path() / ("tp-tune-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    measure::DeviceOptions d;
    d.cache_dir = dir_.string();
    auto device = measure::detect_device(d);
    ASSERT_TRUE(device.ok()) << device.status().message();
    device_ = *device;
  }
  void TearDown() override {
    if (!std::getenv("TP_KEEP")) fs::remove_all(dir_);
  }

  std::string db() const { return (dir_ / "tune.db").string(); }

  TuneOptions options(int64_t trials) const {
    TuneOptions o;
    o.tuner = "xgb";
    o.trials = trials;
    o.batch = 16;
    o.measure.timing.min_repeat_ms = 2;
    o.measure.timing.repeat = 1;
    o.measure.build_jobs = 2;
    return o;
  }

  Result<TuneReport> run(const TuneOptions& o, const std::vector<const kernels::Provider*>& providers) {
    auto store = db::open_store(db(), db::OpenMode::kCreate);
    if (!store.ok()) return store.status();
    db::DbRecordSink sink(**store);
    return tune({{measure::testing::relu_workload(), 2}}, providers, device_, o, **store, sink);
  }

  // provider -> config dump -> records
  std::map<std::string, std::map<std::string, int>> stored() {
    std::map<std::string, std::map<std::string, int>> out;
    auto store = db::open_store(db(), db::OpenMode::kExisting);
    EXPECT_TRUE(store.ok());
    EXPECT_TRUE((*store)
                    ->scan({}, [&](const db::StoredRecord& s) {
                      auto r = measure::record_from_line(s.line);
                      EXPECT_TRUE(r.ok());
                      ++out[r->provider][r->config.dump()];
                      return Status::Ok();
                    })
                    .ok());
    return out;
  }

  // The records of `device_key` in the store, in the order they were stored.
  std::vector<measure::Record> records_on(const std::string& device_key) {
    std::vector<measure::Record> out;
    auto store = db::open_store(db(), db::OpenMode::kExisting);
    EXPECT_TRUE(store.ok());
    if (!store.ok()) return out;
    db::ScanFilter f;
    f.device_key = device_key;
    EXPECT_TRUE((*store)
                    ->scan(f, [&](const db::StoredRecord& s) {
                      auto r = measure::record_from_line(s.line);
                      EXPECT_TRUE(r.ok()) << s.line;
                      if (r.ok()) out.push_back(std::move(*r));
                      return Status::Ok();
                    })
                    .ok());
    return out;
  }

  fs::path dir_;
  measure::Device device_;
  SyntheticProvider synthetic_;
  measure::testing::FakeProvider fake_;
};

TEST_F(TuningLoopTest, FindsTheKnownBestAndNeverCompilesAnInvalidConfig) {
  auto rep = run(options(160), {&synthetic_});
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  ASSERT_EQ(rep->tasks.size(), 1u);
  const TaskResult& t = rep->tasks[0];
  EXPECT_EQ(t.trials, 160);
  EXPECT_EQ(rep->measured, 160);
  EXPECT_EQ(t.best_provider, "synthetic");
  // The search must have measured kBest itself. Which point then measures fastest depends on the
  // timings, and on a loaded 2-core machine (ctest -j 2) a preempted 40 us kernel can make any point
  // look slow: the report must name the fastest point as measured, whichever it is.
  const auto records = stored()["synthetic"];
  EXPECT_EQ(records.count(synthetic_config(kBest).knobs.dump()), 1u) << "kBest was never measured";
  double fastest = std::numeric_limits<double>::infinity();
  nlohmann::json fastest_config;
  {
    auto store = db::open_store(db(), db::OpenMode::kRead);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)
                    ->scan({}, [&](const db::StoredRecord& s) {
                      auto r = measure::record_from_line(s.line);
                      if (r.ok() && r->ok() && r->mean_cost() < fastest) {
                        fastest = r->mean_cost();
                        fastest_config = r->config;
                      }
                      return Status::Ok();
                    })
                    .ok());
  }
  EXPECT_EQ(t.best_config, fastest_config) << t.best_config.dump();
  ASSERT_TRUE(t.best_s.has_value());
  EXPECT_DOUBLE_EQ(*t.best_s, fastest);
  ASSERT_TRUE(t.default_s.has_value());
  EXPECT_LT(*t.best_s, *t.default_s);
  EXPECT_EQ(synthetic_counters().compiled, 160);
  EXPECT_EQ(synthetic_counters().compiled_invalid, 0);
  int stored_records = 0;
  for (const auto& [config, n] : records) {
    EXPECT_EQ(n, 1) << config;
    stored_records += n;
  }
  EXPECT_EQ(stored_records, 160);
}

// A candidate whose first timing is above slow_cutoff x its task's best so far (when its timing
// starts, this round's records included) keeps that timing alone. The threshold only falls as the
// best improves, so each record timed once is above slow_cutoff x the final best, and the best
// record itself took every repeat.
TEST_F(TuningLoopTest, ConfigsFarSlowerThanTheBestSoFarAreTimedOnce) {
  for (double cutoff : {2.0, 0.0}) {
    std::filesystem::remove(db());
    TuneOptions o = options(48);
    o.tuner = "random";
    o.batch = 8;
    o.measure.timing.repeat = 3;
    o.slow_cutoff = cutoff;
    auto rep = run(o, {&synthetic_});
    ASSERT_TRUE(rep.ok()) << rep.status().message();
    ASSERT_EQ(rep->tasks.size(), 1u);
    ASSERT_TRUE(rep->tasks[0].best_s.has_value());
    const double best = *rep->tasks[0].best_s;
    int once = 0, best_repeats = 0;
    for (const measure::Record& r : records_on(device_.key())) {
      ASSERT_TRUE(r.ok()) << r.error_msg;
      if (r.costs.size() == 1) {
        ++once;
        EXPECT_GT(r.costs[0], cutoff * best) << r.config.dump();
      } else {
        EXPECT_EQ(r.costs.size(), 3u);
      }
      if (r.mean_cost() == best) best_repeats = static_cast<int>(r.costs.size());
    }
    EXPECT_EQ(once, rep->timings_cut);
    EXPECT_EQ(best_repeats, 3);
    // Random points of the synthetic space cost up to ~30x the best: most of a round is cut.
    if (cutoff > 0) {
      EXPECT_GE(once, 10);
    } else {
      EXPECT_EQ(once, 0);
    }
  }
}

// Two tasks that differ only in the epilogue (a ReLU, and a ReLU with a ReLU epilogue: the same
// output) share their best config: the store holds kBest for one, so the other measures it among
// its first trials; without transfer, its random search (a fixed seed) does not meet it.
TEST_F(TuningLoopTest, ATasksBestIsMeasuredNextByTheTasksDifferingOnlyInTheEpilogue) {
  const ir::Workload plain = measure::testing::relu_workload();
  ir::Workload relu_after = plain;
  relu_after.epilogue = {"relu"};
  for (bool transfer : {true, false}) {
    std::filesystem::remove(db());
    auto store = db::open_store(db(), db::OpenMode::kCreate);
    ASSERT_TRUE(store.ok()) << store.status().message();
    db::DbRecordSink sink(**store);
    measure::Record known;
    known.workload_key = plain.key();
    known.device_key = device_.key();
    known.target = device_.target;
    known.provider = "synthetic";
    known.config = synthetic_config(kBest).knobs;
    known.costs = {40e-6, 40e-6, 40e-6};
    known.timestamp = 1;
    ASSERT_TRUE(sink.write(known).ok());
    TuneOptions o = options(1 + 12);  // the stored record and 12 trials of the sibling
    o.tuner = "random";
    o.batch = 6;
    o.transfer = transfer;
    auto rep = tune({{plain, 1}, {relu_after, 1}}, {&synthetic_}, device_, o, **store, sink);
    ASSERT_TRUE(rep.ok()) << rep.status().message();
    ASSERT_EQ(rep->tasks.size(), 2u);
    EXPECT_EQ(rep->tasks[1].sibling_offers, transfer ? 1 : 0);
    bool measured_best = false;
    for (const measure::Record& r : records_on(device_.key()))
      if (r.workload_key == relu_after.key()) {
        ASSERT_TRUE(r.ok()) << r.error_msg;
        measured_best |= r.config == known.config;
      }
    EXPECT_EQ(measured_best, transfer);
  }
}

TEST_F(TuningLoopTest, SmallSpacesAreMeasuredWholeAndTheBestProviderWins) {
  auto rep = run(options(64), {&synthetic_, &fake_});
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  auto records = stored();
  // The fake provider's 16 points, every one of them; the rest went to the synthetic search.
  EXPECT_EQ(records["fake"].size(), 16u);
  EXPECT_EQ(records["synthetic"].size(), 64u - 16u);
  // The fake provider's plain ReLU (about a microsecond) beats every synthetic kernel (40 us and more).
  EXPECT_EQ(rep->tasks[0].best_provider, "fake");
  EXPECT_EQ(rep->tasks[0].best_config["behavior"], "ok");
}

// A screen that knows the synthetic space's cost function (what a perfect cost model would say).
class OracleScreen : public CandidateScreen {
 public:
  Result<std::vector<double>> predict(const ir::Workload&, const measure::Device&,
                                      std::span<const kernels::Config> configs) const override {
    std::vector<double> out;
    for (const kernels::Config& c : configs) {
      Point p;
      for (int k = 0; k < 5; ++k) p.push_back(c.knobs["k" + std::to_string(k)].get<int>() / 2);
      out.push_back(testing::synthetic_cost(p));
    }
    asked += static_cast<int>(configs.size());
    return out;
  }
  mutable int asked = 0;
};

TEST_F(TuningLoopTest, AScreenMeasuresWhatItPredictsFastest) {
  // Random search asked for 400x the configs it measures sees the whole space in its first round;
  // the screen keeps the predicted fastest, so the known best is measured at once. Unscreened, 48
  // random trials of 6,221 valid points find it about 1% of the time.
  TuneOptions o = options(48);
  o.tuner = "random";
  auto oracle = std::make_shared<OracleScreen>();
  o.screen_model = oracle;
  o.screen = 400;
  auto rep = run(o, {&synthetic_});
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  EXPECT_GT(rep->tasks[0].screened_rounds, 0);
  EXPECT_GT(oracle->asked, 1000);
  const auto records = stored()["synthetic"];
  EXPECT_EQ(records.count(synthetic_config(kBest).knobs.dump()), 1u) << "the screen's best was not measured";
  EXPECT_EQ(synthetic_counters().compiled, 48) << "screened-out proposals must not be compiled";
}

TEST_F(TuningLoopTest, ASecondRunWithTheSameBudgetMeasuresNothing) {
  ASSERT_TRUE(run(options(48), {&synthetic_}).ok());
  auto again = run(options(48), {&synthetic_});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->measured, 0);
  EXPECT_EQ(again->known, 48);
  EXPECT_EQ(again->tasks[0].trials, 48);
  auto more = run(options(64), {&synthetic_});
  ASSERT_TRUE(more.ok());
  EXPECT_EQ(more->measured, 16);
}

// A device the store has no records of starts with what was best on the closest other devices: a
// 1-thread sibling's best configs (same target) come right after the defaults, before any proposal.
TEST_F(TuningLoopTest, ANewDeviceFirstMeasuresTheClosestDevicesBestConfigs) {
  measure::Device sibling = device_;
  sibling.threads = device_.threads == 1 ? 2 : 1;
  ASSERT_NE(sibling.key(), device_.key());
  const Point near_best = {3, 5, 1, 4, 3};  // not the default, not kBest: the sibling's second best
  {
    auto store = db::open_store(db(), db::OpenMode::kCreate);
    ASSERT_TRUE(store.ok());
    db::DbRecordSink sink(**store);
    double cost = 1e-4;
    for (const Point& p : {kBest, near_best}) {
      measure::Record r;
      r.workload_key = measure::testing::relu_workload().key();
      r.device_key = sibling.key();
      r.target = sibling.target;
      r.provider = synthetic_.name();
      r.config = synthetic_config(p).knobs;
      r.costs = {cost, cost};
      cost *= 2;
      ASSERT_TRUE(sink.write(r).ok());
    }
  }
  TuneOptions o = options(3);
  o.tuner = "random";
  // One config per batch: the records' order is the proposals' (within a batch, measurements
  // finish in the order their compiles do, which a loaded machine may change).
  o.batch = 1;
  auto rep = run(o, {&synthetic_});
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  EXPECT_EQ(rep->tasks[0].seeded_from_other_devices, 2);
  // Three trials: the default, then the sibling's two best, in order of their cost there.
  const std::vector<measure::Record> mine = records_on(device_.key());
  ASSERT_EQ(mine.size(), 3u);
  EXPECT_EQ(mine[0].config, synthetic_.default_config(measure::testing::relu_workload()).knobs);
  EXPECT_EQ(mine[1].config, synthetic_config(kBest).knobs);
  EXPECT_EQ(mine[2].config, synthetic_config(near_best).knobs);
  // Without transfer, nothing comes from the sibling.
  o.transfer = false;
  auto cold = run(o, {&synthetic_});
  ASSERT_TRUE(cold.ok()) << cold.status().message();
  EXPECT_EQ(cold->tasks[0].seeded_from_other_devices, 0);
}

// --also-threads: each compile of the 2-thread run is timed at 1 thread too and stored under the
// 1-thread device, never twice; those records are not trials, and a 1-thread run then finds its
// budget done.
TEST_F(TuningLoopTest, AlsoDevicesGetARecordOfEveryCompileOnce) {
  if (measure::pinned_cpus(1 << 16).size() < 2) GTEST_SKIP() << "needs 2 CPUs";
  measure::Device two = device_, one = device_;
  two.threads = 2;
  one.threads = 1;
  auto run_on = [&](const measure::Device& d, TuneOptions o) -> Result<TuneReport> {
    auto store = db::open_store(db(), db::OpenMode::kCreate);
    if (!store.ok()) return store.status();
    db::DbRecordSink sink(**store);
    return tune({{measure::testing::relu_workload(), 2}}, {&synthetic_}, d, o, **store, sink);
  };
  auto stored_on = [&](const measure::Device& d) {
    std::set<std::string> configs;
    const std::vector<measure::Record> records = records_on(d.key());
    for (const measure::Record& r : records) {
      EXPECT_TRUE(r.ok()) << measure::record_to_line(r);
      configs.insert(r.config.dump());
    }
    return std::make_pair(static_cast<int>(records.size()), configs);
  };
  // The 1-thread device holds the default config already: the 2-thread run measures it too, and
  // its 1-thread timing is not stored a second time.
  auto seeded = run_on(one, options(1));
  ASSERT_TRUE(seeded.ok()) << seeded.status().message();
  ASSERT_EQ(stored_on(one).first, 1);
  TuneOptions o = options(24);
  o.measure.also_on = {one};
  auto first = run_on(two, o);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->measured, 24);
  EXPECT_EQ(first->tasks[0].trials, 24);
  EXPECT_EQ(first->also_measured, 23);
  const auto [n2, configs2] = stored_on(two);
  const auto [n1, configs1] = stored_on(one);
  EXPECT_EQ(n2, 24);
  EXPECT_EQ(n1, 24);
  EXPECT_EQ(configs1, configs2);
  // The 1-thread device's budget is already met; more 2-thread trials add only new points there.
  auto narrow = run_on(one, options(24));
  ASSERT_TRUE(narrow.ok());
  EXPECT_EQ(narrow->measured, 0);
  EXPECT_EQ(narrow->known, 24);
  o.trials = 32;
  auto more = run_on(two, o);
  ASSERT_TRUE(more.ok());
  EXPECT_EQ(more->measured, 8);
  EXPECT_EQ(more->also_measured, 8);
  EXPECT_EQ(stored_on(one).first, 32);
}

TEST_F(TuningLoopTest, AKilledRunResumesWithoutLosingOrRepeatingAMeasurement) {
  // The first run, in a child process, is killed with SIGKILL once the store holds some records.
  ASSERT_TRUE(db::open_store(db(), db::OpenMode::kCreate).ok());
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto rep = run(options(200), {&synthetic_});
    ::_exit(rep.ok() ? 0 : 1);
  }
  int64_t seen = 0;
  for (int i = 0; i < 600 && seen < 40; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto store = db::open_store(db(), db::OpenMode::kExisting);
    if (store.ok())
      if (auto stats = (*store)->stats(); stats.ok()) seen = stats->records;
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the first run ended before it could be killed";
  int64_t before = 0;
  const auto first = stored();  // named: a range over a temporary's member would dangle
  for (const auto& [config, n] : first.at("synthetic")) before += n;
  ASSERT_GE(before, 40);
  ASSERT_LT(before, 200);

  auto rep = run(options(200), {&synthetic_});
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  EXPECT_EQ(rep->known, before);
  EXPECT_EQ(rep->measured, 200 - before);
  int64_t records = 0;
  const auto after = stored();
  for (const auto& [config, n] : after.at("synthetic")) {
    EXPECT_EQ(n, 1) << "measured twice: " << config;
    records += n;
  }
  EXPECT_EQ(records, 200);
}

// Two runs on one store at once: every config is measured by one of them, never by both.
TEST_F(TuningLoopTest, TwoRunsSharingAStoreDivideTheWork) {
  ASSERT_TRUE(db::open_store(db(), db::OpenMode::kCreate).ok());
  std::vector<pid_t> runs;
  for (int i = 0; i < 2; ++i) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      TuneOptions o = options(96);
      o.seed = static_cast<uint64_t>(i);  // different proposals, the same defaults and seeds
      ::_exit(run(o, {&synthetic_, &fake_}).ok() ? 0 : 1);
    }
    runs.push_back(pid);
  }
  for (pid_t pid : runs) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  int64_t records = 0;
  for (const auto& [provider, configs] : stored())
    for (const auto& [config, n] : configs) {
      EXPECT_EQ(n, 1) << provider << " " << config << " measured by both runs";
      records += n;
    }
  EXPECT_GE(records, 96);
  EXPECT_LE(records, 96 + 2 * 16);  // each run's last round may overlap the other's
}

TEST_F(TuningLoopTest, TwoProfilesSharingAStoreDivideTheWork) {
  ASSERT_TRUE(db::open_store(db(), db::OpenMode::kCreate).ok());
  ir::Task task{measure::testing::relu_workload(), 1, {}};
  std::vector<pid_t> runs;
  for (int i = 0; i < 2; ++i) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto store = db::open_store(db(), db::OpenMode::kExisting);
      if (!store.ok()) ::_exit(2);
      db::DbRecordSink sink(**store);
      db::StoreClaims claims(**store, 60);
      measure::MeasuredIndex index;
      measure::ProfileOptions o;
      o.configs_per_task = 16;  // the fake provider's whole space
      o.measure.timing.min_repeat_ms = 2;
      o.measure.timing.repeat = 1;
      o.claims = &claims;
      o.refresh = [&](measure::MeasuredIndex& idx) { return db::index_store_records(**store, device_.key(), idx).status(); };
      auto rep = measure::profile({task}, {&fake_}, device_, o, index, sink);
      ::_exit(rep.ok() && rep->tasks.size() == 1 && rep->tasks[0].errors == 0 ? 0 : 1);
    }
    runs.push_back(pid);
  }
  for (pid_t pid : runs) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  auto records = stored();
  EXPECT_EQ(records["fake"].size(), 16u);
  for (const auto& [config, n] : records["fake"]) EXPECT_EQ(n, 1) << config << " measured by both profiles";
}

TEST_F(TuningLoopTest, BadBudgetsAndTunersAreRejectedBeforeMeasuring) {
  TuneOptions o = options(0);
  auto zero = run(o, {&synthetic_});
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().code(), StatusCode::kInvalidArgument);
  o = options(10);
  o.tuner = "simulated";
  auto unknown = run(o, {&synthetic_});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("known: xgb"), std::string::npos);
  EXPECT_EQ(synthetic_counters().compiled, 0);
}

}  // namespace
}  // namespace tensorperf::tune
