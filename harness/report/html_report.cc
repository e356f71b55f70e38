#include "harness/report/html_report.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "common/atomic_file.h"
#include "harness/run/experiment.h"
#include "harness/run/experiment_run.h"
#include "harness/report/html_writer.h"
#include "harness/kit/plot.h"
#include "harness/record/records_file.h"
#include "harness/record/run_metadata.h"
#include "harness/run/time_estimate.h"
#include "harness/kit/text_table.h"

namespace rpclab::harness {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxLinkText = 20000;  // a link state beyond this is cut: the file keeps it whole

std::string read_text(const std::string& path, size_t limit = std::string::npos) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  std::string text = buf.str();
  if (text.size() > limit) text = text.substr(0, limit) + "\n... (cut here; the whole file: " + path + ")\n";
  return text;
}

template <typename T>
std::string text_of(const std::optional<T>& v) {
  if constexpr (std::is_same_v<T, std::string>)
    return v.value_or("");
  else
    return v ? std::to_string(*v) : "";
}

}  // namespace

std::vector<std::vector<std::string>> run_facts(const RunMetadata& meta) {
  HostFacts host = meta.host.value_or(HostFacts{});
  BuildFacts build = meta.rpclab.value_or(BuildFacts{});
  std::vector<std::vector<std::string>> rows = {
      {"title", meta.title.value_or("(none: --title names a run)")},
      {"run", meta.run_id.value_or("?")},
      {"experiment, preset", meta.experiment.value_or("?") + ", " + text_of(meta.preset)},
      {"rpclab", build.version.value_or("?") + " (commit " + build.git_commit.value_or("?") + ")"},
      {"host", host.hostname.value_or("?") + ", " + host.os.value_or("?")},
      {"kernel", text_of(host.kernel ? host.kernel->release : std::nullopt)},
      {"CPU", host.cpu_model.value_or("?") + " x " + text_of(host.cpu_count)},
      {"started, ended", text_of(meta.started_at) + ", " + text_of(meta.ended_at)},
      {"command", text_of(meta.command_line)}};
  if (meta.summary && meta.summary->contains("wall_time"))  // not a record: the summary, written whole (run_cells.h)
    rows.push_back({"time", wall_time_words(meta.summary->at("wall_time").get<WallTime>())});  // not a record: as above
  for (const std::string& skipped : meta.adapters_skipped.value_or(std::vector<std::string>{}))
    rows.push_back({"not in this run", skipped});
  return rows;
}

namespace {

std::string metadata_section(const RunMetadata& meta) {
  return html::heading(2, "The run", "run") + html::table({"what", "value"}, run_facts(meta)) +
         html::details("capabilities of this machine (metadata.json)",
                       html::preformatted(meta.capabilities.value_or(nlohmann::json::object()).dump(2)));
}

// Markdown with ``` blocks: the blocks as preformatted text.
std::string tables_section(const std::string& markdown) {
  std::string out = html::heading(2, "Tables", "tables"), chunk;
  std::istringstream in(markdown);
  bool fenced = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) {
      out += fenced ? html::preformatted(chunk) : html::from_markdown(chunk);
      chunk.clear();
      fenced = !fenced;
      continue;
    }
    chunk += line + "\n";
  }
  return out + (fenced ? html::preformatted(chunk) : html::from_markdown(chunk));
}

std::string plots_section(const std::vector<std::string>& pngs) {
  std::string out = html::heading(2, "Plots", "plots");
  if (pngs.empty()) return out + html::paragraph("No plots: nothing measured, or gnuplot missing (see the notes).");
  for (const std::string& png : pngs) {
    std::string name = fs::path(png).stem().string();
    out += html::svg_figure(svg_beside(png), name + ".svg and " + name + ".png in the run folder; gnuplot " + name +
                                                 ".gp there redraws both");
  }
  return out;
}

std::string cells_section(const std::vector<CellRecord>& records, const CellFigures& figures) {
  std::vector<std::string> header = {"#", "cell", "status", "trials"};
  header.insert(header.end(), figures.headers.begin(), figures.headers.end());
  header.push_back("reason");
  std::vector<std::vector<std::string>> rows;
  for (const CellRecord& r : records) {
    std::vector<std::string> row = {text_of(r.cell_index), r.label, r.status, text_of(r.trials.value)};
    std::vector<std::string> f = figures.values ? figures.values(r) : std::vector<std::string>{};
    f.resize(figures.headers.size());
    row.insert(row.end(), f.begin(), f.end());
    row.push_back(r.reason);
    rows.push_back(row);
  }
  return html::heading(2, "Every cell", "cells") +
         html::paragraph(figures.note.empty() ? "Every cell of the run." : figures.note, "note") +
         html::table(header, rows);
}

// commands.log cut at its "# cell I/N trial K/T: label" lines.
std::map<size_t, std::string> commands_by_cell(const std::string& log) {
  std::map<size_t, std::string> out;
  std::istringstream in(log);
  size_t cell = 0;
  for (std::string line; std::getline(in, line);) {
    size_t index = 0, total = 0;
    if (std::sscanf(line.c_str(), "# cell %zu/%zu", &index, &total) == 2) cell = index;
    if (cell) out[cell] += line + "\n";
  }
  return out;
}

