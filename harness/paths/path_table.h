// harness/paths/: the path a call takes to its server in the deployments
// people run (docs/paths.md): a proxy or load balancer from Debian's
// packages (HAProxy, nginx, Caddy) in a middle host before several server
// replicas, or a client that balances by itself, or straight to one server.
// This file is the table: the proxies (programs, the carriages they front,
// their configuration templates under harness/paths/templates/) and the
// paths (a proxy and its settings that change retries, in the proxy's own
// words, the default first). Nothing outside compares a path's name: a
// cell names its row, and the row says what to start and how.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "transport/transport.h"

namespace rpclab::harness {

// What a proxy must speak to carry a transport's calls.
enum class Carriage { kH2, kHttp1, kStream, kDatagram };
std::string_view carriage_name(Carriage c);  // "HTTP/2", "HTTP/1.1", "TCP stream", "UDP datagrams"
Carriage carriage_of(const TransportRow& row);

// How long a proxy waits for a replica's response before it gives up on
// the attempt (HAProxy `timeout server`, nginx `*_read_timeout`, Caddy
// `response_header_timeout`): one value for every proxy, shorter than a
// path cell's client timeout, so a retry is possible before the client
// gives up, and shorter than the paths preset's stall.
inline constexpr int kUpstreamTimeoutMs = 300;

// How rpclab takes a replica out of a proxy's pool and back
// (server-out-of-pool), in the proxy's own mechanism.
enum class PoolControl {
  kNone,        // none: the event is refused on its paths, with the reason
  kRuntimeApi,  // HAProxy's runtime API on its stats socket: set server replicas/rK state maint | ready
  // nginx without nginx-plus's API: its configuration rewritten with
  // `server ... down` on rK's line (the template's @DOWN@) and SIGHUP to
  // the master rpclab started, which starts new workers on it and lets
  // the old ones finish what they carry.
  kReload,
  // Caddy's admin API (its templates' `admin` on loopback in the proxy's
  // own namespace): `caddy reload` with the Caddyfile rendered without
  // rK's `to` line, then the upstreams the API reports.
  kAdminApi,
};

struct ProxyRow {
  std::string_view name;      // "haproxy"
  std::string_view title;     // "HAProxy"
  std::string_view program;   // absolute path of the Debian package's binary
  std::string_view package;   // the Debian package (tools/deps.sh installs it)
  // The carriages it fronts, each with its configuration template (a file
  // under harness/paths/templates/); a carriage it does not front is "".
  std::string_view h2_template, http1_template, stream_template, datagram_template;
  std::string_view config_name;  // its rendered configuration in the trial's folder
  bool log_on_stdout;            // its requests' log is its standard output (HAProxy's `log stdout`)
  std::string_view version_flag; // prints its version ("-v", "version")
  // Its command line as its users start it in the foreground, with the
  // configuration at `config`; `dir` is the trial's folder.
  std::vector<std::string> (*argv)(const std::string& config, const std::string& dir);
  // The environment it needs beyond the inherited one (Caddy's data and
  // config folders, kept in the trial's folder).
  std::vector<std::string> (*env)(const std::string& dir);
  PoolControl pool = PoolControl::kNone;
  std::string_view template_for(Carriage c) const;
};
const std::vector<ProxyRow>& proxies();

struct PathRow {
  std::string_view name;     // "haproxy-retry": the cell's `path`
  const ProxyRow* proxy;     // null: no proxy
  // The values that change retries, put into the template's @RETRIES@ (or,
  // for nginx, @NEXT_UPSTREAM@), in the proxy's own vocabulary; what the
  // tables print.
  std::string_view retries;
  std::string_view setting;  // the same in one line for tables: "retry-on response-timeout, option redispatch 1"
  std::string_view what;     // one line for --help and docs
  bool default_setting;      // the proxy's own default (first of its rows)
  bool client_balances;      // no proxy: the client gets every replica's address
};
const std::vector<PathRow>& paths();
const PathRow* find_path(std::string_view name);
std::string path_names();  // "direct, grpc-round-robin, haproxy, ..."

// A template's text (read from the source tree, or share/rpclab/paths
// once installed). Throws std::runtime_error naming the file when it
// cannot be read.
std::string read_template(const std::string& name);

// Whether a path's retry values have a place in `carriage`'s template (a
// row with values whose template lacks @RETRIES@ and @NEXT_UPSTREAM@
// cannot be what its name says there).
bool template_takes_retries(const ProxyRow& proxy, Carriage carriage);

// Why `row` cannot carry `transport`'s calls to `replicas` replicas, or "".
std::string path_refusal(const PathRow& row, const TransportRow& transport, int replicas);

// The replica counts of an axis that `row` takes `transport`'s calls to:
// each of `replicas` for a path that spreads calls (a proxy, a balancing
// client), 1 for one that does not (direct), less those path_refusal
// refuses, whose reasons go to `refused` when given. The experiments'
// matrices expand a path axis with it.
std::vector<int> replica_counts(const PathRow& row, const TransportRow& transport, const std::vector<int>& replicas,
                                std::vector<std::string>* refused = nullptr);

}  // namespace rpclab::harness
