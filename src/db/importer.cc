#include "db/importer.h"

#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "db/line_parser.h"
#include "db/record_chunk.h"

namespace tensorperf::db {
namespace {

// Records per block handed from the parser thread to the store. Blocks are reused, so their
// strings keep their capacity and stay in cache: parsing whole 100k-record batches into fresh
// memory spent a third of the import in malloc and page faults.
constexpr size_t kBlockRecords = 1024;
constexpr size_t kBlocks = 4;  // in flight: being parsed, queued, being stored
static_assert(kBlockRecords % kChunkRecords == 0, "blocks hold whole chunks");

// Splits a stream into lines at "\n", "\r\n" or a lone "\r" (the terminator is not part of the
// line, so a CRLF copy of a log holds the same lines), skips a UTF-8 byte order mark at the start,
// and reads 1 MiB at a time; a last line without a terminator is a line too. A line longer than
// kMaxLineBytes is not kept: the reader skips to its end and reports its length, so memory stays
// bounded whatever the input (/dev/zero included).
class LineReader {
 public:
  enum class Next { kLine, kTooLong, kEnd };
  explicit LineReader(std::istream& in) : in_(in) {}

  // kLine: `line` is the next line, valid until the next call. kTooLong: a line of `length` bytes
  // (more than kMaxLineBytes) was skipped. kEnd: the input ended (or could not be read).
  Next next(std::string_view& line, size_t& length) {
    size_t skipped = 0;  // bytes of an overlong line dropped so far
    for (;;) {
      if (size_t term = 0, at = find_terminator(term); at != kNone) {
        const size_t n = at - pos_;
        line = std::string_view(buf_.data() + pos_, n);
        pos_ = at + term;
        if (skipped + n > kMaxLineBytes) {
          length = skipped + n;
          return Next::kTooLong;
        }
        return Next::kLine;
      }
      if (eof_) {
        if (pos_ == end_ && skipped == 0) return Next::kEnd;
        const size_t n = end_ - pos_;
        line = std::string_view(buf_.data() + pos_, n);
        pos_ = end_;
        if (skipped + n > kMaxLineBytes) {
          length = skipped + n;
          return Next::kTooLong;
        }
        return Next::kLine;
      }
      if (end_ - pos_ > kMaxLineBytes) {  // overlong: drop what we have, keep looking for its end
        skipped += end_ - pos_ - 1;       // keep the last byte: it may be a '\r' before a '\n'
        pos_ = end_ - 1;
      }
      // Keep the partial line, then read more after it.
      std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
      end_ -= pos_;
      pos_ = 0;
      if (buf_.size() - end_ < kRead) buf_.resize(end_ + kRead);
      in_.read(buf_.data() + end_, static_cast<std::streamsize>(kRead));
      end_ += static_cast<size_t>(in_.gcount());
      if (!in_) eof_ = true;
      if (!bom_checked_ && end_ >= 3) {
        bom_checked_ = true;
        if (std::memcmp(buf_.data(), "\xEF\xBB\xBF", 3) == 0) pos_ = 3;
      }
    }
  }

 private:
  static constexpr size_t kRead = 1 << 20;
  static constexpr size_t kNone = static_cast<size_t>(-1);

  // The offset of the first line terminator at or after pos_, and its length in `term`; kNone when
  // there is none yet (a '\r' at the end of the buffer waits for the next byte, unless at eof).
  size_t find_terminator(size_t& term) const {
    const char* begin = buf_.data() + pos_;
    const char* nl = static_cast<const char*>(std::memchr(begin, '\n', end_ - pos_));
    const char* limit = nl ? nl : buf_.data() + end_;
    const char* cr = static_cast<const char*>(std::memchr(begin, '\r', limit - begin));
    if (cr != nullptr) {
      if (cr + 1 == buf_.data() + end_ && !eof_) return kNone;
      term = cr + 1 < buf_.data() + end_ && cr[1] == '\n' ? 2 : 1;
      return cr - buf_.data();
    }
    if (nl != nullptr) {
      term = 1;
      return nl - buf_.data();
    }
    return kNone;
  }

