// Tables for the terminal and for docs: a header row, a rule, rows, and an
// optional note under a row. Aligned text, with columns that hold numbers
// right-aligned and a table too wide for a terminal split into several
// that repeat its first columns; or Markdown, for docs (one table, notes
// in a last column).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rpclab::harness {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  void add(std::vector<std::string> row) { rows_.push_back({std::move(row), ""}); }
  void note(std::string text);  // a line under the last row added, about it
  void rule() { rows_.push_back({}); }  // a separator line between groups
  bool empty() const { return rows_.empty(); }
  // `max_width` > 0: split the columns into several tables no wider than
  // that (when it can), each repeating the first `keep` columns.
  std::string render(size_t max_width = 0, size_t keep = 1) const;
  std::string render_markdown() const;

 private:
  struct Row {
    std::vector<std::string> cells;  // empty: a rule
    std::string note;
  };
  std::string render_columns(const std::vector<size_t>& columns, size_t max_width, bool notes) const;
  std::vector<size_t> widths() const;
  std::vector<std::string> headers_;
  std::vector<Row> rows_;
};

// A heading and its items, one a line: indented under the heading as
// text, a list after a blank line in Markdown (where indented lines would
// run together into one paragraph). "" when there are no items.
std::string item_list(const std::string& heading, const std::vector<std::string>& items, bool markdown);

// `text` broken into lines of at most `width` characters at spaces.
std::string wrapped(const std::string& text, size_t width);

// Numbers as a person reads them: "12,345", "0.5", "1.2k".
std::string grouped(uint64_t n);
std::string fixed(double v, int decimals);
// A rate per million as the tables print it: "266,910", "0.4", "0".
std::string per_million(double v);

}  // namespace rpclab::harness
