#include "harness/report/compare_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "harness/report/html_report.h"
#include "harness/report/html_writer.h"

namespace rpclab::harness {
namespace {

const char* const kColorA = "#1f6fb4";
const char* const kColorB = "#d95f02";

std::string change_words(const CellComparison& m) {
  if (auto pct = m.change_pct()) return fmt::format("{:+.1f}%", *pct);
  if (m.a_value && m.b_value) return *m.b_value == 0 ? "=" : "from 0";
  return "-";
}

// What a row of the table is: its CSS class.
std::string row_class(const CellComparison& m, double alpha) {
  if (!m.tested) return "untested";
  if (!m.testable(alpha)) return "untestable";
  return m.differs ? "differs" : "";
}

std::string number(double v) {
  if (v != 0 && (std::fabs(v) >= 1e6 || std::fabs(v) < 1e-3)) return fmt::format("{:.3g}", v);
  return fmt::format("{:.6g}", v);
}

// Round steps (1, 2 or 5 x 10^k) from lo to hi, about `count` of them.
std::vector<double> ticks(double lo, double hi, int count) {
  double raw = (hi - lo) / count, mag = std::pow(10.0, std::floor(std::log10(raw))), step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  std::vector<double> out;
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  return out;
}

std::string svg_text(double x, double y, const std::string& text, const std::string& attrs = "") {
  return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" {}>{}</text>", x, y, attrs, html::escape(text));
}

std::string short_label(const std::string& label, size_t max) {
  return label.size() <= max ? label : label.substr(0, max - 3) + "...";
}

// The frame a plot's points lie in, on its <svg> as data-x0..data-y1 so a
// reader (and the tests) can check that every point is inside it.
struct Frame {
  double x0, x1, y0, y1;
  std::string attrs() const {
    return fmt::format("data-x0=\"{:.1f}\" data-x1=\"{:.1f}\" data-y0=\"{:.1f}\" data-y1=\"{:.1f}\"", x0, x1, y0, y1);
  }
};

std::string legend(double x, double y) {
  return fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"/>", x, y - 4, kColorA) +
         svg_text(x + 8, y, "A", "font-weight=\"bold\"") +
         fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"/>", x + 30, y - 4, kColorB) +
         svg_text(x + 38, y, "B", "font-weight=\"bold\"") +
         svg_text(x + 60, y, "dots: trials; bar: the figure compared", "fill=\"#555\"");
}

