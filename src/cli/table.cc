#include "cli/table.h"

#include <algorithm>
#include <stdexcept>

namespace tensorperf::cli {

namespace {

std::string fit(const std::string& s, size_t max_width) {
  if (max_width == 0 || s.size() <= max_width) return s;
  return s.substr(0, max_width > 3 ? max_width - 3 : 0) + "...";
}

}  // namespace

std::string Table::render() const {
  size_t n = columns_.size();
  std::vector<size_t> width(n);
  auto measure = [&](const std::vector<std::string>& cells) {
    if (cells.size() != n) throw std::logic_error("table row has " + std::to_string(cells.size()) + " cells, expected " + std::to_string(n));
    for (size_t i = 0; i < n; ++i) width[i] = std::max(width[i], fit(cells[i], columns_[i].max_width).size());
  };
  std::vector<std::string> titles;
  for (const auto& c : columns_) titles.push_back(c.title);
  measure(titles);
  for (const auto& r : rows_) measure(r);
  for (const auto& r : footer_) measure(r);

  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (size_t i = 0; i < n; ++i) {
      std::string cell = fit(cells[i], columns_[i].max_width);
      std::string pad(width[i] - cell.size(), ' ');
      if (i) l += "  ";
      l += columns_[i].align == Align::kRight ? pad + cell : cell + (i + 1 < n ? pad : "");
    }
    out += l + "\n";
  };
  auto rule = [&] {
    size_t total = 0;
    for (size_t i = 0; i < n; ++i) total += width[i] + (i ? 2 : 0);
    out += std::string(total, '-') + "\n";
  };
  line(titles);
  rule();
  for (const auto& r : rows_) line(r);
  if (!footer_.empty()) {
    rule();
    for (const auto& r : footer_) line(r);
  }
  return out;
}

}  // namespace tensorperf::cli
