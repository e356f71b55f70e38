#include "harness/cli/dependability_command.h"

#include <fmt/format.h>

#include <iterator>
#include <memory>
#include <vector>

#include "core/atomic_file.h"
#include "core/cli_support.h"
#include "core/signal_watcher.h"
#include "harness/report/csv_view.h"
#include "harness/dependability/dependability_trial.h"
#include "harness/dependability/dependability_report.h"
#include "harness/run/experiment_run.h"
#include "harness/run/run_cells.h"
#include "harness/dependability/matrix.h"
#include "harness/run/output_flags.h"
#include "harness/report/html_report.h"
#include "harness/run/provenance.h"
#include "harness/remote/remote_flags.h"
#include "harness/record/records_file.h"
#include "harness/run/result_record.h"
#include "harness/kit/text_table.h"
#include "harness/causes/wire_capture.h"
#include "netem/topology/capabilities.h"

namespace rpclab::harness {
namespace {

struct Flags {
  std::string preset = "levy1989";
  std::vector<std::string> tables, transports, retry, drain, connect, retry_policies, at_most_once;
  std::vector<int> loads, drc, clients;
  std::vector<double> loss, dup;
  std::string profile, topology, backend, direction;
  uint64_t calls = 0, fault_calls = 0;
  int timeout_ms = 0, trials = 0;
  double duration_s = 0;
  std::optional<uint64_t> shuffle_seed;
  bool no_pin = false, grpc_retry = false, dry_run = false;
  std::string wire_capture = "on";
  RunOptions run;
  RemoteOptions remote;
};

std::optional<int> parse_retry(const std::string& text) {
  if (text == "default") return std::nullopt;
  int ms = std::stoi(text);
  if (ms < 1 || ms > 3600 * 1000) throw std::out_of_range(text);
  return ms;
}

AxisOverrides overrides(const Flags& f) {
  AxisOverrides o;
  if (!f.tables.empty()) o.blocks = f.tables;
  if (!f.transports.empty()) o.transports = f.transports;
  if (!f.loads.empty()) o.hogs = f.loads;
  if (!f.loss.empty()) o.loss_pct = f.loss;
  if (!f.dup.empty()) o.dup_pct = f.dup;
  if (!f.profile.empty()) o.profile = f.profile;
  if (!f.direction.empty()) o.direction = f.direction;
  if (!f.retry.empty()) {
    o.retry_timeouts_ms.emplace();
    for (const std::string& r : f.retry) {
      try {
        o.retry_timeouts_ms->push_back(parse_retry(r));
      } catch (const std::exception&) {
        throw CLI::ValidationError("--retry-timeouts", "'" + r + "' is not 'default' or milliseconds (1..3600000)");
      }
    }
  }
  if (!f.drc.empty()) o.drc = f.drc;
  if (!f.drain.empty()) {
    o.drain.emplace();
    for (const std::string& d : f.drain) o.drain->push_back(d == "on");
  }
  if (!f.clients.empty()) o.clients = f.clients;
  if (!f.connect.empty()) {
    o.connects.emplace();
    for (const std::string& c : f.connect) o.connects->push_back(*parse_connect_mode(c));
  }
  if (f.calls) o.calls = f.calls;
  if (f.fault_calls) o.fault_calls = f.fault_calls;
  if (f.timeout_ms) o.timeout_ms = f.timeout_ms;
  if (f.trials) o.trials = f.trials;
  if (!f.topology.empty()) o.topology = netem::parse_topology(f.topology);
  if (!f.backend.empty()) o.faults_backend = f.backend;
  o.no_pin = f.no_pin;
  // --grpc-retry is --retry-policy library, kept for older command lines:
  // the library policy applies where a row has one (grpc), none elsewhere.
  if (!f.retry_policies.empty() || f.grpc_retry) o.retries.emplace();
  if (f.grpc_retry) o.retries->push_back({RetryPolicy::kLibrary, 0});
  for (const std::string& r : f.retry_policies) {
    try {
      o.retries->push_back(RetryChoice::parse(r));
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--retry-policy", e.what());
    }
  }
  if (!f.at_most_once.empty()) {
    o.at_most_once.emplace();
    for (const std::string& a : f.at_most_once) o.at_most_once->push_back(a == "on");
  }
  if (f.duration_s > 0) o.duration_ms = static_cast<int64_t>(f.duration_s * 1000 + 0.5);
  return o;
}

// Returns report.html's path ("" when it could not be written: the notes say why).
std::string print_views(const RunFolder& folder, process::CommandLog& log, const RunOptions& run) {
  std::vector<std::string> warnings;
  std::vector<CellRecord> records = latest_per_cell(read_cell_records(folder.results_path(), &warnings));
  ReportOptions options;
  options.data_dir = reference_data_dir();
  std::string report = with_title(run.title, find_experiment("dependability").report(records, options));
  write_file_atomically(folder.path("report.txt"), report);
  write_file_atomically(folder.path("results.csv"), records_to_csv(records));
  std::vector<std::string> notes;
  HtmlReportFiles views = html_report_at_end(folder.dir(), log, &notes);
  std::FILE* out = human_out(run);
  std::fprintf(out, "\n%s", report.c_str());
  for (const std::string& n : notes) std::fprintf(out, "%s\n", n.c_str());
  std::fprintf(out, "\nResults: %s/results.jsonl (also trials.jsonl, results.csv, report.txt, commands.log",
               folder.dir().c_str());
  for (const std::string& p : views.pngs) std::fprintf(out, ", %s", p.substr(folder.dir().size() + 1).c_str());
  std::fprintf(out, ")\n");
  return views.html;
}

// Refuses, before the first cell, a run whose named backend this machine
// lacks; returns the exit code, or 0 to go on.
int check_backends_here(const std::vector<CellConfig>& cells, const netem::Capabilities& caps) {
  for (const CellConfig& cell : cells)
    if (std::string why = missing_backend(cell, caps); !why.empty()) {
      std::fprintf(stderr, "rpclab dependability: %s\nNothing was run.\n", why.c_str());
      return kExitSetup;
    }
  return kExitOk;
}

// A cell that lasts a fixed time (timed events) must end before the time
// limit stops its clients; returns the exit code, or 0 to go on.
int check_durations(const std::vector<CellConfig>& cells, int cell_time_limit_s) {
  for (const CellConfig& cell : cells)
    if (cell.duration_ms && *cell.duration_ms >= int64_t{cell_time_limit_s} * 1000) {
      std::fprintf(stderr,
                   "rpclab dependability: %s lasts %.1f s, and --cell-time-limit stops a cell's clients at %d s: "
                   "give a shorter --duration or a longer --cell-time-limit\n",
                   cell.label().c_str(), static_cast<double>(*cell.duration_ms) / 1000, cell_time_limit_s);
      return kExitUsage;
    }
  return kExitOk;
}

int run(Flags& f) {
  std::vector<Block> blocks;
  std::vector<std::string> tables_left_out;
  std::vector<CellConfig> cells;
  // Across two machines is Levy's "different machine": the labels say two-host.
  if (!f.remote.server_host.empty()) {
    if (f.topology == "loopback") {
      std::fprintf(stderr, "rpclab dependability: with --server-host the server is on another machine: leave out "
                   "--topology (it is two-host)\n");
      return kExitUsage;
    }
    f.topology = "two-host";
  }
  try {
    blocks = dependability_preset(f.preset);
    tables_left_out = apply_overrides(blocks, overrides(f));
    cells = expand_dependability(blocks);
  } catch (const CLI::ValidationError& e) {
    std::fprintf(stderr, "rpclab dependability: %s\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpclab dependability: %s\n", e.what());
    return kExitUsage;
  }
  if (int code = check_durations(cells, f.run.cell_time_limit_s)) return code;
  if (std::string why = remote_refusal(f.remote, cells); !why.empty()) {
    std::fprintf(stderr, "rpclab dependability: %s\n", why.c_str());
    return kExitUsage;
  }
  for (const std::string& note : tables_left_out) std::fprintf(stderr, "rpclab dependability: %s\n", note.c_str());
  for (const std::string& note : uneven_splits(blocks)) std::fprintf(stderr, "rpclab dependability: %s\n", note.c_str());
  for (const std::string& note : retry_policies_left_out(blocks))
    std::fprintf(stderr, "rpclab dependability: %s\n", note.c_str());
  if (f.dry_run) {
    list_cells(cells, f.run);
    return kExitOk;
  }
  CellEnvironment env;
  env.wire_capture = f.wire_capture;
  env.caps = netem::probe_capabilities();
  // With --server-host the faults are made there: open_remote checks them against that host.
  if (f.remote.server_host.empty())
    if (int code = check_backends_here(cells, env.caps)) return code;
  SignalWatcher signals;
  int exit_code = kExitOk;
  std::unique_ptr<RunFolder> opened = open_run_folder(f.run, cells, "dependability", &exit_code);
  if (!opened) return exit_code;
  RunFolder& folder = *opened;
  try {
    f.run.shuffle_seed = settle_shuffle_seed(folder, !f.run.resume_dir.empty(), f.shuffle_seed);
    f.run.title = settle_title(folder, !f.run.resume_dir.empty(), f.run.title);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "rpclab dependability: %s\n", e.what());
    return kExitUsage;
  }
  env.bin_dir = program_dir();
  std::unique_ptr<RemoteSession> remote_clients =
      open_remote_clients(f.remote, "rpclab dependability", env.bin_dir, folder.run_id(), folder.log(), &exit_code);
  if (!f.remote.client_host.empty() && !remote_clients) return exit_code;
  std::unique_ptr<RemoteSession> remote = open_remote(f.remote, cells, "rpclab dependability", env.bin_dir,
                                                      folder.run_id(), folder.log(), &exit_code, remote_clients.get());
  if (!f.remote.server_host.empty() && !remote) return exit_code;
  env.remote = remote.get();
  env.remote_clients = remote_clients.get();
  size_t trials = 0;
  for (const CellConfig& c : cells) trials += static_cast<size_t>(c.trials);
  nlohmann::json meta = {{"experiment", "dependability"}, {"preset", f.preset}, {"wire_capture", f.wire_capture}, {"invocation", f.run.invocation},
                         {"command_line", command_line()},
                         {"matrix_digest", matrix_digest(cells)},
                         {"started_at", iso8601_now()},    {"cells", cells.size()},
                         {"trials", trials},               {"shuffle_seed", f.run.shuffle_seed},
                         {"title", f.run.title}};
  meta.update(run_provenance(env.caps));
  if (remote) meta["server_host"] = remote->facts();
  if (remote_clients) meta["client_host"] = remote_clients->host_facts();
  folder.write_metadata(meta);
  std::fprintf(stderr, "rpclab dependability: preset %s, %zu cells, %zu trials in shuffled order (seed %llu), "
               "results in %s\n", f.preset.c_str(), cells.size(), trials,
               static_cast<unsigned long long>(f.run.shuffle_seed), folder.dir().c_str());
  if (!env.caps.root)
    std::fprintf(stderr, "rpclab: not root: two-host and fault cells will be skipped (they need network namespaces), "
                 "and loopback cells run on the host's lo, without the wire capture\n");
  RunSummary summary =
      run_cells(find_experiment("dependability"), cells, f.run, folder, signals.stop_requested(), env);
  meta["ended_at"] = iso8601_now();
  meta["summary"] = summary_json(summary);
  folder.write_metadata(meta);
  std::string html = print_views(folder, folder.log(), f.run);
  std::fflush(stdout);  // the tables before the closing words on stderr
  print_closing_words(summary, folder);
  if (!html.empty()) std::fprintf(stderr, "Report: %s\n", html.c_str());  // last, where a person looks
  return summary.exit_code();
}

}  // namespace

