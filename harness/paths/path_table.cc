#include "harness/paths/path_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/install_paths.h"

namespace rpclab::harness {

std::string_view carriage_name(Carriage c) {
  switch (c) {
    case Carriage::kH2: return "HTTP/2";
    case Carriage::kHttp1: return "HTTP/1.1";
    case Carriage::kStream: return "TCP stream";
    case Carriage::kDatagram: return "UDP datagrams";
  }
  return "?";
}

Carriage carriage_of(const TransportRow& row) {
  if (row.datagram()) return Carriage::kDatagram;
  if (row.traits.http == "h2") return Carriage::kH2;
  if (row.traits.http == "http/1.1") return Carriage::kHttp1;
  return Carriage::kStream;
}

std::string_view ProxyRow::template_for(Carriage c) const {
  switch (c) {
    case Carriage::kH2: return h2_template;
    case Carriage::kHttp1: return http1_template;
    case Carriage::kStream: return stream_template;
    case Carriage::kDatagram: return datagram_template;
  }
  return "";
}

const std::vector<ProxyRow>& proxies() {
  using Args = std::vector<std::string>;
  static const std::vector<ProxyRow> rows = {
      {"haproxy", "HAProxy", "/usr/sbin/haproxy", "haproxy", "haproxy-h2.cfg", "haproxy-http1.cfg", "haproxy-tcp.cfg",
       "", "haproxy.cfg", true, "-v",
       // -db: in the foreground, its log (`log stdout`) on standard output.
       // -C: in the trial's folder, where its runtime API's socket is
       // (a relative name: a full path may pass a socket's 107 bytes).
       [](const std::string& config, const std::string& dir) {
         return Args{"/usr/sbin/haproxy", "-db", "-C", std::filesystem::absolute(dir).string(), "-f",
                     std::filesystem::absolute(config).string()};
       },
       [](const std::string&) { return Args{}; }, PoolControl::kRuntimeApi},
      {"nginx", "nginx", "/usr/sbin/nginx", "nginx", "nginx-grpc.conf", "nginx-http1.conf", "nginx-stream-tcp.conf",
       "nginx-stream-udp.conf", "nginx.conf", false, "-v",
       // -e stderr: its start-up errors in proxy.err, not /var/log/nginx.
       [](const std::string& config, const std::string& dir) {
         return Args{"/usr/sbin/nginx", "-e", "stderr", "-p", dir, "-c", config};
       },
       [](const std::string&) { return Args{}; }, PoolControl::kReload},
      {"caddy", "Caddy", "/usr/bin/caddy", "caddy", "caddy-h2c.Caddyfile", "caddy-http1.Caddyfile", "", "",
       "Caddyfile", false, "version",
       [](const std::string& config, const std::string&) {
         return Args{"/usr/bin/caddy", "run", "--config", config, "--adapter", "caddyfile"};
       },
       [](const std::string& dir) {
         return Args{"HOME=" + dir, "XDG_DATA_HOME=" + dir + "/caddy-data", "XDG_CONFIG_HOME=" + dir + "/caddy-config"};
       },
       PoolControl::kAdminApi},
  };
  return rows;
}

namespace {

std::string templates_dir() { return installed_or("paths", RPCLAB_SOURCE_DIR "/harness/paths/templates"); }

const ProxyRow* proxy(std::string_view name) {
  for (const ProxyRow& p : proxies())
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace

const std::vector<PathRow>& paths() {
  static const std::vector<PathRow> rows = {
      {"direct", nullptr, "", "", "the client straight to one server (Levy's set-up)", true, false},
      {"grpc-round-robin", nullptr, "", "round_robin over every replica's address",
       "gRPC's own balancing: the channel spreads calls over the replicas (round_robin); a library retry may go to "
       "another replica",
       true, true},
      {"haproxy", proxy("haproxy"), "", "retries 3, retry-on conn-failure (defaults)",
       "HAProxy 2.6 with its defaults: retries only a connection that failed", true, false},
      {"haproxy-retry", proxy("haproxy"),
       "retry-on conn-failure empty-response response-timeout\n  option redispatch 1\n  retries 3",
       "retry-on conn-failure empty-response response-timeout, option redispatch 1, retries 3",
       "HAProxy re-sends a request whose response timed out, to another replica", false, false},
      {"haproxy-retry-all", proxy("haproxy"), "retry-on all-retryable-errors\n  option redispatch 1\n  retries 3",
       "retry-on all-retryable-errors, option redispatch 1, retries 3",
       "HAProxy re-sends on every error its manual calls retryable, to another replica", false, false},
      {"nginx", proxy("nginx"), "error timeout", "*_next_upstream error timeout (default)",
       "nginx 1.22 with its defaults: the next upstream on an error or a timeout, never for a non-idempotent request",
       true, false},
      {"nginx-retry", proxy("nginx"), "error timeout non_idempotent", "*_next_upstream error timeout non_idempotent",
       "nginx passes even a non-idempotent request (POST) to the next upstream", false, false},
      {"caddy", proxy("caddy"), "", "no lb_try_duration (default: one try)",
       "Caddy 2.6 reverse_proxy with its defaults: one try per request", true, false},
      {"caddy-retry", proxy("caddy"), "lb_try_duration 2s\n\t\tlb_try_interval 50ms",
       "lb_try_duration 2s, lb_try_interval 50ms",
       "Caddy keeps trying other upstreams for 2 s (it retries what it could not send; its docs say it retries "
       "no other request unless lb_retry_match allows)",
       false, false},
  };
  return rows;
}

const PathRow* find_path(std::string_view name) {
  for (const PathRow& p : paths())
    if (p.name == name) return &p;
  return nullptr;
}

std::string path_names() {
  std::string out;
  for (const PathRow& p : paths()) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

std::string read_template(const std::string& name) {
  std::string path = templates_dir() + "/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the proxy's configuration template " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool template_takes_retries(const ProxyRow& proxy, Carriage carriage) {
  std::string text = read_template(std::string(proxy.template_for(carriage)));
  return text.find("@RETRIES@") != std::string::npos || text.find("@NEXT_UPSTREAM@") != std::string::npos;
}

std::string path_refusal(const PathRow& row, const TransportRow& transport, int replicas) {
  Carriage c = carriage_of(transport);
  if (row.client_balances && !transport.traits.balances)
    return fmt::format("path {}: {}'s client takes one --server; it does not balance over several by itself",
                       row.name, transport.name);
  if (!row.proxy && !row.client_balances && replicas != 1)
    return fmt::format("path {} with {} replicas: nothing spreads the calls over them (use a proxy's path or "
                       "grpc-round-robin)", row.name, replicas);
  if (row.proxy && row.proxy->template_for(c).empty())
    return fmt::format("path {}: {} does not front {} ({}'s calls)", row.name, row.proxy->title, carriage_name(c),
                       transport.name);
  if (row.proxy && !row.default_setting && !template_takes_retries(*row.proxy, c))
    return fmt::format("path {}: {} has no such setting for {} ({}); only its default path runs there", row.name,
                       row.proxy->title, carriage_name(c), row.setting);
  return "";
}

std::vector<int> replica_counts(const PathRow& row, const TransportRow& transport, const std::vector<int>& replicas,
                                std::vector<std::string>* refused) {
  std::vector<int> out;
  for (int r : row.proxy || row.client_balances ? replicas : std::vector<int>{1}) {
    if (std::string why = path_refusal(row, transport, r); !why.empty()) {
      if (refused) refused->push_back(why);
    } else if (std::find(out.begin(), out.end(), r) == out.end()) {
      out.push_back(r);
    }
  }
  return out;
}

}  // namespace rpclab::harness
