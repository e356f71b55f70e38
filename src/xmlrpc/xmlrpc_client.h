// What the xmlrpc and xmlrpc-pstream clients share: each operation's call as
// xmlrpc-c rpc objects, and their outcome on the ErrorKind enum. A subclass
// only says how one call is carried (curl's HTTP, or the packet stream).
#pragma once

#include <string>

#include <xmlrpc-c/client.hpp>

#include "transport/transport.h"

namespace rpclab::xmlrpc {

class XmlrpcClient : public RpcClient {
 public:
  CallStatus call(Operation op, const OpArgs& args, OpReply* reply) override;

  // The handlers of the operations it carries (its table in the .cc).
  CallStatus null_call(const Empty&, Empty*);
  CallStatus next(const NextRequest& request, NextReply* reply);
  CallStatus echo(const std::string& payload, std::string* reply);
  CallStatus is_prime(int32_t n, bool* prime);
  CallStatus average(const std::vector<double>& values, double* mean);
  CallStatus get_rand_nums(int32_t count, std::vector<double>* values);
  CallStatus log_transform(const std::vector<double>& values, std::vector<double>* logs);
  CallStatus get_record(const RecordRequest& request, KiralyRecord* record);

 protected:
  // Sends `rpc` and waits for its outcome, as rpc::call does: throws
  // girerr::error when the call could not be carried, or ConnectError.
  virtual void carry(xmlrpc_c::rpcPtr& rpc) = 0;
  // The status of a call carry() threw for (pstream: its own timeout).
  virtual CallStatus failed(const std::string& what);

 private:
  CallStatus call_method(const char* method, const xmlrpc_c::paramList& params, xmlrpc_c::value* result);
  // A call whose reply is an array of doubles.
  CallStatus call_doubles(const char* method, const xmlrpc_c::paramList& params, std::vector<double>* out);
};

// xmlrpc-c has no timeout of its own by default; rpclab gives every
// transport rpcgen's 25 s.
inline constexpr int kDefaultTimeoutMs = 25000;

}  // namespace rpclab::xmlrpc