  std::istream& in_;
  std::string buf_ = std::string(2 * kRead, '\0');
  size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
  bool bom_checked_ = false;
};

struct Block {
  std::vector<ParsedRecord> records = std::vector<ParsedRecord>(kBlockRecords);
  size_t n = 0;
  std::vector<std::string> packed = std::vector<std::string>(kBlockRecords / kChunkRecords);  // see RecordBlock
  size_t n_packed = 0;
  bool ends_batch = false;  // the last block of its transaction (or of the input)
};

// A parser thread filling blocks, and the store's side taking them in order. Batch boundaries
// (ImportOptions::batch_size records) fall on block boundaries.
class Pipeline {
 public:
  Pipeline(std::istream& in, const std::string& name, const ImportOptions& options, const ProblemSink& on_problem)
      : in_(in), reader_(in), name_(name), options_(options), on_problem_(on_problem), blocks_(kBlocks) {
    for (Block& b : blocks_) free_.push_back(&b);
    parser_thread_ = std::thread([this] { parse_all(); });
  }
  ~Pipeline() {
    {
      std::lock_guard lock(mu_);
      stopped_ = true;
    }
    cv_.notify_all();
    parser_thread_.join();
  }

  // The next parsed block (null after the last one), or the error that stopped parsing.
  Result<Block*> take() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !full_.empty() || finished_; });
    if (!full_.empty()) {
      Block* b = full_.front();
      full_.pop_front();
      return b;
    }
    if (!error_.ok()) return error_;
    return nullptr;
  }
  void give_back(Block* b) {
    {
      std::lock_guard lock(mu_);
      free_.push_back(b);
    }
    cv_.notify_all();
  }
  // Valid once take() has returned null or an error.
  const ImportReport& report() const { return report_; }

 private:
  void parse_all() {
    Status s = Status::Ok();
    size_t in_batch = 0;
    bool eof = false;
    while (!eof && s.ok()) {
      Block* b = nullptr;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return !free_.empty() || stopped_; });
        if (stopped_) return;
        b = free_.front();
        free_.pop_front();
      }
      size_t room = std::min(kBlockRecords, options_.batch_size - in_batch);
      s = fill(*b, room, eof);
      if (s.ok()) s = pack(*b);
      in_batch += b->n;
      b->ends_batch = eof || in_batch == options_.batch_size;
      if (b->ends_batch) in_batch = 0;
      {
        std::lock_guard lock(mu_);
        if (s.ok() && b->n > 0) full_.push_back(b);
        else free_.push_back(b);
      }
      cv_.notify_all();
    }
    {
      std::lock_guard lock(mu_);
      finished_ = true;
      error_ = s;
    }
    cv_.notify_all();
  }

  // Compresses the block's lines in chunks, here rather than on the store's thread (~1 us a record).
  Status pack(Block& b) {
    b.n_packed = 0;
    for (size_t i = 0; i < b.n; i += kChunkRecords) {
      chunk_writer_.clear();
      for (size_t j = i; j < std::min(b.n, i + kChunkRecords); ++j) chunk_writer_.add(b.records[j].line);
      TP_ASSIGN_OR_RETURN(std::string_view packed, chunk_writer_.compress());
      b.packed[b.n_packed++].assign(packed);
    }
    return Status::Ok();
  }

  // Fills b with up to `room` records; eof when the input ended.
  Status fill(Block& b, size_t room, bool& eof) {
    b.n = 0;
    std::string_view line;
    size_t length = 0;
    while (b.n < room) {
      LineReader::Next got = reader_.next(line, length);
      if (got == LineReader::Next::kEnd) {
        eof = true;
        break;
      }
      ++report_.lines;
      Status s = Status::Ok();
      if (got == LineReader::Next::kTooLong) {
        s = Status::Corruption("the line is " + std::to_string(length) + " bytes, longer than the limit of " +
                               std::to_string(kMaxLineBytes) + " bytes for a record");
      } else if (is_skippable_line(line)) {
        continue;
      } else {
        s = parser_.parse_into(line, b.records[b.n]);
      }
      if (!s.ok()) {
        std::string problem = name_ + ":" + std::to_string(report_.lines) + ": " + s.message();
        if (options_.strict) return Status::InvalidArgument(problem + " (--strict: import stopped)");
        ++report_.skipped;
        if (on_problem_) on_problem_(problem);
        continue;
      }
      ++report_.records;
      ++b.n;
    }
    if (in_.bad()) return Status::IoError("reading " + name_ + " failed after line " + std::to_string(report_.lines));
    return Status::Ok();
  }

  std::istream& in_;
  LineReader reader_;
  const std::string& name_;
  const ImportOptions& options_;
  const ProblemSink& on_problem_;
  LineParser parser_;
  ChunkWriter chunk_writer_;
  ImportReport report_;

  std::vector<Block> blocks_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Block*> free_, full_;
  bool finished_ = false, stopped_ = false;
  Status error_ = Status::Ok();
  std::thread parser_thread_;
};

