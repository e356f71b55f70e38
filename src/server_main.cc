// rpclab-server: serve one transport until SIGTERM/SIGINT, then write the
// execution ledger. A screen of glue over the library the tests link.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/cli_support.h"
#include "common/sanitizer.h"
#include "server/journal_reader.h"
#include "common/signal_watcher.h"
#include "transport/transport.h"
#include "transport/settings_table.h"
#include "server/server_core.h"
#include "server/shared_at_most_once.h"

#if RPCLAB_ASAN
// LeakSanitizer in this program leaves out, by function, the leaks of the
// libraries it serves through, each traced to the library's source; any
// other leak, ours through these libraries included, fails the server's
// exit. Debian builds the libraries without frame pointers, so a leak's
// stack often ends at the library function that called malloc; each name
// below is such a frame (^...$: that function, not one whose name holds it).
// - libtirpc 1.3.3, the duplicate request cache (--drc): svc_dg_destroy
//   never frees the cache svc_dg_enablecache made.
// - xmlrpc-c 1.33.14, Abyss (lib/abyss/src/http.c): RequestRead copies the
//   request line, host, path and query (initRequestInfo, inlined into it:
//   strdup and xmlrpc_strdupsol) before it reads the header fields, and when
//   a field is malformed the request is not valid, so RequestFree frees none
//   of them (the query it never frees). xmlrpc_strdupsol is xmlrpc-c's own
//   helper, which rpclab never calls.
// - xmlrpc-c 1.33.14, Abyss (lib/abyss/src/server.c): when accept() fails
//   (out of descriptors), serverRun2 ends its loop without waiting for its
//   connections, so the list of them (createOutstandingConnList, inlined
//   into ServerRun), each connection (ConnCreate) and its thread
//   (ThreadCreate) are never released; AbyssServer::serve runs the loop
//   again, and the ended loop's connections are served on by their threads.
// - libtirpc 1.3.3, the same cache once full: cache_set, reusing the oldest
//   entry, allocates a copy of the caller's address without freeing the old
//   one (16 bytes a call, docs/dependability.md). cache_set and its caller
//   svc_dg_reply are static, unnamed in Debian's libtirpc, and without
//   frame pointers the stack stops at them (calloc and one unnamed
//   libtirpc frame). A server started with --drc therefore unwinds malloc's
//   stacks from the unwind tables (fast_unwind_on_malloc=0, below: slower,
//   so only then), which reach svc_sendreply, the exported function the
//   reply is sent through: its leaks are left out, and nothing else of
//   libtirpc's or ours (a lost allocation of ours under svc_getreq_common
//   is reported, with --drc and without).
namespace {
// Raw system calls, not stdio nor the libc wrappers ASan intercepts: ASan
// asks __asan_default_options while it starts, before its interceptors
// (and malloc) may be used.
bool started_with_drc() {
  static char args[4096];
  long fd = ::syscall(SYS_openat, AT_FDCWD, "/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  long got = ::syscall(SYS_read, fd, args, sizeof args - 1);
  ::syscall(SYS_close, fd);
  size_t n = got > 0 ? static_cast<size_t>(got) : 0;
  for (size_t at = 0; at < n; at += std::strlen(args + at) + 1)
    if (std::strncmp(args + at, "--drc", 5) == 0) return true;
  return false;
}
}  // namespace
extern "C" const char* __asan_default_options() { return started_with_drc() ? "fast_unwind_on_malloc=0" : ""; }
extern "C" const char* __lsan_default_suppressions() {
  static const char* const with_drc =
      "leak:^svc_sendreply$\n"
      "leak:^svc_dg_enablecache$\n"
      "leak:^RequestRead$\n"
      "leak:^xmlrpc_strdupsol$\n"
      "leak:^ServerRun$\n"
      "leak:^ConnCreate$\n"
      "leak:^ThreadCreate$\n";
  if (started_with_drc()) return with_drc;
  return "leak:^svc_dg_enablecache$\n"
         "leak:^RequestRead$\n"
         "leak:^xmlrpc_strdupsol$\n"
         "leak:^ServerRun$\n"
         "leak:^ConnCreate$\n"
         "leak:^ThreadCreate$\n";
}
#endif
#if defined(__has_feature)
#if __has_feature(undefined_behavior_sanitizer)
// A UBSan report of the server names where it happened: without a stack,
// one seen once under abuse ("a std::thread state of the wrong type") could
// not be traced.
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1"; }
#endif
#endif
namespace {

int64_t cpu_us(const timeval& tv) { return int64_t{tv.tv_sec} * 1000000 + tv.tv_usec; }

// SIGUSR1 snapshot for the harness: calls served so far and CPU time used.
void write_stats(const std::string& path, const rpclab::ServerCore& core, int* generation) {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  rpclab::ServerCounters c = core.counters();
  nlohmann::json stats = {{"generation", ++*generation}, {"null_calls", c.null_calls},
                          {"next_calls", c.next_calls},  {"echo_calls", c.echo_calls},
                          {"allman_calls", c.allman_calls}, {"record_calls", c.record_calls},
                          {"mismatches", c.mismatches},  {"cpu_user_us", cpu_us(ru.ru_utime)},
                          {"cpu_sys_us", cpu_us(ru.ru_stime)}, {"answered_from_table", c.answered_from_table},
                          {"refused_stale", c.refused_stale}, {"table_unavailable", c.table_unavailable}};
  // Read by the harness at once and never after a restart of the machine:
  // no fsync (it cost the speed trial that asked for it half a millisecond).
  rpclab::write_file_atomically(path, stats.dump() + "\n", rpclab::Sync::kLater);
}

// More descriptors than the default 1024, so a thousand open connections do
// not starve accept().
void raise_fd_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rpclab-server: serve NULL, NEXT, ECHO and Allman's four operations over one transport", "rpclab-server"};
  rpclab::ServerOptions options;
  std::string listen = "127.0.0.1:0", ledger_path, ready_path, stats_path;
  size_t ledger_mb = rpclab::Ledger::kDefaultMaxBytes >> 20;
  rpclab::ServerCoreOptions core_options;
  size_t journal_mb = rpclab::Journal::kDefaultMaxBytes >> 20;
  app.add_option("--transport", options.transport, "one of: " + rpclab::transport_names())->required();
  app.add_option("--listen", listen, "ADDR:PORT to serve on; port 0 picks a free one")->capture_default_str()
      ->check(rpclab::host_port());
  app.add_option("--ledger", ledger_path, "write the execution ledger here on SIGTERM/SIGINT (- is standard output)")
      ->check(rpclab::writable_file());
  // --drc, --udp-bufsize, --rpcbind, --tcp-nodelay, ...: the settings some
  // row takes on the server side.
  rpclab::add_setting_flags(app, rpclab::Side::kServer, &options.settings);
  app.add_option("--ready-file", ready_path, "write {\"port\":N,\"pid\":P} here once serving")
      ->check(rpclab::writable_file());
  app.add_option("--stats-file", stats_path, "on SIGUSR1, write call counts and CPU time here")
      ->check(rpclab::writable_file());
  app.add_option("--ledger-max-mb", ledger_mb, "memory cap of the ledger")->check(rpclab::in_range(1, 65536));
  app.add_option("--journal", core_options.journal_path,
                 "durable execution journal: one record per NEXT, sealed before the reply; an existing one is "
                 "continued (docs/results-format.md)")
      ->check(rpclab::mappable_file());
  app.add_option("--journal-max-mb", journal_mb, "size cap of a new journal")->check(rpclab::in_range(1, 65536));
  app.add_flag("--at-most-once", core_options.at_most_once,
               "answer a repeated (client id, seq) from the last reply instead of running it again");
  std::string shared_table;
  int lease_ms = rpclab::SharedAtMostOnceTable::kDefaultLeaseMs;
  app.add_option("--at-most-once-shared", shared_table,
                 "HOST:PORT of a Redis server: at-most-once with the table kept there, shared by every server given "
                 "the same address, so a repeat sent to another replica is answered from the table too; a NEXT "
                 "the table cannot be asked about is refused, not run")
      ->check(rpclab::host_port());
  CLI::Option* lease = app.add_option("--at-most-once-lease-ms", lease_ms,
                                      "with --at-most-once-shared: how long a server's claim on a call it runs holds "
                                      "off the same call on another server; past it, the other runs the call")
                           ->capture_default_str()
                           ->check(rpclab::in_range(1, 3600000));
  rpclab::add_version_flags(app);
  rpclab::parse_or_exit(app, argc, argv);

