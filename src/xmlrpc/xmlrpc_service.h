// The XML-RPC service behind xmlrpc and xmlrpc-pstream: rpclab.null,
// rpclab.next and rpclab.echo (xmlrpc_wire.h) in an xmlrpc-c registry, each
// calling the shared ServerCore. xmlrpc-c decodes the call and checks the
// parameters' types; a call it cannot decode, or with the wrong parameters,
// gets an XML-RPC fault and touches nothing in the core. In its own header
// so the fuzz target (tests/fuzz/) can run the registry without a server.
#pragma once

#include <xmlrpc-c/registry.hpp>

#include "core/server_core.h"

namespace rpclab::xmlrpc {

// A registry with the three methods; `core` must outlive it.
xmlrpc_c::registryPtr make_registry(ServerCore& core);

}  // namespace rpclab::xmlrpc
