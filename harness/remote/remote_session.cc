#include "harness/remote/remote_session.h"

#include <unistd.h>

#include <chrono>
#include <climits>
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "common/version.h"
#include "harness/remote/remote_packages.h"
#include "netem/faults/remote_faults.h"

namespace rpclab::harness {
namespace {

using process::RemoteError;
using process::shell_line;

process::SshTarget target_of(const std::string& text) {
  auto t = process::parse_ssh_target(text);
  if (!t) throw RemoteError(fmt::format("--server-host '{}' is not [user@]host[:port]", text));
  return *t;
}

std::string local_hostname() {
  char name[HOST_NAME_MAX + 1] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace

RemoteSession::RemoteSession(const RemoteOptions& options, const std::string& local_bin_dir, const std::string& run_id,
                             process::CommandLog& log)
    : host_(target_of(options.server_host), options.ssh_config, log), run_id_(run_id), program_(options.program) {
  server_addr_ = options.server_addr.empty() ? host_.target().host : options.server_addr;
  bin_dir_ = options.remote_bin_dir.empty() ? local_bin_dir : options.remote_bin_dir;
  log.comment("server host " + host_.target().text() + ": connecting over ssh");
  host_.connect();
  remove_leftovers();
  check_packages(options.faults);
  if (options.deploy) deploy(local_bin_dir);
  check_version();
  watchdog_ = choose_watchdog(host_.run(watchdog_probe_line()).out);
  log.comment(fmt::format("{}: dead-man switch by {}: {}", host_.target().text(), watchdog_way(watchdog_.kind).name,
                          watchdog_.reason));
  if (options.faults) prepare_faults(options);
  std::istringstream in(host_.run_checked("hostname; uname -r; nproc").out);
  std::string hostname, kernel;
  int cpus = 0;
  std::getline(in, hostname);
  std::getline(in, kernel);
  in >> cpus;
  static_facts_ = {{"ssh", host_.target().text()}, {"hostname", hostname}, {"kernel", kernel},
                   {"cpu_count", cpus}, {"address", server_addr_}, {"bin_dir", bin_dir_},
                   {"data_iface", iface_.empty() ? nlohmann::json(nullptr) : nlohmann::json(iface_)},
                   {"packages", packages_},
                   {"fault_backend", {{"kind", netem::backend_name(faults_.kind)}, {"reason", faults_.reason}}},
                   {"watchdog", {{"kind", watchdog_way(watchdog_.kind).name}, {"reason", watchdog_.reason}}}};
  // No figure rpclab reports mixes the two clocks, but a log read side by
  // side with the server's would mislead: a clock that far off is fixed first.
  double offset_ms = host_facts()["clock_offset_ms"].get<double>();
  if (std::abs(offset_ms) > options.max_clock_offset_ms)
    throw RemoteError(fmt::format("the clock of {} is {:.1f} ms off this machine's (more than {} ms): sync both "
                                  "(chrony, apt-get install chrony), or allow it with --max-clock-offset",
                                  host_.target().text(), offset_ms, options.max_clock_offset_ms));
}

std::string RemoteSession::source_addr_to(const std::string& addr) {
  std::istringstream words(host_.run(shell_line({"ip", "-o", "route", "get", addr})).out);
  for (std::string w; words >> w;)
    if (w == "src" && words >> w) return w;
  return "";
}

// The interface the remote routes `to` through (`ip route get`), or "".
std::string RemoteSession::route_dev(const std::string& to) {
  std::string out = host_.run(shell_line({"ip", "-o", "route", "get", to})).out;
  std::istringstream words(out);
  for (std::string w; words >> w;)
    if (w == "dev" && words >> w) return w;
  return "";
}

// Before any fault: the interface under test exists, it is not the one the
// ssh session comes in on (a fault there could cut the controller off), and
// nft runs as root there.
void RemoteSession::prepare_faults(const RemoteOptions& o) {
  std::string who = host_.target().text();
  if (!o.server_iface.empty()) {
    if (host_.run(shell_line({"ip", "link", "show", "dev", o.server_iface})).exit_code != 0) {
      std::string names = host_.run("ls /sys/class/net | tr '\\n' ' '").out;
      throw RemoteError(fmt::format("{} has no interface '{}' (it has: {}): give --server-iface one of those, the "
                                    "one on the data link", who, o.server_iface, names));
    }
    iface_ = o.server_iface;
  } else {
    // The route back to the clients' address on the data path (this machine's, or --client-host's).
    std::string here = o.clients_data_addr;
    if (here.empty()) {
      std::istringstream words(process::run({"ip", "-o", "route", "get", server_addr_}, host_.log()).out);
      for (std::string w; words >> w;)
        if (w == "src" && words >> w) here = w;
    }
    iface_ = here.empty() ? "" : route_dev(here);
    if (iface_.empty())
      throw RemoteError(fmt::format("cannot tell which interface of {} faces this machine's data address: give "
                                    "--server-iface", who));
  }
  std::string ssh_client = host_.run("echo ${SSH_CONNECTION%% *}").out;
  while (!ssh_client.empty() && ssh_client.back() == '\n') ssh_client.pop_back();
  std::string mgmt = ssh_client.empty() ? "" : route_dev(ssh_client);
  host_.log().comment(fmt::format("{}: data interface {}, ssh session from {} through {}", who, iface_, ssh_client,
                                  mgmt.empty() ? "(unknown)" : mgmt));
  if (mgmt == iface_ && !o.management_link_ok)
    throw RemoteError(fmt::format("{} carries the ssh session on {} (from {}), the interface faults would go on: "
                                  "a fault there can cut rpclab off its own server. Give --server-addr an address "
                                  "on a separate data link (or --server-iface), or, if you mean it, "
                                  "--i-know-this-is-the-management-link", who, iface_, ssh_client));
  if (std::string uid = host_.run("id -u").out; uid.rfind("0", 0) != 0) {
    if (host_.run("sudo -n nft --version").exit_code != 0)
      throw RemoteError(fmt::format("faults on {} need root there for nft: log in as root, or allow this user "
                                    "`sudo` for nft without a password (docs/multi-host.md)", who));
    sudo_ = "sudo -n";
  }
  if (host_.run((sudo_.empty() ? "" : sudo_ + " ") + "nft list tables").exit_code != 0)
    throw RemoteError(fmt::format("{} cannot run nft (apt-get install nftables there)", who));
  faults_ = netem::choose_remote_faults(host_.run(netem::remote_netem_probe_line()).out);
  // sudo rights for nft alone (docs/multi-host.md) do not cover tc and ip.
  if (faults_.kind == netem::BackendKind::kNetem && !sudo_.empty() &&
      host_.run("sudo -n tc -V && sudo -n ip -V").exit_code != 0)
    faults_ = {netem::BackendKind::kNftables, "nftables there: its kernel has netem, but sudo there allows nft, "
                                              "not tc and ip"};
  host_.log().comment(fmt::format("{}: faults by {}", who, faults_.reason));
}

netem::Choice RemoteSession::faults_for(const std::string& requested) const {
  std::optional<netem::BackendKind> kind = netem::parse_backend(requested);
  if (!kind || *kind == faults_.kind) return faults_;
  if (*kind == netem::BackendKind::kNftables)
    return {*kind, "nftables there, as --faults-backend asked (" + faults_.reason + ")"};
  throw RemoteError(fmt::format("--faults-backend {} is not there on {}: {}; leave out --faults-backend (auto)",
                                requested, host_.target().text(), faults_.reason));
}

RemoteSession::~RemoteSession() {
  try {
    host_.run("rmdir " + shell_line({run_dir()}) + " 2>/dev/null; true");
  } catch (const std::exception&) {
    // the connection is gone: the next run's cleanup removes it
  }
}

std::string RemoteSession::run_dir() const { return std::string(kRemoteRoot) + "/" + run_id_; }

// A trial whose lease has run out is over whatever became of its
// controller: its cleanup.sh runs (the watchdog's job, done again in case
// the watchdog died too) and its folder goes. A trial still in its lease
// may be another controller's, and is left alone.
void RemoteSession::remove_leftovers() {
  std::string script = fmt::format(
      "now=$(date +%s); for d in {0}/*/*/; do [ -f \"$d/lease\" ] || continue; "
      "[ \"$(cat \"$d/lease\")\" -le \"$now\" ] || continue; sh \"$d/cleanup.sh\" >/dev/null 2>&1; "
      "echo \"$d\"; rm -rf \"$d\"; done; rmdir {0}/* 2>/dev/null; true", kRemoteRoot);
  std::istringstream removed(host_.run_checked(script).out);
  for (std::string dir; std::getline(removed, dir);)
    if (!dir.empty())
      std::fprintf(stderr, "rpclab: removed %s on %s, left by a run that did not finish\n", dir.c_str(),
                   host_.target().text().c_str());
}

// Before anything is copied or started there: deps.sh's runtime list
// against the remote's dpkg. Missing required ones stop the run with the
// apt-get line; missing optional ones are recorded in every trial's hosts.
void RemoteSession::check_packages(bool faults) {
  std::string who = host_.target().text();
  if (host_.run("command -v dpkg-query >/dev/null").exit_code != 0) {
    packages_ = {{"checked", false}, {"why", "no dpkg-query there (not Debian): the version check covers the "
                                             "libraries, the fault setup the tools"}};
    std::fprintf(stderr, "rpclab: %s has no dpkg-query: its packages are not checked against tools/deps.sh\n",
                 who.c_str());
    return;
  }
  PackageReport report =
      harness::check_packages(runtime_packages(), host_.run(dpkg_query_line(runtime_packages())).out, faults);
  packages_ = report.to_json();
  if (std::string why = missing_packages_message(who, report); !why.empty()) throw RemoteError(why);
  std::string optional;
  for (const std::string& p : report.missing_optional) optional += " " + p;
  if (!optional.empty())
    host_.log().comment(fmt::format("{} lacks optional packages:{} (recorded in hosts.server.packages)", who, optional));
}

void RemoteSession::deploy(const std::string& local_bin_dir) {
  std::string dir = fmt::format("{}/bin-{}-{}", kRemoteRoot, version(), git_commit());
  host_.run_checked("mkdir -p " + shell_line({dir}));
  // The programs and the transport modules they load from beside them.
  host_.copy_to({local_bin_dir + "/rpclab-server", local_bin_dir + "/rpclab-client", local_bin_dir + "/transports"},
                dir);
  bin_dir_ = dir;
}

void RemoteSession::check_version() {
  std::string want = version_line(program_);
  process::CommandResult r = host_.run(shell_line({bin_dir_ + "/" + program_, "--version"}));
  std::string got = r.out;
  while (!got.empty() && got.back() == '\n') got.pop_back();
  if (r.exit_code == 127 || r.exit_code == 126)
    throw RemoteError(fmt::format(
        "{} has no {} it can run at {} ({}): rerun with --deploy to copy this build's programs there, "
        "or install the same build there and name its directory with --remote-bin-dir; its libraries are the "
        "Debian packages tools/deps.sh lists", host_.target().text(), program_, bin_dir_,
        r.err.empty() ? "not found" : r.err.substr(0, r.err.find('\n'))));
  if (r.exit_code != 0 || got != want)
    throw RemoteError(fmt::format("the {} on {} ({}) is '{}', this build is '{}': the records would mix "
                                  "two builds; rerun with --deploy, or install this build there",
                                  program_, host_.target().text(), bin_dir_, r.exit_code ? r.err : got, want));
}

// The clock offset is the remote's time minus the middle of the round trip
// that read it, from the quickest of a few round trips over one session
// (the one least bent by queueing); its error is at most half that trip.
nlohmann::json RemoteSession::facts() {
  return {{"server", host_facts()}, {"clients", {{"hostname", local_hostname()}, {"runs", "rpclab-client"}}}};
}

nlohmann::json RemoteSession::host_facts() {
  double rtt = 0, offset = host_.clock_offset(8, &rtt);
  std::string loadavg = host_.run_checked("cat /proc/loadavg").out;
  double l1 = 0, l5 = 0, l15 = 0;
  std::istringstream(loadavg) >> l1 >> l5 >> l15;
  nlohmann::json server = static_facts_;
  server["runs"] = program_;
  server["loadavg"] = {l1, l5, l15};
  server["clock_offset_ms"] = offset * 1e3;
  server["clock_rtt_ms"] = rtt * 1e3;
  server["clock_method"] = "8 round trips over one ssh session (a line in, date +%s.%N out); the quickest";
  return server;
}

}  // namespace rpclab::harness
