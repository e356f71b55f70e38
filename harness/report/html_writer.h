// The pieces of a self-contained HTML page: escaped text, tables, a
// collapsed section, a figure that inlines an SVG file, and the page with
// its stylesheet. No JavaScript and nothing fetched when it is viewed.
// Every text goes through escape(); only these functions make markup.
#pragma once

#include <string>
#include <vector>

namespace rpclab::harness::html {

std::string escape(const std::string& text);  // & < > " '
std::string heading(int level, const std::string& text, const std::string& id = "");
std::string paragraph(const std::string& text, const std::string& css_class = "");
std::string preformatted(const std::string& text);
// A table of text cells; cells that hold a number are right-aligned.
std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                  const std::string& caption = "");
// Markdown pipe tables (TextTable::render_markdown) as HTML tables, the
// lines between them as paragraphs.
std::string from_markdown(const std::string& markdown);
// `inner_html` under a summary line that opens it.
std::string details(const std::string& summary, const std::string& inner_html);
// The SVG file's <svg> element inside a figure, with the PNG beside it
// named in the caption; "" when the file cannot be read.
std::string svg_figure(const std::string& svg_path, const std::string& caption);
std::string page(const std::string& title, const std::string& body_html);

}  // namespace rpclab::harness::html
