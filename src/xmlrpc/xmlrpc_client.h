// What the xmlrpc and xmlrpc-pstream clients share: the three calls as
// xmlrpc-c rpc objects, and their outcome on the ErrorKind enum. A subclass
// only says how one call is carried (curl's HTTP, or the packet stream).
#pragma once

#include <string>

#include <xmlrpc-c/client.hpp>

#include "transport/transport.h"

namespace rpclab::xmlrpc {

class XmlrpcClient : public RpcClient {
 public:
  CallStatus null_call() override;
  CallStatus next(uint32_t client_id, uint32_t seq, NextReply* reply) override;
  CallStatus echo(std::string_view payload, std::string* reply) override;
  CallStatus is_prime(int32_t n, bool* prime) override;
  CallStatus average(const std::vector<double>& values, double* mean) override;
  CallStatus get_rand_nums(int32_t count, std::vector<double>* values) override;
  CallStatus log_transform(const std::vector<double>& values, std::vector<double>* logs) override;
  CallStatus get_record(int32_t id, uint32_t photo_bytes, KiralyRecord* record) override;

 protected:
  // Sends `rpc` and waits for its outcome, as rpc::call does: throws
  // girerr::error when the call could not be carried, or ConnectError.
  virtual void carry(xmlrpc_c::rpcPtr& rpc) = 0;
  // The status of a call carry() threw for (pstream: its own timeout).
  virtual CallStatus failed(const std::string& what);

 private:
  CallStatus call(const char* method, const xmlrpc_c::paramList& params, xmlrpc_c::value* result);
  // A call whose reply is an array of doubles.
  CallStatus call_doubles(const char* method, const xmlrpc_c::paramList& params, std::vector<double>* out);
};

// xmlrpc-c has no timeout of its own by default; rpclab gives every
// transport rpcgen's 25 s.
inline constexpr int kDefaultTimeoutMs = 25000;

}  // namespace rpclab::xmlrpc
