#include "harness/record/cell_config.h"

#include <fmt/format.h>

#include <stdexcept>

#include "harness/record/json_fields.h"
#include "netem/config/fault_config.h"
#include "netem/spec/fault_fields.h"
#include "transport/settings_table.h"

namespace rpclab::harness {
namespace {

template <typename T>
nlohmann::json optional_json(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

template <typename T>
std::optional<T> optional_from(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return fields::value_as<T>(j.at(key));
}

}  // namespace

std::string RetryChoice::name() const {
  std::string n(retry_policy_name(policy));
  return policy == RetryPolicy::kApp ? n + ":" + std::to_string(app_retries) : n;
}

RetryChoice RetryChoice::parse(const std::string& text) {
  auto colon = text.find(':');
  auto policy = parse_retry_policy(text.substr(0, colon));
  RetryChoice c;
  if (policy) c.policy = *policy;
  bool app = policy == RetryPolicy::kApp;
  if (!policy || (colon != std::string::npos) != app)
    throw std::invalid_argument("'" + text + "' is not none, library or app:K (K retries, 1..1000)");
  if (!app) return c;
  std::string k = text.substr(colon + 1);
  if (k.empty() || k.size() > 4 || k.find_first_not_of("0123456789") != std::string::npos || std::stoi(k) < 1 ||
      std::stoi(k) > 1000)
    throw std::invalid_argument("'" + text + "': K in app:K is the number of retries, 1..1000");
  c.app_retries = std::stoi(k);
  return c;
}

RetryChoice RetryChoice::of_cell(const nlohmann::json& cell) {
  if (cell.contains("app_retries")) return {RetryPolicy::kApp, fields::value_as<int>(cell.at("app_retries"))};
  if (cell.value("grpc_retry", false)) return {RetryPolicy::kLibrary, 0};
  return {};
}

nlohmann::json CellConfig::to_json() const {
  nlohmann::json j = {{"experiment", experiment},
                      {"block", block},
                      {"transport", transport},
                      {"topology", netem::topology_name(topology)},
                      {"connect", std::string(connect_mode_name(connect))},
                      {"clients", clients},
                      {"calls_per_client", calls_per_client},
                      {"hogs", hogs},
                      {"faults", faults},
                      {"faults_backend", faults_backend},
                      {"timeout_ms", optional_json(timeout_ms)},
                      // The library policy, under the name it had when gRPC's was
                      // the only one (older cells keep their identity).
                      {"grpc_retry", retry.policy == RetryPolicy::kLibrary},
                      {"pin", pin},
                      {"size", size},
                      {"trials", trials},
                      {"warmup", warmup}};
  // The transport's settings, each under its name: those cells always
  // had, always; newer ones only when set (transport/settings_table.h).
  write_settings(settings, j);
  // Only when on, so the cells of runs made before the flag keep their
  // identity (--resume matches on it).
  if (at_most_once) j["at_most_once"] = true;
  if (at_most_once_shared) j["at_most_once_shared"] = true;
  if (!path.empty()) {
    j["path"] = path;
    j["replicas"] = replicas;
  }
  if (op != "echo") j["op"] = op;
  if (retry.policy == RetryPolicy::kApp) j["app_retries"] = retry.app_retries;
  if (duration_ms) j["duration_ms"] = *duration_ms;
  if (!server.empty()) j["server"] = server;
  if (reply_cache) j["reply_cache"] = *reply_cache;
  if (restart_at_step) j["restart_at_step"] = *restart_at_step;
  if (!nfs_client.empty()) j["nfs_client"] = nfs_client;
  if (rate_per_s) j["rate_per_s"] = *rate_per_s;
  return j;
}

CellConfig CellConfig::from_json(const nlohmann::json& j) {
  try {
    CellConfig c;
    c.experiment = j.at("experiment").get<std::string>();
    c.block = j.value("block", "");
    c.transport = j.at("transport").get<std::string>();
    auto topology = netem::parse_topology(j.at("topology").get<std::string>());
    auto connect = parse_connect_mode(j.at("connect").get<std::string>());
    if (!topology || !connect) throw std::invalid_argument("unknown topology or connect mode");
    c.topology = *topology;
    c.connect = *connect;
    c.clients = fields::value_as<int>(j.at("clients"));
    c.calls_per_client = fields::value_as<uint64_t>(j.at("calls_per_client"));
    c.hogs = fields::value_as<int>(j.at("hogs"));
    c.faults = j.at("faults").get<netem::FaultSpec>();
    c.faults_backend = j.at("faults_backend").get<std::string>();
    c.timeout_ms = optional_from<int>(j, "timeout_ms");
    c.settings = read_settings(j);  // records before a setting have none of it: unset
    c.retry = RetryChoice::of_cell(j);
    c.at_most_once = j.value("at_most_once", false);
    c.at_most_once_shared = j.value("at_most_once_shared", false);
    c.path = j.value("path", "");
    c.replicas = j.contains("replicas") ? fields::value_as<int>(j.at("replicas")) : 1;
    c.duration_ms = optional_from<int64_t>(j, "duration_ms");
    c.server = j.value("server", "");
    c.reply_cache = optional_from<bool>(j, "reply_cache");
    c.restart_at_step = optional_from<uint32_t>(j, "restart_at_step");
    c.nfs_client = j.value("nfs_client", "");
    c.pin = j.at("pin").get<bool>();
    c.op = j.value("op", "echo");  // cells before the Allman workload were all ECHO
    c.size = fields::value_as<size_t>(j.at("size"));
    c.trials = fields::value_as<int>(j.at("trials"));
    c.warmup = fields::value_as<uint64_t>(j.at("warmup"));
    c.rate_per_s = optional_from<double>(j, "rate_per_s");
    return c;
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("not a cell configuration: ") + e.what());
  }
}

std::string CellConfig::label() const {
  // A path's own hosts (" via PATH to N replicas" below) replace the topology.
  std::string s = path.empty()
                      ? fmt::format("{} {} {}", transport, netem::topology_name(topology), connect_mode_name(connect))
                      : fmt::format("{} {}", transport, connect_mode_name(connect));
  if (!server.empty()) s = server + (nfs_client.empty() ? "" : " client " + nfs_client) + " " + s + " " + op;
  if (clients > 1) s += fmt::format(" x{}", clients);
  // The settings' words: in a speed cell after the clients, in a
  // dependability cell after the faults (where the labels, which name the
  // cells' folders, have always had them).
  // An open-loop cell ends with its rate: "grpc loopback persistent 12 B @ 5000/s".
  std::string rate = rate_per_s ? fmt::format(" @ {:g}/s", *rate_per_s) : "";
  // A speed cell on a path names it, and its at-most-once table there
  // (a path's cells compare the per-replica table with the shared one).
  if (experiment == "speed" && !path.empty()) {
    s += fmt::format(" via {} to {} replica{}", path, replicas, replicas == 1 ? "" : "s");
    if (at_most_once) s += at_most_once_shared ? " at-most-once shared" : " at-most-once";
  }
  if (experiment == "speed" && op != "echo") return s + label_words(settings) + fmt::format(" {} N={}", op, size) + rate;
  if (experiment == "speed") return s + label_words(settings) + fmt::format(" {} B", size) + rate;
  if (!path.empty()) s += fmt::format(" via {} to {} replica{}", path, replicas, replicas == 1 ? "" : "s");
  if (hogs) s += fmt::format(" load {}", hogs);
  if (!netem::is_empty(faults)) s += " " + netem::summary(faults);
  s += label_words(settings);
  if (retry.policy != RetryPolicy::kNone) s += " retry " + retry.name();
  if (at_most_once) s += at_most_once_shared ? " at-most-once shared" : " at-most-once";
  if (duration_ms) s += fmt::format(" for {} s", static_cast<double>(*duration_ms) / 1000);
  if (reply_cache) s += *reply_cache ? " cache on" : " cache off";
  if (restart_at_step) s += fmt::format(" restart at step {}", *restart_at_step);
  return s;
}

ClientOptions CellConfig::client_options() const {
  const TransportRow* row = find_transport(transport);
  ClientOptions o;
  o.transport = transport;
  o.timeout_ms = timeout_ms;
  if (row) o.settings = taken_by(*row, Side::kClient, settings);
  o.retry_policy = retry.policy;
  if (retry.policy == RetryPolicy::kApp) o.app_retry.retries = retry.app_retries;
  o.connect = connect;
  return o;
}

ServerOptions CellConfig::server_options() const {
  const TransportRow* row = find_transport(transport);
  ServerOptions o;
  o.transport = transport;
  if (row) o.settings = taken_by(*row, Side::kServer, settings);
  return o;
}

}  // namespace rpclab::harness
