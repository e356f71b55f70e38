// What an xmlrpc-c call came back with, on the one ErrorKind enum. The C++
// client reports a failed HTTP transaction as a girerr::error whose text is
// all that is left of curl's code (xmlrpc-c 1.33 gives every network
// failure the one fault code XMLRPC_NETWORK_ERROR), so the mapping reads
// curl's words; tests/rpc/xmlrpc_status_test.cc holds them as curl 7.88
// writes them. An XML-RPC fault maps by its code.
#pragma once

#include <string>

#include "transport/outcome.h"

namespace rpclab::xmlrpc {

// A transport or decoding failure: the text of the girerr::error.
CallStatus from_client_error(const std::string& what);
// A fault the server answered with.
CallStatus from_fault(int code, const std::string& description);

}  // namespace rpclab::xmlrpc
