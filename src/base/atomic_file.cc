#include "base/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace tensorperf {

namespace fs = std::filesystem;

AtomicFile::AtomicFile(std::string path, std::string temp)
    : path_(std::move(path)), temp_(std::move(temp)), out_(temp_, std::ios::binary | std::ios::trunc) {}

AtomicFile::AtomicFile(AtomicFile&& o) noexcept
    : path_(std::move(o.path_)), temp_(std::move(o.temp_)), out_(std::move(o.out_)), committed_(o.committed_) {
  o.committed_ = true;  // the moved-from object owns no temporary file any more
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  out_.close();
  std::remove(temp_.c_str());
}

Result<AtomicFile> AtomicFile::create(const std::string& path) {
  if (path.empty()) return Status::InvalidArgument("no output file given");
  if (fs::is_directory(path)) return Status::InvalidArgument(path + " is a directory, not a file to write");
  AtomicFile f(path, path + ".tmp-" + std::to_string(::getpid()));
  if (!f.out_) return Status::IoError("cannot write " + path + ": " + std::strerror(errno));
  return f;
}

Status AtomicFile::commit() {
  out_.flush();
  if (!out_) return Status::IoError("writing " + path_ + " failed (disk full?); it was left as it was");
  out_.close();
  // Durable before it replaces the old file: a crash leaves the old file or the new one, whole.
  int fd = ::open(temp_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  if (std::rename(temp_.c_str(), path_.c_str()) != 0)
    return Status::IoError("cannot replace " + path_ + ": " + std::strerror(errno));
  committed_ = true;
  return Status::Ok();
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ea, eb;
  if (fs::exists(a, ea) && fs::exists(b, eb)) return fs::equivalent(a, b, ea);
  return fs::weakly_canonical(a, ea) == fs::weakly_canonical(b, eb);
}

}  // namespace tensorperf
