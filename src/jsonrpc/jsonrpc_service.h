// The JSON-RPC service behind the jsonrpc transport: null, next and echo
// (jsonrpc_wire.h) as libjson-rpc-cpp procedures, each calling the shared
// ServerCore. libjson-rpc-cpp parses the request, finds the procedure and
// checks the parameters' JSON types; these methods check the values
// (ranges, base64) and answer "invalid params" for what does not fit,
// touching nothing in the core. handle() is what the HTTP server runs for
// each request body; the fuzz target (tests/fuzz/) runs it without one.
#pragma once

#include "jsonrpc/jsonrpccpp.h"

#include <string>

#include "server/request_origin.h"
#include "server/server_core.h"

namespace rpclab::jsonrpc {

// libjson-rpc-cpp hands its request handler to a connector; this one only
// keeps it for handle(). It is a base of Service so that it exists before
// AbstractServer's constructor hands the handler over.
class HandlerSlot : public ::jsonrpc::AbstractServerConnector {
 public:
  bool StartListening() override { return true; }
  bool StopListening() override { return true; }
  bool SendResponse(const std::string&, void*) override { return false; }
};

class Service : private HandlerSlot, public ::jsonrpc::AbstractServer<Service> {
 public:
  explicit Service(ServerCore& core);

  // The JSON text to send back for one request body ("" for a
  // notification), whatever the body holds. Safe from several threads.
  // `origin` is who sent it, for the journal: libjson-rpc-cpp calls the
  // procedures with their parameters only, so handle() leaves it to
  // next() in a thread-local for the length of the call.
  std::string handle(const std::string& request, const RequestOrigin& origin = {});

  void null_call(const Json::Value& params, Json::Value& result);
  void next(const Json::Value& params, Json::Value& result);
  void echo(const Json::Value& params, Json::Value& result);
  void is_prime(const Json::Value& params, Json::Value& result);
  void average(const Json::Value& params, Json::Value& result);
  void get_rand_nums(const Json::Value& params, Json::Value& result);
  void log_transform(const Json::Value& params, Json::Value& result);
  void get_record(const Json::Value& params, Json::Value& result);

 private:
  ServerCore& core_;
};

}  // namespace rpclab::jsonrpc
