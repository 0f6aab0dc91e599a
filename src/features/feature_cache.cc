#include "features/feature_cache.h"

#include <sqlite3.h>
#include <zstd.h>

#include <cstring>
#include <filesystem>
#include <mutex>

#include "base/cache_dir.h"
#include "base/unix_time.h"
#include "db/content_hash.h"
#include "db/sqlite_statement.h"
#include "features/leaf_features.h"
#include "kernels/provider.h"

namespace tensorperf::features {
namespace {

constexpr int kBusyTimeoutMs = 60000;
// PRAGMA user_version of the file's layout; an entry's bytes start with kEntryLayout.
constexpr int kFileFormat = 1;
constexpr uint8_t kEntryLayout = 1;
constexpr int kZstdLevel = 3;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS fingerprints(fingerprint TEXT PRIMARY KEY, used_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS features(fingerprint TEXT NOT NULL, program BLOB NOT NULL, data BLOB NOT NULL,
                                    PRIMARY KEY(fingerprint, program)) WITHOUT ROWID;
)sql";

// The uncompressed bytes of an entry: layout, kind, the pooled vector, each leaf's row, each
// position; counts as uint32, values in the host's byte order (x86-64 only, as the project).
template <typename T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
void put_floats(std::string& out, const std::vector<float>& v) {
  put(out, static_cast<uint32_t>(v.size()));
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}
std::string raw_bytes(const ProgramFeatures& f) {
  std::string out;
  put(out, kEntryLayout);
  put(out, static_cast<uint8_t>(f.kind));
  put_floats(out, f.pooled);
  put(out, static_cast<uint32_t>(f.leaves.size()));
  for (const auto& leaf : f.leaves) put_floats(out, leaf);
  put(out, static_cast<uint32_t>(f.positions.size()));
  for (const LeafPosition& p : f.positions) {
    put(out, static_cast<int32_t>(p.preorder));
    put(out, static_cast<int32_t>(p.depth));
    put(out, static_cast<int32_t>(p.parent_preorder));
  }
  return out;
}

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  template <typename T>
  bool get(T& v) {
    if (b_.size() - at_ < sizeof v) return false;
    std::memcpy(&v, b_.data() + at_, sizeof v);
    at_ += sizeof v;
    return true;
  }
  bool get_floats(std::vector<float>& v) {
    uint32_t n = 0;
    if (!get(n) || (b_.size() - at_) / sizeof(float) < n) return false;
    v.resize(n);
    std::memcpy(v.data(), b_.data() + at_, n * sizeof(float));
    at_ += n * sizeof(float);
    return true;
  }
  bool done() const { return at_ == b_.size(); }
  size_t left() const { return b_.size() - at_; }

