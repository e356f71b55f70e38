#include "harness/report/preset_page.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

#include "harness/kit/text_table.h"
#include "netem/config/fault_config.h"
#include "transport/settings_table.h"
#include "transport/transport.h"

namespace rpclab::harness {
namespace {

// "12 B", "8 KiB", "1 MiB": a payload as the speed tables name it.
std::string bytes_words(size_t n) {
  if (n >= (size_t{1} << 20) && n % (size_t{1} << 20) == 0) return fmt::format("{} MiB", n >> 20);
  if (n >= 1024 && n % 1024 == 0) return fmt::format("{} KiB", n >> 10);
  return fmt::format("{} B", n);
}

std::string transport_words(const CellConfig& c) {
  const TransportRow* row = find_transport(c.transport);
  return row && row->adapter ? c.transport + " (adapter)" : c.transport;
}

std::string timeout_words(const CellConfig& c) {
  return c.timeout_ms ? fmt::format("{} ms", *c.timeout_ms) : "the library's";
}

// An axis of the description: its words for a cell. A row whose words are
// `absent` in every cell of a preset is left out (the speed experiment has
// no load, the dependability experiment no payload sizes).
struct Axis {
  const char* what;
  std::function<std::string(const CellConfig&)> words;
  const char* absent;
};

const std::vector<Axis>& axes() {
  static const std::vector<Axis> rows = {
      {"transports", transport_words, ""},
      {"NFS server", [](const CellConfig& c) { return c.server; }, ""},
      {"NFS client", [](const CellConfig& c) { return c.nfs_client.empty() ? std::string("rpclab") : c.nfs_client; },
       "rpclab"},
      {"topology",
       [](const CellConfig& c) {
         return c.path.empty() ? std::string(netem::topology_name(c.topology)) : "a path (docs/paths.md)";
       },
       ""},
      {"path", [](const CellConfig& c) { return c.path.empty() ? std::string("none") : c.path; }, "none"},
      {"replicas", [](const CellConfig& c) { return std::to_string(c.replicas); }, "1"},
      {"connection", [](const CellConfig& c) { return std::string(connect_mode_name(c.connect)); }, ""},
      {"clients", [](const CellConfig& c) { return std::to_string(c.clients); }, ""},
      {"operations",  // a step's operations, "create-guarded+link+rename"
       [](const CellConfig& c) {
         std::string ops = c.op;
         std::replace(ops.begin(), ops.end(), ',', '+');
         return ops;
       },
       "echo"},
      {"payload", [](const CellConfig& c) { return c.experiment == "speed" ? bytes_words(c.size) : ""; }, ""},
      {"rate (calls/s a client)",
       [](const CellConfig& c) { return c.rate_per_s ? fmt::format("{:g}", *c.rate_per_s) : std::string("closed loop"); },
       "closed loop"},
      {"server load (CPU hogs)", [](const CellConfig& c) { return std::to_string(c.hogs); }, "0"},
      {"network faults",
       [](const CellConfig& c) {
         std::string s = netem::summary(c.faults);
         return s.empty() ? std::string("none") : s;
       },
       "none"},
      {"settings",
       [](const CellConfig& c) {
         std::string s = label_words(c.settings);
         return s.empty() ? std::string("defaults") : s.substr(s.find_first_not_of(' '));
       },
       "defaults"},
      {"reply cache (NFS)",
       [](const CellConfig& c) { return c.reply_cache ? (*c.reply_cache ? "on" : "off") : std::string("as it comes"); },
       "as it comes"},
      {"server restart (NFS)",
       [](const CellConfig& c) { return c.restart_at_step ? fmt::format("at step {}", *c.restart_at_step) : "none"; },
       "none"},
      {"retry policy", [](const CellConfig& c) { return c.retry.name(); }, "none"},
      {"at-most-once",
       [](const CellConfig& c) { return std::string(!c.at_most_once ? "off" : c.at_most_once_shared ? "shared" : "on"); },
       "off"},
      {"timeout a call", timeout_words, ""},
      {"a cell runs for",
       [](const CellConfig& c) {
         return c.duration_ms ? fmt::format("{:g} s", static_cast<double>(*c.duration_ms) / 1000) : "its calls";
       },
       "its calls"},
      {"warm-up calls a client", [](const CellConfig& c) { return std::to_string(c.warmup); }, "0"},
      {"trials a cell", [](const CellConfig& c) { return std::to_string(c.trials); }, ""},
  };
  return rows;
}

// Distinct values in the order they first appear.
std::vector<std::string> distinct(const std::vector<const CellConfig*>& cells,
                                  const std::function<std::string(const CellConfig&)>& words) {
  std::vector<std::string> out;
  for (const CellConfig* c : cells) {
    std::string w = words(*c);
    if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  }
  return out;
}

std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : ", ") + w;
  return s;
}