std::string link_state(const CellRecord& r) {
  std::string out;
  for (const TrialRecord& t : r.per_trial.value_or(std::vector<TrialRecord>{}))
    for (const char* f : {"link-before.txt", "link-after.txt"}) {
      std::string path = t.trial_dir + "/" + f;
      if (fs::is_regular_file(path))
        out += html::paragraph(fmt::format("trial {}: {}", t.trial, f)) + html::preformatted(read_text(path, kMaxLinkText));
    }
  return out.empty() ? html::paragraph("No link state: this cell had no faults on its link.", "note") : out;
}

// A path cell's proxy configuration as each trial generated and ran it
// (the trial's `path.config`, a file in its folder): what the proxy's
// settings were, one click from the cell's row.
std::string proxy_configs(const CellRecord& r) {
  std::string out;
  for (const TrialRecord& t : r.per_trial.value_or(std::vector<TrialRecord>{})) {
    if (!t.dependability.path || !t.dependability.path->config) continue;
    std::string path = t.trial_dir + "/" + *t.dependability.path->config;
    if (fs::is_regular_file(path))
      out += html::paragraph(fmt::format("trial {}: {} ({})", t.trial, *t.dependability.path->config,
                                         t.dependability.path->proxy)) +
             html::preformatted(read_text(path, kMaxLinkText));
  }
  return out;
}

std::string cell_details_section(const std::vector<CellRecord>& records, const std::string& commands_log) {
  std::map<size_t, std::string> commands = commands_by_cell(commands_log);
  std::string out = html::heading(2, "Each cell's settings, link state and commands", "details");
  for (const CellRecord& r : records) {
    size_t index = r.cell_index.value_or(0);
    std::string inner = html::paragraph("Settings (the cell object of its record):") +
                        html::preformatted(r.cell.identity.dump(2)) + proxy_configs(r) + link_state(r) +
                        html::paragraph("Commands (from commands.log):") +
                        html::preformatted(commands.count(index) ? commands[index] : "(none logged for this cell)");
    out += html::details(fmt::format("{:03} {}: {}", index, r.label, r.status), inner);
  }
  return out;
}

}  // namespace

// The guide, from a run folder where the make targets put it
// (results/<folder>/ in the repository); the link's text names the file
// and section too, for a page opened elsewhere.
const char* const kReportGuide = "../../docs/guide.md#how-to-read-the-report";

std::string html_report(const HtmlReportInput& in) {
  std::string title = in.metadata.title.value_or("");
  std::string heading =
      fmt::format("rpclab {} run {}", in.metadata.experiment.value_or("?"), in.metadata.run_id.value_or("?"));
  if (!title.empty()) heading = title + " (" + heading + ")";
  std::string verdict =
      in.headline_markdown.empty() ? "" : html::heading(2, "Verdict", "verdict") + html::from_markdown(in.headline_markdown);
  std::string body = html::heading(1, heading) + verdict +
                     "<p class=\"note\">A view of this folder&#39;s results.jsonl; `rpclab report FOLDER` makes it "
                     "again. How to read it: <a href=\"" + html::escape(kReportGuide) + "\">docs/guide.md, "
                     "&ldquo;How to read the report&rdquo;</a>.</p>\n" +
                     metadata_section(in.metadata) + tables_section(in.tables_markdown) +
                     plots_section(in.plot_pngs) + cells_section(in.records, in.cell_figures) +
                     cell_details_section(in.records, in.commands_log);
  return html::page(heading, body);
}

HtmlReportFiles write_html_report(const Experiment& experiment, const std::string& run_dir, process::CommandLog& log,
                                  std::vector<std::string>* notes, const std::string& views_dir) {
  const std::string& out_dir = views_dir.empty() ? run_dir : views_dir;
  HtmlReportInput in;
  std::optional<RunMetadata> meta = read_run_metadata(run_dir + "/metadata.json");
  if (!meta || !records_present(run_dir + "/results.jsonl"))
    throw std::runtime_error(run_dir + " is not a run folder (it needs metadata.json and results.jsonl, or a shipped run's results.jsonl.gz)");
  in.metadata = *meta;
  in.records = latest_per_cell(read_cell_records(run_dir + "/results.jsonl", notes));
  ReportOptions options;
  options.data_dir = reference_data_dir();
  options.markdown = true;
  in.headline_markdown = experiment.headline(in.records, options);
  options.headline = false;  // drawn above everything, not again among the tables
  in.tables_markdown = experiment.report(in.records, options);
  in.plot_pngs = experiment.plots(in.records, out_dir, log, notes);
  in.commands_log = read_text(run_dir + "/commands.log");
  in.cell_figures = experiment.cell_figures;
  std::string path = out_dir + "/report.html";
  if (!absent_or_regular_file(path)) throw std::runtime_error(path + " exists and is not a regular file: left alone");
  write_file_atomically(path, html_report(in));
  return {fs::absolute(path).lexically_normal().string(), in.plot_pngs};
}

HtmlReportFiles html_report_at_end(const Experiment& experiment, const std::string& run_dir, process::CommandLog& log,
                                   std::vector<std::string>* notes) {
  try {
    return write_html_report(experiment, run_dir, log, notes);
  } catch (const std::exception& e) {
    notes->push_back(std::string("report.html not written: ") + e.what());
    return {};
  }
}

}  // namespace rpclab::harness
