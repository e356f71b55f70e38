#include "harness/kit/text_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

namespace rpclab::harness {
namespace {

bool numeric(const std::string& s) {
  if (s.empty()) return false;
  char c = s.front();
  return std::isdigit(static_cast<unsigned char>(c)) || ((c == '-' || c == '<' || c == '~') && s.size() > 1);
}

// '|' would end a Markdown cell early.
std::string markdown_cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
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

std::string per_million(double v) {
  if (v > 0 && v < 9.95) return fmt::format("{:.1f}", v);
  return grouped(static_cast<uint64_t>(std::llround(v)));
}

std::string wrapped(const std::string& text, size_t width) {
  std::string out, line, word;
  std::istringstream words(text);
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}

void TextTable::note(std::string text) {
  if (!rows_.empty() && !text.empty()) rows_.back().note = std::move(text);
}

std::vector<size_t> TextTable::widths() const {
  std::vector<size_t> width(headers_.size());
  for (size_t c = 0; c < headers_.size(); ++c) width[c] = headers_[c].size();
  for (const Row& row : rows_)
    for (size_t c = 0; c < row.cells.size() && c < width.size(); ++c) width[c] = std::max(width[c], row.cells[c].size());
  return width;
}

std::string TextTable::render_columns(const std::vector<size_t>& columns, size_t max_width, bool notes) const {
  std::vector<size_t> all = widths();
  auto line = [&](const std::vector<std::string>& cells, bool header) {
    std::string out;
    for (size_t i = 0; i < columns.size(); ++i) {
      size_t c = columns[i];
      const std::string cell = c < cells.size() ? cells[c] : "";
      bool right = !header && c > 0 && numeric(cell);
      out += i ? "  " : "";
      out += right ? fmt::format("{:>{}}", cell, all[c]) : fmt::format("{:<{}}", cell, all[c]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  size_t total = 0;
  for (size_t c : columns) total += all[c] + 2;
  std::string rule(total > 2 ? total - 2 : 0, '-');
  std::string out = line(headers_, true) + rule + "\n";
  for (const Row& row : rows_) {
    out += row.cells.empty() ? rule + "\n" : line(row.cells, false);
    if (!notes || row.note.empty()) continue;
    std::string note = max_width > 8 ? wrapped(row.note, max_width - 4) : row.note;
    for (size_t at = 0, end; at < note.size(); at = end + 1) {
      end = std::min(note.find('\n', at), note.size());
      out += "    " + note.substr(at, end - at) + "\n";
    }
  }
  return out;
}

std::string TextTable::render(size_t max_width, size_t keep) const {
  std::vector<size_t> width = widths();
  keep = std::min(keep, width.size());
  std::vector<size_t> kept;
  size_t kept_width = 0;
  for (size_t c = 0; c < keep; ++c) kept.push_back(c), kept_width += width[c] + 2;
  std::string out;
  std::vector<size_t> part = kept;
  size_t used = kept_width;
  for (size_t c = keep; c < width.size(); ++c) {
    bool full = max_width > 0 && part.size() > keep && used + width[c] > max_width;
    if (full) {
      out += render_columns(part, max_width, false) + "\n";  // the notes once, under the last part
      part = kept;
      used = kept_width;
    }
    part.push_back(c);
    used += width[c] + 2;
  }
  return out + render_columns(part, max_width, true);
}

std::string item_list(const std::string& heading, const std::vector<std::string>& items, bool markdown) {
  if (items.empty()) return "";
  std::string out = heading + (markdown ? "\n\n" : "\n");
  for (const std::string& item : items) out += (markdown ? "- " : "  ") + item + "\n";
  return out;
}

std::string TextTable::render_markdown() const {
  bool notes = std::any_of(rows_.begin(), rows_.end(), [](const Row& r) { return !r.note.empty(); });
  auto line = [&](std::vector<std::string> cells, const std::string& note) {
    cells.resize(headers_.size());
    if (notes) cells.push_back(note);
    std::string out = "|";
    for (const std::string& c : cells) out += " " + markdown_cell(c) + " |";
    return out + "\n";
  };
  std::string out = line(headers_, "notes") + "|";
  for (size_t c = 0; c < headers_.size() + (notes ? 1 : 0); ++c)
    out += c == 0 || c == headers_.size() ? "---|" : "---:|";  // labels and notes left, figures right
  out += "\n";
  for (const Row& row : rows_)
    if (!row.cells.empty()) out += line(row.cells, row.note);  // a rule has no Markdown form
  return out;
}

}  // namespace rpclab::harness
