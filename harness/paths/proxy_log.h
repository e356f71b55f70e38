// What a proxy's own log says of each request it carried: how many
// upstream attempts it made, to which replica the last went, and, where
// the log holds the request's body, which call (client, seq) it was. The
// log formats are the ones rpclab's templates set (harness/paths/templates/):
// lines beginning "rpclab-request" (one per HTTP request) or
// "rpclab-session" (one per TCP connection or UDP session); other lines
// (start-up notices) are skipped. Pure functions: the tests feed them
// lines by hand.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rpclab::harness {

struct ProxyRequest {
  bool session = false;  // a TCP connection or a UDP session, not one request
  int attempts = 1;      // upstream attempts: HAProxy's 1 + %rc, nginx's addresses in $upstream_addr
  std::string upstream;  // the last attempt's replica, as the proxy names it
  std::string upstreams; // every attempt's, as logged (nginx's $upstream_addr "A, B")
  std::string worker;    // the process that carried it (nginx's $pid), or ""
  double ended = 0;      // when it ended, Unix seconds (nginx's $msec), or 0
  std::string status;    // the status the client got, as logged
  std::optional<std::pair<uint32_t, uint32_t>> call;  // (client id, seq) from the logged body
};

struct ProxyLog {
  std::vector<ProxyRequest> requests;
  uint64_t lines_skipped = 0;  // lines that are not rpclab's
  bool has_requests() const { return !requests.empty(); }
  uint64_t retried() const;    // requests with two or more attempts
};

// One line of rpclab's formats, or nullopt for any other line.
std::optional<ProxyRequest> parse_proxy_line(std::string_view line);
ProxyLog read_proxy_log(const std::string& path);  // a missing file: an empty log

// Caddy's own log (its templates' `debug`, JSON lines): each "upstream
// roundtrip", when it ended (its `ts`, Unix seconds) and to which
// upstream. Other lines are skipped.
struct CaddyRoundtrip {
  double ended = 0;
  std::string upstream;
};
std::vector<CaddyRoundtrip> read_caddy_roundtrips(const std::string& path);
// The (client, seq) of a NEXT request's body as the proxy logged it in hex
// (HAProxy's req.body,hex): a gRPC message (5-byte frame header, protobuf
// fields 1 and 2), an XML-RPC call (its first two <i4>/<int> values) or a
// JSON-RPC one ("client_id", "seq"). nullopt when it is none of these.
std::optional<std::pair<uint32_t, uint32_t>> call_of_body(std::string_view hex);

}  // namespace rpclab::harness
