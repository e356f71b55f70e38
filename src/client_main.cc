// rpclab-client: make N calls over one transport and write the call record.
// A screen of glue over the library the tests link.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "common/cli_support.h"
#include "client/client_run.h"
#include "client/connect_mode.h"
#include "common/signal_watcher.h"
#include "transport/transport.h"
#include "sunrpc/sunrpc_settings.h"
#include "transport/settings_table.h"

namespace {

nlohmann::json settings_json(const rpclab::ClientSettings& s) {
  return {{"timeout_ms", s.timeout_ms},
          {"timeout_is_default", s.timeout_is_default},
          {"retry_timeout_ms", s.retry_timeout_ms},
          {"retry_is_default", s.retry_is_default},
          {"max_payload", s.max_payload},
          {"library", s.library}};
}

struct RetryFlags {
  std::string policy = "none";
  bool grpc_retry = false;
};

void add_retry_flags(CLI::App& app, rpclab::AppRetryOptions& o, RetryFlags& f) {
  app.add_option("--retry-policy", f.policy,
                 "none | library (the RPC library's own, where it has one to turn on) | app (a new handle and the same "
                 "call again after a timeout or a broken connection)")
      ->check(CLI::IsMember({"none", "library", "app"}));
  app.add_flag("--grpc-retry", f.grpc_retry, "the same as --retry-policy library (kept for older command lines)");
  app.add_option("--app-retries", o.retries, "app: attempts after the first (default 3)")
      ->check(rpclab::in_range(1, 1000));
  app.add_option("--app-backoff", o.backoff_ms, "app: ms before the first retry, doubled each time (default 50)")
      ->check(rpclab::in_range(0, 3600 * 1000));
  app.add_option("--app-backoff-max", o.backoff_max_ms, "app: the longest wait in ms (default 1000)")
      ->check(rpclab::in_range(0, 3600 * 1000));
}

// One handle for the whole plan, or the application's retry loop, which
// makes a new one after each failure it retries.
rpclab::CallRecord make_calls(const rpclab::ClientOptions& options, const rpclab::ClientPlan& plan,
                              const std::atomic<bool>& stop) {
  if (options.retry_policy != rpclab::RetryPolicy::kApp) {
    auto client = rpclab::connect_client(options);
    return rpclab::run_plan(*client, plan, stop);
  }
  rpclab::AppRetry retry([&options] { return rpclab::connect_client(options); }, options.app_retry, stop,
                         [&stop](std::chrono::milliseconds ms) { rpclab::sleep_unless_stopped(ms, stop); });
  return rpclab::run_plan(retry, plan, stop);
}

nlohmann::json retry_json(const rpclab::ClientOptions& o, const rpclab::TransportRow& row) {
  nlohmann::json j = {{"policy", rpclab::retry_policy_name(o.retry_policy)}, {"library", row.library_retry.what}};
  if (o.retry_policy == rpclab::RetryPolicy::kApp)
    j["app"] = {{"retries", o.app_retry.retries},
                {"backoff_ms", o.app_retry.backoff_ms},
                {"backoff_max_ms", o.app_retry.backoff_max_ms}};
  return j;
}

// A run where nothing got through is still a record (100% loss is a cell
// like any other), but a person at a terminal should hear why, and a
// script the exit code (kExitFailed). True when no call succeeded.
bool nothing_worked(const rpclab::CallRecord& record, const std::string& server) {
  for (const rpclab::CallEntry& e : record.calls)
    if (e.kind == rpclab::ErrorKind::kOk) return false;
  if (record.calls.empty())
    std::fprintf(stderr, "rpclab-client: no call was made (stopped before the first)\n");
  else
    std::fprintf(stderr, "rpclab-client: no call succeeded; the first error: %s (is rpclab-server serving at %s?)\n",
                 record.detail(record.calls.front()).c_str(), server.c_str());
  return true;
}

constexpr const char* kExitStatus =
    "Exit status: 0 when at least one call succeeded; 1 when none did (the record is written all the same: "
    "failed calls are its outcomes) or the record cannot be written; 2 for a bad flag or value; 3 when it cannot "
    "set up (a host name that does not resolve).";

void print_summary(const rpclab::CallRecord& record) {
  const auto& h = record.header;
  double wall_s = h["wall_ns"].get<double>() / 1e9;
  double rate = wall_s > 0 ? h["calls_made"].get<double>() / wall_s : 0;
  std::fprintf(stderr, "rpclab-client: %s x%llu in %.3f s (%.0f calls/s); outcomes %s\n",
               h["op"].get<std::string>().c_str(), (unsigned long long)h["calls_made"].get<uint64_t>(), wall_s,
               rate, h["outcomes"].dump().c_str());
}


// What every record's header says about the client beside its calls.
struct RecordContext {
  const rpclab::ClientOptions& options;
  const rpclab::TransportRow& row;
  const rpclab::ClientSettings& settings;
  const std::string& server;
  const std::string& connect;
};

void describe(rpclab::CallRecord& record, const RecordContext& c) {
  record.header["transport"] = c.options.transport;
  record.header["server"] = c.server;
  // Only with a list, so a one-server record is as it was (docs/results-format.md).
  for (const rpclab::Endpoint& e : c.options.replicas) record.header["servers"].push_back(rpclab::format_endpoint(e));
  record.header["connect"] = c.connect;
  record.header["settings"] = settings_json(c.settings);
  // In the header since before settings were rows (docs/results-format.md).
  record.header["drain_stale_replies"] = c.options.settings.on(rpclab::sunrpc::kDrainStaleReplies);
  record.header["retry"] = retry_json(c.options, c.row);
  record.header["pid"] = getpid();
}

bool write_record(const rpclab::CallRecord& record, const std::string& path, bool unsynced) {
  try {
    record.write_file(path, unsynced ? rpclab::Sync::kLater : rpclab::Sync::kEach);
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpclab-client: cannot write the record: %s\n", e.what());
    return false;
  }
}

// --trials-from-stdin: one handle kept for many trials, so that a speed
// cell's trials measure calls rather than a client's launch (loading an
// RPC stack costs 4 to 23 ms of CPU before the first call: docs/speed.md).
// Each line is a trial, a JSON object {"record": PATH, "start_gate": DIR}
// (start_gate optional); its warm-up, gate and recorded calls run as a
// whole run would, and when its record is written a line
// "rpclab-trial-done EXIT" (EXIT as this program's own) goes to standard
// output. Ends at the end of the input, or after the trial a SIGTERM cut.
constexpr const char* kTrialDone = "rpclab-trial-done";

int serve_trials(const rpclab::ClientOptions& options, const rpclab::ClientPlan& plan, const RecordContext& context,
                 bool unsynced, const std::atomic<bool>& stop) {
  std::unique_ptr<rpclab::RpcClient> client;
  try {
    client = rpclab::connect_client(options);
  } catch (const rpclab::SetupError& e) {
    std::fprintf(stderr, "rpclab-client: %s\n", e.what());
    return rpclab::kExitSetup;
  }
  for (std::string line; !stop.load() && std::getline(std::cin, line);) {
    rpclab::ClientPlan trial = plan;
    std::string record_path;
    try {
      nlohmann::json j = nlohmann::json::parse(line);
      record_path = j.at("record").get<std::string>();
      if (j.contains("start_gate")) trial.start_gate = j["start_gate"].get<std::string>();
    } catch (const nlohmann::json::exception& e) {
      std::fprintf(stderr, "rpclab-client: --trials-from-stdin: '%s' is not a trial ({\"record\": PATH}): %s\n",
                   line.c_str(), e.what());
      return rpclab::kExitUsage;
    }
    rpclab::CallRecord record;
    try {
      record = rpclab::run_plan(*client, trial, stop);
    } catch (const rpclab::SetupError& e) {  // a start gate that is not there
      std::fprintf(stderr, "rpclab-client: %s\n", e.what());
      return rpclab::kExitSetup;
    }
    describe(record, context);
    print_summary(record);
    bool failed = nothing_worked(record, context.server);
    int exit = !write_record(record, record_path, unsynced) || failed ? rpclab::kExitFailed : rpclab::kExitOk;
    std::printf("%s %d\n", kTrialDone, exit);
    std::fflush(stdout);
  }
  return rpclab::kExitOk;
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rpclab-client: make calls over one transport and record each outcome", "rpclab-client"};
  rpclab::ClientOptions options;
  rpclab::ClientPlan plan;
  std::string server, op_name = "next", connect = "persistent", record_path;
  int timeout_ms = 0;
  int64_t start_at_ns = 0, duration_ms = 0;
  double rate = 0;
  app.add_option("--transport", options.transport, "one of: " + rpclab::transport_names())->required();
  app.add_option("--server", server,
                 "ADDR:PORT of the server (with --rpcbind, the port is ignored); a transport that balances (grpc) "
                 "takes a list, ADDR:PORT,ADDR:PORT,..., and spreads the calls over them (round_robin)")
      ->required()->check(rpclab::host_ports());
  // Described as {a,b,...}, as CLI11 shows a set, so that the bash
  // completion offers the names; refused with the list the help gives.
  std::string op_set = rpclab::operation_names();
  for (size_t at; (at = op_set.find(" | ")) != std::string::npos;) op_set.replace(at, 3, ",");
  app.add_option("--op", op_name, rpclab::operation_names())
      ->check(CLI::Validator(
          [](std::string& name) {
            return rpclab::parse_operation(name) ? std::string() : "one of: " + rpclab::operation_names();
          },
          "{" + op_set + "}"));
  app.add_option("--calls", plan.calls, "calls to record")->check(rpclab::in_range(uint64_t{1}, uint64_t{1} << 32));
  app.add_option("--warmup", plan.warmup, "calls made first and not recorded")
      ->check(rpclab::in_range(uint64_t{0}, uint64_t{1} << 32));
  app.add_option("--size", plan.size, "what each call carries: " + rpclab::size_help())
      ->check(rpclab::in_range(size_t{0}, size_t{16} << 20));
  app.add_option("--client-id", plan.client_id, "this client's id in the server's ledger");
  app.add_option("--first-seq", plan.first_seq, "first sequence number NEXT sends");
  app.add_option("--timeout", timeout_ms, "total time per call in ms (default: the library's)")
      ->check(rpclab::in_range(1, 3600 * 1000));
  // --retry-timeout, --udp-bufsize, --drain-stale-replies, --tcp-nodelay,
  // --rpcbind, ...: the settings some row takes on the client side.
  rpclab::add_setting_flags(app, rpclab::Side::kClient, &options.settings);
  RetryFlags retry;
  add_retry_flags(app, options.app_retry, retry);
  app.add_option("--connect", connect, "persistent | per-call")->check(CLI::IsMember({"persistent", "per-call"}));
  app.add_option("--duration", duration_ms, "make no new call after this many ms; --calls is then only a cap")
      ->check(rpclab::in_range(int64_t{1}, int64_t{24} * 3600 * 1000));
  app.add_option("--rate", rate,
                 "open loop: recorded calls due at this many a second (call i at i/RATE s after the first), each "
                 "made when due, or at once when late; 0 = closed loop (each call after the last one's reply)")
      ->check(rpclab::in_range(0.0, 1e9));
  std::string start_gate;
  auto* start_at = app.add_option("--start-at", start_at_ns, "CLOCK_REALTIME ns at which recorded calls begin");
  app.add_option("--start-gate", start_gate,
                 "a folder whose start gate (FIFOs start-ready, start-go) the recorded calls begin behind, "
                 "after the warm-up (docs/adapters.md)")
      ->check(CLI::ExistingDirectory)->excludes(start_at);
  app.add_option("--record", record_path, "write the call record here, - for standard output "
                 "(format: docs/results-format.md)")->check(rpclab::writable_file());
  bool record_unsynced = false;
  app.add_flag("--record-unsynced", record_unsynced,
               "write the record without fsync: the caller syncs its file system in batches (rpclab speed does, "
               "where the fsync cost a trial more than its calls)");
  bool trials_from_stdin = false;
  auto* trials_flag = app.add_flag(
      "--trials-from-stdin", trials_from_stdin,
      "keep this client for many trials: one per line read from standard input, {\"record\": PATH, "
      "\"start_gate\": DIR} (start_gate optional), each answered on standard output with a line "
      "'rpclab-trial-done EXIT' once its record is written; the warm-up is made again for each (rpclab speed "
      "keeps its clients so, docs/running.md)");
  trials_flag->excludes(start_at);
  rpclab::add_version_flags(app);
  app.footer(kExitStatus);
  rpclab::parse_or_exit(app, argc, argv);

  if (trials_from_stdin && (!record_path.empty() || !start_gate.empty())) {
    std::fprintf(stderr, "rpclab-client: --trials-from-stdin: each trial's line names its record and start gate, "
                         "not --record or --start-gate\n");
    return rpclab::kExitUsage;
  }
  const rpclab::TransportRow* row = rpclab::find_transport(options.transport);
  if (!row) {
    std::fprintf(stderr, "rpclab-client: --transport: unknown transport '%s' (known: %s)\n",
                 options.transport.c_str(), rpclab::transport_names().c_str());
    return rpclab::kExitUsage;
  }
  std::vector<rpclab::Endpoint> servers = rpclab::split_host_ports(server, "--server");  // checked while parsing
  if (std::string refused = rpclab::server_list_refusal(*row, servers.size(), server); !refused.empty()) {
    std::fprintf(stderr, "rpclab-client: %s\n", refused.c_str());
    return rpclab::kExitUsage;
  }
  options.host = servers.front().host;
  options.port = servers.front().port;
  if (servers.size() > 1) options.replicas = servers;
  if (timeout_ms) options.timeout_ms = timeout_ms;
  options.connect = *rpclab::parse_connect_mode(connect);
  options.retry_policy = retry.grpc_retry ? rpclab::RetryPolicy::kLibrary : *rpclab::parse_retry_policy(retry.policy);
  if (auto refusal = rpclab::retry_policy_refusal(*row, options.retry_policy)) {
    std::fprintf(stderr, "rpclab-client: %s\n", refusal->c_str());
    return rpclab::kExitUsage;
  }
  if (trials_from_stdin && options.retry_policy == rpclab::RetryPolicy::kApp) {
    std::fprintf(stderr, "rpclab-client: --trials-from-stdin keeps one handle; --retry-policy app makes new ones\n");
    return rpclab::kExitUsage;
  }
  plan.op = *rpclab::parse_operation(op_name);
  if (std::string refused = rpclab::operation_refusal(*row, plan.op); !refused.empty()) {
    std::fprintf(stderr, "rpclab-client: --op: %s\n", refused.c_str());
    return rpclab::kExitUsage;
  }
  if (start_at_ns) plan.start_at_ns = start_at_ns;
  if (!start_gate.empty()) plan.start_gate = start_gate;
  if (std::string refused = rpclab::setting_refusal(*row, rpclab::Side::kClient, options.settings); !refused.empty()) {
    std::fprintf(stderr, "rpclab-client: %s\n", refused.c_str());
    return rpclab::kExitUsage;
  }
  if (duration_ms) plan.duration_ms = duration_ms;
  if (rate > 0) plan.rate_per_s = rate;
  rpclab::ClientSettings settings;
  try {
    settings = row->client_settings(options);  // the first use of its module: loads it
  } catch (const rpclab::SetupError& e) {
    std::fprintf(stderr, "rpclab-client: %s\n", e.what());
    return rpclab::kExitSetup;
  }
  if (size_t bytes = rpclab::payload_bytes(plan.op, plan.size); bytes > settings.max_payload) {
    std::string note(row->traits.payload_note);
    std::fprintf(stderr, "rpclab-client: --size: %zu bytes does not fit in one %s call (at most %zu bytes%s)\n",
                 bytes, options.transport.c_str(), settings.max_payload, note.empty() ? "" : ("; " + note).c_str());
    return rpclab::kExitUsage;
  }

  rpclab::SignalWatcher signals;
  RecordContext context{options, *row, settings, server, connect};
  if (trials_from_stdin) return serve_trials(options, plan, context, record_unsynced, signals.stop_requested());
  rpclab::CallRecord record;
  try {
    record = make_calls(options, plan, signals.stop_requested());
  } catch (const rpclab::SetupError& e) {
    std::fprintf(stderr, "rpclab-client: %s\n", e.what());
    return rpclab::kExitSetup;
  }
  describe(record, context);
  print_summary(record);
  bool failed = nothing_worked(record, server);
  if (!record_path.empty() && !write_record(record, record_path, record_unsynced)) return rpclab::kExitFailed;
  return failed ? rpclab::kExitFailed : rpclab::kExitOk;
}
