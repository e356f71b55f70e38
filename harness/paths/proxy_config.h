// A proxy's configuration for one trial, rendered from its template
// (harness/paths/templates/): @NAME@ fields filled; a line that names a
// replica (@REPLICA_ADDR@) is written once per replica, @K@ its number.
// A replica out of the pool (server-out-of-pool, on a proxy that takes it
// by a new configuration): its line gets @DOWN@ filled (nginx's " down"),
// or, on a line without @DOWN@ (Caddy's `to`), is left out.
#pragma once

#include <string>
#include <vector>

#include "harness/paths/path_table.h"

namespace rpclab::harness {

struct ProxyConfigInput {
  std::string dir;          // the trial's folder (temp files, the error log)
  std::string log_path;     // where its log of requests goes
  std::string listen_addr;  // on the client's link
  int listen_port = 0;
  std::vector<std::string> replica_addrs;  // index k-1
  int replica_port = 0;
  std::vector<bool> out_of_pool;  // index k-1; absent: in the pool
};

// The configuration text. Throws std::runtime_error when a field is left
// unfilled (a template naming one rpclab does not know) outside a comment
// line: the templates' comments say "@NAME@ are filled by rpclab".
std::string render_proxy_config(const PathRow& path, Carriage carriage, const ProxyConfigInput& in);
// The same from a template's text (`name` for the error), for the tests.
std::string render_proxy_template(const std::string& name, const std::string& text, const PathRow& path,
                                  const ProxyConfigInput& in);

}  // namespace rpclab::harness
