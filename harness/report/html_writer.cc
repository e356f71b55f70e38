#include "harness/report/html_writer.h"

#include <fmt/format.h>

#include <fstream>
#include <regex>
#include <sstream>

namespace rpclab::harness::html {
namespace {

bool numeric(const std::string& cell) {
  static const std::regex number(R"(\s*[-+~<]?[0-9][0-9,.]*\s*(%|us|ms|s|x|k|M)?\*?\s*(\(.*\))?\s*)");
  return std::regex_match(cell, number);
}

std::string row(const std::vector<std::string>& cells, const char* tag) {
  std::string out = "<tr>";
  for (const std::string& c : cells)
    out += fmt::format("<{}{}>{}</{}>", tag, numeric(c) ? " class=\"num\"" : "", escape(c), tag);
  return out + "</tr>\n";
}

// A Markdown cell line: "| a | b \| c |" -> {"a", "b | c"}.
std::vector<std::string> markdown_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (line[i] == '|') {
      size_t b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
      cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

const char* kStyle = R"(body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1400px;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:.86em}
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}
th{background:#eef}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
tr:nth-child(even) td{background:#fafafa}
figure{margin:1em 0}figure svg{max-width:100%;height:auto;border:1px solid #ddd}
figcaption{font-size:.85em;color:#555}pre{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:.8em}
details{margin:.2em 0}summary{cursor:pointer}.note{color:#555;font-size:.9em}
)";

}  // namespace

std::string escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string heading(int level, const std::string& text, const std::string& id) {
  std::string attr = id.empty() ? "" : " id=\"" + escape(id) + "\"";
  return fmt::format("<h{0}{1}>{2}</h{0}>\n", level, attr, escape(text));
}

std::string paragraph(const std::string& text, const std::string& css_class) {
  return "<p" + (css_class.empty() ? "" : " class=\"" + escape(css_class) + "\"") + ">" + escape(text) + "</p>\n";
}

std::string preformatted(const std::string& text) { return "<pre>" + escape(text) + "</pre>\n"; }

std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                  const std::string& caption) {
  std::string out = "<table>";
  if (!caption.empty()) out += "<caption>" + escape(caption) + "</caption>";
  out += "\n<thead>" + row(header, "th") + "</thead>\n<tbody>\n";
  for (const auto& r : rows) out += row(r, "td");
  return out + "</tbody></table>\n";
}

std::string from_markdown(const std::string& markdown) {
  std::istringstream in(markdown);
  std::string line, out, text;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  auto flush_table = [&] {
    if (!header.empty()) out += table(header, rows);
    header.clear();
    rows.clear();
  };
  auto flush_text = [&] {
    if (!text.empty()) out += paragraph(text);
    text.clear();
  };
  std::string items;  // "- " lines: a list (the verdict's sentences)
  auto flush_list = [&] {
    if (!items.empty()) out += "<ul>\n" + items + "</ul>\n";
    items.clear();
  };
  while (std::getline(in, line)) {
    if (line.rfind("- ", 0) == 0) {
      flush_table();
      flush_text();
      items += "<li>" + escape(line.substr(2)) + "</li>\n";
      continue;
    }
    flush_list();
    if (line.rfind("|", 0) == 0) {
      flush_text();
      if (header.empty()) header = markdown_cells(line);
      else if (line.rfind("|---", 0) != 0) rows.push_back(markdown_cells(line));
      continue;
    }
    flush_table();
    if (line.empty()) flush_text();
    else text += (text.empty() ? "" : " ") + line;
  }
  flush_list();
  flush_table();
  flush_text();
  return out;
}

std::string details(const std::string& summary, const std::string& inner_html) {
  return "<details><summary>" + escape(summary) + "</summary>\n" + inner_html + "</details>\n";
}

std::string svg_figure(const std::string& svg_path, const std::string& caption) {
  std::ifstream in(svg_path);
  std::stringstream buf;
  buf << in.rdbuf();
  std::string svg = buf.str();
  size_t start = svg.find("<svg");  // drop the XML prolog and doctype: not allowed inside HTML
  if (!in || start == std::string::npos) return "";
  return "<figure>\n" + svg.substr(start) + "\n<figcaption>" + escape(caption) + "</figcaption></figure>\n";
}

std::string page(const std::string& title, const std::string& body_html) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" + escape(title) +
         "</title>\n<style>" + kStyle + "</style></head>\n<body>\n" + body_html + "</body></html>\n";
}

}  // namespace rpclab::harness::html
