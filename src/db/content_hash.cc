#include "db/content_hash.h"

#include <openssl/evp.h>
#include <xxhash.h>

#include <memory>
#include <stdexcept>

namespace tensorperf::db {
namespace {

// The algorithm is looked up once and each thread keeps its context: EVP's one-shot helpers
// look SHA-256 up again on every call, which costs more than hashing a log line.
const EVP_MD* sha256() {
  static EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  if (!md) throw std::runtime_error("OpenSSL has no SHA-256");
  return md;
}

struct CtxDeleter {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

}  // namespace

void content_hash_into(std::initializer_list<std::string_view> parts, std::string& out) {
  thread_local std::unique_ptr<EVP_MD_CTX, CtxDeleter> ctx(EVP_MD_CTX_new());
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  bool ok = EVP_DigestInit_ex2(ctx.get(), sha256(), nullptr) == 1;
  for (std::string_view p : parts) ok = ok && EVP_DigestUpdate(ctx.get(), p.data(), p.size()) == 1;
  ok = ok && EVP_DigestFinal_ex(ctx.get(), digest, &len) == 1;
  if (!ok || len < kContentHashBytes) throw std::runtime_error("OpenSSL SHA-256 failed");
  out.assign(reinterpret_cast<const char*>(digest), kContentHashBytes);
}

std::string content_hash(std::string_view bytes) {
  std::string out;
  content_hash_into({bytes}, out);
  return out;
}

uint64_t config_key(std::string_view provider, std::string_view config) {
  return XXH3_64bits_withSeed(config.data(), config.size(), XXH3_64bits(provider.data(), provider.size()));
}

std::string to_hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.resize(bytes.size() * 2);
  for (size_t i = 0; i < bytes.size(); ++i) {
    auto b = static_cast<unsigned char>(bytes[i]);
    out[2 * i] = kDigits[b >> 4];
    out[2 * i + 1] = kDigits[b & 15];
  }
  return out;
}

}  // namespace tensorperf::db