// One transaction's blocks: from `first` up to the block that ends the batch.
class BatchBlocks final : public RecordBlocks {
 public:
  BatchBlocks(Pipeline& pipeline, Block* first) : pipeline_(pipeline), pending_(first) {}
  ~BatchBlocks() override { release(); }

  Result<RecordBlock> next() override {
    release();
    if (done_) return RecordBlock{};
    if (!pending_) {
      Result<Block*> taken = pipeline_.take();
      if (!taken.ok()) {
        parse_error_ = taken.status();
        return parse_error_;
      }
      pending_ = *taken;
      if (!pending_) {  // the input ended on a batch boundary
        done_ = true;
        return RecordBlock{};
      }
    }
    current_ = pending_;
    pending_ = nullptr;
    done_ = current_->ends_batch;
    return RecordBlock{std::span<const ParsedRecord>(current_->records.data(), current_->n),
                       std::span<const std::string>(current_->packed.data(), current_->n_packed)};
  }
  // What stopped parsing, when it did during this batch.
  const Status& parse_error() const { return parse_error_; }

 private:
  void release() {
    if (current_) pipeline_.give_back(current_);
    current_ = nullptr;
  }
  Pipeline& pipeline_;
  Block* pending_;
  Block* current_ = nullptr;
  bool done_ = false;
  Status parse_error_ = Status::Ok();
};

}  // namespace

Result<ImportReport> import_stream(RecordStore& store, std::istream& in, const std::string& name,
                                   const ImportOptions& options, const ProblemSink& on_problem) {
  if (options.batch_size == 0) return Status::InvalidArgument("the import batch size must be at least 1");
  Pipeline pipeline(in, name, options, on_problem);
  InsertCounts counts;
  for (;;) {
    TP_ASSIGN_OR_RETURN(Block* first, pipeline.take());
    if (!first) break;
    BatchBlocks blocks(pipeline, first);
    Status stored = store.insert_blocks(blocks, options.batch_size, counts);
    // A parse error (--strict, a failed read) rolled the batch back; it says what to fix itself.
    if (!blocks.parse_error().ok()) return blocks.parse_error();
    TP_RETURN_IF_ERROR(stored.WithContext("importing " + name));
  }
  ImportReport report = pipeline.report();
  report.inserted = counts.inserted;
  report.duplicates = counts.duplicates;
  return report;
}

namespace {

// The whole decompressed content of a zstd file (as `zstd -d` writes it).
Result<std::string> read_zstd(std::istream& in, const std::string& path) {
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  std::vector<char> input(ZSTD_DStreamInSize()), output(ZSTD_DStreamOutSize());
  std::string text;
  size_t last = 0;
  bool any = false;
  while (in.read(input.data(), static_cast<std::streamsize>(input.size())) || in.gcount() > 0) {
    any = true;
    ZSTD_inBuffer src{input.data(), static_cast<size_t>(in.gcount()), 0};
    while (src.pos < src.size) {
      ZSTD_outBuffer dst{output.data(), output.size(), 0};
      last = ZSTD_decompressStream(ctx.get(), &dst, &src);
      if (ZSTD_isError(last))
        return Status::Corruption(path + ": not a valid zstd file (" + ZSTD_getErrorName(last) + ")");
      text.append(output.data(), dst.pos);
    }
  }
  if (in.bad()) return Status::IoError("cannot read " + path + ": " + std::strerror(errno));
  if (!any || last != 0) return Status::Corruption(path + ": truncated zstd file");
  return text;
}

}  // namespace

Result<ImportReport> import_file(RecordStore& store, const std::string& path, const ImportOptions& options,
                                 const ProblemSink& on_problem) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot read " + path + ": " + std::strerror(errno));
  if (path.size() > 4 && path.compare(path.size() - 4, 4, ".zst") == 0) {
    TP_ASSIGN_OR_RETURN(std::string text, read_zstd(in, path));
    std::istringstream decompressed(std::move(text));
    return import_stream(store, decompressed, path, options, on_problem);
  }
  return import_stream(store, in, path, options, on_problem);
}

}  // namespace tensorperf::db
