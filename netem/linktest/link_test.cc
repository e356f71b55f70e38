#include "netem/linktest/link_test.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "netem/config/fault_config.h"
#include "netem/faults/backend_factory.h"
#include "netem/faults/netem_qdisc.h"
#include "netem/topology/topology.h"
#include "netem/topology/uml_guest.h"
#include "process/child_process.h"
#include "process/command_runner.h"

namespace rpclab::netem {

namespace {

constexpr int kProbePort = 9000;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

nlohmann::json read_json(const std::string& path, const std::string& what) {
  std::string text = read_file(path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error(what + " wrote no JSON to " + path + ": \"" + text.substr(0, 300) + "\"");
  }
}

void wait_for_file(const std::string& path, process::ChildProcess& owner, const std::string& what) {
  for (int i = 0; i < 1000; ++i) {
    if (::access(path.c_str(), F_OK) == 0) return;
    if (!owner.running()) throw std::runtime_error(what + " exited before it was ready");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  throw std::runtime_error(what + " not ready after 10 s");
}

uint64_t socket_drops(const std::string& netns, process::CommandLog& log) {
  return parse_snmp(process::run_checked({"cat", "/proc/net/snmp"}, log, netns).out)["Udp.RcvbufErrors"];
}

DirectionCounters minus(const DirectionCounters& a, const DirectionCounters& b) {
  return {a.offered - b.offered, a.dropped - b.dropped, a.duplicated - b.duplicated, a.delivered - b.delivered,
          a.bytes_delivered - b.bytes_delivered};
}

// Backend count beside the endpoints' count of the same packets, per direction.
nlohmann::json agreement(const LinkCounters& c, const nlohmann::json& sender, const nlohmann::json& reflector) {
  auto pair = [](uint64_t backend, uint64_t endpoint) {
    return nlohmann::json{{"backend", backend}, {"endpoints", endpoint}};
  };
  return {{"to_server",
           {{"offered", pair(c.to_server.offered, sender.value("datagrams_sent", 0ull))},
            {"delivered", pair(c.to_server.delivered, reflector.value("datagrams_received", 0ull))}}},
          {"to_client",
           {{"offered", pair(c.to_client.offered, reflector.value("datagrams_sent", 0ull))},
            {"delivered", pair(c.to_client.delivered, sender.value("datagrams_received", 0ull))}}}};
}

// Endpoint loss/dup summed over the impaired directions.
nlohmann::json endpoint_measured(const nlohmann::json& sender, Direction d) {
  uint64_t sent = 0, received = 0, unique = 0;
  for (auto [name, dir] : {std::pair{"to_server", Direction::kToServer}, std::pair{"to_client", Direction::kToClient}}) {
    if (!(d == Direction::kBoth || d == dir) || !sender.contains(name)) continue;
    sent += sender[name]["sent"].get<uint64_t>();
    received += sender[name]["received"].get<uint64_t>();
    unique += sender[name]["unique"].get<uint64_t>();
  }
  double s = sent ? static_cast<double>(sent) : 1.0;
  return {{"loss_pct", 100.0 * (static_cast<double>(sent) - unique) / s},
          {"dup_pct", 100.0 * (static_cast<double>(received) - unique) / s},
          {"sent", sent}};
}

nlohmann::json run_on_this_kernel(const LinkTestOptions& o, process::CommandLog& log) {
  remove_stale_namespaces(log);
  auto topology = Topology::create(TopologyKind::kTwoHost, log);
  auto backend = make_backend(o.backend, *topology, log);
  backend->apply(o.spec);
  std::string state_before = backend->state();
  LinkCounters before = backend->read_counters();

  std::string ready = o.work_dir + "/reflector.ready";
  ::unlink(ready.c_str());
  std::string listen = fmt::format("{}:{}", topology->server().address, kProbePort);
  process::SpawnOptions srv{topology->server().netns, {}, "/dev/null", o.work_dir + "/reflector.json",
                   o.work_dir + "/reflector.stderr", {}};
  process::ChildProcess reflector({o.probe_path, "reflect", "--listen", listen, "--ready-file", ready}, srv, log);
  wait_for_file(ready, reflector, "rpclab-linkprobe reflect");

  process::SpawnOptions cli{topology->client().netns, {}, "/dev/null", o.work_dir + "/sender.json",
                   o.work_dir + "/sender.stderr", {}};
  process::ChildProcess sender({o.probe_path, "send", "--to", listen, "--count", std::to_string(o.count), "--pps",
                       fmt::format("{}", o.rate_pps), "--size", std::to_string(o.size), "--drain-ms",
                       std::to_string(o.drain_ms)}, cli, log);
  auto limit = std::chrono::seconds(static_cast<int>(o.count / o.rate_pps) + 60);
  auto status = sender.wait_for(limit);
  if (!status || *status != 0)
    throw std::runtime_error("rpclab-linkprobe send " + (status ? process::describe_wait_status(*status) : "timed out") +
                             ": " + read_file(o.work_dir + "/sender.stderr"));
  reflector.stop(std::chrono::seconds(5));

  LinkCounters after = backend->read_counters();
  nlohmann::json sent = read_json(o.work_dir + "/sender.json", "rpclab-linkprobe send");
  nlohmann::json reflected = read_json(o.work_dir + "/reflector.json", "rpclab-linkprobe reflect");
  LinkCounters delta{minus(after.to_server, before.to_server), minus(after.to_client, before.to_client), after.source};
  MeasuredFaults m = measure(before, after, o.spec.direction);
  return {{"backend", backend_name(o.backend)},
          {"configured", o.spec},
          {"seed_applied", backend->seed_applied()},
          {"namespaces", {{"server", topology->server().netns}, {"client", topology->client().netns}}},
          {"endpoint_measured", endpoint_measured(sent, o.spec.direction)},
          {"backend_measured", {{"loss_pct", m.loss_pct}, {"dup_pct", m.dup_pct}, {"offered", m.offered}}},
          {"counters", delta.to_json()},
          {"agreement", agreement(delta, sent, reflected)},
          {"socket_drops", {{"server", socket_drops(topology->server().netns, log)},
                            {"client", socket_drops(topology->client().netns, log)}}},
          {"sender", sent},
          {"reflector", reflected},
          {"state_before", state_before},
          {"state_after", backend->state()}};
}

nlohmann::json run_in_uml(const LinkTestOptions& o, process::CommandLog& log) {
  std::string out = o.work_dir + "/guest-linktest.json";
  ::unlink(out.c_str());
  GuestOptions g;
  g.work_dir = o.work_dir;
  g.timeout = o.guest_timeout;
  g.stderr_path = o.work_dir + "/guest-linktest.stderr";
  GuestRun run = run_in_guest(guest_linktest_argv(o, out), g, log);
  if (!run.completed) throw std::runtime_error("uml-netem guest failed: " + run.failure);
  if (run.exit_code != 0)
    throw std::runtime_error(fmt::format("rpclab-linktest in the guest exited {}: {}", run.exit_code,
                                         read_file(g.stderr_path)));
  nlohmann::json j = read_json(out, "rpclab-linktest in the guest");
  j["backend"] = "uml-netem";
  j["guest"] = {{"boot_ms", run.boot_ms}, {"total_ms", run.total_ms}, {"console", run.console_path}};
  return j;
}

}  // namespace

std::vector<std::string> guest_linktest_argv(const LinkTestOptions& o, const std::string& out_path) {
  return {o.linktest_path, "--faults-backend", "netem", "--spec-json", nlohmann::json(o.spec).dump(), "--count",
          std::to_string(o.count), "--pps", fmt::format("{}", o.rate_pps), "--size", std::to_string(o.size),
          "--drain-ms", std::to_string(o.drain_ms), "--work-dir", o.work_dir + "/guest", "--probe", o.probe_path,
          "--out", out_path};
}

nlohmann::json run_link_test(const LinkTestOptions& o, process::CommandLog& log) {
  ::mkdir(o.work_dir.c_str(), 0755);
  validate(o.spec);
  nlohmann::json j = o.backend == BackendKind::kUmlNetem ? run_in_uml(o, log) : run_on_this_kernel(o, log);
  // Inside a guest the guest's own commands come back in its JSON: keep
  // them after the host's, so the log replays the whole test in order.
  nlohmann::json commands = log.lines();
  if (j.contains("commands")) {
    commands.push_back("# inside the user-mode-linux guest:");
    for (const auto& line : j["commands"]) commands.push_back(line);
  }
  j["commands"] = commands;
  return j;
}

}  // namespace rpclab::netem
