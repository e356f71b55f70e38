#include "harness/cli/speed_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <memory>

#include "core/atomic_file.h"
#include "core/cli_support.h"
#include "core/signal_watcher.h"
#include "harness/report/csv_view.h"
#include "harness/run/experiment_run.h"
#include "harness/run/run_cells.h"
#include "harness/speed/latency_pin.h"
#include "harness/run/output_flags.h"
#include "harness/run/provenance.h"
#include "harness/remote/remote_flags.h"
#include "harness/record/records_file.h"
#include "harness/run/result_record.h"
#include "harness/speed/speed_matrix.h"
#include "harness/report/html_report.h"
#include "harness/speed/speed_report.h"
#include "harness/kit/text_table.h"
#include "netem/topology/capabilities.h"

namespace rpclab::harness {
namespace {

struct Flags {
  std::string preset = "levy1989";
  std::string workload = "echo";
  std::vector<std::string> transports, topologies, connects;
  std::vector<size_t> sizes;
  std::vector<int> clients;
  int trials = 0, timeout_ms = 0;
  uint64_t calls_per_trial = 0, warmup = 0;
  size_t udp_bufsize = 0;
  std::vector<std::string> nodelay;
  bool calibrate = true, dry_run = false;
  RunOptions run;
  RemoteOptions remote;
};

SpeedAxes axes(const Flags& f, bool root) {
  SpeedAxes a = speed_preset(f.preset);
  find_speed_workload(f.workload)->apply(a);
  // The two-host link is where the bytes are counted; without root there
  // are no namespaces, so the workload runs on loopback, without them.
  if (!root && f.topologies.empty() && a.topologies == std::vector<netem::TopologyKind>{netem::TopologyKind::kTwoHost}) {
    std::fprintf(stderr, "rpclab speed: not root: the %s workload runs on loopback, and no bytes on the wire are "
                 "counted (run as root for the two-host link)\n", f.workload.c_str());
    a.topologies = {netem::TopologyKind::kLoopback};
  }
  if (!f.transports.empty()) {
    for (const std::string& t : f.transports)
      if (!find_transport(t)) throw std::invalid_argument("--transports: unknown transport '" + t + "' (known: " +
                                                          transport_names() + ")");
    a.transports = f.transports;
  }
  if (!f.sizes.empty()) a.sizes = f.sizes;
  if (!f.clients.empty()) a.clients = f.clients;
  if (!f.topologies.empty()) {
    a.topologies.clear();
    for (const std::string& t : f.topologies) a.topologies.push_back(*netem::parse_topology(t));
  }
  if (!f.connects.empty()) {
    a.connects.clear();
    for (const std::string& c : f.connects) a.connects.push_back(*parse_connect_mode(c));
  }
  if (f.trials) a.trials = f.trials;
  if (f.calls_per_trial) a.calls_per_trial = f.calls_per_trial;
  if (f.warmup) a.warmup = f.warmup;
  if (f.timeout_ms) a.timeout_ms = f.timeout_ms;
  if (f.udp_bufsize) a.udp_bufsize = f.udp_bufsize;
  if (!f.nodelay.empty()) {
    a.nodelay.clear();
    for (const std::string& v : f.nodelay) a.nodelay.push_back(v == "on");
  }
  a.calibrate = a.calibrate && f.calibrate;  // a workload without sockperf (allman) stays without
  return a;
}

// Returns report.html's path ("" when it could not be written: the notes say why).
std::string print_views(RunFolder& folder, const RunOptions& run) {
  std::vector<std::string> warnings;
  std::vector<CellRecord> records = latest_per_cell(read_cell_records(folder.results_path(), &warnings));
  SpeedReport report = speed_report(records, reference_data_dir());
  write_file_atomically(folder.path("report.txt"), with_title(run.title, report.full));
  write_file_atomically(folder.path("results.csv"), records_to_csv(records));
  std::vector<std::string> notes;
  HtmlReportFiles views = html_report_at_end(folder.dir(), folder.log(), &notes);
  std::FILE* out = human_out(run);
  std::fprintf(out, "\n%s", with_title(run.title, report.summary).c_str());
  for (const std::string& n : notes) std::fprintf(out, "%s\n", n.c_str());
  std::fprintf(out, "\nEvery table (both topologies, both connection modes): %s/report.txt\n", folder.dir().c_str());
  std::fprintf(out, "Results: %s/results.jsonl (also trials.jsonl, results.csv, commands.log", folder.dir().c_str());
  for (const std::string& p : views.pngs) std::fprintf(out, ", %s", p.substr(folder.dir().size() + 1).c_str());
  std::fprintf(out, ")\n");
  return views.html;
}

int run(Flags& f) {
  std::vector<CellConfig> cells;
  // Across two machines is Levy's "different machine": one topology.
  if (!f.remote.server_host.empty()) {
    if (f.topologies.empty()) f.topologies = {"two-host"};
    if (f.topologies != std::vector<std::string>{"two-host"}) {
      std::fprintf(stderr, "rpclab speed: with --server-host the server is on another machine: leave out "
                   "--topologies (it is two-host)\n");
      return kExitUsage;
    }
  }
  try {
    cells = expand_speed(axes(f, ::geteuid() == 0));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpclab speed: %s\n", e.what());
    return kExitUsage;
  }
  if (!f.remote.client_host.empty()) {
    std::fprintf(stderr, "rpclab speed: --client-host runs dependability cells only yet: leave it out (the "
                 "clients run here)\n");
    return kExitUsage;
  }
  if (std::string why = remote_refusal(f.remote, cells); !why.empty()) {
    std::fprintf(stderr, "rpclab speed: %s\n", why.c_str());
    return kExitUsage;
  }
  if (f.dry_run) {
    list_cells(cells, f.run);
    return kExitOk;
  }
  SignalWatcher signals;
  int exit_code = kExitOk;
  std::unique_ptr<RunFolder> opened = open_run_folder(f.run, cells, "speed", &exit_code);
  if (!opened) return exit_code;
  RunFolder& folder = *opened;
  f.run.title = settle_title(folder, !f.run.resume_dir.empty(), f.run.title);
  CellEnvironment env;
  env.bin_dir = program_dir();
  env.caps = netem::probe_capabilities();
  std::unique_ptr<RemoteSession> remote =
      open_remote(f.remote, cells, "rpclab speed", env.bin_dir, folder.run_id(), folder.log(), &exit_code);
  if (!f.remote.server_host.empty() && !remote) return exit_code;
  env.remote = remote.get();
  DmaLatencyHold pin;
  env.latency_pinned = pin.held();
  nlohmann::json meta = {{"experiment", "speed"},
                         {"preset", f.preset},
                         {"workload", f.workload},
                         {"invocation", f.run.invocation},
                         {"command_line", command_line()},
                         {"matrix_digest", matrix_digest(cells)},
                         {"started_at", iso8601_now()},
                         {"cells", cells.size()},
                         {"latency_pinned", pin.held()},
                         {"latency_pin_note", pin.held() ? "/dev/cpu_dma_latency held at 0" : pin.why_not()},
                         {"title", f.run.title}};
  meta.update(run_provenance(env.caps));
  if (remote) meta["server_host"] = remote->facts();
  folder.write_metadata(meta);
  std::fprintf(stderr, "rpclab speed: preset %s, %zu cells, results in %s\n", f.preset.c_str(), cells.size(),
               folder.dir().c_str());
  std::fprintf(stderr, "rpclab speed: %s\n",
               pin.held() ? "holding /dev/cpu_dma_latency at 0 for the run"
                          : ("NOT holding /dev/cpu_dma_latency (" + pin.why_not() + "): timings include idle wake-ups")
                                .c_str());
  RunSummary summary = run_cells(find_experiment("speed"), cells, f.run, folder, signals.stop_requested(), env);
  meta["ended_at"] = iso8601_now();
  meta["summary"] = summary_json(summary);
  folder.write_metadata(meta);
  std::string html = print_views(folder, f.run);
  std::fflush(stdout);  // the tables before the closing words on stderr
  print_closing_words(summary, folder);
  if (!html.empty()) std::fprintf(stderr, "Report: %s\n", html.c_str());  // last, where a person looks
  return summary.exit_code();
}

}  // namespace

std::function<int()> add_speed_command(CLI::App& app) {
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand("speed", "what a call costs: Levy's timing table and percentiles");
  cmd->add_option("--preset", f->preset, "levy1989 | quick")->check(CLI::IsMember({"levy1989", "quick"}))
      ->capture_default_str();
  cmd->add_option("--workload", f->workload, "what each call is: " + speed_workload_names() +
                  " (allman: Allman's four operations, --sizes as N doubles, default 50,500,5000,50000; "
                  "kiraly: Kiraly's record, --sizes as its photo's bytes, default 0,1048576; docs/speed.md)")
      ->check([](const std::string& w) {
        return find_speed_workload(w) ? std::string() : "one of: " + speed_workload_names();
      })
      ->capture_default_str();
  cmd->add_option("--transports", f->transports, "comma-separated transports")->delimiter(',');
  cmd->add_option("--sizes", f->sizes, "payload bytes, e.g. 12,512,8192; with --workload allman, N doubles; kiraly, photo bytes")->delimiter(',')
      ->check(in_range(size_t{0}, size_t{16} << 20));
  cmd->add_option("--clients", f->clients, "parallel clients, e.g. 1,2,4")->delimiter(',')->check(in_range(1, 64));
  cmd->add_option("--topologies", f->topologies, "loopback,two-host")->delimiter(',')
      ->check(CLI::IsMember({"loopback", "two-host"}));
  cmd->add_option("--connect", f->connects, "per-call,persistent")->delimiter(',')
      ->check(CLI::IsMember({"persistent", "per-call"}));
  cmd->add_option("--trials", f->trials, "trials per cell (default 10)")->check(in_range(1, 1000));
  cmd->add_option("--calls-per-trial", f->calls_per_trial, "calls per client per trial (default 100)")
      ->check(in_range(uint64_t{1}, uint64_t{1} << 24));
  cmd->add_option("--warmup", f->warmup, "unrecorded calls per client first (default 20)")
      ->check(in_range(uint64_t{1}, uint64_t{1} << 24));
  cmd->add_option("--timeout", f->timeout_ms, "total time per call in ms (default 10000)")->check(in_range(1, 3600000));
  cmd->add_option("--udp-bufsize", f->udp_bufsize, "sunrpc-udp buffer on both sides (default 8800)")
      ->check(in_range(size_t{1024}, size_t{65536}));
  cmd->add_option("--tcp-nodelay", f->nodelay,
                  "off,on: TCP_NODELAY on the sides whose transport takes it (" +
                      transports_accepting(kOptTcpNodelayServer) + "; default off, the libraries' own setting)")
      ->delimiter(',')->check(CLI::IsMember({"off", "on"}));
  cmd->add_flag("--calibrate,!--no-calibrate", f->calibrate,
                "sockperf ping-pong at the same sizes, in the same run (default on; skipped with the reason "
                "when sockperf is not installed)");
  cmd->add_option("--cell-time-limit", f->run.cell_time_limit_s, "seconds before a cell's clients are stopped")
      ->check(in_range(10, 24 * 3600))->capture_default_str();
  cmd->add_option("--out", f->run.out_dir, "results folder (default results/<timestamp>)");
  cmd->add_option("--resume", f->run.resume_dir, "continue the run in this folder")->check(CLI::ExistingDirectory);
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
