#include "harness/run/time_estimate.h"

#include <fmt/format.h>

#include <fstream>
#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "harness/run/experiment_run.h"
#include "harness/run/progress.h"

namespace rpclab::harness {

// The table is project data, not a run's record: its one mapping is the
// field list here (a missing field keeps its default).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TimeConstant, experiment, block, transport, topology, connect, call_s,
                                                call_s_per_byte, overhead_s, trials, run)

void to_json(nlohmann::json& j, const TimeConstants& t) { j = {{"rows", t.rows}}; }
void from_json(const nlohmann::json& j, TimeConstants& t) {
  t = TimeConstants{};
  j.at("rows").get_to(t.rows);  // not a record: the time constants table
}

std::string time_constants_path() { return reference_data_dir() + "/time-constants.json"; }

TimeConstants read_time_constants(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  try {
    return nlohmann::json::parse(in).get<TimeConstants>();
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + " is not a table of time constants (rpclab time-constants RUN_DIR writes one): " +
                             e.what());
  }
}

namespace {

using Key = std::tuple<std::string, std::string, std::string, std::string, std::string>;
Key key_of(const TimeConstant& c) { return {c.experiment, c.block, c.transport, c.topology, c.connect}; }

}  // namespace

std::vector<TimeConstant> key_levels(const CellConfig& cell) {
  TimeConstant all;
  all.experiment = cell.experiment;
  all.block = cell.block;
  all.transport = cell.transport;
  all.topology = netem::topology_name(cell.topology);
  all.connect = std::string(connect_mode_name(cell.connect));
  // The block before the transport: a loaded or faulted call takes ten
  // times a clean one, while transports in one block differ far less, so
  // a transport no run has measured in a block takes that block's figures
  // (a tonic clean cell took the load block's 8 ms a call, and the quick
  // preset was estimated at 92 s for a 37 s run), and only a block no run
  // has measured takes the transport's figures from the others.
  std::vector<TimeConstant> levels{all};
  levels.push_back(levels.back()), levels.back().transport = "*";
  levels.push_back(all), levels.back().block = "*";
  levels.push_back(levels.back()), levels.back().transport = "*";
  levels.push_back(levels.back()), levels.back().connect = "*";
  levels.push_back(levels.back()), levels.back().topology = "*";
  return levels;
}

const TimeConstant* constant_for(const TimeConstants& table, const CellConfig& cell) {
  for (const TimeConstant& level : key_levels(cell))
    for (const TimeConstant& row : table.rows)
      if (key_of(row) == key_of(level)) return &row;
  return nullptr;
}

size_t trials_borrowing(const TimeConstants& table, const std::vector<CellConfig>& cells) {
  size_t n = 0;
  for (const CellConfig& cell : cells)
    if (const TimeConstant* c = constant_for(table, cell); !c || c->block != cell.block)
      n += static_cast<size_t>(std::max(1, cell.trials));
  return n;
}

std::string borrowing_note(const TimeConstants& table, const std::vector<CellConfig>& cells) {
  size_t borrowing = trials_borrowing(table, cells), all = 0;
  for (const CellConfig& cell : cells) all += static_cast<size_t>(std::max(1, cell.trials));
  if (borrowing == 0) return "";
  return fmt::format("; {} of its {} trials are of kinds of cell no run has measured and borrow the nearest kind's "
                     "figures, so it is likely low (a full run of this preset, then rpclab time-constants RUN, "
                     "measures them)",
                     borrowing, all);
}

std::optional<double> trial_estimate_s(const TimeConstants& table, const CellConfig& cell) {
  const TimeConstant* c = constant_for(table, cell);
  if (!c) return std::nullopt;
  // A trial with timed events lasts its duration, however many calls it makes.
  double a_call_s = std::max(0.0, c->call_s + c->call_s_per_byte * static_cast<double>(cell.size));
  double calls_s = cell.duration_ms ? static_cast<double>(*cell.duration_ms) / 1000.0
                                    : static_cast<double>(calls_a_trial(cell)) * a_call_s;
  return calls_s + c->overhead_s;
}

std::optional<double> cells_estimate_s(const TimeConstants& table, const std::vector<CellConfig>& cells) {
  double total = 0;
  for (const CellConfig& cell : cells) {
    std::optional<double> one = trial_estimate_s(table, cell);
    if (!one) return std::nullopt;
    total += *one * std::max(1, cell.trials);
  }
  return total;
}

uint64_t calls_a_trial(const CellConfig& cell) { return cell.calls_per_client + cell.warmup; }

std::optional<TrialTime> trial_time(const TrialRecord& t) {
  if (!t.ok() || !t.wall_s) return std::nullopt;
  TrialTime time{t.cell.config, *t.wall_s, 0, t.run_id};
  const CellConfig& cell = time.cell;
  if (t.dependability.client_wall_s) {
    time.calls_s = *t.dependability.client_wall_s;
  } else if (!t.speed.calibration.value_or(false) && t.speed.latency.mean_us) {
    // Open loop: the calls take their schedule; closed: one after another.
    // (The warm-up's calls are taken at the recorded calls' mean.)
    time.calls_s = cell.rate_per_s ? static_cast<double>(cell.calls_per_client) / *cell.rate_per_s +
                                         static_cast<double>(cell.warmup) * *t.speed.latency.mean_us / 1e6
                                   : static_cast<double>(calls_a_trial(cell)) * *t.speed.latency.mean_us / 1e6;
  }
  time.calls_s = std::min(time.calls_s, time.wall_s);
  return time;
}

