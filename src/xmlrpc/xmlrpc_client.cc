#include "xmlrpc/xmlrpc_client.h"

#include <xmlrpc-c/girerr.hpp>

#include "xmlrpc/xmlrpc_status.h"
#include "xmlrpc/xmlrpc_wire.h"

namespace rpclab::xmlrpc {

CallStatus XmlrpcClient::failed(const std::string& what) { return from_client_error(what); }

CallStatus XmlrpcClient::call(const char* method, const xmlrpc_c::paramList& params, xmlrpc_c::value* result) {
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

CallStatus XmlrpcClient::null_call() {
  xmlrpc_c::value result;
  return call(kNullMethod, xmlrpc_c::paramList(), &result);
}

CallStatus XmlrpcClient::next(uint32_t client_id, uint32_t seq, NextReply* reply) {
  xmlrpc_c::paramList params;
  params.add(xmlrpc_c::value_int(to_i4(client_id)));
  params.add(xmlrpc_c::value_int(to_i4(seq)));
  xmlrpc_c::value result;
  CallStatus status = call(kNextMethod, params, &result);
  std::string why;
  if (status.ok() && !read_next_reply(result, reply, &why))
    return CallStatus::failure(ErrorKind::kCannotCode, "xmlrpc-c: " + why);
  return status;
}

CallStatus XmlrpcClient::echo(std::string_view payload, std::string* reply) {
  xmlrpc_c::paramList params;
  params.add(xmlrpc_c::value_bytestring(std::vector<unsigned char>(payload.begin(), payload.end())));
  xmlrpc_c::value result;
  CallStatus status = call(kEchoMethod, params, &result);
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
  CallStatus status = call(method, params, &result);
  std::string why;
  if (status.ok() && !read_doubles(result, out, &why))
    return CallStatus::failure(ErrorKind::kCannotCode, std::string("xmlrpc-c: the ") + method + " reply is " + why);
  return status;
}

CallStatus XmlrpcClient::is_prime(int32_t n, bool* prime) {
  xmlrpc_c::paramList params;
  params.add(xmlrpc_c::value_int(n));
  xmlrpc_c::value result;
  CallStatus status = call(kIsPrimeMethod, params, &result);
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
  CallStatus status = call(kAverageMethod, params, &result);
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

CallStatus XmlrpcClient::log_transform(const std::vector<double>& values, std::vector<double>* logs) {
  xmlrpc_c::paramList params;
  params.add(doubles_value(values));
  return call_doubles(kLogTransformMethod, params, logs);
}

}  // namespace rpclab::xmlrpc
