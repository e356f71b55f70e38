#include "xmlrpc/xmlrpc_client.h"

#include <xmlrpc-c/girerr.hpp>

#include "xmlrpc/xmlrpc_status.h"
#include "xmlrpc/xmlrpc_transport.h"
#include "xmlrpc/xmlrpc_wire.h"
#include "transport/client_handlers.h"

namespace rpclab::xmlrpc {

CallStatus XmlrpcClient::failed(const std::string& what) { return from_client_error(what); }

CallStatus XmlrpcClient::call_method(const char* method, const xmlrpc_c::paramList& params, xmlrpc_c::value* result) {
  xmlrpc_c::rpcPtr rpc(method, params);
  try {
    carry(rpc);
  } catch (const ConnectError& e) {
    return e.status();
  } catch (const std::exception& e) {  // girerr::error: curl's words, or the reply's XML
    return failed(e.what());
  }
  if (!rpc->isSuccessful()) {
    xmlrpc_c::fault fault = rpc->getFault();
    return from_fault(fault.getCode(), fault.getDescription());
  }
  *result = rpc->getResult();
  return CallStatus::success();
}

CallStatus XmlrpcClient::null_call(const Empty&, Empty*) {
  xmlrpc_c::value result;
  return call_method(kNullMethod, xmlrpc_c::paramList(), &result);
}

CallStatus XmlrpcClient::next(const NextRequest& request, NextReply* reply) {
  xmlrpc_c::paramList params;
  params.add(xmlrpc_c::value_int(to_i4(request.client_id)));
  params.add(xmlrpc_c::value_int(to_i4(request.seq)));
  xmlrpc_c::value result;
  CallStatus status = call_method(kNextMethod, params, &result);
  std::string why;
  if (status.ok() && !read_next_reply(result, reply, &why))
    return CallStatus::failure(ErrorKind::kCannotCode, "xmlrpc-c: " + why);
  return status;
}

CallStatus XmlrpcClient::echo(const std::string& payload, std::string* reply) {
  xmlrpc_c::paramList params;
  params.add(xmlrpc_c::value_bytestring(std::vector<unsigned char>(payload.begin(), payload.end())));
  xmlrpc_c::value result;
  CallStatus status = call_method(kEchoMethod, params, &result);
  if (!status.ok()) return status;
  if (result.type() != xmlrpc_c::value::TYPE_BYTESTRING)
    return CallStatus::failure(ErrorKind::kCannotCode, "xmlrpc-c: the ECHO reply is not base64");
  std::vector<unsigned char> bytes = xmlrpc_c::value_bytestring(result).vectorUcharValue();
  reply->assign(bytes.begin(), bytes.end());
  return status;
}

}  // namespace rpclab::xmlrpc

namespace rpclab::xmlrpc {

CallStatus XmlrpcClient::call_doubles(const char* method, const xmlrpc_c::paramList& params,
                                      std::vector<double>* out) {
  xmlrpc_c::value result;
  CallStatus status = call_method(method, params, &result);
  std::string why;
  if (status.ok() && !read_doubles(result, out, &why))
    return CallStatus::failure(ErrorKind::kCannotCode, std::string("xmlrpc-c: the ") + method + " reply is " + why);
  return status;
}

CallStatus XmlrpcClient::is_prime(int32_t n, bool* prime) {
  xmlrpc_c::paramList params;
  params.add(xmlrpc_c::value_int(n));
  xmlrpc_c::value result;
  CallStatus status = call_method(kIsPrimeMethod, params, &result);
  if (!status.ok()) return status;
  if (result.type() != xmlrpc_c::value::TYPE_BOOLEAN)
    return CallStatus::failure(ErrorKind::kCannotCode, "xmlrpc-c: the isPrime reply is not a boolean");
  *prime = xmlrpc_c::value_boolean(result);
  return status;
}

CallStatus XmlrpcClient::average(const std::vector<double>& values, double* mean) {
  xmlrpc_c::paramList params;
  params.add(doubles_value(values));
  xmlrpc_c::value result;
  CallStatus status = call_method(kAverageMethod, params, &result);
  if (!status.ok()) return status;
  if (result.type() != xmlrpc_c::value::TYPE_DOUBLE)
    return CallStatus::failure(ErrorKind::kCannotCode, "xmlrpc-c: the average reply is not a double");
  *mean = xmlrpc_c::value_double(result);
  return status;
}

CallStatus XmlrpcClient::get_rand_nums(int32_t count, std::vector<double>* values) {
  xmlrpc_c::paramList params;
  params.add(xmlrpc_c::value_int(count));
  return call_doubles(kGetRandNumsMethod, params, values);
}

CallStatus XmlrpcClient::get_record(const RecordRequest& request, KiralyRecord* record) {
  xmlrpc_c::paramList params;
  params.add(xmlrpc_c::value_int(request.id));
  params.add(xmlrpc_c::value_int(to_i4(request.photo_bytes)));
  xmlrpc_c::value result;
  CallStatus status = call_method(kGetRecordMethod, params, &result);
  std::string why;
  if (status.ok() && !read_record(result, record, &why))
    return CallStatus::failure(ErrorKind::kCannotCode, "xmlrpc-c: the getRecord reply: " + why);
  return status;
}

CallStatus XmlrpcClient::log_transform(const std::vector<double>& values, std::vector<double>* logs) {
  xmlrpc_c::paramList params;
  params.add(doubles_value(values));
  return call_doubles(kLogTransformMethod, params, logs);
}

namespace {

constexpr ClientHandler<XmlrpcClient> kHandlers[] = {
    {Operation::kNull, handle<&XmlrpcClient::null_call>},
    {Operation::kNext, handle<&XmlrpcClient::next>},
    {Operation::kEcho, handle<&XmlrpcClient::echo>},
    {Operation::kIsPrime, handle<&XmlrpcClient::is_prime>},
    {Operation::kAverage, handle<&XmlrpcClient::average>},
    {Operation::kGetRandNums, handle<&XmlrpcClient::get_rand_nums>},
    {Operation::kLogTransform, handle<&XmlrpcClient::log_transform>},
    {Operation::kGetRecord, handle<&XmlrpcClient::get_record>},
};
static_assert(operations_of(kHandlers) == kClientOperations, "the row's operations are its handlers'");

}  // namespace

CallStatus XmlrpcClient::call(Operation op, const OpArgs& args, OpReply* reply) {
  return dispatch(kHandlers, *this, op, args, reply);
}

}  // namespace rpclab::xmlrpc
