// Aligned plain-text tables for the terminal: a header row, a rule, rows.
// Columns that hold numbers are right-aligned.
#pragma once

#include <string>
#include <vector>

namespace rpclab::harness {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void rule() { rows_.push_back({}); }  // a separator line between groups
  bool empty() const { return rows_.empty(); }
  std::string render() const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

// Numbers as a person reads them: "12,345", "0.5", "1.2k".
std::string grouped(uint64_t n);
std::string fixed(double v, int decimals);

}  // namespace rpclab::harness
