#include "harness/text_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace rpclab::harness {
namespace {

bool numeric(const std::string& s) {
  if (s.empty()) return false;
  char c = s.front();
  return std::isdigit(static_cast<unsigned char>(c)) || ((c == '-' || c == '<' || c == '~') && s.size() > 1);
}

}  // namespace

std::string grouped(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string fixed(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }

std::string TextTable::render() const {
  std::vector<size_t> width(headers_.size());
  for (size_t c = 0; c < headers_.size(); ++c) width[c] = headers_[c].size();
  for (const auto& row : rows_)
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  auto line = [&](const std::vector<std::string>& cells, bool header) {
    std::string out;
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      bool right = !header && c > 0 && numeric(cell);
      out += c ? "  " : "";
      out += right ? fmt::format("{:>{}}", cell, width[c]) : fmt::format("{:<{}}", cell, width[c]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  size_t total = 0;
  for (size_t w : width) total += w + 2;
  std::string rule(total > 2 ? total - 2 : 0, '-');
  std::string out = line(headers_, true) + rule + "\n";
  for (const auto& row : rows_) out += row.empty() ? rule + "\n" : line(row, false);
  return out;
}

}  // namespace rpclab::harness
