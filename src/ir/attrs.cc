#include "ir/attrs.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace tensorperf::ir {

namespace {

template <typename T>
const T* find_typed(const std::map<std::string, AttrValue>& m, const std::string& name, const char* want) {
  auto it = m.find(name);
  if (it == m.end()) return nullptr;
  const T* v = std::get_if<T>(&it->second);
  if (!v) throw std::logic_error("attribute \"" + name + "\" is not " + want);
  return v;
}

std::string format_float(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // keep floats distinguishable from ints
  return s;
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

int64_t Attrs::get_int(const std::string& name, int64_t fallback) const {
  const auto* v = find_typed<int64_t>(values_, name, "an int");
  return v ? *v : fallback;
}
double Attrs::get_float(const std::string& name, double fallback) const {
  auto it = values_.find(name);
  if (it != values_.end())
    if (const auto* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  const auto* v = find_typed<double>(values_, name, "a float");
  return v ? *v : fallback;
}
std::string Attrs::get_string(const std::string& name, const std::string& fallback) const {
  const auto* v = find_typed<std::string>(values_, name, "a string");
  return v ? *v : fallback;
}
std::vector<int64_t> Attrs::get_ints(const std::string& name, const std::vector<int64_t>& fallback) const {
  const auto* v = find_typed<std::vector<int64_t>>(values_, name, "an int list");
  return v ? *v : fallback;
}

std::string Attrs::to_string() const {
  std::string out;
  for (const auto& [name, value] : values_) {
    if (!out.empty()) out += ';';
    out += name;
    out += '=';
    if (const auto* i = std::get_if<int64_t>(&value)) {
      out += std::to_string(*i);
    } else if (const auto* d = std::get_if<double>(&value)) {
      out += format_float(*d);
    } else if (const auto* s = std::get_if<std::string>(&value)) {
      out += quote(*s);
    } else {
      const auto& list = std::get<std::vector<int64_t>>(value);
      out += '[';
      for (size_t k = 0; k < list.size(); ++k) {
        if (k) out += ',';
        out += std::to_string(list[k]);
      }
      out += ']';
    }
  }
  return out;
}

namespace {

Result<int64_t> parse_int(std::string_view s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    std::string msg(1, '"');
    msg.append(s).append("\" is not an integer");
    return Status::InvalidArgument(msg);
  }
  return v;
}

}  // namespace

Result<Attrs> parse_attrs(std::string_view text) {
  Attrs attrs;
  size_t pos = 0;
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("malformed attributes \"" + std::string(text) + "\": " + why);
  };
  while (pos < text.size()) {
    size_t eq = text.find('=', pos);
    if (eq == std::string_view::npos) return bad("expected name=value");
    std::string name(text.substr(pos, eq - pos));
    if (name.empty()) return bad("empty attribute name");
    for (char c : name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return bad("bad attribute name \"" + name + "\"");
    size_t vpos = eq + 1;
    size_t end;
    if (vpos < text.size() && text[vpos] == '"') {
      std::string s;
      size_t k = vpos + 1;
      for (; k < text.size() && text[k] != '"'; ++k) {
        if (text[k] == '\\' && k + 1 < text.size()) ++k;
        s += text[k];
      }
      if (k >= text.size()) return bad("unterminated string");
      attrs.set(name, s);
      end = k + 1;
    } else {
      end = text.find(';', vpos);
      if (end == std::string_view::npos) end = text.size();
      std::string_view v = text.substr(vpos, end - vpos);
      if (v.empty()) return bad("attribute \"" + name + "\" has no value");
      if (v.front() == '[') {
        if (v.back() != ']') return bad("unterminated list in \"" + name + "\"");
        std::vector<int64_t> list;
        std::string_view body = v.substr(1, v.size() - 2);
        while (!body.empty()) {
          size_t comma = body.find(',');
          auto item = parse_int(body.substr(0, comma));
          if (!item.ok()) return bad(item.status().message());
          list.push_back(*item);
          if (comma == std::string_view::npos) break;
          body.remove_prefix(comma + 1);
        }
        attrs.set(name, list);
      } else if (v.find_first_of(".eEn") != std::string_view::npos) {
        std::string copy(v);
        char* stop = nullptr;
        double d = std::strtod(copy.c_str(), &stop);
        if (stop != copy.c_str() + copy.size()) return bad("\"" + copy + "\" is not a number");
        attrs.set(name, d);
      } else {
        auto i = parse_int(v);
        if (!i.ok()) return bad(i.status().message());
        attrs.set(name, *i);
      }
    }
    if (end < text.size() && text[end] != ';') return bad("expected ';' after \"" + name + "\"");
    pos = end + 1;
  }
  return attrs;
}

}  // namespace tensorperf::ir
