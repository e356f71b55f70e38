// The transport options a row may accept (TransportOption), one row each:
// the flag that sets it and how to tell that it is set. The programs check
// what they were given against the transport's row here, so a flag the
// transport would ignore is a usage error that names who takes it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "transport/transport.h"

namespace rpclab {

struct OptionRow {
  TransportOption option;
  std::string_view flag;                          // "--drc"
  bool (*set_in_client)(const ClientOptions&);    // nullptr: not a client option
  bool (*set_in_server)(const ServerOptions&);    // nullptr: not a server option
};

const std::vector<OptionRow>& transport_options();

// "" when `row` accepts every option set; else one message saying which
// flag, that this transport does not take it, and which transports do.
std::string option_error(const TransportRow& row, const ClientOptions& options);
std::string option_error(const TransportRow& row, const ServerOptions& options);

}  // namespace rpclab
