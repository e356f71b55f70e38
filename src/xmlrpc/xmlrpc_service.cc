#include "xmlrpc/xmlrpc_service.h"

#include "xmlrpc/xmlrpc_wire.h"

namespace rpclab::xmlrpc {
namespace {

// Signatures in xmlrpc-c's notation: result type, then parameter types.
class NullMethod : public xmlrpc_c::method {
 public:
  explicit NullMethod(ServerCore& core) : core_(core) {
    _signature = "i:";
    _help = "rpclab NULL: does nothing, returns 0";
  }
  void execute(const xmlrpc_c::paramList& params, xmlrpc_c::value* result) override {
    params.verifyEnd(0);
    core_.count_null();
    *result = xmlrpc_c::value_int(0);
  }

 private:
  ServerCore& core_;
};

// A method2: xmlrpc-c hands it the server's callInfo, which says who sent
// the call.
class NextMethod : public xmlrpc_c::method2 {
 public:
  NextMethod(ServerCore& core, OriginOf origin_of) : core_(core), origin_of_(origin_of) {
    _signature = "S:ii";
    _help = "rpclab NEXT(client_id, seq): Levy's sequence check; returns {status, expected_seq, times_executed}";
  }
  void execute(const xmlrpc_c::paramList& params, const xmlrpc_c::callInfo* info,
               xmlrpc_c::value* result) override {
    uint32_t client_id = from_i4(params.getInt(0));
    uint32_t seq = from_i4(params.getInt(1));
    params.verifyEnd(2);
    RequestOrigin origin = origin_of_ && info ? origin_of_(info) : RequestOrigin{};
    *result = next_reply_value(core_.next(client_id, seq, origin));
  }

 private:
  ServerCore& core_;
  OriginOf origin_of_;
};

class EchoMethod : public xmlrpc_c::method {
 public:
  explicit EchoMethod(ServerCore& core) : core_(core) {
    _signature = "6:6";
    _help = "rpclab ECHO(payload): returns the same bytes";
  }
  void execute(const xmlrpc_c::paramList& params, xmlrpc_c::value* result) override {
    std::vector<unsigned char> payload = params.getBytestring(0);
    params.verifyEnd(1);
    core_.count_echo();
    *result = xmlrpc_c::value_bytestring(payload);
  }

 private:
  ServerCore& core_;
};

}  // namespace

xmlrpc_c::registryPtr make_registry(ServerCore& core, OriginOf origin_of) {
  allow_largest_echo();
  xmlrpc_c::registryPtr registry(new xmlrpc_c::registry);
  registry->addMethod(kNullMethod, xmlrpc_c::methodPtr(new NullMethod(core)));
  registry->addMethod(kNextMethod, xmlrpc_c::methodPtr(new NextMethod(core, origin_of)));
  registry->addMethod(kEchoMethod, xmlrpc_c::methodPtr(new EchoMethod(core)));
  return registry;
}

}  // namespace rpclab::xmlrpc
