// The XML-RPC service behind xmlrpc and xmlrpc-pstream: rpclab.null,
// rpclab.next and rpclab.echo (xmlrpc_wire.h) in an xmlrpc-c registry, each
// calling the shared ServerCore. xmlrpc-c decodes the call and checks the
// parameters' types; a call it cannot decode, or with the wrong parameters,
// gets an XML-RPC fault and touches nothing in the core. In its own header
// so the fuzz target (tests/fuzz/) can run the registry without a server.
#pragma once

#include <xmlrpc-c/registry.hpp>

#include "server/request_origin.h"
#include "server/server_core.h"

namespace rpclab::xmlrpc {

// Who sent a call, from what the server hands the method (xmlrpc-c's
// callInfo, whose kind depends on the server: Abyss's session, or the one
// rpclab's packet-stream loop passes per connection).
using OriginOf = RequestOrigin (*)(const xmlrpc_c::callInfo* info);

// A registry with the three methods; `core` must outlive it. Without
// `origin_of` every NEXT is journalled with its sender unknown.
xmlrpc_c::registryPtr make_registry(ServerCore& core, OriginOf origin_of = nullptr);

}  // namespace rpclab::xmlrpc