// One figure of every matched cell that has it, A and B on one axis: a row
// per cell, each trial a dot and the compared figure a bar, the verdict at
// the right.
std::string figure_plot(const std::string& figure, const std::vector<const CellComparison*>& rows, double alpha) {
  const double width = 980, left = 330, right = 200, top = 34, row_h = 34, bottom = 44;
  double height = top + row_h * double(rows.size()) + bottom;
  Frame f{left, width - right, top, top + row_h * double(rows.size())};
  double lo = 0, hi = 0;
  bool any = false;
  for (const CellComparison* m : rows) {
    std::vector<double> all = m->a_trials;
    all.insert(all.end(), m->b_trials.begin(), m->b_trials.end());
    for (const auto& v : {m->a_value, m->b_value})
      if (v) all.push_back(*v);
    for (double v : all) {
      lo = any ? std::min(lo, v) : std::min(0.0, v);
      hi = any ? std::max(hi, v) : std::max(0.0, v);
      any = true;
    }
  }
  if (!any) return "";
  if (hi <= lo) hi = lo + 1;
  double pad = (hi - lo) * 0.04;
  hi += pad;
  if (lo < 0) lo -= pad;
  auto x = [&](double v) { return f.x0 + (v - lo) / (hi - lo) * (f.x1 - f.x0); };
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"compare-plot\" data-figure=\"{}\" {} width=\"{:.0f}\" "
      "height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" font-family=\"sans-serif\" font-size=\"12\">\n",
      html::escape(figure), f.attrs(), width, height, width, height);
  out += legend(left, 18) + "\n";
  for (size_t i = 0; i < rows.size(); ++i)
    if (i % 2)
      out += fmt::format("<rect x=\"0\" y=\"{:.1f}\" width=\"{:.0f}\" height=\"{:.1f}\" fill=\"#f4f4f8\"/>", top + row_h * double(i),
                         width, row_h);
  for (double t : ticks(lo, hi, 6)) {
    out += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>", x(t), f.y0,
                       f.y1 + 4);
    out += svg_text(x(t), f.y1 + 17, number(t), "text-anchor=\"middle\"");
  }
  out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#888\"/>\n",
                     f.x0, f.y0, f.x1 - f.x0, f.y1 - f.y0);
  out += svg_text((f.x0 + f.x1) / 2, f.y1 + 36, figure, "text-anchor=\"middle\"");
  for (size_t i = 0; i < rows.size(); ++i) {
    const CellComparison& m = *rows[i];
    double mid = top + row_h * (double(i) + 0.5);
    out += "<g class=\"cell\" data-label=\"" + html::escape(m.label) + "\">";
    out += svg_text(left - 8, mid + 4, short_label(m.label, 48), "text-anchor=\"end\"");
    for (int side = 0; side < 2; ++side) {
      const std::vector<double>& trials = side ? m.b_trials : m.a_trials;
      const std::optional<double>& value = side ? m.b_value : m.a_value;
      const char* color = side ? kColorB : kColorA;
      const char* name = side ? "b" : "a";
      double y = mid + (side ? 7 : -7);
      for (size_t k = 0; k < trials.size(); ++k)
        out += fmt::format("<circle class=\"point {}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\" "
                           "fill-opacity=\"0.6\"><title>{} trial {}: {}</title></circle>",
                           name, x(trials[k]), y, color, side ? "B" : "A", k + 1, number(trials[k]));
      if (value)
        out += fmt::format("<line class=\"point {0}\" x1=\"{1:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{3:.1f}\" "
                           "stroke=\"{4}\" stroke-width=\"3\"><title>{5}: {6}</title></line>",
                           name, x(*value), y - 6, y + 6, color, side ? "B" : "A", side ? m.b : m.a);
    }
    std::string verdict = change_words(m) + "  " + compare_verdict(m, alpha);
    std::string cls = row_class(m, alpha);
    const char* color = cls == "differs" ? "#c00" : cls.empty() ? "#222" : "#888";
    out += svg_text(f.x1 + 8, mid + 4, short_label(verdict, 30),
                    fmt::format("fill=\"{}\"{}", color, cls == "differs" ? " font-weight=\"bold\"" : "")) +
           "<title>" + html::escape(verdict) + "</title></g>\n";
  }
  return out + "</svg>\n";
}

// The CDF of a histogram: (upper edge of each bucket, share of calls at or below it).
std::vector<std::pair<double, double>> cdf(const LatencyHistogram& h) {
  std::vector<std::pair<double, double>> out;
  double total = 0, seen = 0, step = std::pow(10.0, 1.0 / std::max(1, h.buckets_per_decade));
  for (uint64_t c : h.counts) total += double(c);
  if (total <= 0 || h.low_us.size() != h.counts.size()) return out;
  for (size_t i = 0; i < h.low_us.size(); ++i) {
    seen += double(h.counts[i]);
    out.push_back({h.low_us[i] * step, seen / total});
  }
  return out;
}

