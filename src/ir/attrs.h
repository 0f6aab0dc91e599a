// Operator attributes: a small sorted map from name to an int, a float, a string or an int list.
// Sorted storage makes the canonical text (used inside workload keys) independent of insertion order.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "base/status.h"

namespace tensorperf::ir {

using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>>;

class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<std::pair<const std::string, AttrValue>> init) : values_(init) {}

  Attrs& set(const std::string& name, AttrValue v) {
    values_[name] = std::move(v);
    return *this;
  }
  bool has(const std::string& name) const { return values_.count(name) != 0; }

  // Typed getters return `fallback` when the attribute is absent. A present attribute of another
  // type is a broken invariant (the op registry checks types) and throws std::logic_error.
  int64_t get_int(const std::string& name, int64_t fallback) const;
  double get_float(const std::string& name, double fallback) const;
  std::string get_string(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> get_ints(const std::string& name, const std::vector<int64_t>& fallback) const;

  const std::map<std::string, AttrValue>& values() const { return values_; }
  // "dilations=[1,1];epsilon=0.001;groups=1;layout=\"NCHW\"": sorted by name; an int as digits, a
  // float with %.9g and always a '.' or an exponent, an int list in brackets, a string in double
  // quotes with \" and \\ escaped.
  std::string to_string() const;
  bool operator==(const Attrs&) const = default;

 private:
  std::map<std::string, AttrValue> values_;
};

// Parses Attrs::to_string()'s form.
Result<Attrs> parse_attrs(std::string_view text);

}  // namespace tensorperf::ir
