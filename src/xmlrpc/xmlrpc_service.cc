#include "xmlrpc/xmlrpc_service.h"

#include "xmlrpc/xmlrpc_wire.h"
#include "server/server_core.h"

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
    try {
      *result = next_reply_value(core_.next(client_id, seq, origin));
    } catch (const AtMostOnceUnavailable& e) {  // not run: the client sees a fault
      throw xmlrpc_c::fault(e.what(), xmlrpc_c::fault::CODE_INTERNAL);
    }
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

// Allman's four operations: xmlrpc-c checks each parameter's XML-RPC type
// by the signature; the core refuses values it cannot take, as a fault.
[[noreturn]] void refuse(const std::string& why) { throw xmlrpc_c::fault(why, xmlrpc_c::fault::CODE_TYPE); }

std::vector<double> doubles_param(const xmlrpc_c::paramList& params) {
  std::vector<double> values;
  std::string why;
  if (!read_doubles(params[0], &values, &why)) refuse("parameter 0: " + why);
  return values;
}

class AllmanMethod : public xmlrpc_c::method {
 public:
  AllmanMethod(ServerCore& core, const char* signature, const char* help) : core_(core) {
    _signature = signature;
    _help = help;
  }

 protected:
  ServerCore& core_;
};

class IsPrimeMethod : public AllmanMethod {
 public:
  explicit IsPrimeMethod(ServerCore& core) : AllmanMethod(core, "b:i", "Allman's IsPrime(n)") {}
  void execute(const xmlrpc_c::paramList& params, xmlrpc_c::value* result) override {
    int n = params.getInt(0);
    params.verifyEnd(1);
    *result = xmlrpc_c::value_boolean(core_.is_prime(n));
  }
};

class AverageMethod : public AllmanMethod {
 public:
  explicit AverageMethod(ServerCore& core) : AllmanMethod(core, "d:A", "Allman's Average(array of double)") {}
  void execute(const xmlrpc_c::paramList& params, xmlrpc_c::value* result) override {
    params.verifyEnd(1);
    std::vector<double> values = doubles_param(params);
    double mean = 0;
    if (auto why = core_.average(values.data(), values.size(), &mean)) refuse(*why);
    *result = xmlrpc_c::value_double(mean);
  }
};

class GetRandNumsMethod : public AllmanMethod {
 public:
  explicit GetRandNumsMethod(ServerCore& core) : AllmanMethod(core, "A:i", "Allman's GetRandNums(count)") {}
  void execute(const xmlrpc_c::paramList& params, xmlrpc_c::value* result) override {
    int count = params.getInt(0);
    params.verifyEnd(1);
    std::vector<double> values;
    if (auto why = core_.get_rand_nums(count, &values)) refuse(*why);
    *result = doubles_value(values);
  }
};

class LogTransformMethod : public AllmanMethod {
 public:
  explicit LogTransformMethod(ServerCore& core)
      : AllmanMethod(core, "A:A", "Allman's LogTransform(array of double)") {}
  void execute(const xmlrpc_c::paramList& params, xmlrpc_c::value* result) override {
    params.verifyEnd(1);
    std::vector<double> values = doubles_param(params), logs;
    if (auto why = core_.log_transform(values.data(), values.size(), &logs)) refuse(*why);
    *result = doubles_value(logs);
  }
};

// Kiraly's GetRecord: the photo size travels as an i4 (its 32 bits, as ids do).
class GetRecordMethod : public AllmanMethod {
 public:
  explicit GetRecordMethod(ServerCore& core) : AllmanMethod(core, "S:ii", "Kiraly's GetRecord(id, photo_bytes)") {}
  void execute(const xmlrpc_c::paramList& params, xmlrpc_c::value* result) override {
    int id = params.getInt(0);
    uint32_t photo_bytes = from_i4(params.getInt(1));
    params.verifyEnd(2);
    std::shared_ptr<const KiralyRecord> record;
    if (auto why = core_.get_record(id, photo_bytes, &record)) refuse(*why);
    *result = record_value(*record);
  }
};

}  // namespace

xmlrpc_c::registryPtr make_registry(ServerCore& core, OriginOf origin_of) {
  allow_largest_echo();
  xmlrpc_c::registryPtr registry(new xmlrpc_c::registry);
  registry->addMethod(kNullMethod, xmlrpc_c::methodPtr(new NullMethod(core)));
  registry->addMethod(kNextMethod, xmlrpc_c::methodPtr(new NextMethod(core, origin_of)));
  registry->addMethod(kEchoMethod, xmlrpc_c::methodPtr(new EchoMethod(core)));
  registry->addMethod(kIsPrimeMethod, xmlrpc_c::methodPtr(new IsPrimeMethod(core)));
  registry->addMethod(kAverageMethod, xmlrpc_c::methodPtr(new AverageMethod(core)));
  registry->addMethod(kGetRandNumsMethod, xmlrpc_c::methodPtr(new GetRandNumsMethod(core)));
  registry->addMethod(kLogTransformMethod, xmlrpc_c::methodPtr(new LogTransformMethod(core)));
  registry->addMethod(kGetRecordMethod, xmlrpc_c::methodPtr(new GetRecordMethod(core)));
  return registry;
}

}  // namespace rpclab::xmlrpc
