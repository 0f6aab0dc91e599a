#include "db/record_chunk.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace tensorperf::db {
namespace {

std::vector<std::string> sample_lines() {
  std::vector<std::string> lines = {
      R"({"input": ["llvm -mcpu=core-avx2", "dense.x86", [["TENSOR", [1, 64], "float32"]], {}], "result": [[0.001], 0, 1.0, 1600000000]})",
      "",                               // empty
      std::string("a\0b\x01\x7f\xff", 6),  // NUL, control and high bytes
      std::string(200, 'x'),            // length needs a 2-byte varint
      std::string(1 << 20, 'y'),        // 1 MB
  };
  for (int i = 0; i < 50; ++i) lines.push_back("line " + std::to_string(i));
  return lines;
}

TEST(RecordChunk, LinesRoundTripBySlot) {
  ChunkWriter w;
  auto lines = sample_lines();
  for (const auto& l : lines) w.add(l);
  EXPECT_EQ(w.lines(), static_cast<int>(lines.size()));
  auto packed = w.compress();
  ASSERT_TRUE(packed.ok()) << packed.status().message();
  EXPECT_LT(packed->size(), (1u << 20) / 10) << "repetitive lines compress";
  std::string stored(*packed);
  ChunkReader r;
  ASSERT_TRUE(r.load(kChunkCodecZstd, stored).ok());
  ASSERT_EQ(r.lines(), static_cast<int>(lines.size()));
  for (size_t i = 0; i < lines.size(); ++i) {
    auto l = r.line(static_cast<int>(i));
    ASSERT_TRUE(l.ok()) << i;
    EXPECT_EQ(*l, lines[i]) << i;
  }
  EXPECT_EQ(r.line(static_cast<int>(lines.size())).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(r.line(-1).status().code(), StatusCode::kCorruption);
}

TEST(RecordChunk, WriterStartsOverAfterClear) {
  ChunkWriter w;
  w.add("first");
  w.clear();
  w.add("second");
  auto packed = w.compress();
  ASSERT_TRUE(packed.ok());
  ChunkReader r;
  ASSERT_TRUE(r.load(kChunkCodecZstd, *packed).ok());
  ASSERT_EQ(r.lines(), 1);
  EXPECT_EQ(*r.line(0), "second");
}

TEST(RecordChunk, DamagedChunksAreCorruptionNotCrashes) {
  ChunkWriter w;
  for (int i = 0; i < 64; ++i) w.add("record line number " + std::to_string(i));
  std::string good(*w.compress());
  ChunkReader r;
  EXPECT_EQ(r.load(7, good).code(), StatusCode::kCorruption) << "unknown codec";
  EXPECT_EQ(r.load(kChunkCodecZstd, "").code(), StatusCode::kCorruption);
  EXPECT_EQ(r.load(kChunkCodecZstd, "not zstd at all").code(), StatusCode::kCorruption);
  EXPECT_EQ(r.load(kChunkCodecZstd, good.substr(0, good.size() / 2)).code(), StatusCode::kCorruption);
  // Every single-byte change either fails cleanly or decodes to lines (zstd frames carry a checksum
  // only optionally, so some changes decode); none may crash or read out of bounds.
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    Status s = r.load(kChunkCodecZstd, bad);
    if (s.ok())
      for (int k = 0; k < r.lines(); ++k) EXPECT_TRUE(r.line(k).ok());
    else
      EXPECT_EQ(s.code(), StatusCode::kCorruption);
  }
  // A well-formed frame whose content is not length-prefixed lines.
  ChunkWriter raw;
  raw.add(std::string(10, '\xff'));
  std::string frame(*raw.compress());
  ASSERT_TRUE(r.load(kChunkCodecZstd, frame).ok());
  EXPECT_EQ(r.lines(), 1);
}

}  // namespace
}  // namespace tensorperf::db