std::function<int()> add_dependability_command(CLI::App& app) {
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand("dependability", "count calls silently lost or run twice (Levy 1989)");
  cmd->add_option("--preset", f->preset, "levy1989 | remedies | quick | failures")
      ->check(CLI::IsMember(dependability_presets()))->capture_default_str();
  cmd->add_option("--tables", f->tables, "only these tables of the preset: load, faults (levy1989), remedies, "
                  "clean, udp-dup, stream-dup (quick), failures, failures-udp, failures-udp-amo")->delimiter(',');
  cmd->add_option("--transports", f->transports, "comma-separated transports")->delimiter(',');
  cmd->add_option("--loads", f->loads, "server load axis: CPU hogs, e.g. 0,5,10,20")->delimiter(',')
      ->check(in_range(0, 256));
  cmd->add_option("--loss", f->loss, "loss % axis, e.g. 0,1,5")->delimiter(',')->check(in_range(0.0, 100.0));
  cmd->add_option("--dup", f->dup, "duplication % axis, e.g. 0,1,5")->delimiter(',')->check(in_range(0.0, 100.0));
  cmd->add_option("--profile", f->profile, "a fault profile from netem/profiles/ (or a file)");
  cmd->add_option("--direction", f->direction, "to-server | to-client | both")
      ->check(CLI::IsMember({"to-server", "to-client", "both"}));
  cmd->add_option("--retry-timeouts", f->retry, "sunrpc-udp retransmit intervals: 'default' or ms, e.g. default,20")
      ->delimiter(',');
  cmd->add_option("--drc", f->drc, "sunrpc-udp reply cache sizes, e.g. 0,1024")->delimiter(',')
      ->check(in_range(0, 1 << 20));
  cmd->add_option("--drain", f->drain, "sunrpc-udp drain stale replies: off,on")->delimiter(',')
      ->check(CLI::IsMember({"off", "on"}));
  cmd->add_option("--clients", f->clients, "parallel clients per cell, e.g. 1,4")->delimiter(',')
      ->check(in_range(1, 256));
  cmd->add_option("--connect", f->connect, "persistent,per-call")->delimiter(',')
      ->check(CLI::IsMember({"persistent", "per-call"}));
  cmd->add_option("--calls", f->calls, "calls per trial in tables without network faults (levy1989: 16,000)")
      ->check(in_range(uint64_t{1}, uint64_t{1} << 32));
  cmd->add_option("--fault-calls", f->fault_calls, "calls per trial in tables with network faults (levy1989: 3,200)")
      ->check(in_range(uint64_t{1}, uint64_t{1} << 32));
  cmd->add_option("--timeout", f->timeout_ms, "total time per call in ms (default: each library's)")
      ->check(in_range(1, 3600 * 1000));
  cmd->add_option("--topology", f->topology, "loopback | two-host")->check(CLI::IsMember({"loopback", "two-host"}));
  cmd->add_option("--faults-backend", f->backend, "auto | netem | uml-netem | nftables")
      ->check(CLI::IsMember({"auto", "netem", "uml-netem", "nftables"}));
  cmd->add_option("--wire-capture", f->wire_capture,
                  "capture the client's wire on sunrpc-udp cells as root (two-host, and loopback in a namespace "
                  "of its own), to give each extra execution its cause: on | bpf | nflog | off (on: eBPF where the "
                  "kernel allows, else nflog; bpf, nflog: only that one; off: the same cells without it, e.g. to "
                  "measure what it costs)")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(WireCapture::kChoices), std::end(WireCapture::kChoices))))
      ->capture_default_str();
  cmd->add_flag("--no-pin", f->no_pin, "do not pin server+hogs to CPU 0 and clients to the others");
  cmd->add_option("--retry-policy", f->retry_policies,
                  "client retry policy axis: none, library (where the library has one: grpc), app:K (a new handle "
                  "and the same call again, up to K times), e.g. none,app:5")->delimiter(',');
  cmd->add_flag("--grpc-retry", f->grpc_retry, "the same as --retry-policy library (kept for older command lines)");
  cmd->add_option("--at-most-once", f->at_most_once, "server at-most-once table axis: off,on")->delimiter(',')
      ->check(CLI::IsMember({"off", "on"}));
  cmd->add_option("--duration", f->duration_s, "seconds each cell's clients make calls (cells with timed events: "
                  "default 10); --calls is then only a cap")->check(in_range(0.1, 3600.0));
  cmd->add_option("--trials", f->trials, "independent trials of every cell, each with a fresh server, clients and "
                  "link (default: the preset's; levy1989 5)")->check(in_range(1, 1000));
  cmd->add_option("--shuffle-seed", f->shuffle_seed, "seed of the trials' shuffled order (default: a random one; "
                  "either way it is recorded in metadata.json)")->check(in_range(uint64_t{0}, uint64_t{0xffffffff}));
  cmd->add_option("--cell-time-limit", f->run.cell_time_limit_s, "seconds before a trial's clients are stopped")
      ->check(in_range(10, 24 * 3600))->capture_default_str();
  cmd->add_option("--out", f->run.out_dir, "results folder (default results/<timestamp>)");
  cmd->add_option("--resume", f->run.resume_dir, "continue the run in this folder, skipping finished trials")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--results-root", f->run.results_root, "where run folders and 'latest' go")->capture_default_str();
  cmd->add_flag("--dry-run", f->dry_run, "list the cells and exit");
  add_output_flags(cmd, f->run);
  add_remote_flags(cmd, f->remote);
  return [f, cmd] {
    for (const CLI::Option* o : cmd->get_options())
      if (o->count() && o->get_name() != "--help") f->run.invocation[o->get_name()] = o->results();
    return run(*f);
  };
}

}  // namespace rpclab::harness
