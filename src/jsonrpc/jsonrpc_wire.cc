#include "jsonrpc/jsonrpc_wire.h"

#include <json/version.h>
#include "jsonrpc/jsonrpccpp.h"

namespace rpclab::jsonrpc {

Json::Value next_reply_value(const NextReply& reply) {
  Json::Value v(Json::objectValue);
  v["status"] = static_cast<Json::UInt>(reply.status);
  v["expected_seq"] = static_cast<Json::UInt>(reply.expected_seq);
  v["times_executed"] = static_cast<Json::UInt>(reply.times_executed);
  return v;
}

bool read_u32(const Json::Value& object, const char* name, uint32_t* out) {
  if (!object.isObject() || !object.isMember(name)) return false;
  const Json::Value& v = object[name];
  if (!v.isUInt()) return false;  // also refuses 2^32 and up, negatives, 1.5 and "1"
  *out = v.asUInt();
  return true;
}

bool read_i32(const Json::Value& object, const char* name, int32_t* out) {
  if (!object.isObject() || !object.isMember(name)) return false;
  const Json::Value& v = object[name];
  if (!v.isInt()) return false;
  *out = v.asInt();
  return true;
}

Json::Value doubles_value(const std::vector<double>& values) {
  Json::Value array(Json::arrayValue);
  array.resize(static_cast<Json::ArrayIndex>(values.size()));
  for (Json::ArrayIndex i = 0; i < values.size(); ++i) array[i] = values[i];
  return array;
}

bool read_doubles(const Json::Value& value, std::vector<double>* out) {
  if (!value.isArray()) return false;
  out->clear();
  out->reserve(value.size());
  for (const Json::Value& item : value) {
    if (!item.isNumeric()) return false;
    out->push_back(item.asDouble());
  }
  return true;
}

bool read_next_reply(const Json::Value& value, NextReply* reply, std::string* why) {
  uint32_t status = 0;
  for (auto [name, out] : {std::pair<const char*, uint32_t*>{"status", &status},
                           {"expected_seq", &reply->expected_seq},
                           {"times_executed", &reply->times_executed}})
    if (!read_u32(value, name, out)) {
      *why = std::string("the NEXT reply has no integer '") + name + "'";
      return false;
    }
  if (status > kLastNextStatus) {
    *why = "status " + std::to_string(status) + " is not a NextStatus (0 to " + std::to_string(kLastNextStatus) + ")";
    return false;
  }
  reply->status = static_cast<NextStatus>(status);
  return true;
}

std::string library_version() {
  return "libjson-rpc-cpp " + std::to_string(JSONRPC_CPP_MAJOR_VERSION) + "." +
         std::to_string(JSONRPC_CPP_MINOR_VERSION) + "." + std::to_string(JSONRPC_CPP_PATCH_VERSION) +
         ", jsoncpp " JSONCPP_VERSION_STRING;
}

}  // namespace rpclab::jsonrpc
