// A trial with its server on another machine (--server-host), as a
// placement (run/placement.h): the server there behind a dead-man switch,
// the cell's faults on the data interface there (the server's end of the
// link), the clients here straight to its data address, or on a third
// machine (--client-host) behind a switch of their own. No CPU hogs (the
// run refuses them before it starts) and no wire capture: the clients'
// end is a real interface, which rpclab leaves alone.
#pragma once

#include <memory>

#include "harness/remote/remote_session.h"
#include "harness/run/cell_environment.h"
#include "harness/placement/placement.h"

namespace rpclab::harness {

// How the run places its trials when --server-host is given (`clients`:
// the --client-host session, or null for clients on this machine).
RemotePlacements remote_placements(RemoteSession& server, RemoteSession* clients, const CellEnvironment& env);

}  // namespace rpclab::harness
