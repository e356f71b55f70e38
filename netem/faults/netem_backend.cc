// tc netem on the sender's end of each impaired direction: to-server is the
// client's egress (veth-cli), to-client the server's (veth-srv). Counters:
// the qdisc's sent/dropped, the sender namespace's IP OutRequests (offered)
// and the receiver's interface rx (delivered).
#include "netem/faults/netem_backend.h"

#include <fmt/format.h>

#include "process/command_runner.h"
#include "netem/faults/netem_qdisc.h"

namespace rpclab::netem::detail {

namespace {

class NetemBackend : public FaultBackend {
 public:
  NetemBackend(const Topology& t, process::CommandLog& log) : FaultBackend(t, log) {}

  BackendKind kind() const override { return BackendKind::kNetem; }
  bool seed_applied() const override { return seed_applied_; }

  void apply(const FaultSpec& spec) override {
    const Host& cli = topology_.client();
    std::string usage = process::run({"tc", "qdisc", "add", "dev", "lo", "root", "netem", "help"}, log_, cli.netns).err;
    bool tc_has_seed = netem_usage_has_seed(usage);
    seed_applied_ = tc_has_seed && spec.seed.has_value();
    if (spec.seed && !tc_has_seed) log_.comment("this tc has no netem seed option: the loss pattern is not seeded");
    for (auto [dir, sender] : {std::pair{Direction::kToServer, &topology_.client()},
                               std::pair{Direction::kToClient, &topology_.server()}}) {
      if (impairs(spec.direction, dir)) process::run_checked(netem_qdisc_argv(spec, sender->ifname, tc_has_seed), log_, sender->netns);
    }
    baseline_to_server_ = read_raw(topology_.client(), topology_.server());
    baseline_to_client_ = read_raw(topology_.server(), topology_.client());
  }

  LinkCounters read_counters() override {
    LinkCounters c;
    c.source = "tc -s qdisc (sent, dropped) + /proc/net/snmp Ip.OutRequests (offered) + ip -s link rx (delivered)";
    c.to_server = netem_direction_counters(baseline_to_server_, read_raw(topology_.client(), topology_.server()));
    c.to_client = netem_direction_counters(baseline_to_client_, read_raw(topology_.server(), topology_.client()));
    return c;
  }

  std::string state() override {
    std::string out;
    for (const Host* h : {&topology_.server(), &topology_.client()}) {
      out += fmt::format("# netns {}: tc -s qdisc show\n", h->netns);
      out += process::run({"tc", "-s", "qdisc", "show"}, log_, h->netns).out;
    }
    return out;
  }

 private:
  NetemReading read_raw(const Host& sender, const Host& receiver) {
    NetemReading r;
    r.qdisc = parse_netem_stats(process::run_checked({"tc", "-s", "-j", "qdisc", "show", "dev", sender.ifname}, log_, sender.netns).out);
    r.offered = parse_snmp(process::run_checked({"cat", "/proc/net/snmp"}, log_, sender.netns).out)["Ip.OutRequests"];
    InterfaceStats rx = parse_interface_stats(
        process::run_checked({"ip", "-n", receiver.netns, "-s", "-j", "link", "show", "dev", receiver.ifname}, log_).out);
    r.delivered_packets = rx.rx_packets;
    r.delivered_bytes = rx.rx_bytes;
    return r;
  }

  bool seed_applied_ = false;
  NetemReading baseline_to_server_, baseline_to_client_;
};

}  // namespace

std::unique_ptr<FaultBackend> make_netem_backend(const Topology& topology, process::CommandLog& log) {
  return std::make_unique<NetemBackend>(topology, log);
}

}  // namespace rpclab::netem::detail
