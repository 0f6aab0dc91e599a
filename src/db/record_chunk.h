// Record chunks: the SQLite store keeps the original lines of up to kChunkRecords consecutive
// records together, compressed with zstd (TVM and tensorperf lines are repetitive JSON: about 9x
// smaller in chunks of 64). A record names its chunk and its slot in it. Writing each ~600-byte
// line as its own row, through the WAL and again at checkpoint, was most of an import's cost.
//
// Encoding (codec kChunkCodecZstd): one zstd frame of, per slot in order, the line's length as an
// unsigned LEB128 varint followed by its bytes. Lines are arbitrary bytes (NUL included).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace tensorperf::db {

inline constexpr int kChunkRecords = 64;
inline constexpr int kChunkCodecZstd = 1;  // reaches disk: never change

class ChunkWriter {
 public:
  ChunkWriter();
  ~ChunkWriter();
  ChunkWriter(const ChunkWriter&) = delete;
  ChunkWriter& operator=(const ChunkWriter&) = delete;

  void clear();
  // Appends a line; its slot is the number of lines added before it.
  void add(std::string_view line);
  int lines() const { return lines_; }
  // The compressed chunk of the lines added since clear(); valid until the next compress().
  Result<std::string_view> compress();

 private:
  struct Ctx;
  Ctx* ctx_;
  std::string raw_, packed_;
  int lines_ = 0;
};

class ChunkReader {
 public:
  ChunkReader();
  ~ChunkReader();
  ChunkReader(const ChunkReader&) = delete;
  ChunkReader& operator=(const ChunkReader&) = delete;

  // Decodes a stored chunk; a Corruption status when it is not one.
  Status load(int codec, std::string_view data);
  int lines() const { return static_cast<int>(offsets_.size()); }
  // The line in `slot`; a Corruption status when the chunk has no such slot.
  Result<std::string_view> line(int slot) const;

 private:
  struct Ctx;
  Ctx* ctx_;
  std::string raw_;
  std::vector<std::pair<uint32_t, uint32_t>> offsets_;  // (start, length) in raw_
};

}  // namespace tensorperf::db
