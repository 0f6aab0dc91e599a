#include "base/worker.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace tensorperf {
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

TEST(Worker, SignalReachesTheChildAndStopResumeWork) {
  auto w = Worker::start([](const SendFn& send, const ReceiveFn& receive) {
    send({{"got", receive()}});
    send({{"got", receive()}});
  });
  w->stop();
  ASSERT_TRUE(w->signal('g'));
  w->resume();
  ASSERT_TRUE(w->signal('h'));
  WorkerOutcome out = w->finish(/*kill=*/false);
  EXPECT_EQ(out.ending, WorkerOutcome::Ending::kExited);
  ASSERT_EQ(out.messages.size(), 2u);
  EXPECT_EQ(out.messages[0]["got"], 'g');
  EXPECT_EQ(out.messages[1]["got"], 'h');
}

// A worker waiting for its turn learns that its parent gave it up even while a sibling runs: the
// sibling must not hold the parent's end of the first one's control socket.
TEST(Worker, ASiblingDoesNotKeepAWaitingWorkerAlive) {
  auto waiting = Worker::start([](const SendFn& send, const ReceiveFn& receive) { send({{"got", receive()}}); });
  auto sibling = Worker::start([](const SendFn&, const ReceiveFn& receive) { receive(); });
  const auto start = std::chrono::steady_clock::now();
  // finish() without a signal closes our end: the waiting child's receive() returns -1 and it ends.
  WorkerOutcome out = waiting->finish(/*kill=*/false);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  EXPECT_EQ(out.ending, WorkerOutcome::Ending::kExited);
  ASSERT_EQ(out.messages.size(), 1u);
  EXPECT_EQ(out.messages[0]["got"], -1);
  sibling->signal('x');
  EXPECT_EQ(sibling->finish(false).ending, WorkerOutcome::Ending::kExited);
}

// Workers die with the process that started them, stopped or not: none is left behind.
TEST(Worker, WorkersDieWithTheirParent) {
  int pids[2];
  ASSERT_EQ(::pipe(pids), 0);
  pid_t middle = ::fork();
  ASSERT_GE(middle, 0);
  if (middle == 0) {
    auto a = Worker::start([](const SendFn&, const ReceiveFn&) {
      while (true) ::pause();
    });
    auto b = Worker::start([](const SendFn&, const ReceiveFn&) {
      while (true) ::pause();
    });
    b->stop();
    int ids[2] = {a->pid(), b->pid()};
    (void)!::write(pids[1], ids, sizeof(ids));
    while (true) ::pause();
  }
  int ids[2] = {0, 0};
  ASSERT_EQ(::read(pids[0], ids, sizeof(ids)), static_cast<ssize_t>(sizeof(ids)));
  ::kill(middle, SIGKILL);
  ::waitpid(middle, nullptr, 0);
  // Gone, or dead and waiting for init to reap it (a zombie: state Z).
  auto dead = [](int pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_field, name, state;
    if (!(stat >> pid_field >> name >> state)) return true;
    return state == "Z" || state == "X";
  };
  for (int id : ids) {
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {
      gone = dead(id);
      if (!gone) ::usleep(20'000);
    }
    EXPECT_TRUE(gone) << "worker " << id << " outlived its parent";
  }
}

}  // namespace
}  // namespace tensorperf
