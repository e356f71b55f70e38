// A proxy's configuration for one trial, rendered from its template
// (harness/paths/templates/): @NAME@ fields filled; a line that names a
// replica (@REPLICA_ADDR@) is written once per replica, @K@ its number.
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
};

// The configuration text. Throws std::runtime_error when a field is left
// unfilled (a template naming one rpclab does not know).
std::string render_proxy_config(const PathRow& path, Carriage carriage, const ProxyConfigInput& in);

}  // namespace rpclab::harness
