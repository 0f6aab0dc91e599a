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

}  // namespace

OmpWaitPolicy use_active_wait_policy(char** argv) {
  const char* marker = std::getenv(kMarker);
  if (marker && std::strcmp(marker, kMarkerValue) == 0) {
    // The new execution: libgomp has read the variables; the processes this one starts get the
    // user's environment back.
    ::unsetenv("OMP_WAIT_POLICY");
    ::unsetenv("GOMP_SPINCOUNT");
    ::unsetenv(kMarker);
    return g_policy = OmpWaitPolicy::kActive;
  }
  if (marker && std::strcmp(marker, "default") == 0) return g_policy = OmpWaitPolicy::kOff;
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return g_policy = OmpWaitPolicy::kUser;
  ::setenv("OMP_WAIT_POLICY", "active", 1);
  ::setenv("GOMP_SPINCOUNT", "300000", 1);
  ::setenv(kMarker, kMarkerValue, 1);
  ::execv("/proc/self/exe", argv);
  // Not executed again (no /proc, say): go on with libgomp's default.
  ::unsetenv("OMP_WAIT_POLICY");
  ::unsetenv("GOMP_SPINCOUNT");
  ::unsetenv(kMarker);
  return g_policy = OmpWaitPolicy::kDefault;
}

OmpWaitPolicy omp_wait_policy() { return g_policy; }

std::string omp_wait_policy_name(OmpWaitPolicy p) {
  switch (p) {
    case OmpWaitPolicy::kActive: return "active";
    case OmpWaitPolicy::kUser: return "user";
    case OmpWaitPolicy::kOff: return "off";
    case OmpWaitPolicy::kDefault: break;
  }
  return "default";
}

}  // namespace tensorperf::runtime
