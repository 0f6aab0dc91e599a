#include "measure/worker.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include <gtest/gtest.h>

namespace tensorperf::measure {
namespace {

TEST(Worker, CollectsMessagesInOrder) {
  auto out = run_worker(
      [](const SendFn& send) {
        send({{"n", 1}});
        send({{"n", 2}});
      },
      {5});
  EXPECT_EQ(out.ending, WorkerOutcome::Ending::kExited);
  EXPECT_EQ(out.exit_code, 0);
  ASSERT_EQ(out.messages.size(), 2u);
  EXPECT_EQ(out.messages[1]["n"], 2);
}

TEST(Worker, ACrashEndsOnlyTheChildAndKeepsItsOutput) {
  auto out = run_worker(
      [](const SendFn& send) {
        send({{"stage", "built"}});
        std::fprintf(stderr, "about to crash\n");
        std::fflush(stderr);
        ::raise(SIGSEGV);
      },
      {5});
  EXPECT_EQ(out.ending, WorkerOutcome::Ending::kSignaled);
  EXPECT_EQ(out.signal, SIGSEGV);
  EXPECT_EQ(out.messages.size(), 1u);
  EXPECT_EQ(out.output_tail, "about to crash");
  EXPECT_NE(out.describe().find("signal 11"), std::string::npos) << out.describe();
}

TEST(Worker, EachMessageHasItsOwnTimeLimit) {
  auto start = std::chrono::steady_clock::now();
  auto out = run_worker(
      [](const SendFn& send) {
        ::usleep(300'000);  // within the first limit
        send({{"stage", "built"}});
        while (true) ::pause();
      },
      {2, 0.5});
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(out.ending, WorkerOutcome::Ending::kTimedOut);
  EXPECT_EQ(out.messages.size(), 1u);
  EXPECT_LT(secs, 2.0);
  EXPECT_GE(secs, 0.8);
}

TEST(Worker, AnUncaughtExceptionIsANonZeroExit) {
  auto out = run_worker([](const SendFn&) { throw std::runtime_error("bad"); }, {5});
  EXPECT_EQ(out.ending, WorkerOutcome::Ending::kExited);
  EXPECT_NE(out.exit_code, 0);
  EXPECT_NE(out.output_tail.find("bad"), std::string::npos);
}

}  // namespace
}  // namespace tensorperf::measure
