#include "xmlrpc/xmlrpc_wire.h"

#include <xmlrpc-c/base.h>

#include <map>
#include <mutex>

namespace rpclab::xmlrpc {
namespace {

// base64 of 16 MiB is 22,369,624 characters, plus a CRLF every 76, plus
// the envelope.
constexpr size_t kXmlSizeLimit = size_t{32} << 20;

bool read_i4(const std::map<std::string, xmlrpc_c::value>& fields, const char* name, uint32_t* out,
             std::string* why) {
  auto it = fields.find(name);
  if (it == fields.end()) {
    *why = std::string("no member '") + name + "'";
    return false;
  }
  if (it->second.type() != xmlrpc_c::value::TYPE_INT) {
    *why = std::string("member '") + name + "' is not an i4";
    return false;
  }
  *out = from_i4(xmlrpc_c::value_int(it->second).cvalue());
  return true;
}

}  // namespace

xmlrpc_c::value next_reply_value(const NextReply& reply) {
  std::map<std::string, xmlrpc_c::value> fields;
  fields["status"] = xmlrpc_c::value_int(to_i4(static_cast<uint32_t>(reply.status)));
  fields["expected_seq"] = xmlrpc_c::value_int(to_i4(reply.expected_seq));
  fields["times_executed"] = xmlrpc_c::value_int(to_i4(reply.times_executed));
  return xmlrpc_c::value_struct(fields);
}

bool read_next_reply(const xmlrpc_c::value& value, NextReply* reply, std::string* why) {
  if (value.type() != xmlrpc_c::value::TYPE_STRUCT) {
    *why = "the NEXT reply is not a struct";
    return false;
  }
  std::map<std::string, xmlrpc_c::value> fields = xmlrpc_c::value_struct(value).cvalue();
  uint32_t status = 0;
  if (!read_i4(fields, "status", &status, why) || !read_i4(fields, "expected_seq", &reply->expected_seq, why) ||
      !read_i4(fields, "times_executed", &reply->times_executed, why))
    return false;
  if (status > kLastNextStatus) {
    *why = "status " + std::to_string(status) + " is not a NextStatus (0 to " + std::to_string(kLastNextStatus) + ")";
    return false;
  }
  reply->status = static_cast<NextStatus>(status);
  return true;
}

xmlrpc_c::value doubles_value(const std::vector<double>& values) {
  std::vector<xmlrpc_c::value> items;
  items.reserve(values.size());
  for (double v : values) items.push_back(xmlrpc_c::value_double(v));
  return xmlrpc_c::value_array(items);
}

bool read_doubles(const xmlrpc_c::value& value, std::vector<double>* out, std::string* why) {
  if (value.type() != xmlrpc_c::value::TYPE_ARRAY) {
    *why = "not an array";
    return false;
  }
  std::vector<xmlrpc_c::value> items = xmlrpc_c::value_array(value).vectorValueValue();
  out->clear();
  out->reserve(items.size());
  for (const xmlrpc_c::value& item : items) {
    if (item.type() != xmlrpc_c::value::TYPE_DOUBLE) {
      *why = "item " + std::to_string(out->size()) + " is not a double";
      return false;
    }
    out->push_back(xmlrpc_c::value_double(item));
  }
  return true;
}

void allow_largest_echo() {
  static std::once_flag once;
  std::call_once(once, [] { xmlrpc_limit_set(XMLRPC_XML_SIZE_LIMIT_ID, kXmlSizeLimit); });
}

std::string library_version() {
  unsigned major = 0, minor = 0, point = 0;
  xmlrpc_version(&major, &minor, &point);
  return "xmlrpc-c " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(point);
}

}  // namespace rpclab::xmlrpc
