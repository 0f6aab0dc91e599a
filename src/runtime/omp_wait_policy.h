// libgomp's wait policy for processes that run stage schedules.
//
// A stage schedule's groups of more than one thread run on worker threads, each with an OpenMP team
// of its own (runtime/group_pool.h), which lives on between stages. While those teams exist the
// process has more OpenMP threads than CPUs, and libgomp then lets a waiting thread spin only 100
// times (its "throttled" count) before it sleeps in the kernel: every kernel of a whole-team stage
// must wake its team from sleep. On the 2-core AMD host of 2026-12-04 one idle extra team made each
// parallel region 28 us longer and RandWire at batch 1 run 1.9x slower (docs/runtime.md, "libgomp's
// wait policy"). The throttled count can only be raised through the environment, which libgomp reads
// once, when it is loaded: OMP_WAIT_POLICY=active raises it to 1000, and GOMP_SPINCOUNT=300000 keeps
// the ordinary count at libgomp's default (active alone would spin without end).
//
// So a command that runs stage schedules calls use_active_wait_policy() first thing in main(): where
// neither variable is set, it sets both and executes the same program again (/proc/self/exe, same
// arguments), whose libgomp then starts with them; the new process removes them from its environment
// again, so the processes it starts see the user's. A user's own OMP_WAIT_POLICY or GOMP_SPINCOUNT
// is left alone, and TENSORPERF_OMP_WAIT_POLICY=default turns the re-execution off.
#pragma once

#include <string>

namespace tensorperf::runtime {

enum class OmpWaitPolicy {
  kDefault,  // libgomp's own (use_active_wait_policy not called, or it could not execute again)
  kActive,   // set by use_active_wait_policy: this process was executed again with it
  kUser,     // OMP_WAIT_POLICY or GOMP_SPINCOUNT came from the user's environment
  kOff,      // TENSORPERF_OMP_WAIT_POLICY=default
};

// Returns only in the process that goes on: the one executed again with the policy, or this one
// where the policy is the user's, turned off, or the new execution failed (then kDefault).
OmpWaitPolicy use_active_wait_policy(char** argv);

// The name of what the last use_active_wait_policy() found: "active", "user", "off", or "default"
// (also if it was not called).
std::string omp_wait_policy_name();

}  // namespace tensorperf::runtime
