#include "db/record_chunk.h"

#include "db/parsed_record.h"

#include <zstd.h>

#include <string>

#include <stdexcept>

namespace tensorperf::db {
namespace {

constexpr int kZstdLevel = 1;  // 9x on TVM logs at ~0.9 us per line; higher levels gain little
// A chunk holds at most kChunkRecords lines of at most kMaxLineBytes (each after its length, a varint
// of at most 10 bytes): the one limit, enforced when lines are parsed and when a chunk is written,
// that also bounds what a corrupt frame header can make a reader allocate.
constexpr unsigned long long kMaxRawChunkBytes = kChunkRecords * (kMaxLineBytes + 10);

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

}  // namespace

struct ChunkWriter::Ctx {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ~Ctx() { ZSTD_freeCCtx(cctx); }
};

ChunkWriter::ChunkWriter() : ctx_(new Ctx) {
  if (!ctx_->cctx) throw std::bad_alloc();
  ZSTD_CCtx_setParameter(ctx_->cctx, ZSTD_c_compressionLevel, kZstdLevel);
}
ChunkWriter::~ChunkWriter() { delete ctx_; }

void ChunkWriter::clear() {
  raw_.clear();
  lines_ = 0;
}

void ChunkWriter::add(std::string_view line) {
  put_varint(raw_, line.size());
  raw_.append(line);
  ++lines_;
}

Result<std::string_view> ChunkWriter::compress() {
  if (raw_.size() > kMaxRawChunkBytes)
    return Status::InvalidArgument("a record chunk of " + std::to_string(raw_.size()) + " bytes is over the limit of " +
                                   std::to_string(kMaxRawChunkBytes) + " (lines over " + std::to_string(kMaxLineBytes) +
                                   " bytes must be skipped before they are stored)");
  packed_.resize(ZSTD_compressBound(raw_.size()));
  size_t n = ZSTD_compress2(ctx_->cctx, packed_.data(), packed_.size(), raw_.data(), raw_.size());
  if (ZSTD_isError(n)) return Status::Internal(std::string("zstd: cannot compress a record chunk: ") + ZSTD_getErrorName(n));
  return std::string_view(packed_.data(), n);
}

struct ChunkReader::Ctx {
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  ~Ctx() { ZSTD_freeDCtx(dctx); }
};

ChunkReader::ChunkReader() : ctx_(new Ctx) {
  if (!ctx_->dctx) throw std::bad_alloc();
}
ChunkReader::~ChunkReader() { delete ctx_; }

Status ChunkReader::load(int codec, std::string_view data) {
  offsets_.clear();
  raw_.clear();
  if (codec != kChunkCodecZstd) return Status::Corruption("a record chunk has unknown codec " + std::to_string(codec));
  unsigned long long size = ZSTD_getFrameContentSize(data.data(), data.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > kMaxRawChunkBytes)
    return Status::Corruption("a record chunk is not a zstd frame of known size");
  raw_.resize(size);
  size_t n = ZSTD_decompressDCtx(ctx_->dctx, raw_.data(), raw_.size(), data.data(), data.size());
  if (ZSTD_isError(n) || n != size)
    return Status::Corruption(std::string("a record chunk does not decompress: ") +
                              (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short"));
  for (size_t p = 0; p < raw_.size();) {
    uint64_t len = 0;
    int shift = 0;
    for (;;) {
      if (p >= raw_.size() || shift > 35) return Status::Corruption("a record chunk has a bad line length");
      auto b = static_cast<unsigned char>(raw_[p++]);
      len |= static_cast<uint64_t>(b & 0x7f) << shift;
      shift += 7;
      if (!(b & 0x80)) break;
    }
    if (len > raw_.size() - p) return Status::Corruption("a record chunk's line runs past its end");
    offsets_.emplace_back(static_cast<uint32_t>(p), static_cast<uint32_t>(len));
    p += len;
  }
  return Status::Ok();
}

Result<std::string_view> ChunkReader::line(int slot) const {
  if (slot < 0 || slot >= lines())
    return Status::Corruption("a record names slot " + std::to_string(slot) + " of a chunk of " +
                              std::to_string(lines()) + " lines");
  return std::string_view(raw_.data() + offsets_[slot].first, offsets_[slot].second);
}

}  // namespace tensorperf::db