 private:
  std::string_view b_;
  size_t at_ = 0;
};

Status bad_entry(const char* what) { return Status::InvalidArgument(std::string("feature cache entry: ") + what); }

// What identifies a program in the file: 16 bytes of SHA-256 over its parts.
std::string program_key(const ProgramRef& p) {
  std::string key;
  const std::string knobs = p.config.knobs.dump();
  const std::string workload = p.workload.key();
  db::content_hash_into({workload, "\n", p.config.provider, "\n", knobs, "\n", p.target, p.chained ? "\n1" : "\n0"}, key);
  return key;
}

// Programs whose features stand for the featuriser: one workload of each op kind the dataset has,
// Halide's default and first seed config, oneDNN's default where it supports the op, the chained
// form of two, at two targets.
std::vector<ProgramRef> canary_programs() {
  static const char* const kWorkloads[] = {
      "conv2d|float32[1,3,299,299];float32[32,3,3,3]|dilations=[1,1];groups=1;pads=[0,0,0,0];strides=[2,2]|bias+relu",
      "conv2d|float32[1,32,112,112];float32[32,1,3,3]|dilations=[1,1];groups=32;pads=[1,1,1,1];strides=[1,1]|bias+relu6",
      "conv2d|float32[1,64,56,56];float32[64,64,1,1]|dilations=[1,1];groups=1;pads=[0,0,0,0];strides=[1,1]|",
      "dense|float32[1,128,768];float32[768,768]||bias+add",
      "batch_matmul|float32[1,12,128,64];float32[1,12,128,64]|transpose_a=0;transpose_b=1|",
      "max_pool2d|float32[1,288,35,35]|ceil_mode=0;dilations=[1,1];kernel=[3,3];pads=[0,0,0,0];strides=[2,2]|",
      "avg_pool2d|float32[1,192,35,35]|ceil_mode=0;count_include_pad=1;kernel=[3,3];pads=[1,1,1,1];strides=[1,1]|",
      "global_avg_pool2d|float32[1,2048,8,8]||",
      "relu|float32[1,32,111,111]||",
      "add|float32[1,11,56,56];float32[1,11,56,56]||",
      "mul|float32[1,12,128,128];float32[1]||",
      "batch_norm|float32[1,22,56,56];float32[22];float32[22];float32[22];float32[22]|epsilon=0.001|",
      "layer_norm|float32[1,128,768];float32[768];float32[768]|axis=-1;epsilon=1e-12|",
      "softmax|float32[1,12,128,128]|axis=-1|",
  };
  const std::string targets[] = {"x86-64-linux-avx-avx2-f16c-fma-sse41",
                                 "x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41"};
  std::vector<ProgramRef> out;
  for (size_t i = 0; i < std::size(kWorkloads); ++i) {
    Result<ir::Workload> w = ir::parse_workload_key(kWorkloads[i]);
    if (!w.ok()) continue;  // the key's grammar changed: the fingerprint changes with it
    for (const kernels::Provider* provider : kernels::providers()) {
      if (!provider->supports(*w)) continue;
      std::vector<kernels::Config> configs = {provider->default_config(*w)};
      if (provider->name() == "halide") {
        std::vector<kernels::Config> seeds = provider->seed_configs(*w, targets[0]);
        if (!seeds.empty()) configs.push_back(seeds.front());
      }
      // Both targets, chained and not, for the first workload; the first target for the others.
      const size_t target_count = i == 0 ? std::size(targets) : 1;
      for (const kernels::Config& c : configs)
        for (size_t t = 0; t < target_count; ++t) {
          out.push_back({*w, c, targets[t], false});
          if (i == 0) out.push_back({*w, c, targets[t], true});
        }
    }
  }
  return out;
}

Result<std::string> compute_fingerprint() {
  std::string text = "feature cache " + std::to_string(kFileFormat) + "." + std::to_string(kEntryLayout) + "\n";
  for (const std::string& n : pooled_feature_names()) text += n + "\n";
  for (const std::string& n : leaf_feature_names()) text += n + "\n";
  const std::vector<ProgramRef> canaries = canary_programs();
  if (canaries.empty()) return Status::Internal("feature cache: no canary program could be built");
  std::vector<Result<ProgramFeatures>> f = program_features(canaries);
  for (size_t i = 0; i < f.size(); ++i) {
    text += program_key(canaries[i]);
    text += f[i].ok() ? raw_bytes(*f[i]) : "error: " + f[i].status().message();
  }
  return db::to_hex(db::content_hash(text));
}

}  // namespace

std::string encode_program_features(const ProgramFeatures& f) {
  const std::string raw = raw_bytes(f);
  std::string out(ZSTD_compressBound(raw.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), kZstdLevel);
  if (ZSTD_isError(n)) return {};  // only when the bound is wrong: an empty entry decodes as an error
  out.resize(n);
  return out;
}

Result<ProgramFeatures> decode_program_features(std::string_view bytes) {
  const unsigned long long size = ZSTD_getFrameContentSize(bytes.data(), bytes.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > (64u << 20))
    return bad_entry("not a zstd frame of known size");
  std::string raw(size, '\0');
  const size_t n = ZSTD_decompress(raw.data(), raw.size(), bytes.data(), bytes.size());
  if (ZSTD_isError(n) || n != size) return bad_entry("its zstd frame does not decompress");
  Reader r(raw);
  ProgramFeatures f;
  uint8_t layout = 0, kind = 0;
  if (!r.get(layout) || layout != kEntryLayout) return bad_entry("of another layout");
  if (!r.get(kind) || kind > static_cast<uint8_t>(SampleKind::kKnobs)) return bad_entry("bad sample kind");
  f.kind = static_cast<SampleKind>(kind);
  if (!r.get_floats(f.pooled)) return bad_entry("truncated pooled vector");
  uint32_t leaves = 0;
  if (!r.get(leaves) || leaves > r.left() / sizeof(uint32_t)) return bad_entry("truncated leaves");
  f.leaves.resize(leaves);
  for (auto& leaf : f.leaves)
    if (!r.get_floats(leaf)) return bad_entry("truncated leaf");
  uint32_t positions = 0;
  if (!r.get(positions) || positions > r.left() / (3 * sizeof(int32_t))) return bad_entry("truncated positions");
  f.positions.resize(positions);
  for (LeafPosition& p : f.positions) {
    int32_t v[3] = {0, 0, 0};
    for (int32_t& x : v) r.get(x);
    p = {v[0], v[1], v[2]};
  }
  if (!r.done()) return bad_entry("trailing bytes");
  return f;
}

