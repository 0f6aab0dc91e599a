#include "db/store_url.h"

#include <algorithm>
#include <cctype>

namespace tensorperf::db {
namespace {

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decoding as libpq does it, leaving malformed escapes as they are.
std::string decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

struct Span {
  size_t begin = 0, end = 0;  // [begin, end) of the URL
};

// The spans of the URL that are secret: the userinfo's password, and each password= value.
std::vector<Span> secret_spans(std::string_view url) {
  std::vector<Span> spans;
  if (!is_postgres_url(url)) return spans;
  const size_t scheme = url.find("://") + 3;
  // The password runs from the first ':' after the scheme to the last '@' of the URL. That is more
  // than libpq reads when the password holds an unescaped '@', '/', '?' or '#' (it stops at the
  // first of those), or when an '@' appears later in the URL: whatever the user meant as the
  // password stays hidden, at worst with some of the host or path.
  const size_t at = url.rfind('@');
  const size_t colon = url.find(':', scheme);
  if (at != std::string_view::npos && at > scheme && colon != std::string_view::npos && colon < at)
    spans.push_back({colon + 1, at});
  // Every password= parameter (after '?' or '&'), whatever its case.
  std::string lower(url);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (size_t p = lower.find("password="); p != std::string::npos; p = lower.find("password=", p + 1)) {
    if (p == 0 || (lower[p - 1] != '?' && lower[p - 1] != '&')) continue;
    // The value runs to the next '&' ('#' included: a password may hold one).
    size_t begin = p + 9, end = url.find('&', begin);
    spans.push_back({begin, end == std::string_view::npos ? url.size() : end});
  }
  return spans;
}

void replace_all(std::string& s, const std::string& what, std::string_view with) {
  if (what.empty()) return;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + with.size())) s.replace(p, what.size(), with);
}

}  // namespace

bool is_postgres_url(std::string_view url) {
  return url.starts_with("postgresql://") || url.starts_with("postgres://");
}

std::vector<std::string> url_secrets(std::string_view url) {
  std::vector<std::string> out;
  for (const Span& s : secret_spans(url)) {
    if (s.end <= s.begin) continue;
    std::string raw(url.substr(s.begin, s.end - s.begin));
    std::string decoded = decode(raw);
    out.push_back(raw);
    if (decoded != raw) out.push_back(decoded);
  }
  // Longest first, so that a secret containing another is replaced whole.
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return out;
}

std::string redact_url(std::string_view url) {
  std::string out(url);
  std::vector<Span> spans = secret_spans(url);
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin > b.begin; });
  for (const Span& s : spans) out.replace(s.begin, s.end - s.begin, "***");
  return out;
}

std::string scrub_secrets(std::string message, std::string_view url) {
  if (!url.empty()) replace_all(message, std::string(url), redact_url(url));
  for (const std::string& secret : url_secrets(url)) replace_all(message, secret, "***");
  return message;
}

}  // namespace tensorperf::db