// A matched speed cell's two latency CDFs on one log axis.
std::string latency_plot(const MatchedLatency& l) {
  auto ca = cdf(l.a), cb = cdf(l.b);
  if (ca.empty() || cb.empty()) return "";
  double lo = std::min(l.a.low_us.front(), l.b.low_us.front()), hi = std::max(ca.back().first, cb.back().first);
  if (lo <= 0) lo = std::min(ca.front().first, cb.front().first) / 2;
  double llo = std::floor(std::log10(lo) * 4) / 4, lhi = std::ceil(std::log10(hi) * 4) / 4;
  if (lhi <= llo) lhi = llo + 1;
  const double width = 480, height = 300;
  Frame f{56, width - 16, 34, height - 46};
  auto x = [&](double v) { return f.x0 + (std::log10(v) - llo) / (lhi - llo) * (f.x1 - f.x0); };
  auto y = [&](double share) { return f.y1 - share * (f.y1 - f.y0); };
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"compare-cdf\" data-label=\"{}\" {} width=\"{:.0f}\" "
      "height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" font-family=\"sans-serif\" font-size=\"11\">\n",
      html::escape(l.label), f.attrs(), width, height, width, height);
  out += legend(f.x0, 16) + "\n";
  for (double share : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    out += fmt::format("<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>", f.x0, f.x1,
                       y(share));
    out += svg_text(f.x0 - 4, y(share) + 4, number(share), "text-anchor=\"end\"");
  }
  for (double e = std::ceil(llo); e <= lhi + 1e-9; e += 1) {
    double v = std::pow(10.0, e);
    out += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>", x(v), f.y0,
                       f.y1 + 4);
    out += svg_text(x(v), f.y1 + 16, number(v), "text-anchor=\"middle\"");
  }
  out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#888\"/>\n",
                     f.x0, f.y0, f.x1 - f.x0, f.y1 - f.y0);
  out += svg_text((f.x0 + f.x1) / 2, height - 12, "microseconds per call (log); y: share of calls at or below",
                  "text-anchor=\"middle\"");
  for (int side = 0; side < 2; ++side) {
    std::string points;
    double last_y = y(0);
    for (const auto& [edge, share] : side ? cb : ca) {
      points += fmt::format("{:.1f},{:.1f} {:.1f},{:.1f} ", x(edge), last_y, x(edge), y(share));
      last_y = y(share);
    }
    out += fmt::format("<polyline class=\"curve {}\" points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n",
                       side ? "b" : "a", points, side ? kColorB : kColorA, side ? " stroke-dasharray=\"6 3\"" : "");
  }
  return out + "</svg>\n";
}

std::string figure_element(const std::string& svg, const std::string& caption) {
  return svg.empty() ? "" : "<figure>\n" + svg + "<figcaption>" + html::escape(caption) + "</figcaption></figure>\n";
}

// A table whose rows carry a CSS class each (differs, untestable, untested).
std::string marked_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                         const std::vector<std::string>& classes) {
  std::string t = html::table(header, rows);
  size_t at = t.find("<tbody>");
  for (size_t i = 0; i < classes.size(); ++i) {
    at = t.find("<tr>", at);
    if (at == std::string::npos) break;
    if (!classes[i].empty()) t.replace(at, 4, "<tr class=\"" + classes[i] + "\">");
    at += 4;
  }
  return t;
}

std::string runs_section(const ComparedRun& a, const ComparedRun& b) {
  std::vector<std::vector<std::string>> fa = run_facts(a.metadata), fb = run_facts(b.metadata);
  std::vector<std::vector<std::string>> rows = {{"folder", a.dir, b.dir}};
  std::vector<std::string> classes = {""};
  for (size_t i = 0; i < fa.size() && i < fb.size(); ++i) {
    rows.push_back({fa[i][0], fa[i][1], fb[i][1]});
    classes.push_back(fa[i][1] != fb[i][1] && fa[i][0] != "run" ? "changed" : "");
  }
  return html::heading(2, "The two runs", "runs") + marked_table({"", "A", "B"}, rows, classes) +
         html::paragraph("Shaded: where the runs' settings or machines differ (besides folder and id).", "note");
}