Result<std::string> featuriser_fingerprint() {
  static std::once_flag once;
  static Result<std::string> fingerprint = Status::Internal("not computed");
  std::call_once(once, [] { fingerprint = compute_fingerprint(); });
  return fingerprint;
}

std::string default_feature_cache_path() { return (user_cache_dir() / "features.sqlite").string(); }

struct FeatureCache::Impl {
  std::string path, fingerprint;
  sqlite3* db = nullptr;
  db::SqliteStatement select, insert;
  size_t hits = 0, computed = 0, write_errors = 0;

  // close_v2: the connection closes once the statements (destroyed after this body) are finalised.
  ~Impl() { sqlite3_close_v2(db); }
  Status error(const std::string& what) const {
    return Status::Internal("feature cache " + path + ": " + what + ": " + sqlite3_errmsg(db));
  }
  Status exec(const char* sql) { return db::sqlite_exec(db, sql, "feature cache " + path + ": "); }
};

Result<std::unique_ptr<FeatureCache>> FeatureCache::open(const std::string& path) {
  if (path.empty()) return Status::InvalidArgument("feature cache: an empty path");
  TP_ASSIGN_OR_RETURN(std::string fingerprint, featuriser_fingerprint());
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  if (ec) return Status::InvalidArgument("feature cache: cannot create " + dir.string() + ": " + ec.message());
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->fingerprint = fingerprint;
  if (sqlite3_open_v2(path.c_str(), &impl->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK)
    return Status::InvalidArgument("feature cache: cannot open " + path + ": " +
                                   (impl->db ? sqlite3_errmsg(impl->db) : "out of memory"));
  sqlite3_busy_timeout(impl->db, kBusyTimeoutMs);
  // user_version: 0 for a new (or foreign, empty) file, kFileFormat for ours.
  int version = -1;
  {
    db::SqliteStatement s;
    if (!s.prepare(impl->db, "PRAGMA user_version").ok() || sqlite3_step(s.get()) != SQLITE_ROW)
      return Status::InvalidArgument("feature cache: " + path + " is not an SQLite file (delete it, or pass another path)");
    version = static_cast<int>(s.column_int(0));
  }
  {
    // Any other table: someone else's database (a records store, say), never to be written to.
    db::SqliteStatement s;
    if (!s.prepare(impl->db, "SELECT count(*) FROM sqlite_master WHERE name NOT IN ('fingerprints', 'features') "
                             "AND name NOT LIKE 'sqlite_%'")
             .ok() ||
        sqlite3_step(s.get()) != SQLITE_ROW)
      return impl->error("cannot read its schema");
    if (s.column_int(0) != 0)
      return Status::InvalidArgument("feature cache: " + path +
                                     " holds other tables: not a feature cache (pass another path)");
  }
  if (version > kFileFormat)
    return Status::InvalidArgument("feature cache: " + path + " is of format " + std::to_string(version) +
                                   ", newer than this build's " + std::to_string(kFileFormat) +
                                   " (pass another path, or delete it)");
  TP_RETURN_IF_ERROR(impl->exec("PRAGMA journal_mode=WAL"));
  TP_RETURN_IF_ERROR(impl->exec("PRAGMA synchronous=NORMAL"));
  TP_RETURN_IF_ERROR(impl->exec("BEGIN IMMEDIATE"));
  Status st = impl->exec(kSchema);
  if (st.ok()) st = impl->exec(("PRAGMA user_version=" + std::to_string(kFileFormat)).c_str());
  if (st.ok()) {
    db::SqliteStatement used;
    st = used.prepare(impl->db,
                      "INSERT INTO fingerprints(fingerprint, used_at) VALUES(?1, ?2) "
                      "ON CONFLICT(fingerprint) DO UPDATE SET used_at = excluded.used_at");
    if (st.ok()) {
      used.text(1, fingerprint);
      used.real(2, unix_seconds());
      if (sqlite3_step(used.get()) != SQLITE_DONE) st = impl->error("cannot record its fingerprint");
    }
  }
  if (st.ok()) {
    const std::string keep = "(SELECT fingerprint FROM fingerprints ORDER BY used_at DESC LIMIT " +
                             std::to_string(kKeptFingerprints) + ")";
    st = impl->exec(("DELETE FROM features WHERE fingerprint NOT IN " + keep + "; DELETE FROM fingerprints WHERE fingerprint NOT IN " + keep).c_str());
  }
  if (!st.ok()) {
    (void)impl->exec("ROLLBACK");
    return st;
  }
  TP_RETURN_IF_ERROR(impl->exec("COMMIT"));
  TP_RETURN_IF_ERROR(impl->select.prepare(impl->db, "SELECT data FROM features WHERE fingerprint = ?1 AND program = ?2"));
  TP_RETURN_IF_ERROR(impl->insert.prepare(
      impl->db, "INSERT OR REPLACE INTO features(fingerprint, program, data) VALUES(?1, ?2, ?3)"));
  return std::unique_ptr<FeatureCache>(new FeatureCache(std::move(impl)));
}

FeatureCache::FeatureCache(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
FeatureCache::~FeatureCache() = default;

std::vector<Result<ProgramFeatures>> FeatureCache::features(std::span<const ProgramRef> programs) {
  Impl& m = *impl_;
  std::vector<Result<ProgramFeatures>> out(programs.size(), Result<ProgramFeatures>(Status::Internal("not done")));
  std::vector<std::string> keys(programs.size());
  std::vector<ProgramRef> missing;
  std::vector<size_t> missing_at;
  for (size_t i = 0; i < programs.size(); ++i) {
    // "host" names whichever machine runs this: its features are not the file's to keep.
    if (programs[i].target != "host") {
      keys[i] = program_key(programs[i]);
      m.select.reset();
      m.select.text_static(1, m.fingerprint);
      m.select.blob(2, keys[i]);
      if (sqlite3_step(m.select.get()) == SQLITE_ROW) {
        Result<ProgramFeatures> f = decode_program_features(m.select.column_view(0));
        if (f.ok()) {
          out[i] = std::move(f);
          ++m.hits;
          continue;
        }
      }
    }
    missing.push_back(programs[i]);
    missing_at.push_back(i);
  }
  m.select.reset();
  if (missing.empty()) return out;
  std::vector<Result<ProgramFeatures>> f = program_features(missing);
  m.computed += missing.size();
  bool began = m.exec("BEGIN IMMEDIATE").ok();
  bool wrote = began;
  for (size_t k = 0; k < f.size(); ++k) {
    const size_t i = missing_at[k];
    if (began && f[k].ok() && !keys[i].empty()) {
      const std::string data = encode_program_features(*f[k]);
      m.insert.reset();
      m.insert.text_static(1, m.fingerprint);
      m.insert.blob(2, keys[i]);
      m.insert.blob(3, data);
      if (data.empty() || sqlite3_step(m.insert.get()) != SQLITE_DONE) wrote = false;
    }
    out[i] = std::move(f[k]);
  }
  m.insert.reset();
  if (began) wrote = m.exec(wrote ? "COMMIT" : "ROLLBACK").ok() && wrote;
  if (!wrote) ++m.write_errors;
  return out;
}

const std::string& FeatureCache::path() const { return impl_->path; }
const std::string& FeatureCache::fingerprint() const { return impl_->fingerprint; }
size_t FeatureCache::hits() const { return impl_->hits; }
size_t FeatureCache::computed() const { return impl_->computed; }
size_t FeatureCache::write_errors() const { return impl_->write_errors; }

}  // namespace tensorperf::features
