// Plain-text result tables for the terminal: a header row, aligned columns, a rule under the
// header, optional footer rows under a second rule. Numbers right-aligned, text left-aligned.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace tensorperf::cli {

enum class Align { kLeft, kRight };

class Table {
 public:
  struct Column {
    std::string title;
    Align align = Align::kLeft;
    size_t max_width = 0;  // 0: no limit; longer cells are cut with "..."
  };
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // REQUIRES: cells.size() == number of columns.
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  void add_footer(std::vector<std::string> cells) { footer_.push_back(std::move(cells)); }
  size_t num_rows() const { return rows_.size(); }

  std::string render() const;
  void print(std::FILE* out = stdout) const { std::fputs(render().c_str(), out); }

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::vector<std::string>> footer_;
};

}  // namespace tensorperf::cli
