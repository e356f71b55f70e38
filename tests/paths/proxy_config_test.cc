// A proxy's configuration rendered from its template (proxy_config.h):
// each field filled, the replica line written once per replica, and every
// shipped template rendered for every (path, carriage) the table lets a
// cell ask for, so a template naming a field rpclab does not fill fails
// here and not in a root-only trial. Nothing is started: a rendered text
// is only read.
#include "harness/paths/proxy_config.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace rpclab::harness {
namespace {

ProxyConfigInput input(int replicas) {
  ProxyConfigInput in;
  in.dir = "/tmp/rpclab-trial-7";
  in.log_path = "/tmp/rpclab-trial-7/proxy.log";
  in.listen_addr = "10.77.0.1";
  in.listen_port = 18443;
  for (int k = 1; k <= replicas; ++k) in.replica_addrs.push_back("10.77." + std::to_string(k) + ".2");
  in.replica_port = 17001;
  return in;
}

const PathRow& path(std::string_view name) {
  const PathRow* row = find_path(name);
  if (!row) throw std::runtime_error("no path row " + std::string(name));
  return *row;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool is_comment(const std::string& line) {
  size_t first = line.find_first_not_of(" \t");
  return first != std::string::npos && line[first] == '#';
}

// The lines holding `text`, comments left out.
std::vector<std::string> lines_with(const std::string& config, const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& line : lines_of(config))
    if (!is_comment(line) && line.find(text) != std::string::npos) out.push_back(line);
  return out;
}

bool has_line(const std::string& config, const std::string& line) {
  for (const std::string& l : lines_of(config))
    if (l == line) return true;
  return false;
}

TEST(ProxyConfig, HaproxyFieldsFilledAndOneServerLinePerReplica) {
  std::string config = render_proxy_config(path("haproxy-retry"), Carriage::kH2, input(3));
  EXPECT_TRUE(has_line(config, "  bind 10.77.0.1:18443 proto h2")) << config;
  EXPECT_TRUE(has_line(config, "  timeout server " + std::to_string(kUpstreamTimeoutMs) + "ms")) << config;
  // The row's multi-line setting lands where @RETRIES@ was, as written.
  EXPECT_TRUE(has_line(config, "  retry-on conn-failure empty-response response-timeout")) << config;
  EXPECT_TRUE(has_line(config, "  option redispatch 1")) << config;
  EXPECT_TRUE(has_line(config, "  retries 3")) << config;
  // One server line per replica, numbered from 1, in the input's order.
  std::vector<std::string> servers = lines_with(config, "  server r");
  ASSERT_EQ(servers.size(), 3u) << config;
  EXPECT_EQ(servers[0], "  server r1 10.77.1.2:17001 proto h2");
  EXPECT_EQ(servers[1], "  server r2 10.77.2.2:17001 proto h2");
  EXPECT_EQ(servers[2], "  server r3 10.77.3.2:17001 proto h2");
}

TEST(ProxyConfig, DefaultPathLeavesTheProxysOwnSettings) {
  // HAProxy's default row has no values: nothing of another row's leaks in.
  std::string config = render_proxy_config(path("haproxy"), Carriage::kHttp1, input(2));
  EXPECT_EQ(config.find("retry-on"), std::string::npos) << config;
  EXPECT_EQ(config.find("redispatch"), std::string::npos) << config;
  EXPECT_EQ(lines_with(config, "  server r").size(), 2u) << config;
}

TEST(ProxyConfig, NginxFieldsFilledAndNextUpstreamFromTheRow) {
  std::string config = render_proxy_config(path("nginx-retry"), Carriage::kH2, input(2));
  EXPECT_TRUE(has_line(config, "pid /tmp/rpclab-trial-7/nginx.pid;")) << config;
  EXPECT_TRUE(has_line(config, "  access_log /tmp/rpclab-trial-7/proxy.log rpclab;")) << config;
  EXPECT_TRUE(has_line(config, "    listen 10.77.0.1:18443 http2;")) << config;
  EXPECT_TRUE(has_line(config, "      grpc_read_timeout " + std::to_string(kUpstreamTimeoutMs) + "ms;")) << config;
  EXPECT_TRUE(has_line(config, "      grpc_next_upstream error timeout non_idempotent;")) << config;
  std::vector<std::string> servers = lines_with(config, "    server 10.77.");
  ASSERT_EQ(servers.size(), 2u) << config;
  EXPECT_EQ(servers[0], "    server 10.77.1.2:17001;");
  EXPECT_EQ(servers[1], "    server 10.77.2.2:17001;");
  // The default row's words differ: the two rows must not render the same.
  std::string defaults = render_proxy_config(path("nginx"), Carriage::kH2, input(2));
  EXPECT_TRUE(has_line(defaults, "      grpc_next_upstream error timeout;")) << defaults;
}

TEST(ProxyConfig, CaddyUpstreamsAndTryDuration) {
  std::string config = render_proxy_config(path("caddy-retry"), Carriage::kHttp1, input(2));
  EXPECT_TRUE(has_line(config, "http://10.77.0.1:18443 {")) << config;
  EXPECT_TRUE(has_line(config, "\t\toutput file /tmp/rpclab-trial-7/proxy.log")) << config;
  EXPECT_TRUE(has_line(config, "\t\tlb_try_duration 2s")) << config;
  EXPECT_TRUE(has_line(config, "\t\tlb_try_interval 50ms")) << config;
  EXPECT_EQ(lines_with(config, "\t\tto 10.77.").size(), 2u) << config;
}

// server-out-of-pool on a proxy that takes it by a new configuration:
// nginx marks the replica's line down (it keeps the slot, so its round
// robin's other servers are unchanged); Caddy has no such word for a
// static upstream, so its `to` line is left out.
TEST(ProxyConfig, AReplicaOutOfThePoolIsDownInNginxAndAbsentInCaddy) {
  ProxyConfigInput in = input(2);
  in.out_of_pool = {false, true};
  for (Carriage c : {Carriage::kH2, Carriage::kHttp1, Carriage::kStream, Carriage::kDatagram}) {
    std::vector<std::string> servers = lines_with(render_proxy_config(path("nginx"), c, in), "    server 10.77.");
    ASSERT_EQ(servers.size(), 2u) << carriage_name(c);
    EXPECT_EQ(servers[0], "    server 10.77.1.2:17001;");
    EXPECT_EQ(servers[1], "    server 10.77.2.2:17001 down;");
  }
  for (Carriage c : {Carriage::kH2, Carriage::kHttp1}) {
    std::string config = render_proxy_config(path("caddy"), c, in);
    std::vector<std::string> to = lines_with(config, "\t\tto 10.77.");
    ASSERT_EQ(to.size(), 1u) << config;
    EXPECT_EQ(to[0], "\t\tto 10.77.1.2:17001");
    EXPECT_TRUE(has_line(config, "\tadmin 127.0.0.1:2019")) << "the admin API the reload goes through";
  }
  in.out_of_pool = {false, false};  // back in: as at the start
  EXPECT_EQ(render_proxy_config(path("nginx"), Carriage::kH2, in), render_proxy_config(path("nginx"), Carriage::kH2, input(2)));
}

TEST(ProxyConfig, OneReplicaWritesOneUpstreamLine) {
  std::string config = render_proxy_config(path("nginx"), Carriage::kDatagram, input(1));
  std::vector<std::string> servers = lines_with(config, "    server 10.77.");
  ASSERT_EQ(servers.size(), 1u) << config;
  EXPECT_EQ(servers[0], "    server 10.77.1.2:17001;");
  EXPECT_TRUE(has_line(config, "    listen 10.77.0.1:18443 udp;")) << config;
}

TEST(ProxyConfig, AFieldRpclabDoesNotKnowIsRefused) {
  // A template that names a field nobody fills would start a proxy on a
  // configuration it cannot parse; the render refuses it, naming the field.
  std::string text = "frontend f\n  bind @LISTEN_ADDR@:@LISTEN_PORT@\n  maxconn @MAXCONN@\n";
  try {
    render_proxy_template("broken.cfg", text, path("haproxy"), input(2));
    FAIL() << "rendered a template with @MAXCONN@ unfilled";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("@MAXCONN@"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("broken.cfg"), std::string::npos) << e.what();
  }
  // Also after an at-sign that is no field (a mail address in a comment),
  // and after a field filled on the same line.
  std::string later = "# mail ops@example for help\n  bind @LISTEN_ADDR@ @PORT@\n";
  EXPECT_THROW(render_proxy_template("broken.cfg", later, path("haproxy"), input(2)), std::runtime_error);
}

TEST(ProxyConfig, ReplicaLineFieldsStayOnThatLine) {
  // @K@ and @REPLICA_PORT@ are a replica line's: the line is repeated with
  // each replica's values, and the rest of the text is written once.
  std::string text = "top @LISTEN_PORT@\n  server r@K@ @REPLICA_ADDR@:@REPLICA_PORT@ weight 1\nend\n";
  std::string config = render_proxy_template("t.cfg", text, path("haproxy"), input(2));
  EXPECT_EQ(config, "top 18443\n  server r1 10.77.1.2:17001 weight 1\n  server r2 10.77.2.2:17001 weight 1\nend\n");
}

// Every (path, carriage) a cell may ask for, rendered: the transports
// stand for their carriage, so path_refusal decides as it does for a cell.
TEST(ProxyConfig, EveryShippedTemplateRendersForEveryAcceptedPath) {
  struct Stand {
    Carriage carriage;
    std::string_view transport;
  };
  const Stand stands[] = {{Carriage::kH2, "grpc"},
                          {Carriage::kHttp1, "xmlrpc"},
                          {Carriage::kStream, "sunrpc-tcp"},
                          {Carriage::kDatagram, "sunrpc-udp"}};
  std::vector<std::string> rendered;
  for (const PathRow& row : paths()) {
    if (!row.proxy) continue;
    for (const Stand& s : stands) {
      const TransportRow* t = find_transport(s.transport);
      ASSERT_NE(t, nullptr) << s.transport;
      ASSERT_EQ(carriage_of(*t), s.carriage) << s.transport;
      if (!path_refusal(row, *t, 2).empty()) continue;
      std::string where = std::string(row.name) + " for " + std::string(carriage_name(s.carriage));
      std::string config;
      ASSERT_NO_THROW(config = render_proxy_config(row, s.carriage, input(2))) << where;
      for (const std::string& line : lines_of(config)) {
        if (!is_comment(line)) {
          // HAProxy's own address prefix (its runtime API's `unix@haproxy.sock`)
          // is its syntax, not a field left unfilled.
          std::string rest = line;
          if (size_t at = rest.find("unix@"); at != std::string::npos) rest.erase(at, 5);
          EXPECT_EQ(rest.find('@'), std::string::npos) << where << ": " << line;
        }
      }
      EXPECT_EQ(lines_with(config, "10.77.1.2:17001").size(), 1u) << where << "\n" << config;
      EXPECT_EQ(lines_with(config, "10.77.2.2:17001").size(), 1u) << where << "\n" << config;
      // One place says where it listens (Caddy's site also binds the address alone).
      EXPECT_EQ(lines_with(config, "10.77.0.1:18443").size(), 1u) << where << "\n" << config;
      rendered.push_back(where);
    }
  }
  // HAProxy's default on three carriages and its two retry rows on the
  // two HTTP ones, nginx's default on four and its retry row on the two
  // HTTP ones, Caddy's two rows on the two HTTP ones: a refusal that crept
  // in (or a row gone) changes the count.
  EXPECT_EQ(rendered.size(), (3u + 2u + 2u) + (4u + 2u) + (2u + 2u)) << ::testing::PrintToString(rendered);
}

}  // namespace
}  // namespace rpclab::harness
