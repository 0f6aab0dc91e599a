#include "runtime/omp_wait_policy.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace tensorperf::runtime {
namespace {

// Set in the environment of the execution that carries the policy, so that it knows it is that one.
constexpr const char* kMarker = "TENSORPERF_OMP_WAIT_POLICY";
constexpr const char* kMarkerValue = "active-set";

OmpWaitPolicy g_policy = OmpWaitPolicy::kDefault;

// Removes what use_active_wait_policy set: the processes this one starts get the user's environment.
void drop_policy_variables() {
  ::unsetenv("OMP_WAIT_POLICY");
  ::unsetenv("GOMP_SPINCOUNT");
  ::unsetenv(kMarker);
}

}  // namespace

OmpWaitPolicy use_active_wait_policy(char** argv) {
  const char* marker = std::getenv(kMarker);
  if (marker && std::strcmp(marker, kMarkerValue) == 0) {
    drop_policy_variables();  // the new execution: libgomp has read them
    return g_policy = OmpWaitPolicy::kActive;
  }
  if (marker && std::strcmp(marker, "default") == 0) return g_policy = OmpWaitPolicy::kOff;
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return g_policy = OmpWaitPolicy::kUser;
  ::setenv("OMP_WAIT_POLICY", "active", 1);
  ::setenv("GOMP_SPINCOUNT", "300000", 1);
  ::setenv(kMarker, kMarkerValue, 1);
  ::execv("/proc/self/exe", argv);
  drop_policy_variables();  // not executed again (no /proc, say): go on with libgomp's default
  return g_policy = OmpWaitPolicy::kDefault;
}

std::string omp_wait_policy_name() {
  switch (g_policy) {
    case OmpWaitPolicy::kActive: return "active";
    case OmpWaitPolicy::kUser: return "user";
    case OmpWaitPolicy::kOff: return "off";
    case OmpWaitPolicy::kDefault: break;
  }
  return "default";
}

}  // namespace tensorperf::runtime
