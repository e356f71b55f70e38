#include "harness/remote/remote_placement.h"

#include <fmt/format.h>

#include "harness/remote/remote_clients.h"
#include "harness/remote/remote_server.h"
#include "harness/run/experiment.h"
#include "netem/faults/remote_faults.h"
#include "netem/spec/fault_fields.h"

namespace rpclab::harness {
namespace {

// The watchdog fires this long after the clients' time limit: time for a
// trial at its limit to stop the server and fetch its files first.
constexpr int kWatchdogGrace_s = 5;

class RemoteLoad : public ServerCpuLoad {
 public:
  void start_measuring(TrialServer&) override {}
  TrialLoad finish() override {
    TrialLoad l;
    l.not_measured = "no: the server runs on another host (see hosts.server.loadavg)";
    return l;
  }
};

class RemotePlacement : public Placement {
 public:
  RemotePlacement(RemoteSession& server, RemoteSession* clients, const CellEnvironment& env, process::CommandLog& log)
      : server_(server), clients_(clients), env_(env), log_(log) {}

  void describe(TrialRecord& trial) const override {
    trial.hosts = server_.facts();
    if (clients_) (*trial.hosts)["clients"] = clients_->host_facts();
    trial.dependability.topology_place = MaybeNull<std::string>::null();  // `hosts` says where it ran
  }

  // Nothing to share CPUs with here: the server is elsewhere.
  ProcessPlacement processes(const CellConfig& cell) const override {
    return place_processes(cell, env_.bin_dir, 1, env_.stop);
  }

  std::unique_ptr<TrialServer> start_server(const CellConfig& cell, const CellFiles&,
                                            const std::string& name) override {
    std::string removal = netem::is_empty(cell.faults) ? "" : netem::remote_fault_removal(server_.data_iface(), server_.sudo());
    return std::make_unique<RemoteServer>(cell, server_, name, deadline_s(), env_.stop, removal);
  }

  Link impair(const CellConfig& cell, const CellFiles& files) override {
    if (netem::is_empty(cell.faults)) return Link();
    netem::Choice there = server_.faults_for(cell.faults_backend);  // checked by open_remote
    netem::Choice choice{there.kind, there.reason + "; on " + server_.host().target().text() + "'s " +
                                         server_.data_iface() + ": the server's end of the data link"};
    Link link(choice, netem::make_remote_faults(there.kind, server_.host(), server_.data_iface(), server_.sudo()));
    link.apply(cell.faults, files);
    faults_on_ = true;
    return link;
  }

  // The data interface there outlives the trial.
  void restore() override {
    if (!faults_on_) return;
    server_.host().run_checked(netem::remote_fault_removal(server_.data_iface(), server_.sudo()));
    faults_on_ = false;
  }

  std::unique_ptr<ServerCpuLoad> load(const CellConfig&, const ProcessPlacement&) override {
    return std::make_unique<RemoteLoad>();
  }

  ClientEnd client_end() const override {
    return {nullptr, "--server-host: the clients' end is this host's own interface, which rpclab leaves alone"};
  }

  bool clients_see_files() const override { return clients_ == nullptr; }

  ClientResults run_clients(const CellConfig& cell, const std::vector<std::string>& extra_args,
                            const std::string& endpoint, const CellFiles& files, const TrialPlace& place,
                            std::chrono::seconds limit, const std::function<void()>& tick,
                            const WaitPoll& poll) override {
    if (clients_)
      return run_remote_clients(cell, *clients_, fmt::format("clients-{}-trial-{}", place.cell_index, place.trial),
                                endpoint, files, deadline_s(), limit, tick, env_.stop);
    return harness::run_clients(cell, extra_args, netem::Host{}, endpoint, files, processes(cell), limit, tick, log_,
                                poll);
  }

 private:
  int deadline_s() const { return env_.cell_time_limit_s + kWatchdogGrace_s; }

  RemoteSession& server_;
  RemoteSession* clients_;
  const CellEnvironment& env_;
  process::CommandLog& log_;
  bool faults_on_ = false;
};

}  // namespace

RemotePlacements remote_placements(RemoteSession& server, RemoteSession* clients, const CellEnvironment& env) {
  return [&server, clients, &env](const CellConfig&, process::CommandLog& log) -> std::unique_ptr<Placement> {
    return std::make_unique<RemotePlacement>(server, clients, env, log);
  };
}

}  // namespace rpclab::harness
