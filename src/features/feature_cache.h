// A file of computed program features, so that evaluating or training on a database featurises each
// program once instead of on every run (lowering is about 17 programs/s on one core: 14,000
// programs take 10-15 minutes; reading them back takes seconds).
//
// The file is an SQLite database (WAL; several processes may share it). An entry is keyed by its
// program (workload key, provider, config, target, chained) and by the featuriser's fingerprint: a
// hash of the feature names and of the features this build computes for a fixed set of canary
// programs (one per op kind, both providers, chained and not, two targets). A build whose
// featurisation differs on any canary never reads another build's entries. Only the
// kKeptFingerprints most recently opened fingerprints are kept; opening with a new one deletes the
// oldest. Programs whose featurisation fails are not stored (they are computed, and fail, again).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "features/program_features.h"

namespace tensorperf::features {

inline constexpr int kKeptFingerprints = 4;

class FeatureCache {
 public:
  // Opens or creates the file at `path` (and its directory) and records this build's fingerprint as
  // the most recently used. Errors: the file cannot be opened or created, is not a feature cache, or
  // is of a newer format than this build reads.
  static Result<std::unique_ptr<FeatureCache>> open(const std::string& path);
  ~FeatureCache();
  FeatureCache(const FeatureCache&) = delete;
  FeatureCache& operator=(const FeatureCache&) = delete;

  // The same as program_features(programs): each program the file holds under this build's
  // fingerprint is read from it; the others are computed and added (one transaction per call).
  // A failure to write is not an error of the features: they are returned, and write_errors() counts it.
  std::vector<Result<ProgramFeatures>> features(std::span<const ProgramRef> programs);

  const std::string& path() const;
  const std::string& fingerprint() const;  // lower-case hex
  size_t hits() const;        // programs read from the file so far
  size_t computed() const;    // programs featurised (and, when that succeeded, stored) so far
  size_t write_errors() const;

 private:
  struct Impl;
  explicit FeatureCache(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The fingerprint of this build's featurisation (lower-case hex; what open() keys entries by).
// Computed once per process: it lowers the canary programs (about a second).
Result<std::string> featuriser_fingerprint();

// Where a feature cache lives unless a command is told otherwise: features.sqlite in
// user_cache_dir() (base/cache_dir.h), beside the measured device peaks.
std::string default_feature_cache_path();

// The bytes an entry stores for `f` (zstd-compressed), and back. decode: InvalidArgument when the
// bytes are not an entry of this layout.
std::string encode_program_features(const ProgramFeatures& f);
Result<ProgramFeatures> decode_program_features(std::string_view bytes);

}  // namespace tensorperf::features
