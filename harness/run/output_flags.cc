#include "harness/run/output_flags.h"

#include <CLI/CLI.hpp>

#include "harness/kit/text_table.h"

namespace rpclab::harness {
namespace {

// A title is a name for a person: one line they can read, short enough to
// head a report.
std::string title_problem(const std::string& title) {
  if (title.empty()) return "the title is empty: give the run a name, e.g. --title 'after the kernel update'";
  if (title.size() > 200) return "the title is longer than 200 characters: it names the run; notes belong elsewhere";
  for (unsigned char c : title)
    if (c < 0x20 || c == 0x7f) return "the title holds a control character (a newline, a tab, ...): give one line of text";
  return "";
}

}  // namespace

void add_output_flags(CLI::App* cmd, RunOptions& run) {
  cmd->add_option("--title", run.title, "a name for the run, kept in metadata.json and heading report.txt")
      ->check(CLI::Validator([](std::string& t) { return title_problem(t); }, ""));  // shown as TEXT, not TEXT:TEXT
  cmd->add_option_function<std::string>(
         "--format", [&run](const std::string& f) { run.json_lines = f == "json"; },
         "text (default) | json: each finished cell's record as a JSON line on stdout, the rest on stderr")
      ->check(CLI::IsMember({"text", "json"}));
}

std::FILE* human_out(const RunOptions& run) { return run.json_lines ? stderr : stdout; }

void print_json_line(const nlohmann::json& record) {
  std::string line = record.dump() + "\n";
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}

void list_cells(const std::vector<CellConfig>& cells, const RunOptions& run) {
  for (size_t i = 0; i < cells.size(); ++i) {
    const CellConfig& c = cells[i];
    if (run.json_lines)
      print_json_line({{"index", i + 1}, {"label", c.label()}, {"trials", c.trials}, {"calls", c.total_calls()},
                       {"cell", c.to_json()}});
    else
      std::printf("%3zu  %-70s %d x %s%s calls\n", i + 1, c.label().c_str(), c.trials,
                  c.duration_ms ? "at most " : "", grouped(c.total_calls()).c_str());
  }
}

}  // namespace rpclab::harness
