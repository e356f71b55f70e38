#include "harness/remote/remote_flags.h"

#include <fmt/format.h>

#include "common/cli_support.h"
#include "harness/record/cell_config.h"
#include "netem/faults/remote_faults.h"
#include "netem/spec/fault_fields.h"

namespace rpclab::harness {

void add_remote_flags(CLI::App* cmd, RemoteOptions& o) {
  cmd->add_option("--server-host", o.server_host, "run the server on this host over ssh: [user@]host[:port] "
                  "(docs/multi-host.md); the clients run here");
  cmd->add_option("--server-addr", o.server_addr, "the server's address on the data link, where the clients "
                  "reach it (default: the --server-host name)");
  cmd->add_option("--ssh-config", o.ssh_config, "ssh client configuration for --server-host (ssh -F)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--remote-bin-dir", o.remote_bin_dir, "where rpclab-server is on --server-host (default: the "
                  "directory of this build)");
  cmd->add_flag("--deploy", o.deploy, "copy this build's rpclab-server and rpclab-client to --server-host first");
  cmd->add_option("--server-iface", o.server_iface, "the interface on --server-host that faults go on (default: the "
                  "one its route to this machine's data address uses)");
  cmd->add_option("--max-clock-offset", o.max_clock_offset_ms, "refuse --server-host if its clock is further off "
                  "this machine's than this (ms, measured over ssh)")->check(in_range(0.0, 3600e3))->capture_default_str();
  cmd->add_flag("--i-know-this-is-the-management-link", o.management_link_ok, "allow faults on the interface that "
                "carries the ssh session to --server-host");
  cmd->add_option("--client-host", o.client_host, "run the clients on this host over ssh too: [user@]host[:port] "
                  "(with --server-host; dependability only)");
}

std::string remote_refusal(const RemoteOptions& o, const std::vector<CellConfig>& cells) {
  if (!o.client_host.empty() && o.server_host.empty())
    return "--client-host goes with --server-host (the clients' host reaches the server's over the data link)";
  if (o.server_host.empty()) {
    if (!o.server_addr.empty() || !o.ssh_config.empty() || !o.remote_bin_dir.empty() || o.deploy ||
        !o.server_iface.empty() || o.management_link_ok)
      return "--server-addr, --ssh-config, --remote-bin-dir, --deploy, --server-iface and "
             "--i-know-this-is-the-management-link go with --server-host";
    return "";
  }
  for (const CellConfig& c : cells) {
    // What even netem there could not apply is a usage error now; what
    // nftables cannot is known once the remote's kernel is (open_remote).
    if (std::string why = netem::remote_fault_refusal(c.faults, netem::BackendKind::kNetem); !why.empty())
      return fmt::format("cell {}: {}", c.label(), why);
    if (c.hogs)
      return fmt::format("cell {} loads the server with {} CPU hogs, which run beside the server only on this host "
                         "yet: give --loads 0", c.label(), c.hogs);
  }
  return "";
}

std::unique_ptr<RemoteSession> open_remote(RemoteOptions options, const std::vector<CellConfig>& cells,
                                           const std::string& program,
                                           const std::string& local_bin_dir, const std::string& run_id,
                                           process::CommandLog& log, int* exit_code, RemoteSession* clients) {
  if (options.server_host.empty()) return nullptr;
  for (const CellConfig& c : cells) options.faults = options.faults || !netem::is_empty(c.faults);
  try {
    if (clients) {
      std::string server_addr = options.server_addr;
      if (server_addr.empty())
        if (auto t = process::parse_ssh_target(options.server_host)) server_addr = t->host;
      options.clients_data_addr = clients->source_addr_to(server_addr);
      if (options.clients_data_addr.empty())
        throw process::RemoteError(fmt::format("{} has no route to the server's data address {}: give --server-addr "
                                             "one it reaches", clients->host().target().text(), server_addr));
    }
    auto session = std::make_unique<RemoteSession>(options, local_bin_dir, run_id, log);
    for (const CellConfig& c : cells) {
      if (netem::is_empty(c.faults)) continue;
      netem::Choice there = session->faults_for(c.faults_backend);
      if (std::string why = netem::remote_fault_refusal(c.faults, there.kind); !why.empty())
        throw process::RemoteError(fmt::format("cell {}: {} ({})", c.label(), why, there.reason));
    }
    return session;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: --server-host: %s\n", program.c_str(), e.what());
    *exit_code = kExitSetup;
    return nullptr;
  }
}

std::unique_ptr<RemoteSession> open_remote_clients(const RemoteOptions& options, const std::string& program,
                                                   const std::string& local_bin_dir, const std::string& run_id,
                                                   process::CommandLog& log, int* exit_code) {
  if (options.client_host.empty()) return nullptr;
  RemoteOptions o = options;
  o.server_host = options.client_host;
  o.server_addr = "";
  o.server_iface = "";
  o.faults = false;  // rpclab leaves the clients' end of the link alone
  o.program = "rpclab-client";
  try {
    return std::make_unique<RemoteSession>(o, local_bin_dir, run_id, log);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: --client-host: %s\n", program.c_str(), e.what());
    *exit_code = kExitSetup;
    return nullptr;
  }
}

}  // namespace rpclab::harness