const char* kCompareStyle = R"(<style>
tr.differs td{background:#fde8e8!important;font-weight:bold}tr.untestable td,tr.untested td{color:#888}
tr.changed td{background:#fff4d6!important}.verdict{font-size:1.05em;padding:.5em;border-left:4px solid #888}
.verdict.differs{border-color:#c00}.verdict.same{border-color:#2a2}.verdict.untestable{border-color:#e90}
</style>
)";

}  // namespace

const char* const kComparePageMark = "<!-- rpclab compare page -->";

const std::vector<std::string>& compare_header() {
  static const std::vector<std::string> header = {"cell", "figure", "A", "B", "B vs A", "test", "p", "differs"};
  return header;
}

std::string compare_verdict(const CellComparison& m, double alpha) {
  if (!m.tested) return "untested";
  if (!m.testable(alpha))
    return fmt::format("untestable with {} vs {} trials (smallest p = {:.3g})", m.trials_a, m.trials_b,
                       *m.smallest_p);
  return m.differs ? "DIFFERS" : fmt::format("no (p >= {})", alpha);
}

std::vector<std::vector<std::string>> compare_rows(const RunComparison& c) {
  std::vector<std::vector<std::string>> out;
  for (const CellComparison& m : c.matched)
    out.push_back({m.label, m.figure, m.a, m.b, change_words(m), m.test, m.tested ? fmt::format("{:.3g}", m.p) : "-",
                   compare_verdict(m, c.alpha)});
  return out;
}

std::string compare_summary(const RunComparison& c) {
  auto asked = [&c](const std::string& key) { return std::find(c.asked.begin(), c.asked.end(), key) != c.asked.end(); };
  std::map<std::string, size_t> why;
  std::map<std::string, std::set<size_t>> differ_cells;  // asked-about key -> the cells where it differs
  size_t others = 0;                                     // figures not asked about that differ
  for (const CellComparison& m : c.matched) {
    if (std::string reason = m.untestable_reason(c.alpha); !reason.empty()) ++why[reason];
    if (m.differs && asked(m.key)) differ_cells[m.key].insert(m.cell);
    else if (m.differs) ++others;
  }
  std::string counts = fmt::format("{} of {} figures testable", c.testable(), c.matched.size());
  for (const auto& [reason, n] : why) counts += fmt::format("; {} {}", n, reason);
  if (others) counts += fmt::format("; {} not asked about differ", others);
  // The figures asked about, in the order asked, that `pick` names.
  auto keys = [&c](const std::function<bool(const std::string&)>& pick) {
    std::string out;
    for (const std::string& key : c.asked)
      if (pick(key)) out += (out.empty() ? "" : ", ") + key;
    return out;
  };
  if (c.asked_differs()) {
    std::string which = keys([&differ_cells](const std::string& k) { return differ_cells.count(k) > 0; });
    size_t cells = 0;
    for (const auto& [key, in] : differ_cells) cells = std::max(cells, in.size());
    return fmt::format("{} differ{} at alpha {} (exit 1) in {} cell{}: {}", which, differ_cells.size() > 1 ? "" : "s",
                       c.alpha, cells, cells > 1 ? "s" : "", counts);
  }
  if (!c.cannot_tell()) return fmt::format("no difference at alpha {} (exit 0): {}", c.alpha, counts);
  std::vector<const CellComparison*> hidden = c.asked_untestable();
  auto hides = [&hidden](const std::string& key) {
    return std::any_of(hidden.begin(), hidden.end(), [&key](const CellComparison* m) { return m->key == key; });
  };
  std::string which = keys(hides);
  if (hides("status")) which += (which.empty() ? "" : ", ") + std::string("cells not run");
  if (which.empty()) which = "anything (none asked about was tested)";
  return fmt::format("cannot tell {} (exit 3): {}", which, counts);
}

std::string compare_brief(const RunComparison& c) {
  // Rows that differ, each cell's label once, its figures indented; a
  // line that would pass kCompareTextWidth breaks before B.
  std::string out, last_label;
  auto add = [&out](std::string line) {
    if (line.size() > kCompareTextWidth) line = line.substr(0, kCompareTextWidth - 3) + "...";
    out += line + "\n";
  };
  size_t differ = 0;
  for (const CellComparison& m : c.matched) {
    if (!m.differs) continue;
    ++differ;
    if (m.label != last_label) add(m.label);
    last_label = m.label;
    std::string head = fmt::format("  {}: A {}", m.key, m.a),
                tail = fmt::format("B {} ({}, p {:.3g})", m.b, change_words(m), m.p);
    if (head.size() + 2 + tail.size() <= kCompareTextWidth) add(head + ", " + tail);
    else add(head), add("    " + tail);
  }
  if (differ && !c.noise_note.empty()) out += c.noise_note + "\n";
  size_t untestable = c.matched.size() - c.testable();
  out += fmt::format("{} figures differ, {} alike, {} untestable (--all for every row)\n", differ,
                     c.testable() - differ, untestable);
  out += fmt::format("{} cells matched, {} only in A, {} only in B (--all names them)\n", c.cells, c.only_a.size(),
                     c.only_b.size());
  if (!c.asked_differs() && c.cannot_tell())
    out += fmt::format("{0}+ trials a side reach alpha {1} (--trials {0} in both runs)\n", trials_to_test(c.alpha),
                       c.alpha);
  return out;
}

std::string compare_page(const RunComparison& c, const ComparedRun& a, const ComparedRun& b) {
  std::string title = fmt::format("rpclab compare: A = run {} against B = run {}", a.metadata.run_id.value_or("?"),
                                  b.metadata.run_id.value_or("?"));
  std::string body = std::string(kComparePageMark) + "\n" + kCompareStyle + html::heading(1, title);
  std::string verdict_class = c.any_differs() ? "differs" : c.cannot_tell() ? "untestable" : "same";
  body += "<p class=\"verdict " + verdict_class + "\">" + html::escape(compare_summary(c)) + "</p>\n";
  body += runs_section(a, b);

  std::vector<std::vector<std::string>> rows = compare_rows(c), differing;
  std::vector<std::string> classes;
  for (size_t i = 0; i < c.matched.size(); ++i) {
    classes.push_back(row_class(c.matched[i], c.alpha));
    if (c.matched[i].differs) differing.push_back(rows[i]);
  }
  body += html::heading(2, "What differs", "differs");
  body += differing.empty() ? html::paragraph("No figure of a matched cell differs at alpha " + number(c.alpha) + ".")
                            : html::table(compare_header(), differing);

  // The plots: one per figure, its cells in the run's order.
  std::vector<std::string> figures;
  std::map<std::string, std::vector<const CellComparison*>> by_figure;
  for (const CellComparison& m : c.matched) {
    if (!m.a_value && !m.b_value) continue;
    if (!by_figure.count(m.figure)) figures.push_back(m.figure);
    by_figure[m.figure].push_back(&m);
  }
  body += html::heading(2, "Each figure, A against B", "plots");
  body += html::paragraph("One plot per figure, both runs on one axis: a row per matched cell, A above B, each ok "
                          "trial a dot and the figure compared (the pooled rate, or the trials' mean) a bar; at the "
                          "right the change and the test's verdict.", "note");
  if (figures.empty()) body += html::paragraph("No figure to plot: no matched cell ran in both runs.");
  for (const std::string& figure : figures)
    body += figure_element(figure_plot(figure, by_figure[figure], c.alpha), figure);
  if (!c.latency.empty()) {
    body += html::heading(2, "Latency distributions, A against B", "latency");
    for (const MatchedLatency& l : c.latency)
      body += figure_element(latency_plot(l), l.label + ": A solid, B dashed");
  }

  body += html::heading(2, "Every figure of every matched cell", "table");
  body += html::paragraph("Red: differs at alpha " + number(c.alpha) + "; grey: untestable (too few trials for any p "
                          "below alpha) or untested. Tests: docs/guide.md, \"Comparing two runs\".", "note");
  body += marked_table(compare_header(), rows, classes);
  std::vector<std::vector<std::string>> unmatched;
  for (const std::string& l : c.only_a) unmatched.push_back({"A", l});
  for (const std::string& l : c.only_b) unmatched.push_back({"B", l});
  if (!unmatched.empty()) body += html::heading(2, "Cells only one run has", "unmatched") + html::table({"run", "cell"}, unmatched);
  return html::page(title, body);
}

}  // namespace rpclab::harness