using Words = std::function<std::string(const CellConfig&)>;

// The axes a trial's calls follow, in the order a group of cells is named
// by them.
const std::vector<Words>& separators() {
  static const std::vector<Words> rows = {
      [](const CellConfig& c) { return c.transport; },
      [](const CellConfig& c) { return c.experiment == "speed" ? bytes_words(c.size) : std::string(); },
      [](const CellConfig& c) { return fmt::format("{} client{}", c.clients, c.clients == 1 ? "" : "s"); },
      [](const CellConfig& c) { return c.rate_per_s ? fmt::format("{:g}/s", *c.rate_per_s) : std::string(); },
      [](const CellConfig& c) { return c.hogs ? fmt::format("load {}", c.hogs) : std::string(); },
  };
  return rows;
}

// Which cells make `group` of the table's: the values of one axis, or of
// two ("4 clients x 12 B, 512 B"), that set them apart (every cell with
// those values is in the group), else each transport's share
// ("sunrpc-udp: 3 of 8 cells").
std::string which_cells(const std::vector<const CellConfig*>& table, const std::set<const CellConfig*>& group) {
  auto apart = [&](const Words& a, const Words& b) {
    std::set<std::pair<std::string, std::string>> in;
    for (const CellConfig* c : group) in.insert({a(*c), b(*c)});
    for (const CellConfig* c : table)
      if (!group.count(c) && in.count({a(*c), b(*c)})) return false;
    return true;
  };
  auto values = [&](const Words& w) {
    std::vector<const CellConfig*> ordered;
    for (const CellConfig* c : table)
      if (group.count(c)) ordered.push_back(c);
    return distinct(ordered, w);
  };
  const Words none = [](const CellConfig&) { return std::string(); };
  for (const Words& a : separators())
    if (values(a) != std::vector<std::string>{""} && apart(a, none)) return joined(values(a));
  for (size_t i = 0; i < separators().size(); ++i)
    for (size_t j = i + 1; j < separators().size(); ++j) {
      const Words &a = separators()[i], &b = separators()[j];
      std::vector<std::string> va = values(a), vb = values(b);
      if (va == std::vector<std::string>{""} || vb == std::vector<std::string>{""} || !apart(a, b)) continue;
      // Named as a product only when the group is one.
      if (va.size() * vb.size() != [&] {
            std::set<std::pair<std::string, std::string>> pairs;
            for (const CellConfig* c : group) pairs.insert({a(*c), b(*c)});
            return pairs.size();
          }())
        continue;
      return joined(va) + " x " + joined(vb);
    }
  std::vector<std::string> shares;
  std::set<std::pair<size_t, size_t>> alike;  // (here, all) of the transports with some cells here
  for (const std::string& t : distinct(table, [](const CellConfig& c) { return c.transport; })) {
    size_t all = 0, here = 0;
    for (const CellConfig* c : table)
      if (c->transport == t) ++all, here += group.count(c);
    if (here) alike.insert({here, all});
    if (here == all) shares.push_back(t);
    else if (here) shares.push_back(fmt::format("{} of {}'s {} cells", here, t, all));
  }
  if (alike.size() == 1 && shares.size() > 2 && alike.begin()->first < alike.begin()->second)
    return fmt::format("{} of the {} cells of each of {} transports", alike.begin()->first, alike.begin()->second,
                       shares.size());
  return joined(shares);
}

// "16,000; 8,000 (xmlrpc, jsonrpc)": a trial's calls (all its clients'),
// the table's most common count first, the others with the cells that make
// them.
std::string calls_words(const std::vector<const CellConfig*>& table) {
  // A cell with timed events runs for its time; its calls are a cap.
  bool timed = std::all_of(table.begin(), table.end(), [](const CellConfig* c) { return c->duration_ms.has_value(); });
  if (timed) return "as many as its time allows";
  std::map<uint64_t, std::set<const CellConfig*>> by_calls;
  for (const CellConfig* c : table) by_calls[c->total_calls()].insert(c);
  std::vector<std::pair<uint64_t, std::set<const CellConfig*>>> groups(by_calls.begin(), by_calls.end());
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
    return a.second.size() != b.second.size() ? a.second.size() > b.second.size() : a.first > b.first;
  });
  std::string s;
  for (size_t i = 0; i < groups.size(); ++i) {
    s += (i ? "; " : "") + grouped(groups[i].first);
    if (i > 0) s += " (" + which_cells(table, groups[i].second) + ")";
  }
  return s;
}

