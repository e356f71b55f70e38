// clnt_stat -> rpclab's ErrorKind, in one place.
#pragma once

#include <rpc/rpc.h>

#include "transport/outcome.h"

namespace rpclab::sunrpc {

CallStatus status_from_clnt(CLIENT* clnt, enum clnt_stat stat);

}  // namespace rpclab::sunrpc