  const rpclab::TransportRow* row = rpclab::find_transport(options.transport);
  if (!row) {
    std::fprintf(stderr, "rpclab-server: --transport: unknown transport '%s' (known: %s)\n",
                 options.transport.c_str(), rpclab::transport_names().c_str());
    return rpclab::kExitUsage;
  }
  if (std::string refused = rpclab::setting_refusal(*row, rpclab::Side::kServer, options.settings); !refused.empty()) {
    std::fprintf(stderr, "rpclab-server: %s\n", refused.c_str());
    return rpclab::kExitUsage;
  }
  if (!shared_table.empty() && core_options.at_most_once) {
    std::fprintf(stderr, "rpclab-server: --at-most-once and --at-most-once-shared are two scopes of one table: give "
                 "one\n");
    return rpclab::kExitUsage;
  }
  if (shared_table.empty() && lease->count() > 0) {
    std::fprintf(stderr, "rpclab-server: --at-most-once-lease-ms is the shared table's lease: give "
                 "--at-most-once-shared HOST:PORT too\n");
    return rpclab::kExitUsage;
  }
  rpclab::split_host_port(listen, "--listen", &options.host, &options.port);  // checked while parsing
  raise_fd_limit();

  core_options.ledger_max_bytes = ledger_mb << 20;
  core_options.journal_max_bytes = journal_mb << 20;
  core_options.transport = options.transport;
  std::unique_ptr<rpclab::ServerCore> core_holder;
  try {
    if (!shared_table.empty()) {
      std::string host;
      uint16_t port = 0;
      rpclab::split_host_port(shared_table, "--at-most-once-shared", &host, &port);  // checked while parsing
      core_options.at_most_once_scope = std::make_shared<rpclab::SharedAtMostOnceTable>(host, port, lease_ms);
    }
    core_holder = std::make_unique<rpclab::ServerCore>(core_options);
  } catch (const rpclab::JournalError& e) {
    std::fprintf(stderr, "rpclab-server: --journal: %s\n", e.what());
    return rpclab::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpclab-server: %s\n", e.what());
    return rpclab::kExitSetup;
  }
  rpclab::ServerCore& core = *core_holder;
  int generation = 0;
  rpclab::SignalWatcher signals([&] {
    if (!stats_path.empty()) write_stats(stats_path, core, &generation);
  });
  try {
    auto server = row->make_server(options, core);
    std::fprintf(stderr, "rpclab-server: %s serving on %s:%u (pid %d)\n", options.transport.c_str(),
                 options.host.c_str(), server->port(), getpid());
    if (!ready_path.empty())
      rpclab::write_file_atomically(ready_path,
                                    nlohmann::json{{"port", server->port()}, {"pid", getpid()}}.dump() + "\n");
    server->serve(signals.stop_requested());
  } catch (const rpclab::SetupError& e) {
    std::fprintf(stderr, "rpclab-server: %s\n", e.what());
    return rpclab::kExitSetup;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpclab-server: %s\n", e.what());
    if (!ledger_path.empty()) core.write_ledger(ledger_path);
    return rpclab::kExitFailed;
  }
  if (!ledger_path.empty()) {
    try {
      core.write_ledger(ledger_path);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rpclab-server: cannot write the ledger: %s\n", e.what());
      return rpclab::kExitFailed;
    }
  }
  rpclab::ServerCounters c = core.counters();
  std::fprintf(stderr, "rpclab-server: stopped; served %llu NEXT, %llu ECHO, %llu NULL, %llu of Allman's, %llu of Kiraly's; %llu "
               "out of order\n", (unsigned long long)c.next_calls, (unsigned long long)c.echo_calls,
               (unsigned long long)c.null_calls, (unsigned long long)c.allman_calls,
               (unsigned long long)c.record_calls, (unsigned long long)c.mismatches);
  return rpclab::kExitOk;
}
