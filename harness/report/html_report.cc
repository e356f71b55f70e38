#include "harness/report/html_report.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "core/atomic_file.h"
#include "harness/run/experiment.h"
#include "harness/run/experiment_run.h"
#include "harness/report/html_writer.h"
#include "harness/kit/plot.h"
#include "harness/run/result_record.h"
#include "harness/kit/text_table.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;
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

std::string text_of(const json& j) { return j.is_string() ? j.get<std::string>() : j.is_null() ? "" : j.dump(); }

std::string metadata_section(const json& meta) {
  const json rpclab = meta.value("rpclab", json::object()), host = meta.value("host", json::object());
  std::vector<std::vector<std::string>> rows = {
      {"title", meta.value("title", std::string("(none: --title names a run)"))},
      {"run", meta.value("run_id", std::string("?"))},
      {"experiment, preset", meta.value("experiment", std::string("?")) + ", " + text_of(meta.value("preset", json()))},
      {"rpclab", rpclab.value("version", std::string("?")) + " (commit " + rpclab.value("git_commit", std::string("?")) + ")"},
      {"host", host.value("hostname", std::string("?")) + ", " + host.value("os", std::string("?"))},
      {"kernel", text_of(host.value("kernel", json::object()).value("release", json()))},
      {"CPU", host.value("cpu_model", std::string("?")) + " x " + text_of(host.value("cpu_count", json()))},
      {"started, ended", text_of(meta.value("started_at", json())) + ", " + text_of(meta.value("ended_at", json()))},
      {"command", text_of(meta.value("command_line", json()))}};
  return html::heading(2, "The run", "run") + html::table({"what", "value"}, rows) +
         html::details("capabilities of this machine (metadata.json)",
                       html::preformatted(meta.value("capabilities", json::object()).dump(2)));
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

std::string count(const json& classes, const char* key) { return grouped(classes.value(key, uint64_t{0})); }

std::string interval(const json& rate) {
  if (!rate.is_object()) return "";
  return fmt::format("{} [{}, {}]", fixed(rate.value("value", 0.0), 1), fixed(rate.value("ci95_low", 0.0), 1),
                     fixed(rate.value("ci95_high", 0.0), 1));
}

// A cell's own figures: the classes of a dependability cell, the latencies
// of a speed cell (whichever the record holds).
std::vector<std::string> cell_figures(const json& r) {
  if (r.contains("classes") && r.at("classes").value("correct", json()).is_number()) {
    const json& c = r.at("classes");
    return {grouped(r.value("calls", uint64_t{0})), count(c, "correct"), count(c, "silent_loss"),
            count(c, "silent_duplicates"), count(c, "duplicate_calls"), count(c, "indeterminate"),
            count(c, "clean_failure"), interval(r.value("silent_per_million", json()))};
  }
  if (r.contains("p50_us"))
    return {grouped(r.value("calls_measured", uint64_t{0})), fixed(r.value("p50_us", 0.0), 1),
            fixed(r.value("p90_us", 0.0), 1), fixed(r.value("p99_us", 0.0), 1), fixed(r.value("max_us", 0.0), 1),
            fixed(r.value("calls_per_s", 0.0), 0)};
  return {};
}

std::vector<std::string> figure_headers(const std::vector<json>& records) {
  for (const json& r : records) {
    if (r.contains("classes"))
      return {"calls", "correct", "silent loss", "silent dup", "dup calls", "indeterminate", "clean failure",
              "silent per 1M [95%]"};
    if (r.contains("p50_us")) return {"calls", "p50 us", "p90 us", "p99 us", "max us", "calls/s"};
  }
  return {};
}

std::string cells_section(const std::vector<json>& records) {
  std::vector<std::string> header = {"#", "cell", "status", "trials"};
  std::vector<std::string> figures = figure_headers(records);
  header.insert(header.end(), figures.begin(), figures.end());
  header.push_back("reason");
  std::vector<std::vector<std::string>> rows;
  for (const json& r : records) {
    std::vector<std::string> row = {text_of(r.value("cell_index", json())), r.value("label", std::string()),
                                    r.value("status", std::string()), text_of(r.value("trials", json()))};
    std::vector<std::string> f = cell_figures(r);
    f.resize(figures.size());
    row.insert(row.end(), f.begin(), f.end());
    row.push_back(r.value("reason", std::string()));
    rows.push_back(row);
  }
  return html::heading(2, "Every cell", "cells") +
         html::paragraph("The classes of every call (dependability) or its latency (speed), cell by cell.", "note") +
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

std::string link_state(const json& r) {
  std::string out;
  for (const json& t : r.value("per_trial", json::array()))
    for (const char* f : {"link-before.txt", "link-after.txt"}) {
      std::string path = t.value("trial_dir", std::string()) + "/" + f;
      if (fs::is_regular_file(path))
        out += html::paragraph(fmt::format("trial {}: {}", text_of(t.value("trial", json())), f)) +
               html::preformatted(read_text(path, kMaxLinkText));
    }
  return out.empty() ? html::paragraph("No link state: this cell had no faults on its link.", "note") : out;
}

std::string cell_details_section(const std::vector<json>& records, const std::string& commands_log) {
  std::map<size_t, std::string> commands = commands_by_cell(commands_log);
  std::string out = html::heading(2, "Each cell's settings, link state and commands", "details");
  for (const json& r : records) {
    size_t index = r.value("cell_index", size_t{0});
    std::string inner = html::paragraph("Settings (the cell object of its record):") +
                        html::preformatted(r.value("cell", json::object()).dump(2)) + link_state(r) +
                        html::paragraph("Commands (from commands.log):") +
                        html::preformatted(commands.count(index) ? commands[index] : "(none logged for this cell)");
    out += html::details(fmt::format("{:03} {}: {}", index, r.value("label", std::string()),
                                     r.value("status", std::string())),
                         inner);
  }
  return out;
}

}  // namespace

std::string html_report(const HtmlReportInput& in) {
  std::string title = in.metadata.value("title", std::string());
  std::string heading = fmt::format("rpclab {} run {}", in.metadata.value("experiment", std::string("?")),
                                    in.metadata.value("run_id", std::string("?")));
  if (!title.empty()) heading = title + " (" + heading + ")";
  std::string body = html::heading(1, heading) +
                     html::paragraph("A view of this folder's results.jsonl; `rpclab report FOLDER` makes it again. "
                                     "docs/running.md says how to read it.", "note") +
                     metadata_section(in.metadata) + tables_section(in.tables_markdown) +
                     plots_section(in.plot_pngs) + cells_section(in.records) +
                     cell_details_section(in.records, in.commands_log);
  return html::page(heading, body);
}

HtmlReportFiles write_html_report(const std::string& run_dir, process::CommandLog& log,
                                  std::vector<std::string>* notes) {
  HtmlReportInput in;
  std::ifstream meta(run_dir + "/metadata.json");
  in.metadata = json::parse(meta, nullptr, false);
  if (!meta || !in.metadata.is_object() || !fs::exists(run_dir + "/results.jsonl"))
    throw std::runtime_error(run_dir + " is not a run folder (it needs metadata.json and results.jsonl)");
  const Experiment& experiment = find_experiment(in.metadata.value("experiment", ""));
  in.records = latest_per_cell(read_records(run_dir + "/results.jsonl", notes));
  ReportOptions options;
  options.data_dir = reference_data_dir();
  options.markdown = true;
  in.tables_markdown = experiment.report(in.records, options);
  in.plot_pngs = experiment.plots(in.records, run_dir, log, notes);
  in.commands_log = read_text(run_dir + "/commands.log");
  std::string path = run_dir + "/report.html";
  if (!absent_or_regular_file(path)) throw std::runtime_error(path + " exists and is not a regular file: left alone");
  write_file_atomically(path, html_report(in));
  return {fs::absolute(path).lexically_normal().string(), in.plot_pngs};
}

HtmlReportFiles html_report_at_end(const std::string& run_dir, process::CommandLog& log,
                                   std::vector<std::string>* notes) {
  try {
    return write_html_report(run_dir, log, notes);
  } catch (const std::exception& e) {
    notes->push_back(std::string("report.html not written: ") + e.what());
    return {};
  }
}

}  // namespace rpclab::harness