void to_json(nlohmann::json& j, const WallTime& w) {
  j = {{"actual_s", w.actual_s}};
  if (w.estimated_s) j["estimated_s"] = *w.estimated_s;
}

void from_json(const nlohmann::json& j, WallTime& w) {
  w = WallTime{};
  j.at("actual_s").get_to(w.actual_s);  // not a record: the summary's wall time (time_estimate.h)
  if (j.contains("estimated_s")) w.estimated_s = j.at("estimated_s").get<double>();  // not a record: as above
}

void PlanClock::trial_done(double estimate_s, bool ran) {
  left_s_ = std::max(0.0, left_s_ - estimate_s);
  if (ran) ran_estimate_s_ += estimate_s;
}

double PlanClock::left_s(double elapsed_s) const {
  double pace = ran_estimate_s_ > 0 && elapsed_s > 0 ? elapsed_s / ran_estimate_s_ : 1.0;
  return left_s_ * pace;
}

std::string PlanClock::words(double elapsed_s) const {
  return format_duration(elapsed_s) + " in, about " + format_duration(left_s(elapsed_s)) + " left";
}

std::string wall_time_words(const WallTime& w) {
  std::string estimate = w.estimated_s ? "estimated " + format_duration(*w.estimated_s) + " from the plan"
                                       : "no estimate (no time constants for this experiment)";
  return "took " + format_duration(w.actual_s) + ", " + estimate;
}

TimeConstants fit_time_constants(const std::vector<TrialTime>& trials) {
  // Weighted sums for the line: weight w = a trial's calls, x = the
  // cell's size, y = the trial's time a call.
  struct Sums {
    double w = 0, wx = 0, wy = 0, wxx = 0, wxy = 0, overhead_s = 0;
    size_t trials = 0;
    std::string run;
  };
  std::map<Key, Sums> sums;
  for (const TrialTime& t : trials)
    for (const TimeConstant& level : key_levels(t.cell)) {
      Sums& s = sums[key_of(level)];
      double calls = static_cast<double>(calls_a_trial(t.cell));
      if (!t.cell.duration_ms && calls > 0) {  // a fixed-length trial says nothing of a call's time
        double x = static_cast<double>(t.cell.size), y = t.calls_s / calls;
        s.w += calls;
        s.wx += calls * x;
        s.wy += calls * y;
        s.wxx += calls * x * x;
        s.wxy += calls * x * y;
      }
      s.overhead_s += t.wall_s - t.calls_s;
      ++s.trials;
      if (s.run.find(t.run) == std::string::npos) s.run += (s.run.empty() ? "" : ",") + t.run;
    }
  TimeConstants table;
  for (const auto& [key, s] : sums) {
    TimeConstant row;
    std::tie(row.experiment, row.block, row.transport, row.topology, row.connect) = key;
    if (s.w > 0) {
      double spread = s.w * s.wxx - s.wx * s.wx;
      double slope = spread > 1e-9 * s.w * s.wxx ? (s.w * s.wxy - s.wx * s.wy) / spread : 0;
      row.call_s_per_byte = std::max(0.0, slope);
      row.call_s = (s.wy - row.call_s_per_byte * s.wx) / s.w;
      if (row.call_s < 0) {  // the line through 0 instead: no call takes less than nothing
        row.call_s = 0;
        row.call_s_per_byte = s.wxy / s.wxx;
      }
    }
    row.overhead_s = s.overhead_s / static_cast<double>(s.trials);
    row.trials = s.trials;
    row.run = s.run;
    table.rows.push_back(row);
  }
  return table;
}

TimeConstants merge_time_constants(const TimeConstants& old, const TimeConstants& fresh) {
  std::map<Key, TimeConstant> rows;
  for (const TimeConstant& row : old.rows) rows[key_of(row)] = row;
  // A row for any block is the fallback of every preset whose blocks no
  // run has measured: a refresh from a smaller run (the quick preset's 51
  // trials of clean and duplication cells) does not replace one fitted
  // over more trials of more kinds (levy1989's 540 of load and faults),
  // nor does one of timed trials alone, which says nothing of a call's
  // time (the failures preset's 5 s trials), replace one that does.
  for (const TimeConstant& row : fresh.rows) {
    auto old_row = rows.find(key_of(row));
    if (row.block == "*" && old_row != rows.end() &&
        (old_row->second.trials > row.trials || (old_row->second.call_s > 0 && row.call_s == 0)))
      continue;
    rows[key_of(row)] = row;
  }
  TimeConstants merged;
  for (const auto& [key, row] : rows) merged.rows.push_back(row);
  return merged;
}

}  // namespace rpclab::harness
