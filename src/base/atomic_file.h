// An output file that appears whole or not at all: written to a temporary file beside it, renamed
// over the destination only by commit(). A failed or abandoned write leaves an existing file as it
// was (the temporary file is removed), so a command that fails halfway never truncates its output.
#pragma once

#include <fstream>
#include <string>

#include "base/status.h"

namespace tensorperf {

class AtomicFile {
 public:
  // Creates "<path>.tmp-<pid>" next to `path` (same directory: rename() is then atomic).
  static Result<AtomicFile> create(const std::string& path);
  AtomicFile(AtomicFile&& o) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  ~AtomicFile();  // removes the temporary file unless committed

  std::ostream& stream() { return out_; }
  // Flushes, syncs to disk and renames over the destination. IoError when any write failed.
  Status commit();

 private:
  AtomicFile(std::string path, std::string temp);
  std::string path_, temp_;
  std::ofstream out_;
  bool committed_ = false;
};

// Whether `a` and `b` name the same file, or would once created (the same canonical path).
bool same_file(const std::string& a, const std::string& b);

}  // namespace tensorperf