std::string total_calls(const std::vector<const CellConfig*>& table) {
  uint64_t n = 0;
  for (const CellConfig* c : table) {
    if (c->duration_ms) return "-";
    n += c->total_calls() * static_cast<uint64_t>(c->trials);
  }
  return grouped(n);
}

// A preset's cells, planned as its run plans them.
Plan plan_of(const Experiment& experiment, const std::string& preset) {
  CLI::App command{experiment.name};
  std::unique_ptr<ExperimentFlags> flags = experiment.add_flags(command);
  command.parse(std::vector<std::string>{preset, "--preset"});  // CLI11 takes them last to first
  try {
    return flags->plan(PlanContext{true, false, false});
  } catch (const std::exception& e) {
    throw std::runtime_error("preset " + preset + " of " + experiment.name + " does not plan: " + e.what());
  }
}

std::string preset_reference(const Experiment& experiment, const PresetRow& preset, bool markdown) {
  Plan plan = plan_of(experiment, preset.name);
  std::vector<std::string> blocks;
  std::map<std::string, std::vector<const CellConfig*>> by_block;
  for (const CellConfig& c : plan.cells) {
    if (!by_block.count(c.block)) blocks.push_back(c.block);
    by_block[c.block].push_back(&c);
  }
  std::vector<const CellConfig*> all;
  for (const CellConfig& c : plan.cells) all.push_back(&c);

  // Rows of (what, one value per table).
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> cells = {"cells"};
  for (const std::string& b : blocks) cells.push_back(grouped(by_block[b].size()));
  rows.push_back(cells);
  for (const Axis& axis : axes()) {
    std::vector<std::string> everywhere = distinct(all, axis.words);
    if (everywhere.size() == 1 && everywhere[0] == axis.absent) continue;
    std::vector<std::string> row = {axis.what};
    for (const std::string& b : blocks) row.push_back(joined(distinct(by_block[b], axis.words)));
    rows.push_back(row);
  }
  std::vector<std::string> calls = {"calls a trial (all clients)"}, in_all = {"calls in all (every trial)"};
  for (const std::string& b : blocks) {
    calls.push_back(calls_words(by_block[b]));
    in_all.push_back(total_calls(by_block[b]));
  }
  rows.push_back(calls);
  rows.push_back(in_all);

  if (markdown) {
    std::vector<std::string> headers = {"table"};
    for (const std::string& b : blocks) headers.push_back("`" + (b.empty() ? preset.name : b) + "`");
    TextTable t(headers);
    for (auto& row : rows) t.add(row);
    return fmt::format("### `{}`\n\n`rpclab {} --preset {}`: {}.\n\n", preset.name, experiment.name, preset.name,
                       preset.summary) +
           t.render_markdown();
  }
  // The terminal: a table's axes one under the other, long values wrapped.
  std::string out = wrapped(fmt::format("{} --preset {}: {}", experiment.name, preset.name, preset.summary), 118) + "\n";
  for (size_t b = 0; b < blocks.size(); ++b) {
    out += fmt::format("\n  table {}\n", blocks[b].empty() ? preset.name : blocks[b]);
    for (const auto& row : rows) {
      std::string value = wrapped(row[b + 1], 84), indent = "\n" + std::string(34, ' ');
      for (size_t at = value.find('\n'); at != std::string::npos; at = value.find('\n', at + indent.size()))
        value.replace(at, 1, indent);
      out += fmt::format("    {:<30}{}\n", row[0], value);
    }
  }
  return out;
}

}  // namespace

std::string presets_reference(const Experiment& experiment, bool markdown) {
  std::string out;
  if (!experiment.presets) return out;
  for (const PresetRow& p : experiment.presets()) out += (out.empty() ? "" : "\n") + preset_reference(experiment, p, markdown);
  return out;
}

}  // namespace rpclab::harness
